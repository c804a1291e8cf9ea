package store

import (
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ledgernode/ledger-node/ledger"
)

// Snapshot is a frozen, consistent view of the whole store, for backups: goleveldb has no
// checkpoint API and copying the files of a live DB is unsafe (compaction rewrites them), so a
// backup iterates a snapshot and writes the rows elsewhere. A Snapshot pins old table files
// until released: Release it promptly, and before Close.
type Snapshot struct {
	snap *leveldb.Snapshot
}

// Snapshot takes a snapshot of the store.
func (db *DB) Snapshot() (*Snapshot, error) {
	s, err := db.ldb.GetSnapshot()
	if err != nil {
		return nil, fmt.Errorf("store: snapshot: %w", err)
	}
	return &Snapshot{snap: s}, nil
}

// Release frees the snapshot. Calling it twice is harmless.
func (s *Snapshot) Release() { s.snap.Release() }

// ForEach calls fn for every raw key/value pair in key order, until fn returns an error, which
// ForEach returns. key and value are only valid during the call: copy them to keep them. The
// layout is described in keys.go; a backup copies rows verbatim and needs no knowledge of it.
func (s *Snapshot) ForEach(fn func(key, value []byte) error) error {
	it := s.snap.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: snapshot scan: %w", err)
	}
	return nil
}

// Header reads header h as of the snapshot.
func (s *Snapshot) Header(h ledger.Hash) (*ledger.Header, error) {
	return loadHeader(s.snap, h)
}
