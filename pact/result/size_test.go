package result

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Exceeds never claims a result that fits is too large: its count is a lower bound of the
// encoding's length, checked here against the encoder on values of every shape.
func TestExceedsIsALowerBound(t *testing.T) {
	huge := value.NewIntBig(new(big.Int).Lsh(big.NewInt(1), 4000))
	obj := value.NewObject(value.Field{Key: "name", Val: value.String("ünïcode \"quoted\"\n")},
		value.Field{Key: "n", Val: value.NewInt(-12345)}, value.Field{Key: "big", Val: huge})
	values := []value.Value{
		value.String(""), value.String(strings.Repeat("x", 500)), value.NewInt(7), huge,
		value.NewDecimal(huge, 30), value.Bool(true), value.UnitValue, value.List{}, obj,
		value.List{obj, obj, value.List{value.String("a"), huge}},
		value.NewKeySet([]string{strings.Repeat("a", 64), strings.Repeat("b", 64)}, value.KeysAll),
	}
	rk := api.HashBytes([]byte("rk"))
	for i, v := range values {
		o := &Outcome{Value: v, HasLogs: true,
			Events: []value.Event{{Name: value.QualifiedName{Name: "E", Module: value.ModuleName{Name: "m"}}, Args: []value.Value{v}}}}
		n := len(Append(nil, rk, o))
		if Exceeds(o, n) {
			t.Errorf("value %d: Exceeds(%d) for a result of %d bytes", i, n, n)
		}
		var c sizeCounter
		c.limit = 1 << 30
		c.value(v)
		enc, _ := value.EncodeJSON(v)
		if c.n > len(enc) {
			t.Errorf("value %d: counted %d bytes, encodes to %d: %.80s", i, c.n, len(enc), enc)
		}
	}
}

// Values shared many times, whose encoding is far larger than their memory, are refused by a
// count that stops at the limit: 2^60 copies of a string take no time at all.
func TestExceedsStopsAtTheLimit(t *testing.T) {
	v := value.Value(value.List{value.String("xxxxxxxx")})
	for range 60 {
		v = value.List{v, v}
	}
	c := count(&Outcome{Value: v}, 1<<20)
	if !c.over() {
		t.Fatal("2^60 strings fit in 1 MiB")
	}
	// Counted in values looked at, not time: the count stopped at the limit.
	if c.visits > 1<<20+1 {
		t.Errorf("%d values looked at for a limit of %d bytes", c.visits, 1<<20)
	}
	// The same in an event or a continuation's yield.
	if !Exceeds(&Outcome{Value: value.UnitValue, Events: []value.Event{{Args: []value.Value{v}}}}, 1<<20) {
		t.Error("an event's parameters are not counted")
	}
	y := &eval.PactExec{PactID: "p", Yield: &eval.Yield{Data: value.NewObject(value.Field{Key: "v", Val: v})}}
	if !Exceeds(&Outcome{Value: value.UnitValue, Pact: y}, 1<<20) {
		t.Error("a yield is not counted")
	}
	// A failure's value is not the result.
	if Exceeds(&Outcome{Value: v, Fail: EvalFailure("x")}, 1<<20) {
		t.Error("a failure counted its value")
	}
}
