package mining

import (
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/actors/actorstest"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/pow/powtest"
	"github.com/ledgernode/ledger-node/store"
)

// The miner extends all 20 chains. Every stored block passes every rule against its stored
// parents, its adjacent parents are at its parent's height, and the cut stays braided.
func TestMinerMinesAllChains(t *testing.T) {
	f := powtest.New(t)
	db := actorstest.OpenStore(t, f.Genesis)
	rt := actorstest.Start(t, f.V, f.Genesis, db)
	Start(rt, Config{MinerData: ledger.MinerData("tester"), Workers: 2, ChunkNonces: 256})
	const top = 4
	waitLowestChain(t, rt, top)
	rt.Stop()
	s := rt.Stats()
	if s.Mined < 20*top || s.Hashes < s.Mined || s.Entered < 20*top {
		t.Fatalf("stats %+v", s)
	}
	if err := pow.CheckBraided(rt.View().Heads); err != nil {
		t.Fatal(err)
	}
	heads, _ := db.Heads()
	for c, h := range rt.View().Heads {
		if heads[ledger.ChainID(c)] != h.Hash {
			t.Fatalf("persisted head of chain %d differs from the cut's", c)
		}
	}
	checkStoredBraid(t, f.V, db)
}

// checkStoredBraid validates every stored non-genesis block against its stored parents and
// checks that its adjacent parents sit at its parent's height.
func checkStoredBraid(t *testing.T, v *ledger.Version, db *store.DB) {
	t.Helper()
	now := time.Now().UnixMicro()
	n := 0
	for _, c := range v.Chains() {
		err := db.ScanChain(c, store.Position{Height: 1}, func(h *ledger.Header) bool {
			n++
			p, err := db.Header(h.Parent)
			if err != nil {
				t.Errorf("chain %d height %d: parent: %v", c, h.Height, err)
				return false
			}
			var adj []*ledger.Header
			for _, a := range h.Adjacents {
				x, err := db.Header(a.Hash)
				if err != nil || x.Height != h.Height-1 || x.ChainID != a.Chain {
					t.Errorf("chain %d height %d: adjacent parent on chain %d missing or at the wrong height", c, h.Height, a.Chain)
					return false
				}
				adj = append(adj, x)
			}
			if err := pow.Validate(v, h, p, adj, now); err != nil {
				t.Errorf("stored block fails validation: %v", err)
				return false
			}
			if _, err := db.PayloadWithOutputs(h.PayloadHash); err != nil {
				t.Errorf("chain %d height %d: payload: %v", c, h.Height, err)
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatal("no mined blocks stored")
	}
}

// waitLowestChain waits until every chain of rt's cut is at height top or above.
func waitLowestChain(t *testing.T, rt *actors.Runtime, top uint64) {
	t.Helper()
	deadline := hangguard.Deadline()
	for {
		low := ^uint64(0)
		for _, h := range rt.View().Heads {
			low = min(low, h.Height)
		}
		if low >= top {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the lowest chain is at %d, heights %v", hangguard.Failure("every chain mined"), low, powtest.Heights(rt.View().Heads))
		}
		time.Sleep(10 * time.Millisecond) // wallclock: a poll interval, bounding nothing
	}
}
