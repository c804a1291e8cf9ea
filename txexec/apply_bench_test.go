package txexec

import (
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
)

// BenchmarkApplyTransfer is what a node's block building spends on one coin transfer beside
// the signature check: Runner.Apply of a verified command (buy-gas, the payload, redeem-gas,
// the result and its logs) on chain 0's development genesis. The state is a MemDB, not the
// node's chain/state, so the figure is the executor's and the interpreter's part.
func BenchmarkApplyTransfer(b *testing.B) {
	r := New(Config{})
	blk := devBlock()
	st := devGenesis(b, r, blk)
	c := devtx.Transfer("sender00", "sender01", "0.1", "0")
	c.CreationTime = blk.ParentTime/1_000_000 - 10
	pc, err := api.VerifyCommand(c.Build())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a, err := r.Apply(st, blk, pc)
		if err != nil || a.Failed {
			b.Fatalf("%v %s", err, a.Result)
		}
	}
}
