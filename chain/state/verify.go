package state

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ledgernode/ledger-node/kv"
)

// Wholeness is what Verify found of a state's stored data.
type Wholeness struct {
	// Blocks counts the block records read; Rows the row versions they list.
	Blocks, Rows int
	// MissingBlocks are heights up to the state's height without a block record (the first
	// few); MissingBlockCount counts them all.
	MissingBlocks     []uint64
	MissingBlockCount int
	// MissingRows counts the row versions a block record lists that are not stored;
	// FirstMissingRow says which block wrote the first one.
	MissingRows     int
	FirstMissingRow uint64
}

// Whole reports whether nothing is missing.
func (w Wholeness) Whole() bool { return w.MissingBlockCount == 0 && w.MissingRows == 0 }

func (w Wholeness) String() string {
	if w.Whole() {
		return fmt.Sprintf("%d blocks, %d row versions, all stored", w.Blocks, w.Rows)
	}
	s := fmt.Sprintf("%d of its blocks' records and %d of the %d row versions they list are missing", w.MissingBlockCount, w.MissingRows, w.Rows)
	if w.MissingBlockCount > 0 {
		s += fmt.Sprintf(" (records of heights %v)", w.MissingBlocks)
	}
	if w.MissingRows > 0 {
		s += fmt.Sprintf(" (the first written by the block at height %d)", w.FirstMissingRow)
	}
	return s
}

// maxMissingListed bounds Wholeness.MissingBlocks.
const maxMissingListed = 8

// Verify checks that the state's data is whole: that every height from the lowest block
// record to the state's height has one, and that every row version a block record lists is
// stored. It reads every block record and looks each version up: a damaged or deleted
// goleveldb table loses rows silently (a Get then says not found, as for a row never
// written), and only the records say what should be there. The state must not change
// meanwhile (the node stopped: `ledger-node check`).
func (v *Versioned) Verify() (Wholeness, error) {
	var w Wholeness
	top, ok := v.Height()
	if !ok {
		return w, nil
	}
	lo := v.key(vBlock)
	it := v.space.NewIterator(lo, v.key(vBlock+1))
	defer it.Release()
	next := uint64(0)
	first := true
	missingBlocks := func(from, to uint64) {
		for h := from; h < to; h++ {
			w.MissingBlockCount++
			if len(w.MissingBlocks) < maxMissingListed {
				w.MissingBlocks = append(w.MissingBlocks, h)
			}
		}
	}
	for it.Next() {
		k := it.Key()
		if len(k) != len(lo)+8 {
			return w, fmt.Errorf("%w: block record key %x", kv.ErrCorrupt, k)
		}
		h := binary.BigEndian.Uint64(k[len(lo):])
		if h > top {
			break // above the state's height: left by nothing that reads it
		}
		if first {
			// A state starts at its first block (genesis, or the block it was created at).
			next, first = h, false
		}
		missingBlocks(next, h)
		next = h + 1
		w.Blocks++
		_, keys, err := v.blockRecord(h, true)
		if err != nil {
			return w, err
		}
		for _, lk := range keys {
			w.Rows++
			if _, err := v.space.Get(v.versionKey(lk, h)); err != nil {
				if !errors.Is(err, kv.ErrNotFound) {
					return w, err
				}
				if w.MissingRows == 0 {
					w.FirstMissingRow = h
				}
				w.MissingRows++
			}
		}
	}
	if err := it.Error(); err != nil {
		return w, err
	}
	if first {
		missingBlocks(top, top+1)
	} else {
		missingBlocks(next, top+1)
	}
	return w, nil
}
