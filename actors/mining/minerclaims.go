package mining

import (
	"sync"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// The miner never races itself for one parent.
//
// Each worker takes a chain per round from the chains that can advance. Two workers that
// search the same parent at once and both find a nonce make two sibling blocks, of which one
// enters the cut and the other is stored for nothing (issue 36: 2% of a lone node's blocks,
// with two workers on 20 chains). It happened in two ways: the workers' round-robin indexes
// into a list of minable chains that changes with every cut, so two workers landed on the same
// chain; and a worker whose view of the cut was a moment old started on a parent another
// worker had just solved.
//
// So the miner keeps, for each chain, the parent its workers search (and the sequence number
// of the cut view that named it), how many search it, and whether a block on it was found.
// A worker prefers a chain nobody searches; it never takes a parent already solved or older
// than the one named; and of two workers that share a parent (more workers than chains to
// mine), only the first to find a nonce submits its block. A parent solved stays refused for
// solvedHold: the worker that solved it waits until the cut actor has taken its block, so a
// parent still at the head after that is one whose block did not enter the cut (a reorg back to
// it, say), and is searched again rather than left to stall its chain; but at most
// maxBlocksOnParent blocks in all: a parent whose blocks keep staying out of the cut (issue 37: a
// cut whose weight could not grow, with a sibling a second on every chain for as long as the
// node ran) is left alone until the cut moves on.

const (
	// solvedHold is how long a solved parent is not searched again.
	solvedHold = time.Second
	// maxBlocksOnParent bounds the blocks the miner stores on one parent while it is a head of
	// the cut: the first, and two more a solvedHold apart when the earlier ones did not enter.
	maxBlocksOnParent = 3
)

// chainClaim is one chain's search state.
type chainClaim struct {
	parent    ledger.Hash // the parent searched, or last solved
	seq       uint64      // the sequence of the cut view that named parent
	searchers int         // workers searching parent now
	solved    bool        // a block on parent was found and submitted
	solvedAt  time.Time   // when
	blocks    int         // blocks found and submitted on parent (maxBlocksOnParent)
}

// claims are the chains' search states, by chain id.
type claims struct {
	mu  sync.Mutex
	by  []chainClaim
	now func() time.Time
}

func newClaims(v *ledger.Version) *claims {
	n := 0
	for _, c := range v.Chains() {
		n = max(n, int(c)+1)
	}
	return &claims{by: make([]chainClaim, n), now: time.Now}
}

// heldLocked reports whether cl's parent is solved and not to be searched again yet, or ever
// (maxBlocksOnParent). cs.mu is held.
func (cs *claims) heldLocked(cl *chainClaim) bool {
	return cl.solved && cs.now().Sub(cl.solvedAt) < solvedHold || cl.blocks >= maxBlocksOnParent
}

// acquire claims the search of chain c on parent, named by the cut view of sequence seq. It
// refuses a parent already solved (or solved maxBlocksOnParent times), and one from a view
// older than the claim's that names another parent (a worker that has not seen the cut another
// worker's block made).
func (cs *claims) acquire(c ledger.ChainID, parent ledger.Hash, seq uint64) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if int(c) >= len(cs.by) {
		return false
	}
	cl := &cs.by[c]
	switch {
	case cl.parent == parent:
		if cs.heldLocked(cl) {
			return false
		}
		cl.solved = false
		cl.seq = max(cl.seq, seq)
	case seq < cl.seq:
		return false
	default:
		cl.parent, cl.seq, cl.solved, cl.blocks = parent, seq, false, 0
	}
	cl.searchers++
	return true
}

// solve reports whether the caller's block on parent of chain c is the first found, and marks
// it found: false means another worker's block on that parent was, or a newer parent is
// searched (the block would be a sibling or on a stale parent).
func (cs *claims) solve(c ledger.ChainID, parent ledger.Hash) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cl := &cs.by[c]
	if cl.parent != parent || cl.solved {
		return false
	}
	cl.solved, cl.solvedAt = true, cs.now()
	cl.blocks++
	return true
}

// release ends a search of chain c that acquire granted.
func (cs *claims) release(c ledger.ChainID) {
	cs.mu.Lock()
	cs.by[c].searchers--
	cs.mu.Unlock()
}

// prefer chooses among chains (those that can advance in heads) from the round-th on: the
// first that no worker searches and whose head is not solved, else the first whose head is not
// solved, else the round-th.
func (cs *claims) prefer(chains []ledger.ChainID, heads pow.Heads, round int) ledger.ChainID {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	shared, haveShared := chains[round%len(chains)], false
	for i := range chains {
		c := chains[(round+i)%len(chains)]
		if int(c) >= len(cs.by) {
			continue
		}
		cl := &cs.by[c]
		if h := heads.At(c); h != nil && cl.parent == h.Hash && cs.heldLocked(cl) {
			continue
		}
		if cl.searchers == 0 {
			return c
		}
		if !haveShared {
			shared, haveShared = c, true
		}
	}
	return shared
}

// unsolve undoes solve when the block found could not be inserted, so that the parent is
// searched again.
func (cs *claims) unsolve(c ledger.ChainID, parent ledger.Hash) {
	cs.mu.Lock()
	if cl := &cs.by[c]; cl.parent == parent && cl.solved {
		cl.solved = false
		cl.blocks--
	}
	cs.mu.Unlock()
}
