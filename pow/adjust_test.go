package pow

import (
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// The spec's formulas (§4.4) transcribed with big.Rat, independently of the implementation's
// integer arithmetic, to check it on inputs no vector covers.

func ratCeil(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// specCurrentShare is a_X = min(2^256-1, ceiling((ct - epochStart) / (w * blockDelay) * target)).
func specCurrentShare(bd int64, w uint64, x *ledger.Header) *big.Int {
	r := new(big.Rat).SetFrac(big.NewInt(x.CreationTime-x.EpochStart),
		new(big.Int).Mul(big.NewInt(bd), new(big.Int).SetUint64(w)))
	r.Mul(r, new(big.Rat).SetInt(x.Target.Big()))
	a := ratCeil(r)
	if maxT := ledger.MaxU256.Big(); a.Cmp(maxT) > 0 {
		a = maxT
	}
	return a
}

// specCurrent is floor(sum of a_X over parent and adjacent parents / their number).
func specCurrent(bd int64, w uint64, p *ledger.Header, adj []*ledger.Header) ledger.U256 {
	sum := specCurrentShare(bd, w, p)
	for _, a := range adj {
		sum.Add(sum, specCurrentShare(bd, w, a))
	}
	sum.Quo(sum, big.NewInt(int64(1+len(adj))))
	u, ok := ledger.U256FromBig(sum)
	if !ok {
		panic("average out of range")
	}
	return u
}

// specLegacy is (2^256-1) div ceiling(oldDiff * blockDelay * w / delta) with
// oldDiff = (2^256-1) / oldTarget as a rational.
func specLegacy(bd int64, w uint64, delta int64, oldTarget ledger.U256) ledger.U256 {
	maxT := ledger.MaxU256.Big()
	newDiff := new(big.Rat).SetFrac(maxT, oldTarget.Big())
	newDiff.Mul(newDiff, new(big.Rat).SetInt64(bd))
	newDiff.Mul(newDiff, new(big.Rat).SetInt(new(big.Int).SetUint64(w)))
	newDiff.Quo(newDiff, new(big.Rat).SetInt64(delta))
	u, _ := ledger.U256FromBig(new(big.Int).Quo(maxT, ratCeil(newDiff)))
	return u
}

// sampleTarget is a realistic target: the one of the mainnet header at 6,321,599 on chain 0.
func sampleTarget(t *testing.T) ledger.U256 {
	return tripleAt(t, loadTriples(t), 6321599).h.Target
}

func TestEpochBoundaries(t *testing.T) {
	// §4.1/§4.2: epochs of 12 blocks while the parent height is at most 120, then of 120.
	// Blocks 12, 24, ..., 120 start epochs, then 240; so their parents are the last in epoch.
	want := []uint64{11, 23, 35, 47, 59, 71, 83, 95, 107, 119, 239}
	for _, v := range []*ledger.Version{ledger.Mainnet01, ledger.Testnet04, ledger.Development, ledger.RecapDevelopment} {
		var got []uint64
		for p := uint64(0); p <= 250; p++ {
			if IsLastInEpoch(v, p) {
				got = append(got, p)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: last-in-epoch parent heights %v, want %v", v, got, want)
		}
		if w := EffectiveWindow(v, 120); w != 12 {
			t.Fatalf("%s: window at parent height 120 is %d, want 12", v, w)
		}
		if w := EffectiveWindow(v, 121); w != 120 {
			t.Fatalf("%s: window at parent height 121 is %d, want 120", v, w)
		}
	}
	// On mainnet after the first 120 blocks, the new block starts an epoch iff its height is a
	// multiple of 120; the top of the height range must not wrap.
	for _, p := range []uint64{6321599, 2111519, ^uint64(0) - 1, ^uint64(0)} {
		if got, want := IsLastInEpoch(ledger.Mainnet01, p), (p%120 == 119); got != want {
			t.Fatalf("IsLastInEpoch(%d) = %v", p, got)
		}
	}
	odd := *ledger.Mainnet01
	odd.WindowWidth = 0
	if IsLastInEpoch(&odd, 500) {
		t.Fatal("a version without a window has no epochs")
	}
}

func TestNextEpochStartRules(t *testing.T) {
	const pct, pes, ct = 1_700_000_000_000_000, 1_699_999_000_000_000, 1_700_000_030_000_000
	cases := []struct {
		name   string
		v      *ledger.Version
		chain  ledger.ChainID
		height uint64 // parent height
		want   int64
	}{
		{"rule 1: development, block 2", ledger.Development, 3, 1, pct},
		{"rule 1: recap-development, block 2", ledger.RecapDevelopment, 0, 1, pct},
		{"no fake first epoch on mainnet", ledger.Mainnet01, 0, 1, pes},
		{"rule 2: first block after a later genesis (mainnet chain 10)", ledger.Mainnet01, 10, 852055, pct},
		{"rule 2: testnet chain 15", ledger.Testnet04, 15, 332605, pct},
		{"rule 2: recap-development chain 19", ledger.RecapDevelopment, 19, 61, pct},
		{"not rule 2 on an original chain", ledger.Mainnet01, 0, 852055, pes},
		{"not rule 2 for the genesis itself", ledger.Mainnet01, 10, 852054, pes},
		{"not rule 2 for an unknown chain", ledger.Mainnet01, 77, 852055, pes},
		{"rule 3: legacy epoch start is the new block's time", ledger.Mainnet01, 0, 452759, ct},
		{"rule 3 inside the first 120 blocks", ledger.Mainnet01, 0, 11, ct},
		{"rule 4: epoch starts at the parent's time", ledger.Mainnet01, 0, 452879, pct},
		{"rule 4 on testnet04 (no OldTargetGuard)", ledger.Testnet04, 0, 239, pct},
		{"rule 5: inside an epoch", ledger.Mainnet01, 0, 452880, pes},
		{"rule 5: block 121", ledger.Mainnet01, 0, 120, pes},
	}
	for _, c := range cases {
		p := &ledger.Header{ChainID: c.chain, Height: c.height, CreationTime: pct, EpochStart: pes, Version: c.v.Code}
		if got := NextEpochStart(c.v, p, ct); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// mkParent builds a parent-like header for the adjustment functions, which read only chain,
// height, times and target.
func mkParent(chain ledger.ChainID, height uint64, es, ct int64, target ledger.U256) *ledger.Header {
	return &ledger.Header{ChainID: chain, Height: height, EpochStart: es, CreationTime: ct, Target: target, Version: ledger.Mainnet01.Code}
}

func TestNextTargetRegimes(t *testing.T) {
	const es int64 = 1_600_000_000_000_000
	const bd = 30_000_000
	T := sampleTarget(t)
	mainnet := ledger.Mainnet01
	adjOf := func(height uint64, deltas ...int64) []*ledger.Header {
		var out []*ledger.Header
		for i, d := range deltas {
			tgt := T
			tgt[0] += uint64(i) * 977 // distinct targets, so each share is its own
			out = append(out, mkParent(ledger.ChainID(5+5*i), height, es, es+d, tgt))
		}
		return out
	}
	check := func(name string, v *ledger.Version, p *ledger.Header, adj []*ledger.Header, ct int64, want ledger.U256) {
		t.Helper()
		got, err := NextTarget(v, p, adj, ct)
		if err != nil || got != want {
			t.Errorf("%s: %s (%v), want %s", name, got.BEHex(), err, want.BEHex())
		}
	}

	// Emergency DA (§4.4): mainnet, parent height < 80,000, outside an epoch boundary.
	slowLimit := es + 5*120*bd
	p := mkParent(0, 5000, es, slowLimit-1000, T)
	check("emergency: exactly five epochs is not slow", mainnet, p, nil, slowLimit, T)
	check("emergency: slower than five epochs adjusts with t = ct", mainnet, p, nil, slowLimit+1,
		specLegacy(bd, 120, slowLimit+1-es, T))
	check("emergency DA ends at parent height 80,000", mainnet, mkParent(0, 80000, es, slowLimit, T), nil, slowLimit+1e9, T)
	check("no emergency DA on testnet04", ledger.Testnet04, mkParent(0, 5000, es, slowLimit, T), nil, slowLimit+1e9, T)

	// Legacy DA with OldTargetGuard: t is the new block's time, later the parent's.
	ct := es + 120*bd + 123_456_789
	check("legacy, OldTargetGuard: t = ct", mainnet, mkParent(0, 452759, es, es+3_000_000_000, T), nil, ct,
		specLegacy(bd, 120, ct-es, T))
	check("legacy after OldTargetGuard: t = parent time", mainnet, mkParent(0, 452879, es, es+3_000_000_000, T), nil, ct,
		specLegacy(bd, 120, 3_000_000_000, T))
	check("legacy with the 12-block window", mainnet, mkParent(0, 11, es, es+300_000_000, T), nil, ct,
		specLegacy(bd, 12, ct-es, T))

	// Legacy to current at OldDAGuard (771,414 on the new block's height).
	p = mkParent(0, 771359, es, es+3_500_000_000, T)
	adj := adjOf(771359, 3_600_000_000, 3_400_000_000, 3_700_000_000)
	check("last legacy boundary ignores adjacent parents", mainnet, p, adj, ct, specLegacy(bd, 120, 3_500_000_000, T))
	p = mkParent(0, 771479, es, es+3_500_000_000, T)
	adj = adjOf(771479, 3_600_000_000, 3_400_000_000, 3_700_000_000)
	check("first current boundary averages over all parents", mainnet, p, adj, ct, specCurrent(bd, 120, p, adj))
	check("current rule with the 12-block window", ledger.Development, mkParent(0, 11, es, es+200_000_000, T),
		adjOf(11, 300_000_000, 1, 500_000_000), ct, specCurrent(bd, 12, mkParent(0, 11, es, es+200_000_000, T), adjOf(11, 300_000_000, 1, 500_000_000)))

	// OldDAGuard is read at the new block's height: a guard at 240 makes block 240 current.
	guarded := *ledger.Development
	guarded.Forks.OldDAGuard = 240
	p = mkParent(0, 239, es, es+3_500_000_000, T)
	adj = adjOf(239, 3_600_000_000, 3_400_000_000, 3_700_000_000)
	check("OldDAGuard at the new height", &guarded, p, adj, ct, specCurrent(bd, 120, p, adj))
	guarded.Forks.OldDAGuard = 241
	check("OldDAGuard one above the new height", &guarded, p, adj, ct, specLegacy(bd, 120, 3_500_000_000, T))

	// An epoch exactly on schedule keeps the target, with the version's own block delay.
	fast := ledger.Development.WithBlockDelay(5_000_000)
	p = mkParent(0, 239, es, es+120*5_000_000, T)
	same := []*ledger.Header{mkParent(5, 239, es, es+120*5_000_000, T), mkParent(10, 239, es, es+120*5_000_000, T)}
	check("on schedule with a 5 s block delay", fast, p, same, ct, T)
	// The same epoch measured against 30 s blocks was six times too fast: target / 6, rounded up.
	sixth := new(big.Int).Add(T.Big(), big.NewInt(5))
	sixthU, _ := ledger.U256FromBig(sixth.Quo(sixth, big.NewInt(6)))
	check("six times too fast with a 30 s block delay", ledger.Development, p, same, ct, sixthU)

	// An adjacent genesis parent (creation time = epoch start) contributes 0 (§4.4).
	gen := mkParent(10, 239, es, es, T)
	twoOnTime := []*ledger.Header{mkParent(5, 239, es, es+120*bd, T), gen}
	third, _ := ledger.U256FromBig(new(big.Int).Quo(new(big.Int).Mul(T.Big(), big.NewInt(2)), big.NewInt(3)))
	check("adjacent genesis parent", ledger.Development, mkParent(0, 239, es, es+120*bd, T), twoOnTime, ct, third)

	// A share above 2^256-1 is clamped (§4.4).
	check("clamp at the maximum target", ledger.Development, mkParent(0, 239, es, es+2*120*bd, ledger.MaxU256), nil, ct, ledger.MaxU256)
}

func TestNextTargetErrors(t *testing.T) {
	const es int64 = 1_600_000_000_000_000
	T := sampleTarget(t)
	boundary := func(ct int64, target ledger.U256) *ledger.Header { return mkParent(0, 239, es, ct, target) }
	zeroDelay := ledger.Development.WithBlockDelay(0)
	cases := []struct {
		name string
		v    *ledger.Version
		p    *ledger.Header
		adj  []*ledger.Header
	}{
		{"nil parent", ledger.Mainnet01, nil, nil},
		{"nil version", nil, boundary(es+1, T), nil},
		{"zero block delay", zeroDelay, boundary(es+1, T), nil},
		{"legacy, zero epoch length", ledger.Mainnet01, mkParent(0, 452879, es, es, T), nil},
		{"legacy, negative epoch length", ledger.Mainnet01, mkParent(0, 452879, es, es-1, T), nil},
		{"legacy, zero target", ledger.Mainnet01, mkParent(0, 452879, es, es+1, ledger.U256{}), nil},
		{"legacy, overflowing epoch length", ledger.Mainnet01, mkParent(0, 452879, -1<<63, 1<<62, T), nil},
		{"current, negative epoch length", ledger.Development, boundary(es-1, T), nil},
		{"current, adjacent with negative epoch length", ledger.Development, boundary(es+1, T), []*ledger.Header{mkParent(5, 239, es, es-5, T)}},
		{"current, overflowing epoch length", ledger.Development, mkParent(0, 239, -1<<63, 1<<62, T), nil},
		{"current, nil adjacent", ledger.Development, boundary(es+1, T), []*ledger.Header{nil}},
	}
	for _, c := range cases {
		if got, err := NextTarget(c.v, c.p, c.adj, es+1); err == nil {
			t.Errorf("%s: no error (target %s)", c.name, got.BEHex())
		}
	}
	// A zero target is a valid input to the current rule: its share is 0.
	if got, err := NextTarget(ledger.Development, boundary(es+100, ledger.U256{}), nil, es+200); err != nil || !got.IsZero() {
		t.Errorf("current rule with zero target: %s, %v", got.BEHex(), err)
	}
}

// Random inputs to both adjustment rules, checked against the spec transcription.
func TestNextTargetDifferential(t *testing.T) {
	const es int64 = 1_600_000_000_000_000
	r := rand.New(rand.NewSource(11))
	randTarget := func() ledger.U256 {
		u := randU256(r)
		if u.IsZero() {
			u[0] = 1
		}
		return u
	}
	for i := 0; i < 3000; i++ {
		delta := 1 + r.Int63n(20*120*30_000_000)
		if i%2 == 0 {
			// Legacy: mainnet boundary below OldDAGuard, after OldTargetGuard (t = parent time).
			p := mkParent(0, 600000-1, es, es+delta, randTarget())
			got, err := NextTarget(ledger.Mainnet01, p, nil, es+delta+1)
			if want := specLegacy(30_000_000, 120, delta, p.Target); err != nil || got != want {
				t.Fatalf("legacy delta %d target %s: %s (%v), want %s", delta, p.Target, got, err, want)
			}
			continue
		}
		p := mkParent(0, 6321599, es, es+delta, randTarget())
		var adj []*ledger.Header
		for c := 0; c < r.Intn(4); c++ {
			adj = append(adj, mkParent(ledger.ChainID(c+5), 6321599, es, es+r.Int63n(20*120*30_000_000), randTarget()))
		}
		got, err := NextTarget(ledger.Mainnet01, p, adj, es+delta+1)
		if want := specCurrent(30_000_000, 120, p, adj); err != nil || got != want {
			t.Fatalf("current: %s (%v), want %s", got, err, want)
		}
	}
}
