package eval

import "strconv"

// GasKind names what a charge is for.
type GasKind uint8

const (
	// GasApply is one application (native or user function) or special
	// form; units is 1.
	GasApply GasKind = iota
	// GasRead is a database read; units is the number of rows.
	GasRead
	// GasWrite is a database write; units is the number of rows.
	GasWrite
	// GasModuleLoad is installing a module; units is its source size in
	// bytes.
	GasModuleLoad
)

// GasModel prices evaluation in milligas. The interpreter calls it at every
// charging point; a model returns 0 for what it does not price.
type GasModel interface {
	Cost(kind GasKind, units int64) int64
}

// FreeGas is P5's default REPL model: everything costs nothing.
type FreeGas struct{}

func (FreeGas) Cost(GasKind, int64) int64 { return 0 }

// ConstantGas charges the same number of milligas per unit of everything
// (`pact -s` with a gasRate).
type ConstantGas struct{ Milli int64 }

func (m ConstantGas) Cost(_ GasKind, units int64) int64 { return m.Milli * units }

// Gas meters evaluation. A nil Model is the free model.
type Gas struct {
	Model GasModel
	// Limit in milligas; 0 means unlimited.
	Limit int64
	// Used is the milligas consumed so far.
	Used int64
}

// Charge adds the model's price of kind×units and fails with P5's
// GasExceeded once the limit is passed.
func (g *Gas) Charge(kind GasKind, units int64) error {
	if g.Model == nil {
		return nil
	}
	g.Used += g.Model.Cost(kind, units)
	if g.Limit > 0 && g.Used > g.Limit {
		return &Error{Kind: ErrGas, Msg: "Gas limit (" + strconv.FormatInt(g.Limit/1000, 10) + ") exceeded: " +
			strconv.FormatInt((g.Used+999)/1000, 10)}
	}
	return nil
}
