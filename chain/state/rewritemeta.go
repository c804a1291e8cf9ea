package state

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgernode/ledger-node/kv"
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
	var b kv.Batch
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

// RewriteMeta replaces records of the applied blocks from, from+1, …, from+len(blocks)-1, in
// one synced batch with their block records: at each block it drops the records whose names
// have one of the prefixes and writes those blocks[i] maps (name to value), each listed in its
// block's record. The caller computes them as of the blocks below: RewriteMeta reads nothing
// but the block records.
func (v *Versioned) RewriteMeta(from uint64, blocks []map[string][]byte, prefixes ...string) error {
	v.write.Lock()
	defer v.write.Unlock()
	if len(blocks) == 0 {
		return nil
	}
	if !v.has || from+uint64(len(blocks))-1 > v.height || from+uint64(len(blocks)) < from {
		return fmt.Errorf("%w: rewrite records of blocks %d to %d, state at %d (%v)", ErrHeight, from, from+uint64(len(blocks))-1, v.height, v.has)
	}
	var b kv.Batch
	var changed []string
	for i, recs := range blocks {
		height := from + uint64(i)
		next, keys, err := v.blockRecord(height, true)
		if err != nil {
			return err
		}
		puts := make(map[string][]byte, len(recs))
		for name, value := range recs {
			puts[lMetaKey(name)] = value
		}
		rec := be64(uint64(next))
		for _, lk := range keys {
			if _, put := puts[lk]; put || isMetaWithPrefix(lk, prefixes) {
				if !put {
					b.Delete(v.versionKey(lk, height))
				}
				changed = append(changed, lk)
				continue // listed again below if put
			}
			rec = binary.AppendUvarint(rec, uint64(len(lk)))
			rec = append(rec, lk...)
		}
		// In name order: the same records give the same block record.
		lks := make([]string, 0, len(puts))
		for lk := range puts {
			lks = append(lks, lk)
		}
		slices.Sort(lks)
		for _, lk := range lks {
			// Copied, non-nil: an empty value is stored as one, as PutMeta stores it.
			b.Put(v.versionKey(lk, height), append([]byte{}, puts[lk]...))
			rec = binary.AppendUvarint(rec, uint64(len(lk)))
			rec = append(rec, lk...)
			changed = append(changed, lk)
		}
		b.Put(v.key(vBlock, be64(height)), rec)
	}
	if err := v.space.Write(&b); err != nil {
		return fmt.Errorf("state: rewrite records of blocks %d to %d: %w", from, from+uint64(len(blocks))-1, err)
	}
	v.forgetNewest(changed)
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
