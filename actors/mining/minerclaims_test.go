package mining

import (
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors/actorstest"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/pow/powtest"
)

func TestClaimsOneBlockPerParent(t *testing.T) {
	cs := newClaims(ledger.Development)
	p1, p2 := ledger.Hash{1}, ledger.Hash{2}
	// Two workers share chain 3's parent p1 (more workers than chains): both may search it,
	// only the first to find submits.
	first := cs.acquire(3, p1, 10)
	second := cs.acquire(3, p1, 10)
	if !first || !second {
		t.Fatal("two workers could not share a parent")
	}
	if !cs.solve(3, p1) {
		t.Fatal("the first block found on p1 was refused")
	}
	if cs.solve(3, p1) {
		t.Fatal("a second block on p1 was accepted: a sibling")
	}
	cs.release(3)
	cs.release(3)
	// A worker whose view still shows p1 as the head does not search it again.
	if cs.acquire(3, p1, 10) {
		t.Fatal("a solved parent was searched again")
	}
	// The next parent, from the newer view, is searched; then an older view's parent is refused.
	if !cs.acquire(3, p2, 11) {
		t.Fatal("the new parent was refused")
	}
	if cs.acquire(3, ledger.Hash{9}, 10) {
		t.Fatal("an older view's parent was taken over the newer one's")
	}
	if cs.solve(3, p1) {
		t.Fatal("a block on the replaced parent was accepted")
	}
	// A block that could not be inserted leaves its parent to be searched again.
	if !cs.solve(3, p2) {
		t.Fatal("p2's block refused")
	}
	cs.unsolve(3, p2)
	if !cs.solve(3, p2) {
		t.Fatal("p2 still solved after its block failed")
	}
}

func TestClaimsPreferAChainNobodySearches(t *testing.T) {
	f := powtest.New(t)
	cs := newClaims(f.V)
	heads := pow.Heads(f.Genesis)
	chains := []ledger.ChainID{0, 1, 2}
	if !cs.acquire(1, heads.At(1).Hash, 1) {
		t.Fatal("acquire")
	}
	if c := cs.prefer(chains, heads, 1); c != 2 {
		t.Fatalf("preferred chain %d, searched by another worker; want 2", c)
	}
	if !cs.acquire(2, heads.At(2).Hash, 1) || !cs.acquire(0, heads.At(0).Hash, 1) || !cs.solve(0, heads.At(0).Hash) {
		t.Fatal("acquire")
	}
	// Every chain is searched, chain 0's head is solved: share another one.
	if c := cs.prefer(chains, heads, 0); c != 1 {
		t.Fatalf("preferred chain %d; want 1 (0 is solved)", c)
	}
}

// A node's workers, many more than the chains that can advance at a time on an easy target
// (about 4 hashes a block, so that every worker finds a nonce at once), never mine two blocks
// on one parent: every block inserted enters the cut.
func TestMinerNeverRacesItself(t *testing.T) {
	f := powtest.New(t)
	db := actorstest.OpenStore(t, f.Genesis)
	rt := actorstest.Start(t, f.V, f.Genesis, db)
	Start(rt, Config{MinerData: ledger.MinerData("tester"), Workers: 16, ChunkNonces: 64})
	const top = 8
	waitLowestChain(t, rt, top)
	rt.Stop()
	inserted, orphaned := rt.Blocks()
	s := rt.Stats()
	if inserted != s.Entered || orphaned != 0 || inserted != s.Mined {
		t.Fatalf("inserted %d, entered the cut %d, orphaned %d, mined %d: the miner raced itself", inserted, s.Entered, orphaned, s.Mined)
	}
	if inserted < 20*top {
		t.Fatalf("inserted %d", inserted)
	}
}

// A parent whose block did not enter the cut (it is still the head a second later) is searched
// again, so that a chain never stalls on it.
func TestClaimsSolvedParentReleasedLater(t *testing.T) {
	cs := newClaims(ledger.Development)
	now := time.Unix(1000, 0)
	cs.now = func() time.Time { return now }
	p := ledger.Hash{7}
	if !cs.acquire(4, p, 1) || !cs.solve(4, p) {
		t.Fatal("acquire, solve")
	}
	cs.release(4)
	if cs.acquire(4, p, 2) {
		t.Fatal("a parent solved just now was searched again")
	}
	now = now.Add(solvedHold)
	if !cs.acquire(4, p, 2) {
		t.Fatal("a parent solved a while ago and still the head is not searched again")
	}
	if !cs.solve(4, p) {
		t.Fatal("its new block was refused")
	}
}
