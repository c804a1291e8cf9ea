// Package eval is the Pact interpreter: the compiler, the evaluator,
// capabilities, guards, the natives' registration and gas. The values it
// computes with, and their pure operations, are package value's.
//
// Semantics follow Pact 5.4 (see shared/spec/pact.md §2.6, §3.4, §3.6 and
// §4). Natives are Native records over package value's operations
// (natives.go); Interp.Register adds more (the REPL's).
//
// Evaluation is metered as P5's is (gas.go, nativegas.go, sizeof.go, and
// the module costs of modload.go, over package p5's measures): Interp.Gas
// charges Pact 5's table model (package gas) at P5's charging points and in
// P5's order, so totals, the gas log and out-of-gas errors match upstream.
// Without a gas limit an evaluation is still bounded: an evaluation budget
// priced by the table model, an element limit on list-building natives and
// a call depth (interp.go), and value.Pretty cuts values too large to render.
// Since P5 prices a few natives far below their cost, a node may also stop
// an evaluation in time: Interp.Interrupt, checked at every charge.
//
// Its files, by layer:
//
//   - the evaluator's definitions: defs.go (modules, definitions and their
//     compiled bodies), typecheck.go (values checked against types, with
//     P5's charges), errstack.go (the call stack an error carries);
//   - resolution and compilation: the compiler and the module hasher share
//     package resolve's desugaring pass (the one pass over the syntax) and
//     rename.go's renamer (name resolution, as P5's renamer reads names,
//     written once; where the two read a name differently it says why):
//     resolved.go (the pass's literals' values and its errors as eval's),
//     rename.go, compile.go (the terms, their names resolved, made the
//     evaluator's nodes), load.go, ir.go, modhash.go (P5's module hashes:
//     the same terms written as their lowering into P5's IR, renamed and
//     CBOR-encoded through package p5's IR writer, which also measures
//     P5's stored images),
//     restore.go, modload.go, deploy.go, and prepared.go (top-level forms
//     evaluated again and again, their compiled forms kept while what
//     compiling read is unchanged);
//   - evaluation: interp.go, exec.go, specials.go, natives.go, dbnatives.go,
//     natives_crypto.go, caps.go, enforce.go, pacts.go, coverage.go,
//     arena.go, spare.go (an interpreter's memory handed to the next one);
//   - metering: gas.go, nativegas.go, gasnames.go, sizeof.go;
//   - aliases.go: the moved values' old names, for the packages outside
//     pact not yet moved to package value.
//
// It imports the language's other packages only: syntax, resolve, value,
// p5, gas, db and jsontext.
package eval
