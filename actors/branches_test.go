package actors

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// counts returns the executor's validated, replayed and reapplied blocks.
func (f *execFixture) counts() [3]uint64 {
	c := &f.x.counts
	return [3]uint64{c.validated.Load(), c.replayed.Load(), c.reapplied.Load()}
}

// receive validates a block another node made (h with payload p, on a parent f holds) as a
// chain actor does, then stores it.
func (f *execFixture) receive(h *ledger.Header, p *ledger.PayloadWithOutputs) error {
	f.t.Helper()
	if err := f.x.validate(h, p); err != nil {
		return err
	}
	if err := f.db.PutBlock(h, p, nil); err != nil {
		f.t.Fatal(err)
	}
	return nil
}

// A fork that another node mined (with a transfer in it) is validated block by block while the
// state stays on its own branch, each block executed once whatever the depth of the fork; the
// switch to the fork and back applies the kept writes without executing anything again; a block
// whose parent is deep in the fork (not its tip) is validated on a branch assembled from kept
// blocks; and once nothing is kept, the blocks of the path are executed again, and counted so.
func TestExecutorValidatesForksWithoutReplaying(t *testing.T) {
	f := newExecFixture(t)
	other := newExecFixture(t) // the other miner, from the same genesis
	if other.g.Hash != f.g.Hash {
		t.Fatal("the fixtures' genesis blocks differ")
	}
	start := mustDecimal(t, f.balance("sender01"))

	// This node's branch: five blocks, applied.
	a := f.g
	for range 5 {
		a = f.block(a)
		f.sync(a)
	}
	mainHead := f.x.Head()

	// The other node's branch from genesis: six blocks, the second with a transfer.
	tx := devtx.Transfer("sender00", "sender01", "7.0", "0").Build()
	var fork []*ledger.Header
	b := other.g
	for i := range 6 {
		if i == 1 {
			if _, err := other.pool.Insert(context.Background(), []*api.Command{tx}); err != nil {
				t.Fatal(err)
			}
		}
		b = other.block(b)
		other.sync(b)
		fork = append(fork, b)
	}
	if p := mustPayload(t, other.db, fork[1]); len(p.Transactions) != 1 {
		t.Fatalf("the fork's second block holds %d transactions, want the transfer", len(p.Transactions))
	}

	before := f.counts()
	for i, h := range fork {
		if err := f.receive(h, mustPayload(t, other.db, h)); err != nil {
			t.Fatalf("fork block %d: %v", i+1, err)
		}
		if f.x.Head() != mainHead {
			t.Fatalf("validating fork block %d moved the state to height %d", i+1, f.x.Head().Height)
		}
	}
	if got := f.counts(); got[0]-before[0] != 6 || got[1] != before[1] {
		t.Fatalf("validating a 6-block fork: %d executions to validate, %d replays; want 6 and none", got[0]-before[0], got[1]-before[1])
	}

	// The cut switches to the fork: its blocks are applied from their kept writes.
	before = f.counts()
	f.sync(fork[5])
	if got := f.counts(); got[2]-before[2] != 6 || got[0] != before[0] || got[1] != before[1] {
		t.Fatalf("switching to the fork: %v then %v, want 6 blocks reapplied and nothing executed", before, got)
	}
	f.expectIn(tx, fork[1])
	after := start.Add(mustDecimal(t, "7.0"))
	if got := mustDecimal(t, f.balance("sender01")); !got.Equal(after) {
		t.Fatalf("sender01 %s on the fork, want %s", got, after)
	}
	// And back: this node's own blocks were kept when they were applied.
	before = f.counts()
	f.sync(mainHead)
	if got := f.counts(); got[2]-before[2] != 5 || got[0] != before[0] || got[1] != before[1] {
		t.Fatalf("switching back: %v then %v, want 5 blocks reapplied and nothing executed", before, got)
	}
	if got := mustDecimal(t, f.balance("sender01")); !got.Equal(start) {
		t.Fatalf("sender01 %s back on this node's branch, want %s", got, start)
	}

	// A sibling of the fork's fourth block, on its third: not the tip of the branch kept last.
	// A forged one is refused; a good one passes, on a branch assembled from kept blocks.
	other.sync(fork[2])
	good, err := other.x.buildDirect(fork[2], nil)
	if err != nil {
		t.Fatal(err)
	}
	forged := ledger.NewPayloadWithOutputs(good.MinerData, []byte(strings.Replace(string(good.Coinbase), `"gas":`, `"gas":1`, 1)), good.Transactions)
	before = f.counts()
	if err := f.receive(other.blockWith(fork[2], forged), forged); !errors.Is(err, chain.ErrInvalidPayload) {
		t.Fatalf("a forged block on the fork: %v, want an invalid payload", err)
	}
	sibling := other.blockWith(fork[2], good)
	if err := f.receive(sibling, good); err != nil {
		t.Fatalf("a sibling on the fork: %v", err)
	}
	if got := f.counts(); got[1] != before[1] || got[0]-before[0] != 2 {
		t.Fatalf("two blocks on the fork's third: %v then %v, want 2 executions and no replay", before, got)
	}

	// With nothing kept (after a restart, say), a block on the fork's tip needs the fork's six
	// blocks executed again first: counted as replays, and the block is still judged right.
	clear(f.x.kept.byHash)
	f.x.branches = nil
	other.sync(fork[5])
	next := other.block(fork[5])
	before = f.counts()
	if err := f.receive(next, mustPayload(t, other.db, next)); err != nil {
		t.Fatalf("a block on the fork with nothing kept: %v", err)
	}
	if got := f.counts(); got[1]-before[1] != 6 || got[0]-before[0] != 1 {
		t.Fatalf("with nothing kept: %v then %v, want the fork's 6 blocks replayed and 1 validated", before, got)
	}
	if f.x.Head() != mainHead {
		t.Fatalf("validation moved the state to height %d", f.x.Head().Height)
	}
}

// The kept blocks stay within their bounds, the oldest dropped first.
func TestKeptBlocksBounds(t *testing.T) {
	f := newExecFixture(t)
	h := f.g
	var hs []*ledger.Header
	for range maxKeptBlocks + 10 {
		p, err := f.x.buildDirect(h, nil)
		if err != nil {
			t.Fatal(err)
		}
		h = f.blockWith(h, p)
		f.sync(h)
		hs = append(hs, h)
	}
	k := &f.x.kept
	if len(k.byHash) != maxKeptBlocks {
		t.Fatalf("%d blocks kept, want %d", len(k.byHash), maxKeptBlocks)
	}
	if k.get(hs[0]) != nil || k.get(hs[9]) != nil || k.get(hs[10]) == nil || k.get(hs[len(hs)-1]) == nil {
		t.Fatal("not the oldest blocks dropped")
	}
	t.Logf("%d blocks kept, %d bytes of writes", len(k.byHash), k.bytes)
	if k.bytes <= 0 || k.bytes > maxKeptBytes {
		t.Fatalf("kept bytes %d", k.bytes)
	}
	if len(k.order)-k.head != len(k.byHash) {
		t.Fatalf("order holds %d live entries for %d blocks", len(k.order)-k.head, len(k.byHash))
	}
}

// A replay stops between two blocks once the executor is stopping: shutdown does not wait for
// the whole branch.
func TestExecutorReplayStopsWhenStopping(t *testing.T) {
	f := newExecFixture(t)
	other := newExecFixture(t)
	b := other.g
	var fork []*ledger.Header
	for range 4 {
		b = other.block(b)
		other.sync(b)
		fork = append(fork, b)
		if err := f.db.PutBlock(b, mustPayload(t, other.db, b), nil); err != nil {
			t.Fatal(err)
		}
	}
	f.x.stopped.Store(true)
	if err := f.x.syncTo(fork[3]); !errors.Is(err, ErrExecutorStopped) {
		t.Fatalf("syncTo while stopping: %v, want ErrExecutorStopped", err)
	}
	if f.x.Head().Hash != f.g.Hash {
		t.Fatalf("the state moved to height %d while stopping", f.x.Head().Height)
	}
}

// A block this node built and stored (its own mined block) that a sibling beat into the cut is
// kept when the sibling is applied, so that a switch back to it applies its writes instead of
// executing it again: the built payloads are dropped as the head moves, and used to take its
// writes with them (the replay TestMiningNodesConverge met once in 1,888 validations).
func TestOwnBlockBeatenBySiblingIsNotReplayed(t *testing.T) {
	f := newExecFixture(t)
	other := newExecFixture(t) // the other miner, from the same genesis

	start := f.balance("sender01")
	own := f.block(f.g)
	if err := f.x.validate(own, mustPayload(t, f.db, own)); err != nil { // as Insert does
		t.Fatal(err)
	}
	// The other miner's block holds a transfer, so its payload is not the one this node built.
	if _, err := other.pool.Insert(context.Background(), []*api.Command{devtx.Transfer("sender00", "sender01", "1.0", "0").Build()}); err != nil {
		t.Fatal(err)
	}
	sibling := other.block(other.g)
	if sibling.PayloadHash == own.PayloadHash {
		t.Fatal("the sibling's payload is the own block's")
	}
	if err := f.receive(sibling, mustPayload(t, other.db, sibling)); err != nil {
		t.Fatal(err)
	}

	f.sync(sibling) // the sibling enters the cut first
	before := f.counts()
	f.sync(own) // and the cut switches back to this node's block
	if got := f.counts(); got[1] != before[1] || got[2]-before[2] != 1 || got[0] != before[0] {
		t.Fatalf("switching back to the own block: %v then %v, want it reapplied, nothing executed", before, got)
	}
	if got := f.balance("sender01"); got != start {
		t.Fatalf("sender01 %s on the own block, want %s: the sibling's transfer is not on this branch", got, start)
	}
}
