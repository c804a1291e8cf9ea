package actors

import (
	"context"
	"math"
	"testing"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
)

// transfersOf reads account's transfers as of the executor's head, newest first.
func (f *execFixture) transfersOf(account string) []chain.Transfer {
	f.t.Helper()
	ts, err := chain.AccountTransfers(f.x.state.View(f.x.Head().Height).(*state.View), account, math.MaxUint64, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	return ts
}

// The index of transfers is kept with the state: a transfer is listed under its sender and its
// receiver once its block is applied, and a fork that rewinds the block takes it out.
func TestTransferIndexRewoundWithFork(t *testing.T) {
	f := newExecFixture(t)
	// Branch b first, without the transfer: two blocks, so it wins over a's one.
	b1 := f.block(f.g)
	b2 := f.block(b1)

	tx := devtx.Transfer("sender00", "sender01", "7.5", "0").Build()
	if _, err := f.pool.Insert(context.Background(), []*api.Command{tx}); err != nil {
		t.Fatal(err)
	}
	a1 := f.block(f.g)
	f.sync(a1)
	f.expectIn(tx, a1)
	find := func(account string) *chain.Transfer {
		for _, tr := range f.transfersOf(account) {
			if tr.RequestKey == tx.Hash.String() && tr.From == "sender00" && tr.To == "sender01" {
				return &tr
			}
		}
		return nil
	}
	for _, account := range []string{"sender00", "sender01"} {
		tr := find(account)
		if tr == nil {
			t.Fatalf("the transfer is not in %s's transfers: %+v", account, f.transfersOf(account))
		}
		if tr.Height != 1 || tr.BlockHash != a1.Hash.String() || tr.Module != "coin" || tr.Amount != "7.5" || tr.TargetChain != "" {
			t.Fatalf("%s's transfer: %+v", account, *tr)
		}
	}

	// The reorg to b rewinds a1: the transfer is in nobody's list.
	f.sync(b2)
	for _, account := range []string{"sender00", "sender01"} {
		if tr := find(account); tr != nil {
			t.Fatalf("after the fork %s still lists the transfer: %+v", account, *tr)
		}
	}
	// And back on a (from a1's kept writes): listed again.
	f.sync(a1)
	if find("sender01") == nil {
		t.Fatal("back on a1, sender01 does not list the transfer")
	}
}

func TestTransferIndexPaging(t *testing.T) {
	f := newExecFixture(t)
	parent := f.g
	var keys []string
	for i := range 3 {
		c := devtx.Transfer("sender00", "sender02", "1.0", "0")
		c.Nonce = "paging-" + string(rune('a'+i))
		tx := c.Build()
		if _, err := f.pool.Insert(context.Background(), []*api.Command{tx}); err != nil {
			t.Fatal(err)
		}
		parent = f.block(parent)
		f.sync(parent)
		keys = append(keys, tx.Hash.String())
	}
	all := f.transfersOf("sender02")
	var mine []chain.Transfer
	for _, tr := range all {
		if tr.To == "sender02" && tr.From == "sender00" && tr.Module == "coin" && tr.Amount == "1" { // Pact writes 1.0 as 1
			mine = append(mine, tr)
		}
	}
	if len(mine) != 3 || mine[0].RequestKey != keys[2] || mine[2].RequestKey != keys[0] {
		t.Fatalf("sender02's transfers, newest first: %+v (want %v reversed)", mine, keys)
	}
	// Two by two from the newest, then from below the second.
	view := f.x.state.View(f.x.Head().Height).(*state.View)
	first, err := chain.AccountTransfers(view, "sender02", math.MaxUint64, 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("first page %+v, %v", first, err)
	}
	rest, err := chain.AccountTransfers(view, "sender02", first[1].Index, 100)
	if err != nil || len(rest)+2 != len(all) {
		t.Fatalf("the rest: %d of %d, %v", len(rest), len(all), err)
	}
	if rest[0].Index != first[1].Index-1 {
		t.Fatalf("the rest starts at %d, want %d", rest[0].Index, first[1].Index-1)
	}
}
