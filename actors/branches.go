package actors

import (
	"fmt"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// Validating blocks of other branches without moving the Pact state.
//
// A block whose parent the state does not hold (a peer's fork, a sibling's child) used to be
// validated by rewinding the state to the fork point, replaying the branch up to the parent,
// executing the block, then rewinding and replaying the cut's branch back: twice the depth of the
// fork for every block, which made a catch-up across a fork crawl (issue 38: 45 executions per
// block of cut). Instead an executor keeps
//
//   - the writes of the blocks it executed or applied lately (keptBlocks), by block hash: at most
//     maxKeptBlocks blocks and maxKeptBytes of encoded writes per chain, the oldest dropped first;
//   - up to maxBranchHeads branch heads: for the last block validated on each branch the state
//     does not hold, that branch's writes merged above its fork point (state.Branch).
//
// A block is then executed on a view of its parent's branch (state.BranchView): the branch head
// when its parent is one, else a branch assembled from kept blocks down to the state. Only a block
// of that path that is no longer kept (evicted, or validated before a restart) is executed again,
// and then kept. When the cut switches to a branch, its kept blocks are applied from their writes
// (state.ApplyBlock) without executing them. A block's writes depend only on its history, which
// its hash commits to, so what is kept is right whatever the state does meanwhile; a branch head
// is used only while the state still holds the block it grows from.
const (
	maxKeptBlocks  = 1024
	maxKeptBytes   = 8 << 20
	maxBranchHeads = 8
	// maxBranchBytes bounds the merged writes of one branch head kept between validations; a
	// larger branch is assembled again from kept blocks when next needed.
	maxBranchBytes = 16 << 20
)

// keptBlock is one executed block's writes, with what applying it tells the node.
type keptBlock struct {
	parent ledger.Hash
	blk    *state.Block
	keys   []api.Hash
	gas    uint64
}

// keptBlocks are the blocks an executor executed or applied lately, by hash, dropped oldest
// first past their bounds. Only the executor's actor uses them.
type keptBlocks struct {
	byHash map[ledger.Hash]*keptBlock
	order  []ledger.Hash // insertion order; order[head:] are kept
	head   int
	bytes  int
}

func (k *keptBlocks) get(h *ledger.Header) *keptBlock {
	b := k.byHash[h.Hash]
	if b == nil || b.parent != h.Parent {
		return nil
	}
	return b
}

func (k *keptBlocks) put(h *ledger.Header, b *keptBlock) {
	if k.byHash == nil {
		k.byHash = map[ledger.Hash]*keptBlock{}
	}
	if old := k.byHash[h.Hash]; old != nil {
		k.bytes -= old.blk.Size()
	} else {
		k.order = append(k.order, h.Hash)
	}
	k.byHash[h.Hash] = b
	k.bytes += b.blk.Size()
	for len(k.byHash) > maxKeptBlocks || k.bytes > maxKeptBytes && len(k.byHash) > 1 {
		old := k.order[k.head]
		k.head++
		if ob := k.byHash[old]; ob != nil {
			k.bytes -= ob.blk.Size()
			delete(k.byHash, old)
		}
	}
	if k.head > len(k.order)/2 && k.head > 64 {
		k.order = append(k.order[:0], k.order[k.head:]...)
		k.head = 0
	}
}

// branchHead is a branch the state does not hold, ending at block tip, growing from base, a block
// the state held when the branch was made.
type branchHead struct {
	tip   ledger.Hash
	base  *ledger.Header
	br    *state.Branch
	bytes int
}

// takeBranch removes and returns the branch head ending at tip, if it is still usable: the state
// holds its base.
func (x *Executor) takeBranch(tip ledger.Hash) *branchHead {
	for i, b := range x.branches {
		if b.tip != tip {
			continue
		}
		x.branches = append(x.branches[:i], x.branches[i+1:]...)
		if on, err := x.onState(b.base); err == nil && on {
			return b
		}
		return nil
	}
	return nil
}

// keepBranch keeps b as a branch head, dropping the oldest past maxBranchHeads.
func (x *Executor) keepBranch(b *branchHead) {
	if b.bytes > maxBranchBytes {
		return
	}
	if len(x.branches) >= maxBranchHeads {
		x.branches = append(x.branches[:0], x.branches[1:]...)
	}
	x.branches = append(x.branches, b)
}

// branchTo returns the branch ending at block p, which the state does not hold: a kept branch
// head, else one assembled from kept blocks above the last block of p's history the state holds,
// executing (and keeping) those of them no longer kept.
func (x *Executor) branchTo(p *ledger.Header) (*branchHead, error) {
	if b := x.takeBranch(p.Hash); b != nil {
		return b, nil
	}
	route, err := chain.RouteTo(x.v, x.db, p, x.onState)
	if err != nil {
		return nil, err
	}
	if route.Fork == nil {
		return nil, fmt.Errorf("block %s shares no history with the Pact state", p.Hash)
	}
	b := &branchHead{tip: p.Hash, base: route.Fork, br: state.NewBranch(route.Fork.Height)}
	parent := route.Fork
	for _, h := range route.Apply {
		k := x.kept.get(h)
		if k == nil {
			payload, err := x.db.PayloadWithOutputs(h.PayloadHash)
			if err != nil {
				return nil, fmt.Errorf("block %d %s of the branch: payload %s: %w", h.Height, h.Hash, h.PayloadHash, err)
			}
			view := x.state.BranchView(b.br)
			keys, gas, err := x.execute(h, parent, payload, view)
			x.counts.replayed.Add(1)
			if err != nil {
				return nil, fmt.Errorf("block %d %s of the branch: %w", h.Height, h.Hash, err)
			}
			if k, err = x.keep(h, view, keys, gas, payload); err != nil {
				return nil, err
			}
		}
		b.br.Extend(k.blk)
		b.bytes += k.blk.Size()
		parent = h
	}
	return b, nil
}

// keep records block h in view, which executed its payload p (the block's hash, request keys
// and transfers, chain.RecordBlock), and keeps its writes.
func (x *Executor) keep(h *ledger.Header, view *state.View, keys []api.Hash, gas uint64, p *ledger.PayloadWithOutputs) (*keptBlock, error) {
	if err := chain.RecordBlock(view, h.Hash, h.Height, keys, p); err != nil {
		return nil, err
	}
	return x.keepFrozen(h, view, keys, gas)
}

// keepFrozen keeps the writes of view, which made block h and holds its records.
func (x *Executor) keepFrozen(h *ledger.Header, view *state.View, keys []api.Hash, gas uint64) (*keptBlock, error) {
	blk, err := view.Freeze()
	if err != nil {
		return nil, err
	}
	k := &keptBlock{parent: h.Parent, blk: blk, keys: keys, gas: gas}
	x.kept.put(h, k)
	return k, nil
}

// validateOnBranch executes block h, child of parent, which the state does not hold, on a view of
// parent's branch, and keeps it; the branch, extended by h, becomes a branch head.
func (x *Executor) validateOnBranch(h, parent *ledger.Header, p *ledger.PayloadWithOutputs) error {
	b, err := x.branchTo(parent)
	if err != nil {
		return err
	}
	view := x.state.BranchView(b.br)
	keys, gas, err := x.execute(h, parent, p, view)
	x.counts.validated.Add(1)
	if err != nil {
		// The branch is as it was: its next block may still come.
		x.keepBranch(b)
		return err
	}
	k, err := x.keep(h, view, keys, gas, p)
	if err != nil {
		return err
	}
	b.br.Extend(k.blk)
	b.tip, b.bytes = h.Hash, b.bytes+k.blk.Size()
	x.keepBranch(b)
	return nil
}
