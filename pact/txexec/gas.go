package txexec

import "github.com/ledgernode/ledger-node/pact/eval"

// ChainGas is the node's gas model, in milligas per unit of each kind of
// work. It is ours, not upstream's table (DECISIONS.md): flat prices per
// application, row and byte of module, chosen so that a coin transfer
// costs a few hundred gas, well inside the gas limits clients send by
// default (@kadena/client: 2,500), and a contract deployment costs about
// one gas per byte of source.
type ChainGas struct {
	Apply, Read, Write, ModuleByte int64
}

// Cost implements eval.GasModel.
func (g ChainGas) Cost(kind eval.GasKind, units int64) int64 {
	switch kind {
	case eval.GasApply:
		return g.Apply * units
	case eval.GasRead:
		return g.Read * units
	case eval.GasWrite:
		return g.Write * units
	case eval.GasModuleLoad:
		return g.ModuleByte * units
	}
	return 0
}

// DefaultGasModel is the gas model of the node's chains.
var DefaultGasModel eval.GasModel = ChainGas{Apply: 1000, Read: 10_000, Write: 25_000, ModuleByte: 1000}
