// Package gas is Pact 5's table gas model: its units, the two cost
// configurations (the table model's and the free model's), the cost formulas,
// the flat cost of every core native, and the meter that adds charges up
// against a limit.
//
// Everything here is arithmetic on plain numbers: the interpreter measures
// its values (bit lengths, character counts, byte-size estimates) and asks
// this package what they cost, so the model can be read and tested without
// an interpreter. The figures and their rounding are upstream's
// (kadena-io/pact-5 at bfc5310c, the Pact 5.4 that chainweb-node 2.32 runs:
// pact/Pact/Core/Gas/TableGasModel.hs, Gas/Types.hs, Gas/Utils.hs and
// SatWord.hs); the fact sheet shared/spec/pact5-gas.md restates them.
//
// Units are milligas (1 gas = 1000 milligas). All arithmetic saturates at
// 2^64-1 and clamps below at 0, as upstream's SatWord does, so no charge can
// overflow into a small number.
package gas
