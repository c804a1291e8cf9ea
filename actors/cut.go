package actors

import (
	"log/slog"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// headerStored tells the cut actor that a chain actor stored a block.
type headerStored struct {
	header  *ledger.Header
	payload *ledger.PayloadWithOutputs // nil when the sender does not have it at hand
}

// syncCut is answered once every message the cut actor received before it is processed.
type syncCut struct{}

// CutView is a published cut. Readers load it from an atomic pointer without asking the actor;
// nothing in it changes after publication.
type CutView struct {
	Heads pow.Heads
	Cut   *ledger.Cut
	Seq   uint64 // one more than the previous view's
}

// cutActor keeps the best cut. It is the only writer of the published view; everything it
// publishes (heads, events, the view) is built from new values, never by changing old ones.
type cutActor struct {
	v       *ledger.Version
	db      *store.DB
	genesis pow.Heads
	log     *slog.Logger
	view    *atomic.Pointer[CutView]
	heads   *headsWriter
	hub     *UpdatesHub    // nil: no update streams
	changed func(*CutView) // the runtime's notice to the executors and the attached parts
	entered *atomic.Uint64 // blocks that entered the cut (the node's blocks/s figure)
	// orphaned counts blocks that left the cut on a fork switch (the metrics); nil in tests.
	orphaned *atomic.Uint64
	// reorgs counts the switches that left blocks behind, and the deepest of them on one chain
	// (the metrics, the convergence figures); nil in tests.
	reorgs *reorgCounts
	// chainEntered counts the blocks that entered the cut by chain id (the metrics); nil in
	// tests.
	chainEntered []atomic.Uint64
	lookup       pow.HeaderLookup
}

func (a *cutActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *headerStored:
		a.consider(m)
	case syncCut:
		ctx.Respond(syncCut{})
	}
}

// consider joins a stored block into the cut when that makes the cut heavier. A block that
// does not (a sibling of equal weight, a lighter fork, one whose history is not braided) stays
// in the store and in the chain's lists, outside the cut.
func (a *cutActor) consider(m *headerStored) {
	cur := a.view.Load()
	next, err := pow.Join(cur.Heads, m.header, a.genesis, a.lookup)
	if err != nil {
		a.log.Debug("block not joinable into the cut", "chain", m.header.ChainID, "height", m.header.Height, "err", err)
		return
	}
	if !pow.Heavier(next, cur.Heads) {
		return
	}
	entering := pow.Entering(cur.Heads, next, a.lookup)
	if len(entering) == 0 {
		return // cannot happen: a heavier cut has a block the current one lacks
	}
	if len(entering) > 1 || entering[0].Hash != m.header.Hash {
		a.log.Info("cut switched to a heavier fork", "chain", m.header.ChainID, "height", m.header.Height,
			"blocksEntering", len(entering))
	}
	view := &CutView{Heads: next, Cut: next.Cut(a.v), Seq: cur.Seq + 1}
	a.view.Store(view)
	a.heads.offer(next)
	a.entered.Add(uint64(len(entering)))
	for _, b := range entering {
		if int(b.ChainID) < len(a.chainEntered) {
			a.chainEntered[b.ChainID].Add(1)
		}
	}
	// The cut height is the sum of the chain heights: what it did not gain of the entering
	// blocks, blocks leaving it took away.
	if left := cur.Cut.Height + uint64(len(entering)) - view.Cut.Height; left > 0 {
		if a.orphaned != nil {
			a.orphaned.Add(left)
		}
		if a.reorgs != nil {
			a.reorgs.note(cur.Heads, next, a.lookup)
		}
	}
	if a.hub != nil {
		a.hub.Publish(a.events(entering, m, view.Cut.Height)...)
	}
	if a.changed != nil {
		a.changed(view)
	}
}

// events makes one event per entering block. Blocks enter one at a time in the given order, each
// raising the cut height by one, so the last one carries the new cut's height.
func (a *cutActor) events(entering []*ledger.Header, m *headerStored, cutHeight uint64) []BlockEvent {
	base := cutHeight - uint64(len(entering))
	events := make([]BlockEvent, len(entering))
	for i, h := range entering {
		p := m.payload
		if h.Hash != m.header.Hash || p == nil {
			// A block of a fork branch, stored earlier: its payload is read back (nil if that
			// fails; the stream then says txCount 0).
			p, _ = a.db.PayloadWithOutputs(h.PayloadHash)
		}
		events[i] = BlockEvent{Header: h, Payload: p, CutHeight: base + uint64(i) + 1}
	}
	return events
}

// reorgCounts are the cut's switches to a heavier fork that left blocks behind.
type reorgCounts struct {
	count   atomic.Uint64
	deepest atomic.Uint64 // the most blocks one chain lost in one switch
}

// note counts the switch from prev to next: the blocks of prev's history that next's lacks,
// per chain, are that chain's depth.
func (r *reorgCounts) note(prev, next pow.Heads, lookup pow.HeaderLookup) {
	r.count.Add(1)
	depth := map[ledger.ChainID]uint64{}
	for _, h := range pow.Entering(next, prev, lookup) {
		depth[h.ChainID]++
	}
	for _, d := range depth {
		for {
			old := r.deepest.Load()
			if d <= old || r.deepest.CompareAndSwap(old, d) {
				break
			}
		}
	}
}
