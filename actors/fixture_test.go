package actors

import (
	"fmt"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// fixture builds braids in memory: a development version with an easy genesis target, its
// genesis blocks, and mined blocks kept in a map that serves as the store.
type fixture struct {
	t       testing.TB
	v       *ledger.Version
	genesis Heads
	byHash  map[ledger.Hash]*ledger.Header
	ct      int64 // creation time of the next block; every block gets a later one
	// payloads holds the payload of each salt: blocks mined with different salts on the same
	// parents differ by their miner data.
	payloads map[byte]*ledger.PayloadWithOutputs
}

// easyTarget needs about 4 hashes per block.
func easyTarget(t testing.TB) ledger.U256 {
	tg, err := pow.TargetFromDifficulty(ledger.U256{4})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func newFixture(t testing.TB) *fixture {
	v := ledger.Development.WithGenesisTarget(easyTarget(t))
	f := &fixture{t: t, v: v, byHash: map[ledger.Hash]*ledger.Header{}, ct: v.GenesisTime + 1_000_000,
		payloads: map[byte]*ledger.PayloadWithOutputs{}}
	p := ledger.EmptyGenesisPayload()
	f.genesis = make(Heads, len(v.Chains()))
	for _, c := range v.Chains() {
		g := ledger.GenesisHeader(v, c, p.PayloadHash)
		f.genesis[c] = g
		f.byHash[g.Hash] = g
	}
	return f
}

func (f *fixture) lookup(h ledger.Hash) (*ledger.Header, bool) {
	x, ok := f.byHash[h]
	return x, ok
}

// mine makes the next block on chain c of cut hs, with salt in its payload hash so that blocks
// mined on the same parents differ. It is stored but hs is not changed.
func (f *fixture) mine(hs Heads, c ledger.ChainID, salt byte) *ledger.Header {
	f.t.Helper()
	p, adj, err := MiningParents(f.v, hs, c, f.lookup)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.mineOn(p, adj, salt)
}

func (f *fixture) mineOn(p *ledger.Header, adj []*ledger.Header, salt byte) *ledger.Header {
	f.t.Helper()
	f.ct += 1000
	h, err := pow.NewHeader(f.v, p, adj, f.payload(salt).PayloadHash, f.ct, 0, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	if !pow.MineHeader(h, 1<<20) {
		f.t.Fatal("no nonce at difficulty 4")
	}
	if err := pow.Validate(f.v, h, p, adj, f.ct); err != nil {
		f.t.Fatalf("fixture block: %v", err)
	}
	f.byHash[h.Hash] = h
	return h
}

// payload returns the payload of blocks mined with salt.
func (f *fixture) payload(salt byte) *ledger.PayloadWithOutputs {
	p, ok := f.payloads[salt]
	if !ok {
		p = ledger.EmptyPayload(ledger.MinerData(fmt.Sprintf("miner-%d", salt)))
		f.payloads[salt] = p
	}
	return p
}

// payloadOf returns the payload of a block the fixture mined.
func (f *fixture) payloadOf(h *ledger.Header) *ledger.PayloadWithOutputs {
	for _, p := range f.payloads {
		if p.PayloadHash == h.PayloadHash {
			return p
		}
	}
	f.t.Fatalf("no payload for block %s", h.Hash)
	return nil
}

// grow extends every chain of hs to height top, round by round.
func (f *fixture) grow(hs Heads, top uint64) Heads {
	f.t.Helper()
	for {
		done := true
		for _, c := range Minable(f.v, hs) {
			if hs[c].Height < top {
				hs = Extend(hs, f.mine(hs, c, 0))
				done = false
			}
		}
		if done {
			return hs
		}
	}
}

// at returns the ancestor of x at height n.
func (f *fixture) at(x *ledger.Header, n uint64) *ledger.Header {
	for x.Height > n {
		x = f.byHash[x.Parent]
	}
	return x
}

// with returns hs with the given heads replaced.
func with(hs Heads, xs ...*ledger.Header) Heads {
	next := hs.clone()
	for _, x := range xs {
		next[x.ChainID] = x
	}
	return next
}
