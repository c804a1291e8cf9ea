package state

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/syndtr/goleveldb/leveldb"
)

// Rewriting the node records of blocks already applied: an index the node keeps in its records
// (package chain's transfers and continuations) can be built for blocks applied before the
// index existed. A record added so is versioned with its block like one PutMeta wrote before
// Apply: listed in the block's record, it is dropped by a rewind below the block.
//
// Both calls take the writer's lock, so they never interleave with Apply or Rewind; they are
// meant for a state no node runs on (`ledger-node reindex-transfers`), as views made before
// them may have read what they change.

// DropMeta deletes the records of the applied block height whose names have one of the
// prefixes, in one batch with the block's record rewritten without them.
func (v *Versioned) DropMeta(height uint64, prefixes ...string) error {
	v.write.Lock()
	defer v.write.Unlock()
	if !v.has || height > v.height {
		return fmt.Errorf("%w: drop records of block %d, state at %d (%v)", ErrHeight, height, v.height, v.has)
	}
	next, keys, err := v.blockRecord(height, true)
	if err != nil {
		return err
	}
	var b leveldb.Batch
	var dropped []string
	rec := be64(uint64(next))
	for _, lk := range keys {
		if isMetaWithPrefix(lk, prefixes) {
			b.Delete(v.versionKey(lk, height))
			dropped = append(dropped, lk)
			continue
		}
		rec = binary.AppendUvarint(rec, uint64(len(lk)))
		rec = append(rec, lk...)
	}
	if len(dropped) == 0 {
		return nil
	}
	b.Put(v.key(vBlock, be64(height)), rec)
	if err := v.space.Write(&b); err != nil {
		return fmt.Errorf("state: drop records of block %d: %w", height, err)
	}
	v.forgetNewest(dropped)
	return nil
}

// RewriteMeta replaces records of the applied block height, in one batch with the block's
// record: it drops those whose names have one of the prefixes and adds those view put
// (PutMeta). view reads as of the block below (View(height-1)), so that the records it
// computes do not read the ones they replace; or as of block height itself, which then must
// hold none of them (at height 0, after DropMeta). It must hold records only: a Pact write
// would change the block's state, which only executing the block may do.
func (v *Versioned) RewriteMeta(height uint64, view *View, prefixes ...string) error {
	v.write.Lock()
	defer v.write.Unlock()
	switch {
	case view.v != v || view.err != nil || view.applied || view.tx != nil || view.branch != nil:
		return ErrStaleView
	case !v.has || height > v.height || (view.base != height && view.base+1 != height):
		return fmt.Errorf("%w: rewrite records of block %d from a view at %d, state at %d (%v)", ErrHeight, height, view.base, v.height, v.has)
	}
	o := view.block
	for _, lk := range o.order {
		if lk[0] != lMeta {
			return fmt.Errorf("state: rewrite records of block %d: the view wrote Pact state", height)
		}
	}
	next, keys, err := v.blockRecord(height, true)
	if err != nil {
		return err
	}
	var b leveldb.Batch
	var changed []string
	rec := be64(uint64(next))
	for _, lk := range keys {
		if _, put := o.rows[lk]; put || isMetaWithPrefix(lk, prefixes) {
			if !put {
				b.Delete(v.versionKey(lk, height))
			}
			changed = append(changed, lk)
			continue // listed again below if put
		}
		rec = binary.AppendUvarint(rec, uint64(len(lk)))
		rec = append(rec, lk...)
	}
	for _, lk := range o.order {
		b.Put(v.versionKey(lk, height), o.rows[lk].enc)
		rec = binary.AppendUvarint(rec, uint64(len(lk)))
		rec = append(rec, lk...)
		changed = append(changed, lk)
	}
	if len(changed) == 0 {
		return nil
	}
	b.Put(v.key(vBlock, be64(height)), rec)
	if err := v.space.Write(&b); err != nil {
		return fmt.Errorf("state: rewrite records of block %d: %w", height, err)
	}
	v.forgetNewest(changed)
	view.applied = true
	return nil
}

// forgetNewest drops what the newest index knows of the logical keys lks, whose versions
// changed below the height: readers find them again.
func (v *Versioned) forgetNewest(lks []string) {
	v.mu.Lock()
	v.cacheMu.Lock()
	for _, lk := range lks {
		v.newest.Drop(lk)
	}
	v.cacheMu.Unlock()
	v.mu.Unlock()
}

// isMetaWithPrefix says whether logical key lk is a record whose name has one of prefixes.
func isMetaWithPrefix(lk string, prefixes []string) bool {
	if len(lk) == 0 || lk[0] != lMeta {
		return false
	}
	name, ok := unesc([]byte(lk[1:]))
	if !ok {
		return false
	}
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
