// Package value holds Pact's runtime values and their pure operations:
// what the interpreter computes with, and what the command API, results
// and the mempool read and write without running anything.
//
// It follows starlark-go's value layer: one Value interface, one concrete
// type per runtime kind, and the natives' pure cores as small functions
// over Values that return a *Error carrying P5's message text. Semantics
// follow Pact 5.4 (see shared/spec/pact.md §2.6, §3.4, §3.6 and §4).
//
// Values are immutable: every operation returns a new value and never
// mutates an argument, so values can be shared freely between the
// evaluator, the database layer and concurrent readers. The evaluator's
// own values (closures, natives as values) live in package eval and
// implement Value there.
//
// Its files:
//
//   - values: value.go, integer.go, bigtext.go (the digit count int-to-str
//     charges, found without dividing a digit at a time), decimal.go,
//     chars.go (strings counted and cut by characters a word at a time),
//     object.go (objects, and the cells an evaluation cuts small objects
//     from), time.go (the Time value and the time natives over package
//     timefmt), types.go (Pact types as written), guards.go, names.go,
//     principal.go, errors.go (the typed error and its call stack);
//   - their pure operations (the natives' cores): compare.go, numeric.go,
//     transcendental.go, strings.go, msgdata.go, crypto.go, hash.go;
//   - JSON: json.go (writing values as P5's StableEncoding), jsondecode.go
//     and jsonparse.go (reading them, through package jsontext's parser);
//   - rendering: render.go (Pretty and Show, over package pretty's layout).
//
// It imports the language's leaf packages only: syntax (source spans),
// crypto, jsontext, keyorder, pretty and timefmt. Gas is not its concern:
// the evaluator charges before it calls an operation.
package value
