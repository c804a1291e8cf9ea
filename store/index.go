package store

import (
	"fmt"

	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/ledger"
)

// Position is a place in a chain's height index: the index key (height, hash).
type Position struct {
	Height uint64
	Hash   ledger.Hash
}

// ScanChain calls fn with the headers of chain c in ascending (height, raw hash bytes) order,
// fork siblings included, starting at the first index key >= (c, from.Height, from.Hash), until
// fn returns false or the chain ends. Use Position{} to start at the lowest stored height and
// Position{Height: n} for the first header at height >= n.
//
// The scan reads one goleveldb snapshot of the height index, so headers written meanwhile are not
// seen; each entry names its record's log offset, which is read from the log mapping. fn must not mutate the
// headers (they may be shared through the cache) and must not keep the store busy for long: the
// snapshot pins old table files until the scan ends. Headers read only by a scan are not cached,
// so paging through history cannot evict the hot set.
func (db *DB) ScanChain(c ledger.ChainID, from Position, fn func(*ledger.Header) bool) error {
	return db.noteCorrupt(db.scanChain(c, from, fn))
}

func (db *DB) scanChain(c ledger.ChainID, from Position, fn func(*ledger.Header) bool) error {
	snap, err := db.ldb.GetSnapshot()
	if err != nil {
		return fmt.Errorf("store: scan chain %d: %w", c, err)
	}
	defer snap.Release()
	start := heightKey(c, from.Height, from.Hash)
	it := snap.NewIterator(&util.Range{Start: start[:], Limit: chainLimit(c)}, nil)
	defer it.Release()
	for it.Next() {
		kc, _, h, ok := parseHeightKey(it.Key())
		if !ok || kc != c {
			return fmt.Errorf("%w: height index key %x", errCorrupt, it.Key())
		}
		hdr := db.cache.peek(h)
		if hdr == nil {
			off, ok := parseLogOffset(it.Value())
			if !ok {
				return fmt.Errorf("%w: chain %d index entry for %s has no log offset", errCorrupt, c, h)
			}
			// The entry is written after the record it points at, and never for a record that
			// is not stored: one that does not lead to its header is damage.
			if hdr, err = db.hl.headerAt(off, h); err != nil {
				return err
			}
		}
		if !fn(hdr) {
			break
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: scan chain %d: %w", c, ldbErr(err))
	}
	return nil
}

// MaxHeight returns the highest stored height on chain c, orphans included; ok is false when the
// chain has no header.
func (db *DB) MaxHeight(c ledger.ChainID) (height uint64, ok bool, err error) {
	height, ok, err = db.maxHeight(c)
	return height, ok, db.noteCorrupt(err)
}

func (db *DB) maxHeight(c ledger.ChainID) (height uint64, ok bool, err error) {
	p := chainPrefix(c)
	it := db.ldb.NewIterator(&util.Range{Start: p[:], Limit: chainLimit(c)}, nil)
	defer it.Release()
	if it.Last() {
		kc, height, _, ok := parseHeightKey(it.Key())
		if !ok || kc != c {
			return 0, false, fmt.Errorf("%w: height index key %x", errCorrupt, it.Key())
		}
		return height, true, nil
	}
	if err := it.Error(); err != nil {
		return 0, false, fmt.Errorf("store: max height of chain %d: %w", c, ldbErr(err))
	}
	return 0, false, nil
}
