package peersync

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// A catch-up by height windows, fetched from several peers at once.
//
// The peer API answers one client 50 requests a second and 20 headers a branch page (upstream's
// limits, which the interface fixes), so one peer can hand a catching-up node at most about 940
// blocks a second, however fast both nodes are. Upstream's node spreads its fetches over its
// peers, and so does this one: the peer whose cut is adopted (the origin) and up to
// maxSyncHelpers other peers whose latest cut is at least as high on every chain fetch whole
// windows side by side, and the windows are inserted in order, each while later ones are
// fetched. What a helper serves is checked as the origin's is (hashes by the client, the
// window's completeness here, every block by the chain actors and executors). A helper that
// fails (it lacks the blocks, serves an incomplete branch, or blocks that do not insert) is
// dropped from the catch-up and its window fetched again from the origin; one that served an
// invalid block is also ignored for a while, as an origin would be.

// maxSyncHelpers bounds the peers that fetch windows beside the origin. The windows fetched
// ahead of the insertion (one per peer, and one more) are held in memory.
const maxSyncHelpers = 2

// DefaultWindow is how many blocks a catch-up fetches (headers and payloads) before
// inserting them: enough for full payload batches on every chain, few enough to hold in
// memory, and to keep windows fetching while the one before validates.
const DefaultWindow = 4000

// window is the catch-up window in blocks.
func (s *Syncer) window() int { return cmp.Or(s.cfg.Window, DefaultWindow) }

// errForkBelowHead is syncWindows giving up: a chain's blocks do not continue this node's head.
var errForkBelowHead = errors.New("the peer's branch forks below this node's head")

// syncSource is a peer a catch-up fetches windows from.
type syncSource struct {
	addr   string
	p      Peer
	origin bool     // the peer whose cut the catch-up adopts; its failures end the catch-up
	jobs   chan int // the next window to fetch (the dispatcher sends one only to an idle source)
	// The dispatcher's own: a helper no longer used; the windows it served that were inserted.
	dropped bool
	served  int
}

// fetchedWindow is window k of a catch-up, in insertion order, with its payloads.
type fetchedWindow struct {
	k        int
	src      *syncSource
	blocks   []*ledger.Header
	payloads map[ledger.Hash]*ledger.PayloadWithOutputs
	err      error
}

// syncSources is the origin, then up to maxSyncHelpers helpers: other peers, not ignored for
// now, whose latest cut reaches the heights of the cut entries todo on every one of their
// chains. Those most likely hold the same blocks; one that does not answers its first branch
// query with a 404 and is dropped.
func (s *Syncer) syncSources(origin string, p Peer, todo []ledger.CutEntry) []*syncSource {
	out := []*syncSource{{addr: origin, p: p, origin: true, jobs: make(chan int, 1)}}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for _, a := range slices.Sorted(maps.Keys(s.table)) {
		if len(out) > maxSyncHelpers {
			break
		}
		if e := s.table[a]; a == origin || !usable(e, now) {
			continue
		}
		if c := s.cuts[a]; c != nil && reaches(c, todo) {
			out = append(out, &syncSource{addr: a, p: s.table[a].p, jobs: make(chan int, 1)})
		}
	}
	return out
}

// reaches reports whether cut c is at least as high as each entry of todo on its chain.
func reaches(c *ledger.Cut, todo []ledger.CutEntry) bool {
	for _, e := range todo {
		i, ok := slices.BinarySearchFunc(c.Entries, e.Chain, func(x ledger.CutEntry, ch ledger.ChainID) int {
			return cmp.Compare(x.Chain, ch)
		})
		if !ok || c.Entries[i].Height < e.Height {
			return false
		}
	}
	return true
}

// syncWindows fetches the blocks above this node's heads up to cut c's, chain by chain, by
// height windows, from the origin p and its helpers, and inserts the windows in order while
// later ones are fetched. It returns errForkBelowHead, having inserted what it could, when a
// chain does not continue its head.
func (s *Syncer) syncWindows(ctx context.Context, origin string, p Peer, c *ledger.Cut, todo []ledger.CutEntry, heads pow.Heads) error {
	v := s.rt.Version()
	// Each chain's first missing height, and the head it must continue (nil: its genesis).
	from := make(map[ledger.ChainID]uint64, len(todo))
	below := make(map[ledger.ChainID]*ledger.Header, len(todo))
	lo, hi, total := ^uint64(0), uint64(0), 0
	for _, e := range todo {
		f, _ := v.GenesisHeight(e.Chain)
		if h := heads.At(e.Chain); h != nil {
			f, below[e.Chain] = h.Height+1, h
		}
		if e.Height < f {
			return errForkBelowHead // the peer's head is not above ours: not a continuation
		}
		from[e.Chain] = f
		lo, hi, total = min(lo, f), max(hi, e.Height), total+int(e.Height-f+1)
	}
	span := uint64(max(1, s.window()/len(v.Chains())))
	windows := int((hi-lo)/span) + 1
	sources := s.syncSources(origin, p, todo)

	ctx, cancel := context.WithCancel(ctx)
	fetched := make(chan fetchedWindow, len(sources))
	for _, src := range sources {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case k := <-src.jobs:
					a := lo + uint64(k)*span
					w := s.fetchWindow(ctx, src.addr, src.p, todo, from, below, a, min(a+span-1, hi))
					w.k, w.src = k, src
					select {
					case fetched <- w:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
	}
	// One goroutine inserts, so that windows keep being handed out meanwhile. The catch-up
	// returns only once it is idle: nothing else may insert while a window still does.
	prog := newProgress(s.log, origin, total, c.Height, time.Now(), len(sources)-1)
	toInsert, inserted, inserterDone := make(chan fetchedWindow), make(chan error), make(chan struct{})
	go func() {
		defer close(inserterDone)
		for w := range toInsert {
			// A window that fails is counted again when it is inserted from the origin.
			counted := prog.n
			err := s.insertWindow(w.src.addr, w, prog)
			if err != nil {
				prog.n = counted
			}
			select {
			case inserted <- err:
			case <-ctx.Done():
			}
		}
	}()
	defer func() {
		cancel()
		close(toInsert)
		<-inserterDone
	}()

	ahead := len(sources) + 1 // windows being fetched or fetched, and not yet inserted
	idle := slices.Clone(sources)
	var redo []int          // windows to fetch again, from the origin
	twice := map[int]bool{} // windows the origin fetches too, since a helper is slow with them
	ready := map[int]fetchedWindow{}
	next, done := 0, 0
	var inserting *fetchedWindow
	// have reports that window k needs no fetch: inserted, inserting or ready to be.
	have := func(k int) bool {
		_, ok := ready[k]
		return ok || k < done || inserting != nil && inserting.k == k
	}
	for done < windows {
		for i := 0; i < len(idle); {
			src, k := idle[i], -1
			switch {
			case src.origin && len(redo) > 0:
				k, redo = redo[0], redo[1:]
				if have(k) {
					continue
				}
			case next < windows && next < done+ahead:
				k, next = next, next+1
			case src.origin && done < next && !have(done) && !twice[done]:
				// The insertion waits for a window a helper is fetching, and the origin has
				// nothing else to do: it fetches that window too, so that a slow helper never
				// makes the catch-up slower than the origin alone; the first copy is used.
				k, twice[done] = done, true
			}
			if k < 0 {
				i++
				continue
			}
			src.jobs <- k
			idle = slices.Delete(idle, i, i+1)
		}
		if w, ok := ready[done]; ok && inserting == nil {
			delete(ready, done)
			inserting = &w
			toInsert <- w
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case w := <-fetched:
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case have(w.k): // the other copy of a window fetched twice
				if !w.src.dropped {
					idle = append(idle, w.src)
				}
			case w.src.dropped:
				redo = addSorted(redo, w.k)
			case w.err != nil && w.src.origin:
				return w.err
			case w.err != nil:
				s.dropHelper(w.src, w.err)
				redo = addSorted(redo, w.k)
			default:
				ready[w.k] = w
				idle = append(idle, w.src)
			}
		case err := <-inserted:
			w := inserting
			inserting = nil
			switch {
			case err == nil:
				w.src.served++
				done++
			case w.src.origin || errors.Is(err, actors.ErrWriteFailed):
				return err
			default:
				// A helper's blocks that do not insert: the origin's are fetched instead (those
				// of the window already stored pass).
				s.dropHelper(w.src, err)
				idle = slices.DeleteFunc(idle, func(x *syncSource) bool { return x == w.src })
				redo = addSorted(redo, w.k)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var served []string
	for _, src := range sources {
		served = append(served, fmt.Sprintf("%s=%d", src.addr, src.served))
	}
	prog.done("windows", strings.Join(served, ","))
	return nil
}

// addSorted inserts window k into the ascending list ks.
func addSorted(ks []int, k int) []int {
	i, _ := slices.BinarySearch(ks, k)
	return slices.Insert(ks, i, k)
}

// dropHelper stops using a helper for this catch-up, for err. A helper that served an invalid
// block is ignored for a while (it would be as an origin); one with another genesis is dropped
// for good.
func (s *Syncer) dropHelper(src *syncSource, err error) {
	src.dropped = true
	var fg *foreignGenesisError
	switch {
	case errors.As(err, &fg):
		s.dropForeign(src.addr, fg.Error())
	case isInvalidBlock(err):
		s.ban(src.addr, fmt.Errorf("it served an invalid block: %w", err))
	default:
		s.log.Info("catch-up helper dropped: its windows come from the origin", "peer", src.addr, "err", err)
		s.bad(src.addr, err)
	}
}

// fetchWindow fetches from p the headers of heights a to b of the chains in todo (each from
// its first missing height), in insertion order, and their payloads.
func (s *Syncer) fetchWindow(ctx context.Context, peer string, p Peer, todo []ledger.CutEntry, from map[ledger.ChainID]uint64,
	below map[ledger.ChainID]*ledger.Header, a, b uint64) fetchedWindow {
	// The chains' parts of the window are fetched a few at a time (branchFetchers): one after
	// the other, a window took a round trip per chain, which on a busy peer made even a catch-up
	// of one block per chain take seconds.
	parts := make([][]*ledger.Header, len(todo))
	err := fewAtATime(ctx, len(todo), func(ctx context.Context, i int) error {
		e := todo[i]
		f := from[e.Chain]
		if b < f || a > e.Height {
			return nil
		}
		var lower []ledger.Hash
		if h := below[e.Chain]; h != nil {
			lower = []ledger.Hash{h.Hash}
		}
		lo, hi := max(a, f), min(b, e.Height)
		hs, err := p.BranchRange(ctx, e.Chain, lower, []ledger.Hash{e.Hash}, lo, hi)
		if err == nil {
			err = s.checkGenesis(peer, hs)
		}
		if err == nil && a <= f && !continues(hs, f, below[e.Chain]) {
			err = errForkBelowHead
		}
		if err == nil {
			if werr := wholeBranch(hs, lo, hi); werr != nil {
				err = fmt.Errorf("peer %s served an incomplete branch of chain %d: %w", peer, e.Chain, werr)
			}
		}
		parts[i] = hs
		return err
	})
	if err != nil {
		return fetchedWindow{err: err}
	}
	var blocks []*ledger.Header
	for _, hs := range parts {
		blocks = append(blocks, hs...)
	}
	blocks = sortForInsert(blocks)
	payloads, err := s.fetchPayloads(ctx, p, blocks)
	return fetchedWindow{blocks: blocks, payloads: payloads, err: err}
}

// continues reports whether the headers hs of a chain's window starting at height f include the
// block at f, and it is the child of head (or a genesis block, when head is nil).
func continues(hs []*ledger.Header, f uint64, head *ledger.Header) bool {
	for _, h := range hs {
		if h.Height == f {
			return head == nil || h.Parent == head.Hash
		}
	}
	return false
}

// wholeBranch checks that the headers hs of one chain, in any order, are one block at each
// height from lo to hi, each the parent of the next: a window's part of a branch that a peer
// left short or padded would only fail later, in another window, perhaps another peer's.
func wholeBranch(hs []*ledger.Header, lo, hi uint64) error {
	if uint64(len(hs)) != hi-lo+1 {
		return fmt.Errorf("%d headers for the %d heights %d to %d", len(hs), hi-lo+1, lo, hi)
	}
	byHeight := slices.SortedFunc(slices.Values(hs), func(x, y *ledger.Header) int { return cmp.Compare(x.Height, y.Height) })
	for i, h := range byHeight {
		if h.Height != lo+uint64(i) {
			return fmt.Errorf("no header at height %d", lo+uint64(i))
		}
		if i > 0 && h.Parent != byHeight[i-1].Hash {
			return fmt.Errorf("the header at height %d is not the child of the one at %d", h.Height, h.Height-1)
		}
	}
	return nil
}
