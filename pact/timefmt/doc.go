// Package timefmt formats and parses times as pact-time (the library behind
// Pact's format-time, parse-time and time natives) does, quirks included. A
// time is a count of microseconds since the POSIX epoch; package eval wraps
// it in its Time value and charges the natives' gas.
//
//   - format.go: the calendar (proleptic Gregorian, ordinal and week dates,
//     Haskell's flooring division) and Format, with its %-codes.
//   - parse.go: Parse, the backtracking strptime-like reader of the same
//     codes, with its work bounded.
//
// It imports nothing of this module.
package timefmt
