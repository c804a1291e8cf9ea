// Package actorstest helps the tests of the packages that run over the runtime (actors/mining,
// actors/peersync): a fresh store holding a network's genesis blocks, a runtime started on it
// and stopped with the test, and a fixture's blocks (pow/powtest) inserted through it. The actors package's
// own tests keep their copies, since they cannot import a package that imports actors.
package actorstest

import (
	"io"
	"log/slog"
	"testing"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// Quiet is a logger that writes nothing.
var Quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// OpenStore opens a fresh store holding the genesis blocks (with the empty genesis payload) as heads, as the node
// writes them on first start. The test closes it.
func OpenStore(t testing.TB, genesis []*ledger.Header) *store.DB {
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
	for _, g := range genesis {
		heads[g.ChainID] = g.Hash
	}
	if err := db.PutHeaders(genesis...); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(heads); err != nil {
		t.Fatal(err)
	}
	return db
}

// Start starts a runtime of network v without execution on db, logging nothing; the test
// stops it.
func Start(t testing.TB, v *ledger.Version, genesis []*ledger.Header, db *store.DB) *actors.Runtime {
	t.Helper()
	rt, err := actors.Start(actors.Config{Version: v, Store: db, Genesis: genesis, Logger: Quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Stop)
	return rt
}

// Payloads gives a block's payload (a *powtest.Fixture does).
type Payloads interface {
	PayloadOf(h *ledger.Header) *ledger.PayloadWithOutputs
}

// Insert hands the blocks hs, with their payloads from f, to rt.
func Insert(t testing.TB, f Payloads, rt *actors.Runtime, hs ...*ledger.Header) {
	t.Helper()
	for _, h := range hs {
		if err := rt.Insert(h, f.PayloadOf(h)); err != nil {
			t.Fatalf("insert chain %d height %d: %v", h.ChainID, h.Height, err)
		}
	}
}
