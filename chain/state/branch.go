package state

import (
	"fmt"

	"github.com/ledgernode/ledger-node/pact/db"
)

// Blocks kept in memory, and branches read without moving the state.
//
// A node validates blocks of forks the stored state does not hold. Rewinding the state to the
// fork point and replaying the branch for each such block costs the depth of the fork, every
// time, and twice (there and back). Instead the executor keeps the writes of the blocks it
// executed lately (Block), and reads a branch as the stored state at its fork point under the
// merged writes of the branch's blocks (Branch, BranchView): validating a block then costs its
// own execution, whatever the depth of its fork. A block kept this way is applied to the state
// again, after a reorg, without executing it (ApplyBlock).
//
// A block's writes depend only on its history, which its hash commits to, so a Block stays
// right whatever the stored state does meanwhile; a Branch depends on the stored block at its
// base, which its user checks is still the state's block at that height before making a view.

// Block is the writes of one executed block and the transaction id after it: what Apply writes
// for it. It never changes.
type Block struct {
	o      *overlay
	nextID db.TxID
	size   int // bytes of encoded rows and keys: what keeping it costs, roughly
}

// Size is about how many bytes the block's writes take.
func (b *Block) Size() int { return b.size }

// Writes is how many logical keys the block wrote.
func (b *Block) Writes() int { return len(b.o.order) }

// Freeze returns the view's writes as a Block, once its block is complete (outside a
// transaction). The view refuses writes from then on; it may still be applied and read.
func (w *View) Freeze() (*Block, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.tx != nil {
		return nil, db.ErrInTx
	}
	w.frozen = true
	size := 0
	for _, lk := range w.block.order {
		size += len(lk) + len(w.block.rows[lk].enc)
	}
	return &Block{o: w.block, nextID: w.nextID, size: size}, nil
}

// ApplyBlock writes b as block height, as Apply writes the view that made it. The caller makes
// sure the state is at b's parent: b was executed on a view as of the block the state holds at
// height-1 (on the stored state or on a branch through it).
func (v *Versioned) ApplyBlock(b *Block, height uint64) error {
	v.write.Lock()
	defer v.write.Unlock()
	switch {
	case !v.has && height != 0:
		return fmt.Errorf("%w: %d on an empty state", ErrHeight, height)
	case v.has && height != v.height+1:
		return fmt.Errorf("%w: %d after %d", ErrHeight, height, v.height)
	}
	return v.write1(b.o, b.nextID, height)
}

// Branch is a run of blocks above a block of the stored state, their writes merged: the state
// as of the run's last block, without applying it. Extending it costs the new block's writes.
type Branch struct {
	base   uint64
	top    *overlay
	nextID db.TxID
	blocks int
}

// NewBranch starts an empty branch on the stored block at height base.
func NewBranch(base uint64) *Branch { return &Branch{base: base, top: newOverlay()} }

// Base is the height of the stored block the branch grows from.
func (br *Branch) Base() uint64 { return br.base }

// Len is how many blocks the branch holds above its base.
func (br *Branch) Len() int { return br.blocks }

// Extend adds b, a block executed on a view of the branch as it is (BranchView), as the
// branch's next block. Views made on the branch before see the change: the caller extends a
// branch only once it is done with them.
func (br *Branch) Extend(b *Block) {
	o := br.top
	for sp, ks := range b.o.keys {
		for _, k := range ks {
			if _, seen := o.rows[string(esc([]byte(sp), k))]; !seen {
				o.keys[sp] = append(o.keys[sp], k)
			}
		}
	}
	for _, lk := range b.o.order {
		if _, seen := o.rows[lk]; !seen {
			o.order = append(o.order, lk)
		}
		o.rows[lk] = b.o.rows[lk]
	}
	br.nextID = b.nextID
	br.blocks++
}

// BranchView returns a view as of the end of br's last block (of its base, for an empty branch):
// its writes over the stored state as of the base. The caller makes sure the state still holds
// the block br grows from at that height; a rewind below it makes the view stale, as any view.
func (v *Versioned) BranchView(br *Branch) *View {
	w := v.View(br.base).(*View)
	if br.blocks > 0 {
		if w.err == nil {
			w.nextID = br.nextID
		}
		w.branch = br.top
	}
	return w
}
