package eval

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/value"
)

// fitsFree never accepts what P5's check refuses, and accepts every value
// of an untyped, any or primitive parameter that P5's check accepts.
func TestFitsFreeAgreesWithTypeCheck(t *testing.T) {
	in := New(nil)
	in.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000_000))
	values := []value.Value{value.NewInt(1), value.NewDecimal(value.NewInt(15), 1), value.String("s"), value.Bool(true), value.UnitValue,
		value.List{value.NewInt(1)}, value.EmptyObject, value.NewKeySet([]string{"k"}, "keys-all"), &Closure{}, &NativeFn{}}
	types := []*value.Type{nil, {Kind: value.TyAny}, {Kind: value.TyAnyList}, {Kind: value.TyAnyObject}, {Kind: value.TyPrim, Prim: "bogus"}}
	for _, p := range []string{"integer", "decimal", "string", "bool", "time", "unit", "guard", "keyset"} {
		types = append(types, &value.Type{Kind: value.TyPrim, Prim: p})
	}
	for _, ty := range types {
		for _, v := range values {
			want := v.Kind() != value.KindClosure
			if want && ty != nil {
				ok, err := in.typeCheck(ty, v)
				want = ok && err == nil
			}
			simple := ty == nil || ty.Kind == value.TyAny || ty.Kind == value.TyPrim
			if got := fitsFree(ty, v); got && !want || simple && got != want {
				t.Errorf("fitsFree(%v, %s) = %v, P5's check says %v", ty, value.TypeOf(v), got, want)
			}
			// The check compiling finds for the type answers as fitsFree.
			if got, want := fitsCheck(freeCheck(ty), ty, v), fitsFree(ty, v); got != want {
				t.Errorf("fitsCheck(%d, %v, %s) = %v, fitsFree says %v", freeCheck(ty), ty, value.TypeOf(v), got, want)
			}
			// checkArgs, which writes fitsCheck out, fails exactly when
			// P5's two passes fail, with their error; with the check found
			// at compile time and without one.
			for _, free := range []uint8{freeCheck(ty), 0} {
				ps := []Param{{Name: "x", Type: ty, free: free}}
				got, want := in.checkArgs(nil, ps, []value.Value{v}), in.checkArgsP5(ps, []value.Value{v})
				if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
					t.Errorf("checkArgs(%v, %s) with check %d = %v, P5's passes say %v", ty, value.TypeOf(v), free, got, want)
				}
			}
		}
	}
}
