// Package eval holds the Pact interpreter's runtime: values, their pure
// operations, and (on top of them) the evaluator.
//
// The value layer follows starlark-go: one Value interface, one concrete
// type per runtime kind, and the natives' pure cores as small functions over
// Values that return a *Error carrying P5's message text. Semantics follow
// Pact 5.4 (see shared/spec/pact.md §2.6, §3.4, §3.6 and §4).
//
// Values are immutable: every operation returns a new value and never
// mutates an argument, so values can be shared freely between the
// evaluator, the database layer and concurrent readers.
//
// Evaluation is metered as P5's is (gas.go, nativegas.go, sizeof.go, and
// the module costs of irwriter.go, p5image.go and modload.go): Interp.Gas
// charges Pact 5's table model (package gas) at P5's charging points and in
// P5's order, so totals, the gas log and out-of-gas errors match upstream.
// Without a gas limit an evaluation is still bounded: an evaluation budget
// priced by the table model, an element limit on list-building natives and
// a call depth (interp.go), and Pretty cuts values too large to render.
// Since P5 prices a few natives far below their cost, a node may also stop
// an evaluation in time: Interp.Interrupt, checked at every charge.
//
// Its files, by layer:
//
//   - values: value.go, integer.go, bigtext.go (the digit count int-to-str
//     charges, found without dividing a digit at a time), decimal.go,
//     chars.go (strings counted and cut by characters a word at a time),
//     object.go, time.go (the Time value and the time natives over package
//     timefmt), types.go, defs.go, guards.go, compare.go, hash.go, names.go,
//     principal.go;
//   - their pure operations (the natives' cores): numeric.go,
//     transcendental.go, strings.go, msgdata.go, crypto.go, natives_crypto.go;
//   - JSON: json.go (writing values as P5's StableEncoding), jsondecode.go
//     and jsonparse.go (reading them, through package jsontext's parser);
//   - rendering: render.go (Pretty and Show, over package pretty's layout);
//   - resolution and compilation: the compiler and the module hasher share
//     package resolve's desugaring pass (the one pass over the syntax) and
//     rename.go's renamer (name resolution, as P5's renamer reads names,
//     written once; where the two read a name differently it says why):
//     resolved.go (the pass's literals' values and its errors as eval's),
//     rename.go, compile.go (the terms, their names resolved, made the
//     evaluator's nodes), load.go, ir.go, modhash.go (P5's module hashes:
//     the same terms written as their lowering into P5's IR, renamed and
//     CBOR-encoded), irwriter.go and p5image.go (P5's stored images),
//     restore.go, modload.go, deploy.go, and prepared.go (top-level forms
//     evaluated again and again, their compiled forms kept while what
//     compiling read is unchanged);
//   - evaluation: interp.go, exec.go, specials.go, natives.go, dbnatives.go,
//     caps.go, enforce.go, pacts.go, coverage.go, arena.go, spare.go (an
//     interpreter's memory handed to the next one), errors.go;
//   - metering: gas.go, nativegas.go, gasnames.go, sizeof.go.
//
// It imports the language's other packages only: syntax, resolve, gas, db,
// crypto, jsontext, timefmt, pretty and keyorder.
package eval
