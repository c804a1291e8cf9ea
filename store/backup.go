package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store/internal/records"
)

// Backups of a live store (interface.md "Backup endpoints", DECISIONS.md). A backup is written
// from a Snapshot, so it is one consistent moment of the store while the node keeps writing:
// the goleveldb rows the snapshot sees are written into a fresh goleveldb directory, and the
// header log's prefix up to the snapshot's length is copied beside them. The result is a store
// directory that Open accepts as it is (it rebuilds headers.idx from the log). The backup jobs,
// their directories and Restore are store/backup's.

// BackupStats counts what a backup wrote.
type BackupStats struct {
	Rows           int64 `json:"rows"`           // goleveldb rows written (Pact rows included)
	PactRows       int64 `json:"pactRows"`       // of which Pact state rows (tag 0x05)
	RowBytes       int64 `json:"rowBytes"`       // their keys and values, uncompressed
	HeaderLogBytes int64 `json:"headerLogBytes"` // bytes of headers.log copied
	// Done estimates the share of the copy done so far, 0 to 1 (0 also when unknown): the
	// on-disk size of the key range copied, plus the header log once copied, over the whole
	// copy's. Progress reports use it for the time left; it is not part of backup.json.
	Done float64 `json:"-"`
}

// Bytes is the volume the backup read and wrote: rows plus header log.
func (s BackupStats) Bytes() int64 { return s.RowBytes + s.HeaderLogBytes }

// BackupHead is one chain's head in a backup: the heads record the snapshot saw. A node started
// on the restored directory resumes from these, joined with any newer stored blocks the backup
// holds (as after a crash).
type BackupHead struct {
	Chain  ledger.ChainID `json:"chain"`
	Height uint64         `json:"height"`
	Hash   ledger.Hash    `json:"hash"`
}

// backupBatchBytes bounds a write batch of the copy: big enough that per-batch costs vanish,
// small enough that a batch is cheap to hold in memory and progress and cancellation are seen
// often.
const backupBatchBytes = 4 << 20

// WriteBackup writes the snapshot as a new store directory dir, which must not exist yet (its
// parent must). The Pact state rows (tag 0x05) are included only if withPact: without them the
// copy is still a complete store, whose executors rebuild the state by replaying every block.
// progress, if not nil, is called once before the first row and after every batch written. A
// cancelled ctx stops the copy with ctx's error. On error dir may hold a partial copy: the
// caller removes it. Every file is fsynced before WriteBackup returns nil.
func (s *Snapshot) WriteBackup(ctx context.Context, dir string, withPact bool, progress func(BackupStats)) (BackupStats, error) {
	var st BackupStats
	if progress == nil {
		progress = func(BackupStats) {}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return st, fmt.Errorf("store: backup: %w", err)
	}
	progress(st)
	if err := s.copyRows(ctx, dir, withPact, &st, progress); err != nil {
		return st, err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	n, err := s.writeHeaderLog(filepath.Join(dir, logFileName))
	st.HeaderLogBytes = n
	if err != nil {
		return st, err
	}
	st.Done = 1
	progress(st)
	if err := SyncTree(dir); err != nil {
		return st, fmt.Errorf("store: backup: %w", err)
	}
	return st, nil
}

// sizeUpTo returns goleveldb's estimate of the on-disk bytes of ranges below key (all of them
// when key is nil): the rows a copy in key order has passed. Rows still in the memtable count
// nothing, so it is an estimate.
func (s *Snapshot) sizeUpTo(ranges []*util.Range, key []byte) int64 {
	rs := make([]util.Range, 0, len(ranges))
	for _, r := range ranges {
		start, limit := r.Start, r.Limit
		if limit == nil {
			limit = []byte{0xff} // SizeOf reads a nil limit as the empty key; no tag is 0xff
		}
		if key != nil && bytes.Compare(limit, key) > 0 {
			limit = key
		}
		if bytes.Compare(start, limit) >= 0 {
			continue
		}
		rs = append(rs, util.Range{Start: start, Limit: limit})
	}
	sizes, err := s.ldb.SizeOf(rs)
	if err != nil {
		return 0
	}
	return sizes.Sum()
}

// copyRows writes the snapshot's rows into a new goleveldb database in dir. The rows come in key
// order, so the writes are sequential and compaction only moves tables.
func (s *Snapshot) copyRows(ctx context.Context, dir string, withPact bool, st *BackupStats, progress func(BackupStats)) error {
	ldb, err := leveldb.OpenFile(dir, &opt.Options{
		ErrorIfExist: true,
		Filter:       filter.NewBloomFilter(10), // as Open: the copy is the restored node's database
		// A large memtable halves the number of level-0 tables a copy makes. No fsync while
		// writing: SyncTree syncs every file once at the end, which is what a copy needs.
		WriteBuffer: 64 * opt.MiB,
		NoSync:      true,
	})
	if err != nil {
		return fmt.Errorf("store: backup: create database in %s: %w", dir, err)
	}
	ranges := []*util.Range{{}}
	if !withPact {
		// Skip the Pact key space without reading it.
		ranges = []*util.Range{{Limit: []byte{tagPact}}, {Start: []byte{tagPact + 1}}}
	}
	// The share done is estimated from goleveldb's on-disk sizes (SizeOf reads table
	// metadata, no rows): the rows' sizes on disk are compressed, so comparing them with the
	// bytes copied would mislead; comparing key ranges on disk does not.
	total := float64(s.sizeUpTo(ranges, nil) + int64(s.logEnd))
	b := new(leveldb.Batch)
	pending := 0
	flush := func(last []byte) error {
		if b.Len() == 0 {
			return nil
		}
		if err := ldb.Write(b, nil); err != nil {
			return fmt.Errorf("store: backup: write rows: %w", err)
		}
		b.Reset()
		pending = 0
		if total > 0 {
			st.Done = min(float64(s.sizeUpTo(ranges, last))/total, 1)
		}
		progress(*st)
		return ctx.Err()
	}
	err = func() error {
		for _, r := range ranges {
			it := s.snap.NewIterator(r, nil)
			for it.Next() {
				k, v := it.Key(), it.Value()
				b.Put(k, v) // Put copies
				st.Rows++
				st.RowBytes += int64(len(k) + len(v))
				if len(k) > 0 && k[0] == tagPact {
					st.PactRows++
				}
				if pending += len(k) + len(v); pending >= backupBatchBytes {
					if err := flush(k); err != nil {
						it.Release()
						return err
					}
				}
			}
			it.Release()
			if err := it.Error(); err != nil {
				return fmt.Errorf("store: backup: read snapshot: %w", err)
			}
		}
		return flush(nil)
	}()
	if cerr := ldb.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("store: backup: close database: %w", cerr)
	}
	return err
}

// writeHeaderLog copies the snapshot's header log prefix to a new file at path.
func (s *Snapshot) writeHeaderLog(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, fmt.Errorf("store: backup: %w", err)
	}
	n, err := s.CopyHeaderLog(f)
	if cerr := f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("store: backup: %w", cerr)
	}
	return n, err
}

// BackupHeads reads the heads record as of the snapshot, with each head's height: what a
// backup of it resumes from.
func (s *Snapshot) BackupHeads() ([]BackupHead, error) {
	var rec records.Heads
	b, err := s.snap.Get(metaKey(metaHeads), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: heads: %w", err)
	}
	if err := unmarshalRecord("heads", b, &rec); err != nil {
		return nil, err
	}
	out := make([]BackupHead, 0, len(rec.Heads))
	for _, e := range rec.Heads {
		h, err := s.Header(e.Hash)
		if err != nil {
			return nil, fmt.Errorf("store: head of chain %d: %w", e.Chain, err)
		}
		out = append(out, BackupHead{Chain: ledger.ChainID(e.Chain), Height: h.Height, Hash: h.Hash})
	}
	return out, nil
}

// Network reads the network name the store is bound to, as of the snapshot ("" if none).
func (s *Snapshot) Network() (string, error) {
	var rec records.Network
	b, err := s.snap.Get(metaKey(metaNetwork), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: network: %w", err)
	}
	if err := unmarshalRecord("network", b, &rec); err != nil {
		return "", err
	}
	return rec.Name, nil
}

// SyncTree fsyncs every regular file directly in dir, then dir itself: a copy's data and its
// directory entries are durable before anyone is told it is done (a backup, a restore).
func SyncTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return syncDir(dir)
}
