package actors

import (
	"context"
	"testing"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
)

// continuationsOf reads the continuations of pact as of the executor's head.
func (f *execFixture) continuationsOf(pact api.Hash) []chain.Continuation {
	f.t.Helper()
	cs, _, err := chain.PactContinuations(f.x.state.View(f.x.Head().Height).(*state.View), pact, 0, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	return cs
}

// The index of continuations is kept with the state: a continuation (here one of a pact the
// chain never started, which fails and is listed as failed) is listed once its block is
// applied, a fork that rewinds the block takes it out, and going back lists it again.
func TestContinuationIndexRewoundWithFork(t *testing.T) {
	f := newExecFixture(t)
	b1 := f.block(f.g)
	b2 := f.block(b1)

	pact := api.HashBytes([]byte("a pact this chain never started"))
	cont := devtx.Continuation(pact.String(), 1, "", "0", "sender00")
	cont.Cont.Proof = nil
	tx := cont.Build()
	if _, err := f.pool.Insert(context.Background(), []*api.Command{tx}); err != nil {
		t.Fatal(err)
	}
	a1 := f.block(f.g)
	f.sync(a1)
	f.expectIn(tx, a1)
	got := f.continuationsOf(pact)
	if len(got) != 1 {
		t.Fatalf("continuations of the pact: %+v, want one", got)
	}
	if c := got[0]; c.RequestKey != tx.Hash.String() || c.Height != 1 || c.BlockHash != a1.Hash.String() || c.Step != 1 || c.Rollback || c.OK || c.Index != 0 {
		t.Fatalf("the continuation: %+v", c)
	}
	if other := f.continuationsOf(api.Hash{7}); len(other) != 0 {
		t.Fatalf("another pact lists %+v", other)
	}

	f.sync(b2)
	if got := f.continuationsOf(pact); len(got) != 0 {
		t.Fatalf("after the fork the pact still lists %+v", got)
	}
	f.sync(a1)
	if got := f.continuationsOf(pact); len(got) != 1 || got[0].RequestKey != tx.Hash.String() {
		t.Fatalf("back on a1 the pact lists %+v", got)
	}
}
