package eval

import (
	"errors"

	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// What the evaluator reads of package resolve's terms that resolve cannot
// know: a literal's Value, and a desugaring error as the evaluator's.

// litValue is a literal term's value.
func litValue(t *resolve.Lit) value.Value {
	switch x := t.Src.(type) {
	case *syntax.IntLit:
		return litInt(t)
	case *syntax.DecimalLit:
		return value.NewDecimal(litInt(t), uint8(x.Places()))
	case *syntax.StringLit:
		return value.String(x.Value)
	case *syntax.BoolLit:
		return value.Bool(x.Value)
	case *syntax.Var:
		return litInt(t)
	}
	return value.UnitValue
}

// litInt is a numeric literal's integer: its value, or a decimal's
// unscaled mantissa.
func litInt(t *resolve.Lit) value.Integer {
	if t.Int == nil {
		return value.NewInt(t.Small)
	}
	return value.NewIntBig(t.Int)
}

// desugarErr is a desugaring error as the evaluator reports it: a located
// evaluation error with the same text.
func desugarErr(err *resolve.Error) *value.Error { return compileErr(err.Loc, err.Msg) }

// desugared passes a term of the desugaring pass on, its error (a
// *resolve.Error, in P5 mode only) made the evaluator's.
func desugared[T any](t T, err error) (T, error) {
	if err != nil {
		var re *resolve.Error
		if errors.As(err, &re) {
			return t, desugarErr(re)
		}
		return t, err
	}
	return t, nil
}

// termValue is the value of a term made of literals only.
func termValue(t resolve.Term) (value.Value, bool) {
	switch t := t.(type) {
	case *resolve.Lit:
		return litValue(t), !t.Named
	case *resolve.List:
		l := make(value.List, len(t.Elems))
		for i, e := range t.Elems {
			v, ok := termValue(e)
			if !ok {
				return nil, false
			}
			l[i] = v
		}
		return l, true
	case *resolve.Object:
		fs := make([]value.Field, len(t.Keys))
		for i, k := range t.Keys {
			v, ok := termValue(t.Vals[i])
			if !ok {
				return nil, false
			}
			fs[i] = value.Field{Key: k, Val: v}
		}
		return value.NewObject(fs...), true
	}
	return nil, false
}
