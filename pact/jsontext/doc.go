// Package jsontext reads and writes JSON text (RFC 8259) the way Pact's
// readers and writers need it: one parser for the command wire format
// (pact/api) and for Pact values (pact/eval), and the string escaping that
// both write with.
//
//   - parse.go: Parse, a strict parser that hands each value to the
//     caller's Builder, so that every caller keeps its own tree; numbers
//     arrive as their text, and malformed input is a *SyntaxError naming
//     the problem and its byte offset (each caller words its own message).
//   - write.go: AppendString, aeson's escaping of a string, and
//     AppendPlain, its shortcut for plain ASCII that a caller with its own
//     handling of other strings (pact/result) tries first.
//
// The two callers read two things differently, and Options says which:
// an unpaired UTF-16 surrogate escape (U+FFFD, or an error) and when a
// string's UTF-8 is checked (rune by rune, or once the string is read).
//
// It imports nothing of this module.
package jsontext
