package actors

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/internal/syncbuf"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/pow/powtest"
	"github.com/ledgernode/ledger-node/store"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// openStore opens a fresh store holding the fixture's genesis blocks as heads, as the node
// writes them on first start.
func openStore(t *testing.T, f *powtest.Fixture) *store.DB {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PutPayload(ledger.EmptyGenesisPayload()); err != nil {
		t.Fatal(err)
	}
	heads := map[ledger.ChainID]ledger.Hash{}
	for _, g := range f.Genesis {
		heads[g.ChainID] = g.Hash
	}
	if err := db.PutHeaders(f.Genesis...); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(heads); err != nil {
		t.Fatal(err)
	}
	return db
}

func startRuntime(t *testing.T, f *powtest.Fixture, db *store.DB, hub *UpdatesHub) *Runtime {
	t.Helper()
	rt, err := Start(Config{Version: f.V, Store: db, Genesis: f.Genesis, Updates: hub, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Stop)
	return rt
}

// insert hands the fixture's blocks hs, with their payloads, to rt.
func insert(t *testing.T, f *powtest.Fixture, rt *Runtime, hs ...*ledger.Header) {
	t.Helper()
	for _, h := range hs {
		if err := rt.Insert(h, f.PayloadOf(h)); err != nil {
			t.Fatalf("insert chain %d height %d: %v", h.ChainID, h.Height, err)
		}
	}
}

// blocksUpTo returns the blocks of cut hs above genesis, ascending by height: an insertion order
// in which every block's parents come first.
func blocksUpTo(f *powtest.Fixture, hs pow.Heads) []*ledger.Header {
	var out []*ledger.Header
	top := uint64(0)
	for _, h := range hs {
		top = max(top, h.Height)
	}
	for height := uint64(1); height <= top; height++ {
		for _, h := range hs {
			if h.Height >= height {
				out = append(out, f.At(h, height))
			}
		}
	}
	return out
}

// Every rule failure is reported with its rule and leaves nothing in the store; a valid block
// enters the cut, and inserting it again is harmless.
func TestInsertValidates(t *testing.T) {
	f := powtest.New(t)
	db := openStore(t, f)
	rt := startRuntime(t, f, db, nil)
	good := f.Mine(f.Genesis, 0, 1)
	two := f.Mine(powtest.With(f.Genesis, good), 5, 1) // height 1 next to good
	// Height 2 on good: its adjacent parents at height 1 on chains 5, 10 and 15 are never stored.
	above := f.Mine(powtest.With(f.Grow(f.Genesis.Clone(), 1), good), 0, 1)
	far := good.Clone()
	far.CreationTime = time.Now().Add(time.Hour).UnixMicro()
	far.Seal()
	pow.MineHeader(far, 1<<20)
	badHash := good.Clone()
	badHash.Nonce++
	p := f.PayloadOf(good)

	for _, c := range []struct {
		name      string
		h         *ledger.Header
		payload   *ledger.PayloadWithOutputs
		rule      pow.Rule
		ephemeral bool
	}{
		{"tampered header", badHash, p, pow.IncorrectHash, false},
		{"created in the future", far, p, pow.BlockInTheFuture, true},
		{"payload of another block", good, f.Payload(9), pow.IncorrectPayloadHash, false},
		{"payload not available", good, nil, pow.MissingPayload, true},
		{"parent not stored yet", f.Mine(f.Grow(f.Genesis.Clone(), 1), 0, 1), f.Payload(1), pow.MissingParent, true},
	} {
		err := rt.Insert(c.h, c.payload)
		if pow.RuleOf(err) != c.rule || pow.IsEphemeral(err) != c.ephemeral {
			t.Errorf("%s: %v, want %s (ephemeral %v)", c.name, err, c.rule, c.ephemeral)
		}
		if ok, _ := db.HasHeader(c.h.Hash); ok && c.h != good {
			t.Errorf("%s: the rejected header was stored", c.name)
		}
	}
	if ok, _ := db.HasHeader(good.Hash); ok {
		t.Fatal("a rejected block was stored")
	}
	insert(t, f, rt, good, two)
	if err := rt.Insert(above, f.PayloadOf(above)); pow.RuleOf(err) != pow.MissingAdjacentParent || !pow.IsEphemeral(err) {
		t.Fatalf("block before its adjacent parents: %v", err)
	}
	if err := rt.Insert(good, nil); err != nil {
		t.Fatalf("inserting a stored block again: %v", err)
	}
	v := rt.View()
	if v.Heads[0] != good || v.Heads[5].Hash != two.Hash || v.Cut.Height != 2 {
		t.Fatalf("cut after two blocks: heights %v", powtest.Heights(v.Heads))
	}
	if _, err := db.PayloadWithOutputs(good.PayloadHash); err != nil {
		t.Fatalf("payload of a stored block: %v", err)
	}
	if err := rt.Insert(&ledger.Header{ChainID: 99}, nil); err == nil {
		t.Fatal("insert into a chain that does not exist")
	}
}

// A heavier fork replaces the cut: the update stream gets the new branch in order, and the
// orphaned block stays stored and listed.
func TestHeavierForkReplacesCut(t *testing.T) {
	f := powtest.New(t)
	db := openStore(t, f)
	hub := NewUpdatesHub(64)
	defer hub.Close()
	rt := startRuntime(t, f, db, hub)
	two := f.Grow(f.Genesis.Clone(), 2)
	insert(t, f, rt, blocksUpTo(f, two)...)
	if got := rt.View().Heads; !equalHashes(got, two) {
		t.Fatalf("cut heights %v, want all at 2", powtest.Heights(got))
	}
	sub, err := hub.Subscribe("", 16)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	one := f.At(two[0], 1)
	fork1 := f.MineOn(one, []*ledger.Header{f.At(two[5], 1), f.At(two[10], 1), f.At(two[15], 1)}, 2)
	fork2 := f.MineOn(fork1, []*ledger.Header{two[5], two[10], two[15]}, 2)
	insert(t, f, rt, fork1)
	if rt.View().Heads[0] != two[0] {
		t.Fatal("a sibling of equal weight replaced the head")
	}
	insert(t, f, rt, fork2)
	if got := rt.View().Heads[0]; got != fork2 {
		t.Fatalf("chain 0 head is at height %d after a heavier fork arrived", got.Height)
	}
	for i, want := range []*ledger.Header{fork1, fork2} {
		select {
		case e := <-sub.Events():
			if e.Header.Hash != want.Hash || e.Payload == nil || e.Payload.PayloadHash != want.PayloadHash {
				t.Fatalf("event %d: chain %d height %d, want the fork's block at %d", i, e.Header.ChainID, e.Header.Height, want.Height)
			}
			if want := uint64(40 - 1 + i + 1); e.CutHeight != want {
				t.Fatalf("event %d: cut height %d, want %d", i, e.CutHeight, want)
			}
		case <-hangguard.After():
			t.Fatal(hangguard.Failure(fmt.Sprintf("event %d", i)))
		}
	}
	var atTwo []ledger.Hash
	db.ScanChain(0, store.Position{Height: 2}, func(h *ledger.Header) bool {
		if h.Height == 2 {
			atTwo = append(atTwo, h.Hash)
		}
		return true
	})
	if len(atTwo) != 2 || (atTwo[0] != two[0].Hash && atTwo[1] != two[0].Hash) {
		t.Fatalf("chain 0 lists %d blocks at height 2, want the orphan and the fork", len(atTwo))
	}
	rt.Stop()
	heads, _ := db.Heads()
	if heads[0] != fork2.Hash {
		t.Fatal("the persisted heads do not name the fork")
	}
}

func equalHashes(a, b pow.Heads) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) || a[i] != nil && a[i].Hash != b[i].Hash {
			return false
		}
	}
	return true
}

// A start resumes from the stored heads, joins stored blocks the heads record missed (a crash
// between storing blocks and writing heads), and lowers a stored cut that is not braided.
func TestStartResumes(t *testing.T) {
	f := powtest.New(t)
	db := openStore(t, f)
	two := f.Grow(f.Genesis.Clone(), 2)
	blocks := blocksUpTo(f, two)
	for _, h := range blocks {
		if err := db.PutBlock(h, f.PayloadOf(h), nil); err != nil {
			t.Fatal(err)
		}
	}
	rt := startRuntime(t, f, db, nil)
	if got := rt.View().Heads; !equalHashes(got, two) {
		t.Fatalf("resumed at heights %v, want the stored blocks joined (all at 2)", powtest.Heights(got))
	}
	rt.Stop()
	if heads, _ := db.Heads(); heads[7] != two[7].Hash {
		t.Fatal("the recovered cut was not persisted")
	}

	// Heads that are not braided: chain 0 two ahead of its neighbours.
	ahead := f.Mine(two, 0, 3)
	ahead2 := f.MineOn(ahead, []*ledger.Header{f.Mine(two, 5, 3), f.Mine(two, 10, 3), f.Mine(two, 15, 3)}, 3)
	for _, h := range []*ledger.Header{ahead, ahead2} {
		db.PutBlock(h, f.PayloadOf(h), nil)
	}
	bad := map[ledger.ChainID]ledger.Hash{}
	for c, h := range two {
		bad[ledger.ChainID(c)] = h.Hash
	}
	bad[0] = ahead2.Hash
	if err := db.SetHeads(bad); err != nil {
		t.Fatal(err)
	}
	rt = startRuntime(t, f, db, nil)
	got := rt.View().Heads
	if err := pow.CheckBraided(got); err != nil {
		t.Fatal(err)
	}
	if got[0].Hash != ahead.Hash {
		t.Fatalf("chain 0 resumed at height %d, want the braided block at 3", got[0].Height)
	}
}

func TestInsertAfterStop(t *testing.T) {
	f := powtest.New(t)
	rt := startRuntime(t, f, openStore(t, f), nil)
	rt.Stop()
	if err := rt.Insert(f.Mine(f.Genesis, 0, 1), nil); !errors.Is(err, ErrStopped) {
		t.Fatalf("insert after stop: %v", err)
	}
}

// protoactor's log lines go to our slog handler (no coloured tint lines on stderr), its routine
// Info lines at Debug.
func TestActorSystemLogsThroughSlog(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var buf syncbuf.Buffer
		f := powtest.New(t)
		rt, err := Start(Config{Version: f.V, Store: openStore(t, f), Genesis: f.Genesis,
			Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level}))})
		if err != nil {
			t.Fatal(err)
		}
		rt.Stop()
		out := buf.String()
		started := strings.Contains(out, `level=DEBUG msg="actor system started"`) && strings.Contains(out, "component=protoactor")
		if strings.Contains(out, "\x1b[") || started != (level == slog.LevelDebug) {
			t.Fatalf("log at %v:\n%s", level, out)
		}
	}
}
