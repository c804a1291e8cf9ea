package eval

import (
	"sync/atomic"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// An interrupted evaluation stops at its next charge, try does not catch the stop, and the
// error says it is the node's; an interpreter whose flag is clear, or nil, runs on.
func TestInterruptStopsAtNextCharge(t *testing.T) {
	in := New(db.NewMemDB())
	in.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000_000))
	stop := new(atomic.Bool)
	in.Interrupt = stop
	src := `(try 7 (fold (+) 0 (enumerate 1 1000)))`
	f, err := syntax.ParseRepl("test.repl", src)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := in.EvalTopLevel(f.Items[0], true); err != nil || value.Show(v) != "500500" {
		t.Fatalf("flag clear: %v %v, want 500500", v, err)
	}
	stop.Store(true)
	_, err = in.EvalTopLevel(f.Items[0], true)
	if !Interrupted(err) {
		t.Fatalf("flag set: %v, want the evaluation interrupted (and not caught by try)", err)
	}
	in.Interrupt = nil
	if got := evalOne(t, in, src); got != "500500" {
		t.Fatalf("no flag: %s", got)
	}
}
