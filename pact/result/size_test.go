package result

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// Exceeds never claims a result that fits is too large: its count is a lower bound of the
// encoding's length, checked here against the encoder on values of every shape.
func TestExceedsIsALowerBound(t *testing.T) {
	huge := eval.NewIntBig(new(big.Int).Lsh(big.NewInt(1), 4000))
	obj := eval.NewObject(eval.Field{Key: "name", Val: eval.String("ünïcode \"quoted\"\n")},
		eval.Field{Key: "n", Val: eval.NewInt(-12345)}, eval.Field{Key: "big", Val: huge})
	values := []eval.Value{
		eval.String(""), eval.String(strings.Repeat("x", 500)), eval.NewInt(7), huge,
		eval.NewDecimal(huge, 30), eval.Bool(true), eval.UnitValue, eval.List{}, obj,
		eval.List{obj, obj, eval.List{eval.String("a"), huge}},
		eval.NewKeySet([]string{strings.Repeat("a", 64), strings.Repeat("b", 64)}, eval.KeysAll),
	}
	rk := api.HashBytes([]byte("rk"))
	for i, v := range values {
		o := &Outcome{Value: v, HasLogs: true,
			Events: []eval.Event{{Name: eval.QualifiedName{Name: "E", Module: eval.ModuleName{Name: "m"}}, Args: []eval.Value{v}}}}
		n := len(Append(nil, rk, o))
		if Exceeds(o, n) {
			t.Errorf("value %d: Exceeds(%d) for a result of %d bytes", i, n, n)
		}
		var c sizeCounter
		c.limit = 1 << 30
		c.value(v)
		enc, _ := eval.EncodeJSON(v)
		if c.n > len(enc) {
			t.Errorf("value %d: counted %d bytes, encodes to %d: %.80s", i, c.n, len(enc), enc)
		}
	}
}

// Values shared many times, whose encoding is far larger than their memory, are refused by a
// count that stops at the limit: 2^60 copies of a string take no time at all.
func TestExceedsStopsAtTheLimit(t *testing.T) {
	v := eval.Value(eval.List{eval.String("xxxxxxxx")})
	for range 60 {
		v = eval.List{v, v}
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
	if !Exceeds(&Outcome{Value: eval.UnitValue, Events: []eval.Event{{Args: []eval.Value{v}}}}, 1<<20) {
		t.Error("an event's parameters are not counted")
	}
	y := &eval.PactExec{PactID: "p", Yield: &eval.Yield{Data: eval.NewObject(eval.Field{Key: "v", Val: v})}}
	if !Exceeds(&Outcome{Value: eval.UnitValue, Pact: y}, 1<<20) {
		t.Error("a yield is not counted")
	}
	// A failure's value is not the result.
	if Exceeds(&Outcome{Value: v, Fail: EvalFailure("x")}, 1<<20) {
		t.Error("a failure counted its value")
	}
}
