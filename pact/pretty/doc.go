// Package pretty is a minimal port of the parts of Haskell's prettyprinter
// that P5's REPL rendering of values goes through. Guards are printed with
// `encloseSep` and `list`, which break lines when a value does not fit the
// 80-column page of `layoutPretty defaultLayoutOptions`; a long keyset
// therefore prints over two lines in the REPL, and package eval's Pretty
// reproduces that exactly through this package.
//
// Only the constructors Pact values use exist here (pretty.go: Text, Cat,
// EncloseSep, List, and Render, Wadler-Leijen's layout). There is no
// nesting: P5's value documents never indent.
//
// It imports nothing of this module.
package pretty
