package store

import (
	"fmt"
	"io"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ledgernode/ledger-node/ledger"
)

// Snapshot is a frozen, consistent view of the whole store, for backups: a goleveldb snapshot
// taken together with the length of the header log at that moment. goleveldb has no checkpoint
// API and copying the files of a live DB is unsafe (compaction rewrites them), so a backup
// iterates the snapshot's rows (ForEach) and copies the header log's prefix (CopyHeaderLog); the
// log is append-only, so that prefix never changes. The index file is not part of a backup: Open
// rebuilds it from the log.
//
// A Snapshot pins old table files until released: Release it promptly, and before Close.
type Snapshot struct {
	snap   *leveldb.Snapshot
	ldb    *leveldb.DB // for size estimates (a backup's progress)
	hl     *headerLog
	logEnd uint64
}

// Snapshot takes a snapshot of the store.
func (db *DB) Snapshot() (*Snapshot, error) {
	// Under the writer lock, so that no header write is half done: every height-index entry in
	// the snapshot names a record below logEnd, and its logend record equals logEnd.
	db.hl.mu.Lock()
	defer db.hl.mu.Unlock()
	s, err := db.ldb.GetSnapshot()
	if err != nil {
		return nil, fmt.Errorf("store: snapshot: %w", err)
	}
	return &Snapshot{snap: s, ldb: db.ldb, hl: db.hl, logEnd: db.hl.end.Load()}, nil
}

// Release frees the snapshot. Calling it twice is harmless.
func (s *Snapshot) Release() { s.snap.Release() }

// ForEach calls fn for every goleveldb key/value pair in key order, until fn returns an error,
// which ForEach returns. key and value are only valid during the call: copy them to keep them.
// The layout is described in keys.go: meta records, the height index (whose values are offsets
// into the header log), payloads and outputs. Headers themselves are not rows: they are the
// first HeaderLogLen bytes of the header log, which CopyHeaderLog writes out. A backup is both,
// restored as a goleveldb directory holding the rows plus a headers.log holding the copied bytes.
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

// HeaderLogLen is the length of the header log at the time of the snapshot: the headers the
// snapshot sees are exactly the records below it.
func (s *Snapshot) HeaderLogLen() int64 { return int64(s.logEnd) }

// CopyHeaderLog writes the first HeaderLogLen bytes of the header log (file header included) to
// w: a valid headers.log for a restored store. It reads the file, not the mapping, so a large
// copy does not fault the whole log into this process. The store must stay open meanwhile.
func (s *Snapshot) CopyHeaderLog(w io.Writer) (int64, error) {
	n, err := io.Copy(w, io.NewSectionReader(s.hl.log, 0, int64(s.logEnd)))
	if err != nil {
		return n, fmt.Errorf("store: copy header log: %w", err)
	}
	return n, nil
}

// Header reads header h as of the snapshot: a header whose record lies past HeaderLogLen was
// written later and is not found.
func (s *Snapshot) Header(h ledger.Hash) (*ledger.Header, error) {
	return s.hl.header(&h, s.logEnd)
}
