package actors

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// A Pact state at blocks whose headers are gone is rewound to the highest block it holds that is
// stored, or, when it holds none, emptied so that the chain replays from genesis.
func TestRepairPactState(t *testing.T) {
	lg := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	// stateAt makes a state of chain 0 at heights 0..4, block i named by hashes[i].
	stateAt := func(t *testing.T, db *store.DB, hashes []ledger.Hash) *state.Versioned {
		st, err := openPactState(db, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range hashes {
			base := uint64(0)
			if i > 0 {
				base = uint64(i - 1)
			}
			view := st.View(base).(*state.View)
			if err := chain.RecordBlock(view, h, 0, nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := st.Apply(view, uint64(i)); err != nil {
				t.Fatal(err)
			}
		}
		return st
	}
	heads := func(n int) []*ledger.Header {
		out := make([]*ledger.Header, n)
		for i := range out {
			out[i] = &ledger.Header{ChainID: 0, Height: uint64(i), Hash: ledger.Hash{byte(i + 1), 7}}
		}
		return out
	}
	hashesOf := func(hs []*ledger.Header) []ledger.Hash {
		out := make([]ledger.Hash, len(hs))
		for i, h := range hs {
			out[i] = h.Hash
		}
		return out
	}

	t.Run("rewound to the highest stored block", func(t *testing.T) {
		db, err := store.Open(t.TempDir(), store.Options{Logger: lg})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		hs := heads(5)
		st := stateAt(t, db, hashesOf(hs))
		if err := db.PutHeaders(hs[:3]...); err != nil { // blocks 3 and 4 lost
			t.Fatal(err)
		}
		got, err := repairPactState(0, db, st, lg)
		if err != nil {
			t.Fatal(err)
		}
		if h, ok := got.Height(); !ok || h != 2 {
			t.Fatalf("state at %d (%v), want 2", h, ok)
		}
		if b, err := chain.BlockAt(got, 2); err != nil || b != hs[2].Hash {
			t.Fatalf("block at 2: %v %v", b, err)
		}
	})
	t.Run("kept when its block is stored", func(t *testing.T) {
		db, err := store.Open(t.TempDir(), store.Options{Logger: lg})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		hs := heads(3)
		st := stateAt(t, db, hashesOf(hs))
		if err := db.PutHeaders(hs...); err != nil {
			t.Fatal(err)
		}
		got, err := repairPactState(0, db, st, lg)
		if h, _ := got.Height(); err != nil || got != st || h != 2 {
			t.Fatalf("state at %d, same %v, %v", h, got == st, err)
		}
	})
	t.Run("emptied when no block it holds is stored", func(t *testing.T) {
		db, err := store.Open(t.TempDir(), store.Options{Logger: lg})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		st := stateAt(t, db, hashesOf(heads(4)))
		other, err := openPactState(db, 1) // another chain's state is not touched
		if err != nil {
			t.Fatal(err)
		}
		v := other.View(0).(*state.View)
		v.PutMeta("b", []byte("x")) // any record: the repair must not touch it
		if err := other.Apply(v, 0); err != nil {
			t.Fatal(err)
		}
		got, err := repairPactState(0, db, st, lg)
		if err != nil {
			t.Fatal(err)
		}
		if h, ok := got.Height(); ok {
			t.Fatalf("state still at %d", h)
		}
		reopened, _ := openPactState(db, 0)
		if _, ok := reopened.Height(); ok {
			t.Fatal("the reset did not reach the store")
		}
		if again, _ := openPactState(db, 1); func() bool { _, ok := again.Height(); return !ok }() {
			t.Fatal("chain 1's state was reset too")
		}
	})
}
