// Package typecheck is the static type checker of Pact modules: what the
// REPL's (typecheck "m") and pact -s's verify run. It infers the type of
// every expression of a module's functions, capabilities, defpacts and
// constants and checks them where the interpreter checks them at run
// time, so that a type error is found before the code runs:
//
//   - a function's declared result, a let's declared binder, the
//     declared parameters of each call (of the module's members, of other
//     modules', through a module reference m::f against its interface);
//   - natives, against the signatures the interpreter accepts (natives.go;
//     P5 adds an integer to a decimal, and so does the table);
//   - tables: a write or insert must give the schema's every field, an
//     update only schema fields, read and select only schema columns,
//     with-read, with-default-read and bind only fields the row has;
//   - modules passed as module{i}: they must implement i;
//   - special forms' arities and their conditions; partial applications
//     (natives take fewer arguments and are functions; a module's function
//     may not take more than it declares).
//
// The inference is local, not Hindley-Milner: a parameter declared
// without a type is generic (every use of it passes, and constrains its
// callers, not the function), a function without a declared result
// returns what its body infers, and a type the checker cannot know (a
// read-msg, an at of an object) is unknown. A check against an unknown
// type is undecided: the Report lists it apart from the errors, and the
// REPL then warns rather than says "successful" (DECISIONS.md, typecheck).
// A union (the branches of an if, the elements of a list literal) fails a
// check when one of its alternatives does: the code fails when that branch
// is taken. Every error is one the interpreter raises when the code is
// reached; pact/conformance -typecheck counts them over a suite.
//
// Its files: types.go (the types), fits.go (checks and signature
// matching), natives.go (the signature table), check.go (names, calls,
// the walk), special.go (special forms, tables, binding forms), report.go
// (the texts).
package typecheck
