package mining

import (
	"log/slog"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/actors/actorstest"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/internal/syncbuf"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/pow/powtest"
)

// targetOf is the target of difficulty 2^log2d.
func targetOf(t *testing.T, log2d uint) ledger.U256 {
	t.Helper()
	tg, err := pow.TargetFromDifficulty(u256(t, new(big.Int).Lsh(big.NewInt(1), log2d)))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// Pacing spreads the rise of the difficulty over the epochs the blocks asked for cross, so that
// they fit in the cut's weight with the reserve to spare: none for a few hundred blocks, about
// twenty seconds an epoch for 3,000 from genesis on a development node, the epoch's intended
// length (no rise) when the room is used up.
func TestEpochPace(t *testing.T) {
	v := ledger.Development
	const chains = 20
	d := uint(20) // a development node's genesis difficulty at a 30 s block delay, about 2^20
	h := &ledger.Header{Height: 11, Target: targetOf(t, d)}
	if !pow.IsLastInEpoch(v, h.Height) {
		t.Fatal("height 11 does not end an epoch")
	}
	weight := u256(t, new(big.Int).Lsh(big.NewInt(chains*11), d)) // 11 blocks a chain at 2^20

	if p := epochPace(v, h, weight, chains, 300); p > time.Millisecond { // wallclock: a computed pace, not a measured time
		t.Fatalf("300 blocks a chain are held %v an epoch", p)
	}

	const top = 3002
	p := epochPace(v, h, weight, chains, top)
	if p < 5*time.Second || p > 40*time.Second { // wallclock: a computed pace, not a measured time
		t.Fatalf("3,000 blocks a chain from genesis are held %v an epoch, want about 20 s", p)
	}
	// The plan leaves the reserve: the difficulty's rise over the epochs to top, at that pace,
	// stays within the room the cut's weight has over 2^weightReserveLog2 blocks a chain.
	rise := 0.0
	for n := h.Height; n <= top; n++ {
		if pow.IsLastInEpoch(v, n) {
			intended := time.Duration(pow.EffectiveWindow(v, n)) * time.Duration(v.BlockDelay) * time.Microsecond
			rise += math.Log2(float64(intended) / float64(p))
		}
	}
	if spare := 256 - math.Log2(chains) - float64(d) - weightReserveLog2; rise > spare+1e-6 || rise < spare-1 {
		t.Fatalf("the difficulty rises 2^%.1f by height %d, the room is 2^%.1f", rise, top, spare)
	}

	// Room for fewer blocks than the reserve: the epoch lasts as intended (12 × 30 s).
	full := u256(t, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), new(big.Int).Lsh(big.NewInt(1), d+10)))
	if p := epochPace(v, h, full, chains, 20); p != 360*time.Second {
		t.Fatalf("a cut without room holds an epoch %v, want 6m0s", p)
	}
}

// A parent whose blocks stay out of the cut is searched again a solvedHold later, but gets at
// most maxBlocksOnParent blocks: the miner never floods the store with siblings.
func TestClaimsBoundBlocksOnParent(t *testing.T) {
	cs := newClaims(ledger.Development)
	now := time.Unix(1000, 0)
	cs.now = func() time.Time { return now }
	p := ledger.Hash{7}
	for i := range maxBlocksOnParent {
		if !cs.acquire(4, p, 1) || !cs.solve(4, p) {
			t.Fatalf("block %d on a parent still at the head was refused", i+1)
		}
		cs.release(4)
		now = now.Add(solvedHold)
	}
	now = now.Add(time.Hour)
	if cs.acquire(4, p, 1) {
		t.Fatalf("a parent with %d blocks was searched again", maxBlocksOnParent)
	}
	// A block that could not be inserted does not count.
	cs = newClaims(ledger.Development)
	cs.now = func() time.Time { return now }
	if !cs.acquire(4, p, 1) || !cs.solve(4, p) {
		t.Fatal("acquire, solve")
	}
	cs.unsolve(4, p)
	cs.release(4)
	for i := range maxBlocksOnParent {
		if !cs.acquire(4, p, 1) || !cs.solve(4, p) {
			t.Fatalf("block %d after a failed insert was refused", i+1)
		}
		cs.release(4)
		now = now.Add(solvedHold)
	}
}

// On a network whose cut has room in its 256-bit weight for a few blocks only (the state a
// development node without proof of work reached after 1,700 fast blocks a chain, issue 37),
// the on-demand miner mines them and then stops, saying why: it never stores a block that
// cannot enter the cut. Before, it stored a sibling on every wanted chain every second.
func TestOnDemandMinerStopsWhenTheCutCannotGetHeavier(t *testing.T) {
	// Genesis difficulty (2^256-1)/160: the genesis cut weighs about 20/160 of 2^256 (a block
	// weighs its difficulty, genesis included or not), and about 140 blocks fill the rest.
	d := new(big.Int).Div(ledger.MaxU256.Big(), big.NewInt(160))
	tg, err := pow.TargetFromDifficulty(u256(t, d))
	if err != nil {
		t.Fatal(err)
	}
	f := powtest.New(t)
	f.V = ledger.Development.WithGenesisTarget(tg).WithoutPow()
	p := ledger.EmptyGenesisPayload()
	for _, c := range f.V.Chains() {
		g := ledger.GenesisHeader(f.V, c, p.PayloadHash)
		f.Genesis[c] = g
		f.ByHash[g.Hash] = g
	}
	db := actorstest.OpenStore(t, f.Genesis)
	const workers = 2
	var log syncbuf.Buffer
	rt, err := actors.Start(actors.Config{Version: f.V, Store: db, Genesis: f.Genesis, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Stop)
	m := Start(rt, Config{MinerData: ledger.MinerData("tester"), Workers: workers, OnDemand: &OnDemandConfig{}})
	ask := map[ledger.ChainID]uint64{}
	for _, c := range f.V.Chains() {
		ask[c] = 20
	}
	if err := m.MakeBlocks(ask); err != nil {
		t.Fatal(err)
	}
	// The room: what the heaviest cut may still gain before its weight wraps.
	room := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), rt.View().Heads.Weight().Big())
	fit := new(big.Int).Div(room, d).Uint64()
	// Wait for the cut to stand still for longer than the old miner took to store a sibling on
	// every wanted chain (solvedHold).
	deadline := hangguard.Deadline()
	last, since := rt.View().Cut.Height, time.Now()
	for time.Since(since) < 2*solvedHold {
		if time.Now().After(deadline) {
			t.Fatalf("%s: cut height %d", hangguard.Failure("the cut to stop growing"), rt.View().Cut.Height)
		}
		time.Sleep(10 * time.Millisecond)
		if h := rt.View().Cut.Height; h != last {
			last, since = h, time.Now()
		}
	}
	rt.Stop()
	inserted, _ := rt.Blocks()
	s := rt.Stats()
	// A worker may have looked at the room just before the other's last block took it: one
	// block each at most, never more.
	if inserted > s.Entered+workers-1 || s.Mined != inserted {
		t.Fatalf("stored %d blocks, mined %d, %d entered the cut: blocks that could never enter were stored", inserted, s.Mined, s.Entered)
	}
	if !strings.Contains(log.String(), "no more blocks can enter the cut") {
		t.Fatalf("the miner stopped without saying why:\n%s", log.String())
	}
	if s.Entered+20 < fit || s.Entered > fit {
		t.Fatalf("%d blocks entered the cut; the weight had room for %d", s.Entered, fit)
	}
}

func u256(t *testing.T, b *big.Int) ledger.U256 {
	t.Helper()
	u, ok := ledger.U256FromBig(b)
	if !ok {
		t.Fatalf("%v does not fit", b)
	}
	return u
}
