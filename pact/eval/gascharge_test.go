package eval

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/value"
)

// chargeTestInts are integers at the edges of a machine word and of the
// bit lengths, and past a word either way.
func chargeTestInts() []value.Integer {
	vs := []int64{0, 1, -1, 2, -2, 3, 7, 8, -8, 9, 255, 256, -256, 1000, 1_000_000_000_000,
		math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	for k := 1; k < 63; k++ {
		vs = append(vs, 1<<k, 1<<k-1, 1<<k+1, -(1 << k), -(1<<k - 1), -(1<<k + 1))
	}
	r := rand.New(rand.NewPCG(18, 18))
	for range 200 {
		vs = append(vs, r.Int64()>>r.IntN(63), -(r.Int64() >> r.IntN(63)))
	}
	is := make([]value.Integer, 0, len(vs)+8)
	for _, v := range vs {
		is = append(is, value.NewInt(v))
	}
	for _, s := range []string{"9223372036854775808", "-9223372036854775809", "18446744073709551616",
		"-123456789012345678901234567890", "123456789012345678901234567890123456789012345678901234567890"} {
		b, _ := new(big.Int).SetString(s, 10)
		is = append(is, value.NewIntBig(b))
	}
	return is
}

// The word path of a decimal comparison's cost is the general one: the
// larger mantissa's bit length and both comparison widths, for every pair
// of mantissas, small or not, and the bit length of a word is Integer's.
func TestDecCmpCostIsGeneral(t *testing.T) {
	ints := chargeTestInts()
	for _, cfg := range []*gas.Config{&gas.TableConfig, &gas.FreeConfig} {
		for _, a := range ints {
			for _, b := range ints {
				want := gas.DecimalCompare(cfg, signedMax(a, b).BitLen(), a.CmpBits(), b.CmpBits())
				if got := decCmpCost(cfg, a, b); got != want {
					t.Fatalf("%s vs %s: %d, want %d", a.Text(), b.Text(), got, want)
				}
			}
		}
	}
	for _, a := range ints {
		if a.IsSmall() {
			if got, want := value.WordBitLen(a.Int64()), a.Big().BitLen(); got != max(want, 1) {
				t.Fatalf("bit length of %d: %d, want %d", a.Int64(), got, want)
			}
		}
	}
}

// chargeTestLiterals are literal values of every kind (decimals with
// large mantissas and many places among them) and a few that are not.
func chargeTestLiterals(t *testing.T) []value.Value {
	var vs []value.Value
	for _, i := range chargeTestInts()[:40] {
		vs = append(vs, i)
	}
	for _, s := range []string{"0.0", "0.1", "0.10", "-0.1", "1.0", "1000.000000000001", "-3.5",
		"0.000000000000000000000000000000000000001", "123456789012345678901234567890.123456789",
		"-98765432109876543210.98765432109876543210", "9223372036854775807.0", "0.000025", "0.00001"} {
		d, err := value.ParseDecimal(s)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, d)
	}
	vs = append(vs, value.String(""), value.String("alice"), value.String("bob"), value.String("ünïcödé"), value.String("alice"),
		value.Bool(true), value.Bool(false), value.Unit{}, value.List{value.NewInt(1)}, value.NewObject(value.Field{Key: "a", Val: value.NewInt(1)}))
	return vs
}

// equalGassed's literal cases give Equal's answer and charge what the
// literal comparison charges, for values of one kind; values of different
// kinds are unequal for free.
func TestEqualGassedLiterals(t *testing.T) {
	vs := chargeTestLiterals(t)
	for _, a := range vs {
		for _, b := range vs {
			in := New(db.NewMemDB())
			in.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000))
			eq, err := in.equalGassed(a, b)
			if err != nil {
				t.Fatal(err)
			}
			ref := New(db.NewMemDB())
			ref.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000))
			wantEq := false
			if value.IsLiteral(a) && value.IsLiteral(b) && a.Kind() == b.Kind() {
				if err := ref.chargeLiteralCmp(a, b); err != nil {
					t.Fatal(err)
				}
				wantEq = value.Equal(a, b)
			}
			if _, isList := a.(value.List); isList {
				continue // not a literal: its own path, checked elsewhere
			}
			if _, isObj := a.(*value.Object); isObj {
				continue
			}
			if eq != wantEq || in.Gas.Used() != ref.Gas.Used() {
				t.Fatalf("%s = %s: %v charging %d, want %v charging %d",
					value.Pretty(a), value.Pretty(b), eq, in.Gas.Used(), wantEq, ref.Gas.Used())
			}
		}
	}
}

// The charging points that skip the description on a quiet meter charge
// what they charge with a log: the same totals step by step, the same
// out-of-gas text, and one log entry per charge.
func TestQuietChargesAsLogged(t *testing.T) {
	native := coreNativeTable()["+"]
	d12, _ := value.ParseDecimal("123456789012345678901234567890.5")
	steps := []func(in *Interp) error{
		func(in *Interp) error { return in.chargeConst(1234) },
		func(in *Interp) error { return in.chargeNative(native) },
		func(in *Interp) error { return in.chargeApply(nil, 3) },
		func(in *Interp) error { return in.chargeObjLit(4) },
		func(in *Interp) error { return in.chargeIntOp(opMul, value.NewInt(-5), value.NewInt(1<<40)) },
		func(in *Interp) error { return in.chargeIntOp(opPow, value.NewInt(3), value.NewInt(9)) },
		func(in *Interp) error { return in.chargeIntCmp(value.NewInt(5), d12.Mantissa()) },
		func(in *Interp) error {
			return in.chargeDecCmp(value.NewDecimal(value.NewInt(25), 6), value.NewDecimal(value.NewInt(-1), 1))
		},
		func(in *Interp) error { return in.chargeDecCmp(d12, value.NewDecimal(value.NewInt(7), 0)) },
		func(in *Interp) error { return in.chargeTextCmp("ünïcödé") },
		func(in *Interp) error { return in.chargeListCmp(6) },
		func(in *Interp) error { return in.chargeStrOp("StrOpParseTime", 8, 30) },
		func(in *Interp) error { return in.chargeObjLookup("balance", 2) },
		func(in *Interp) error { return in.chargeRead(121) },
		func(in *Interp) error { return in.chargeWrite(31) },
	}
	quiet, logged := New(db.NewMemDB()), New(db.NewMemDB())
	quiet.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000))
	logged.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000))
	logged.Gas.StartLog()
	if !quiet.Gas.Quiet() || logged.Gas.Quiet() {
		t.Fatal("the meters are not as the test needs")
	}
	for i, step := range steps {
		if err := step(quiet); err != nil {
			t.Fatal(err)
		}
		if err := step(logged); err != nil {
			t.Fatal(err)
		}
		if quiet.Gas.Used() != logged.Gas.Used() {
			t.Fatalf("step %d: quiet total %d, logged %d", i, quiet.Gas.Used(), logged.Gas.Used())
		}
	}
	if n := len(logged.Gas.TakeLog()); n != len(steps) {
		t.Errorf("%d log entries for %d charges", n, len(steps))
	}
	// Past the limit: the same error from either.
	for i, step := range steps {
		quiet.Gas.SetUsed(gas.FromGas(1_000))
		logged.Gas.SetUsed(gas.FromGas(1_000))
		qe, le := step(quiet), step(logged)
		if (qe == nil) != (le == nil) || qe != nil && qe.Error() != le.Error() {
			t.Fatalf("step %d past the limit: %v, logged %v", i, qe, le)
		}
	}
}
