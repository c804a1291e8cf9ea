package pow

import (
	"slices"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// braid grows every chain of a version height by height, the way a cut does: the block at
// height H+1 on chain c has the chain's block at H as parent and the neighbours' blocks at H as
// adjacent parents. Each new header is built by NewHeader and must pass Validate; visit sees it
// with its parents.
type braid struct {
	v     *ledger.Version
	at    map[ledger.ChainID]map[uint64]*ledger.Header
	ct    func(c ledger.ChainID, height uint64) int64
	mine  bool // search nonces until the PoW holds
	visit func(h, p *ledger.Header, adj []*ledger.Header)
}

func (b *braid) grow(t *testing.T, top uint64) {
	t.Helper()
	b.at = map[ledger.ChainID]map[uint64]*ledger.Header{}
	for _, c := range b.v.Chains() {
		g, ok := ledger.UpstreamGenesisHeader(b.v, c)
		if !ok {
			t.Fatalf("%s: no genesis for chain %d", b.v, c)
		}
		b.at[c] = map[uint64]*ledger.Header{g.Height: g}
		wantRule(t, Validate(b.v, g, nil, nil, farFuture), "")
	}
	for height := uint64(0); height < top; height++ {
		for _, c := range b.v.Chains() {
			p := b.at[c][height]
			if p == nil {
				continue // the chain starts later
			}
			var adj []*ledger.Header
			for _, n := range b.v.HeaderGraph(c, height+1).Neighbors(c) {
				a := b.at[n][height]
				if a == nil {
					t.Fatalf("chain %d height %d: neighbour %d has no block at %d", c, height+1, n, height)
				}
				adj = append(adj, a)
			}
			h, err := NewHeader(b.v, p, adj, ledger.Hash{byte(c)}, b.ct(c, height+1), 0, 0)
			if err != nil {
				t.Fatalf("chain %d height %d: %v", c, height+1, err)
			}
			if b.mine {
				for !CheckPow(h) {
					h.Nonce++
				}
				h.Seal()
			}
			if err := Validate(b.v, h, p, adj, farFuture); err != nil {
				t.Fatalf("chain %d height %d: %v", c, height+1, err)
			}
			if b.visit != nil {
				b.visit(h, p, adj)
			}
			b.at[c][height+1] = h
		}
	}
}

// irregularTime makes block intervals vary between half and twice the block delay in runs of
// epochs, so that the difficulty adjustment has something to correct, plus a small per-chain
// offset. Each block stays younger than every block one height below it.
func irregularTime(v *ledger.Version) func(ledger.ChainID, uint64) int64 {
	return func(c ledger.ChainID, height uint64) int64 {
		t := v.GenesisTime
		for k := uint64(1); k <= height; k++ {
			switch (k / 30) % 3 {
			case 0:
				t += v.BlockDelay / 2
			case 1:
				t += v.BlockDelay
			default:
				t += 2 * v.BlockDelay
			}
		}
		return t + int64(c)*v.BlockDelay/100
	}
}

// recap-development covers what the real vectors cannot: the fake first epoch start, the
// 12-block window, the legacy rule (below height 13) then the current one, a graph change at 60
// with chains 10-19 starting there, and the epoch start of their first blocks.
func TestBraidRecapDevelopment(t *testing.T) {
	v := noPow(ledger.RecapDevelopment)
	es := map[ledger.ChainID][]uint64{} // heights where the epoch start changes, per chain
	var adjusted, legacy int
	b := &braid{v: v, ct: irregularTime(v), visit: func(h, p *ledger.Header, adj []*ledger.Header) {
		if h.EpochStart != p.EpochStart {
			es[h.ChainID] = append(es[h.ChainID], h.Height)
		}
		if !IsLastInEpoch(v, p.Height) {
			return
		}
		w := EffectiveWindow(v, p.Height)
		var want ledger.U256
		if h.Height < v.Forks.OldDAGuard {
			want = specLegacy(v.BlockDelay, w, p.CreationTime-p.EpochStart, p.Target)
			legacy++
		} else {
			want = specCurrent(v.BlockDelay, w, p, adj)
		}
		if h.Target != want {
			t.Fatalf("chain %d height %d: target %s, spec gives %s", h.ChainID, h.Height, h.Target.BEHex(), want.BEHex())
		}
		if h.Target != p.Target {
			adjusted++
		}
	}}
	b.grow(t, 245)

	// §4.3: block 2 takes block 1's time (rule 1); epochs start at 12, 24, ..., 120 and 240.
	want0 := []uint64{2, 12, 24, 36, 48, 60, 72, 84, 96, 108, 120, 240}
	if !slices.Equal(es[0], want0) {
		t.Fatalf("chain 0 epoch starts at %v, want %v", es[0], want0)
	}
	// Chains added at 60: block 62 takes block 61's time (rule 2), then the absolute epochs.
	want10 := []uint64{62, 72, 84, 96, 108, 120, 240}
	if !slices.Equal(es[10], want10) {
		t.Fatalf("chain 10 epoch starts at %v, want %v", es[10], want10)
	}
	if legacy != 10 || adjusted < 100 {
		t.Fatalf("%d legacy adjustments (want one per original chain), %d changed targets", legacy, adjusted)
	}
}

// Development with an easy genesis target and real PoW: the miner's path (NewHeader, nonce
// search, Seal) yields headers that pass every rule, PoW included.
func TestBraidDevelopmentMined(t *testing.T) {
	easy, err := TargetFromDifficulty(ledger.U256{16})
	if err != nil {
		t.Fatal(err)
	}
	v := ledger.Development.WithGenesisTarget(easy)
	if v.DisablePow {
		t.Fatal("development must check PoW")
	}
	n := 0
	b := &braid{v: v, mine: true, ct: irregularTime(v), visit: func(h, _ *ledger.Header, _ []*ledger.Header) {
		if !CheckPow(h) {
			t.Fatalf("chain %d height %d: mined header fails its target", h.ChainID, h.Height)
		}
		n++
	}}
	b.grow(t, 30)
	if n != 20*30 {
		t.Fatalf("%d headers", n)
	}
}

func TestNewHeaderErrors(t *testing.T) {
	tr := tripleAt(t, loadTriples(t), 6321600)
	v := ledger.Mainnet01
	ok := func(adj []*ledger.Header) error {
		_, err := NewHeader(v, tr.p, adj, ledger.Hash{}, tr.h.CreationTime, 0, 0)
		return err
	}
	if err := ok(tr.adj); err != nil {
		t.Fatalf("real parents: %v", err)
	}
	// The real header, rebuilt from its parents with its own payload, time and nonce.
	h, err := NewHeader(v, tr.p, []*ledger.Header{tr.adj[2], tr.adj[0], tr.adj[1]}, tr.h.PayloadHash, tr.h.CreationTime, tr.h.Nonce, 0)
	if err != nil || h.Hash != tr.h.Hash {
		t.Fatalf("rebuilt header %v (%v), want %s", h, err, tr.h.Hash)
	}
	for name, adj := range map[string][]*ledger.Header{
		"missing neighbour": tr.adj[:2],
		"extra neighbour":   append(slices.Clone(tr.adj), tr.p),
		"nil neighbour":     {tr.adj[0], nil, tr.adj[2]},
	} {
		if ok(adj) == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := NewHeader(nil, tr.p, tr.adj, ledger.Hash{}, 0, 0, 0); err == nil {
		t.Error("nil version: no error")
	}
	top := tr.p.Clone()
	top.Height = ^uint64(0)
	if _, err := NewHeader(v, top, tr.adj, ledger.Hash{}, 0, 0, 0); err == nil {
		t.Error("parent at the maximum height: no error")
	}
}
