package powtest

import (
	"fmt"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// Fixture builds braids in memory: a development version with an easy genesis target, its
// genesis blocks, and mined blocks kept in a map that serves as the store.
type Fixture struct {
	T       testing.TB
	V       *ledger.Version
	Genesis pow.Heads
	ByHash  map[ledger.Hash]*ledger.Header
	// CT is the creation time of the next block; every block gets a later one.
	CT int64
	// payloads holds the payload of each salt: blocks mined with different salts on the same
	// parents differ by their miner data.
	payloads map[byte]*ledger.PayloadWithOutputs
}

// EasyTarget needs about 4 hashes per block.
func EasyTarget(t testing.TB) ledger.U256 {
	tg, err := pow.TargetFromDifficulty(ledger.U256{4})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// New returns a fixture over the development graph at EasyTarget, holding its genesis blocks.
func New(t testing.TB) *Fixture {
	v := ledger.Development.WithGenesisTarget(EasyTarget(t))
	f := &Fixture{T: t, V: v, ByHash: map[ledger.Hash]*ledger.Header{}, CT: v.GenesisTime + 1_000_000,
		payloads: map[byte]*ledger.PayloadWithOutputs{}}
	p := ledger.EmptyGenesisPayload()
	f.Genesis = make(pow.Heads, len(v.Chains()))
	for _, c := range v.Chains() {
		g := ledger.GenesisHeader(v, c, p.PayloadHash)
		f.Genesis[c] = g
		f.ByHash[g.Hash] = g
	}
	return f
}

// Lookup is the fixture's pow.HeaderLookup.
func (f *Fixture) Lookup(h ledger.Hash) (*ledger.Header, bool) {
	x, ok := f.ByHash[h]
	return x, ok
}

// Mine makes the next block on chain c of cut hs, with salt in its payload hash so that blocks
// mined on the same parents differ. It is stored but hs is not changed.
func (f *Fixture) Mine(hs pow.Heads, c ledger.ChainID, salt byte) *ledger.Header {
	f.T.Helper()
	p, adj, err := pow.MiningParents(f.V, hs, c, f.Lookup)
	if err != nil {
		f.T.Fatal(err)
	}
	return f.MineOn(p, adj, salt)
}

// MineOn makes a block on parent p and adjacent parents adj, valid by every pow rule.
func (f *Fixture) MineOn(p *ledger.Header, adj []*ledger.Header, salt byte) *ledger.Header {
	f.T.Helper()
	f.CT += 1000
	h, err := pow.NewHeader(f.V, p, adj, f.Payload(salt).PayloadHash, f.CT, 0, 0)
	if err != nil {
		f.T.Fatal(err)
	}
	if !pow.MineHeader(h, 1<<20) {
		f.T.Fatal("no nonce at difficulty 4")
	}
	if err := pow.Validate(f.V, h, p, adj, f.CT); err != nil {
		f.T.Fatalf("fixture block: %v", err)
	}
	f.ByHash[h.Hash] = h
	return h
}

// Payload returns the payload of blocks mined with salt.
func (f *Fixture) Payload(salt byte) *ledger.PayloadWithOutputs {
	p, ok := f.payloads[salt]
	if !ok {
		p = ledger.EmptyPayload(ledger.MinerData(fmt.Sprintf("miner-%d", salt)))
		f.payloads[salt] = p
	}
	return p
}

// PayloadOf returns the payload of a block the fixture mined.
func (f *Fixture) PayloadOf(h *ledger.Header) *ledger.PayloadWithOutputs {
	for _, p := range f.payloads {
		if p.PayloadHash == h.PayloadHash {
			return p
		}
	}
	f.T.Fatalf("no payload for block %s", h.Hash)
	return nil
}

// Grow extends every chain of hs to height top, round by round.
func (f *Fixture) Grow(hs pow.Heads, top uint64) pow.Heads {
	f.T.Helper()
	for {
		done := true
		for _, c := range pow.Minable(f.V, hs) {
			if hs[c].Height < top {
				hs = pow.Extend(hs, f.Mine(hs, c, 0))
				done = false
			}
		}
		if done {
			return hs
		}
	}
}

// At returns the ancestor of x at height n.
func (f *Fixture) At(x *ledger.Header, n uint64) *ledger.Header {
	for x.Height > n {
		x = f.ByHash[x.Parent]
	}
	return x
}

// With returns hs with the given heads replaced.
func With(hs pow.Heads, xs ...*ledger.Header) pow.Heads {
	next := hs.Clone()
	for _, x := range xs {
		next[x.ChainID] = x
	}
	return next
}

// Heights lists the heights of hs by chain (0 where a chain has no head).
func Heights(hs pow.Heads) []uint64 {
	out := make([]uint64, len(hs))
	for i, h := range hs {
		if h != nil {
			out[i] = h.Height
		}
	}
	return out
}
