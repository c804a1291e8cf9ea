package actors

import (
	"context"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

func TestTxFailed(t *testing.T) {
	for out, want := range map[string]bool{
		`{"gas":12,"result":{"status":"failure","error":{}},"reqKey":"x"}`:                     true,
		`{"gas":0,"result":{"status":"failure"}}`:                                              true,
		`{"gas":12,"result":{"status":"success","data":{"result":{"status":"failure"}}}}`:      false,
		`{"gas":12,"result":{"status":"success","data":"\"result\":{\"status\":\"failure\""}}`: false,
		`{"gas":1x,"result":{"status":"failure"}}`:                                             false,
		``:                                false,
		`{"result":{"status":"failure"}}`: false,
	} {
		if got := txFailed([]byte(out)); got != want {
			t.Errorf("txFailed(%s) = %v, want %v", out, got, want)
		}
	}
	p := &ledger.PayloadWithOutputs{Transactions: []ledger.TxWithOutput{
		{Output: []byte(`{"gas":1,"result":{"status":"failure"}}`)},
		{Output: []byte(`{"gas":1,"result":{"status":"success","data":1}}`)},
		{Output: []byte(`{"gas":1,"result":{"status":"failure"}}`)},
	}}
	if n := failedTxs(p); n != 2 {
		t.Errorf("failedTxs = %d, want 2", n)
	}
}

// The mempool's size in bytes and its oldest transaction follow what is pending.
func TestMempoolBytesAndOldest(t *testing.T) {
	clock := &mpClock{t: mpStart}
	m := startTestMempool(t, clock, nil)
	ctx := context.Background()
	if _, ok := m.Oldest(); ok || m.Bytes() != 0 {
		t.Fatalf("empty mempool: oldest present %v, %d bytes", ok, m.Bytes())
	}
	a, b, c := mpCmd("a", "0.1", 100, 600, "2"), mpCmd("b", "0.1", 100, 600, "2"), mpCmd("c", "0.1", 100, 600, "2")
	size := func(cmds ...*api.Command) int64 {
		var n int64
		for _, c := range cmds {
			n += int64(len(c.Cmd))
			for _, s := range c.Sigs {
				n += int64(len(s.Sig))
			}
		}
		return n
	}
	if _, err := m.Insert(ctx, []*api.Command{a}); err != nil {
		t.Fatal(err)
	}
	clock.add(time.Minute)
	if _, err := m.Insert(ctx, []*api.Command{b, c}); err != nil {
		t.Fatal(err)
	}
	if got, want := m.Bytes(), size(a, b, c); got != want {
		t.Errorf("%d bytes pending, want %d", got, want)
	}
	if o, ok := m.Oldest(); !ok || !o.Equal(mpStart) {
		t.Errorf("oldest %v %v, want %v", o, ok, mpStart)
	}
	// The oldest leaves in a block: the next oldest is a minute younger.
	m.Included([]api.Hash{a.Hash})
	if err := m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if o, ok := m.Oldest(); !ok || !o.Equal(mpStart.Add(time.Minute)) {
		t.Errorf("oldest after a's block %v %v, want %v", o, ok, mpStart.Add(time.Minute))
	}
	if got, want := m.Bytes(), size(b, c); got != want {
		t.Errorf("%d bytes pending after a's block, want %d", got, want)
	}
	m.Badlist([]api.Hash{b.Hash, c.Hash})
	if err := m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Oldest(); ok || m.Bytes() != 0 {
		t.Errorf("nothing pending: oldest present %v, %d bytes", ok, m.Bytes())
	}
}
