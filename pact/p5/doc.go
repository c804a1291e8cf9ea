// Package p5 holds Pact 5's stored forms of a module and how they are
// measured: the writer of P5's IR as CBOR (Pact.Core.Serialise.CBOR_V1,
// what module hashes are taken over) and as P5's byte-size estimate
// (Pact.Core.SizeOf, what installing a module is charged by), and a
// module's image (its ModuleData: its definitions and the definitions of
// other modules it depends on, measured as P5's gas charges need it).
//
// Its files: irwriter.go (Writer: both measures at once, in the shape of
// P5's Haskell types), values.go (types, literals and Pact values as the
// IR writes them), builtins.go (P5's natives by their enumeration index,
// what the IR names a native by), image.go (Image, its definitions and
// dependencies, the transitive-dependency walk P5 charges for, and the
// uncharged closure a module installed without gas or rebuilt from
// storage gets), sizes.go (SizeOf's sizes of the pieces of an encoding) and valuesize.go
// (SizeCounter: SizeOf of values, which package eval charges writes,
// reads, hashes and the rest by).
//
// What is written comes from package eval: its module hasher (modhash.go)
// lowers, renames and walks a module's terms, with the renamer its
// compiler shares, and writes them through Writer; its installer keeps
// the Image with the compiled module. The hasher stays in eval until the
// renamer and the compiler's declarations it reads have an interface of
// their own (issue 33).
//
// It imports the language's lower packages only: syntax, value and gas.
package p5
