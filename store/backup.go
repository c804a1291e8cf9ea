package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/ledger"
)

// Backups of a live store (interface.md "Backup endpoints", DECISIONS.md). A backup is written
// from a Snapshot, so it is one consistent moment of the store while the node keeps writing:
// the goleveldb rows the snapshot sees are written into a fresh goleveldb directory, and the
// header log's prefix up to the snapshot's length is copied beside them. The result is a store
// directory that Open accepts as it is (it rebuilds headers.idx from the log).
//
// A backup job lives in its own directory, <backup directory>/<id>:
//
//	status       the job's state, one line (BackupInProgress, BackupDone, BackupFailed); a failed
//	             job's reason follows on the next line. Written atomically (temporary file and
//	             rename), so a reader never sees half of it.
//	backup.json  what the backup holds (BackupManifest); written before status says done
//	data/        the store directory: goleveldb's files and headers.log
//
// Restore copies data/ of a finished job to a new data directory.

// The states of a backup job, as check-backup reports them.
const (
	BackupInProgress = "backup-in-progress"
	BackupDone       = "backup-done"
	BackupFailed     = "backup-failed"
)

// Names inside a job directory.
const (
	backupStatusFile   = "status"
	backupManifestFile = "backup.json"
	backupDataDir      = "data"
)

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

// BackupManifest is backup.json: what a finished backup holds.
type BackupManifest struct {
	ID      string       `json:"id"`
	Network string       `json:"network"`
	Pact    bool         `json:"pact"` // the Pact state is included
	Started time.Time    `json:"started"`
	Seconds float64      `json:"seconds"` // time spent writing the copy
	Heads   []BackupHead `json:"heads"`
	BackupStats
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
	if err := syncTree(dir); err != nil {
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
		// writing: syncTree syncs every file once at the end, which is what a copy needs.
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

// heads reads the heads record as of the snapshot, with each head's height.
func (s *Snapshot) heads() ([]BackupHead, error) {
	var rec headsRecord
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

// network reads the network name the store is bound to, as of the snapshot ("" if none).
func (s *Snapshot) network() (string, error) {
	var rec networkRecord
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

// ReadBackupManifest reads backup.json of the backup job directory dir.
func ReadBackupManifest(dir string) (*BackupManifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, backupManifestFile))
	if err != nil {
		return nil, fmt.Errorf("store: backup manifest: %w", err)
	}
	var m BackupManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("store: backup manifest %s: %w", dir, err)
	}
	return &m, nil
}

// ReadBackupStatus reads the state of the backup job directory dir and, for a failed job, the
// reason it recorded. A status file that is missing reports fs.ErrNotExist.
func ReadBackupStatus(dir string) (state, reason string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, backupStatusFile))
	if err != nil {
		return "", "", err
	}
	state, reason, _ = strings.Cut(strings.TrimRight(string(b), "\n"), "\n")
	switch state {
	case BackupInProgress, BackupDone, BackupFailed:
		return state, reason, nil
	}
	return "", "", fmt.Errorf("%w: backup status file in %s says %q", errCorrupt, dir, state)
}

// writeBackupStatus replaces the status file of job directory dir, atomically and durably.
func writeBackupStatus(dir, state, reason string) error {
	text := state + "\n"
	if reason != "" {
		// One line: the file's format is the state line and the reason line.
		text += strings.ReplaceAll(reason, "\n", " ") + "\n"
	}
	return writeFileAtomic(dir, backupStatusFile, []byte(text))
}

// writeFileAtomic writes name in dir through a synced temporary file renamed over it, then
// syncs dir, so that after a crash the file holds either the old or the new bytes.
func writeFileAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(0o644) // CreateTemp makes it private; the operator's tools read these files
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// Restore makes the new data directory to from the finished backup job directory from
// (<backup directory>/<id>): it copies the backup's store files, syncs them, then opens the
// result once, which rebuilds the header index and checks that the heads are stored. to must
// not exist or be empty; on failure what Restore wrote there is removed again.
func Restore(from, to string) error {
	state, _, err := ReadBackupStatus(from)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is not a backup: it has no status file (give <backup directory>/<backup id>)", from)
	}
	if err != nil {
		return fmt.Errorf("read backup status: %w", err)
	}
	if state != BackupDone {
		return fmt.Errorf("backup %s is %s, not %s: only a finished backup can be restored", from, state, BackupDone)
	}
	src := filepath.Join(from, backupDataDir)
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("read backup: %w", err)
	}
	created, err := prepareEmptyDir(to)
	if err != nil {
		return err
	}
	err = func() error {
		for _, e := range entries {
			if e.Name() == "LOCK" || !e.Type().IsRegular() {
				continue // goleveldb makes its lock file itself; a backup has nothing else
			}
			if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return fmt.Errorf("copy backup: %w", err)
			}
		}
		if err := syncTree(to); err != nil {
			return fmt.Errorf("copy backup: %w", err)
		}
		// The copy has no header index by design, and Open says so at warning level; here that
		// is expected, not news. Damage that matters fails Open or the heads check below.
		db, err := Open(to, Options{HeaderCacheSize: -1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return fmt.Errorf("open the restored database: %w", err)
		}
		heads, err := db.Heads()
		for c, h := range heads {
			if err != nil {
				break
			}
			var ok bool
			if ok, err = db.HasHeader(h); err == nil && !ok {
				err = fmt.Errorf("%w: the head of chain %d, %s, is not in the backup", errCorrupt, c, h)
			}
		}
		if cerr := db.Close(); cerr != nil && err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("check the restored database: %w", err)
		}
		return nil
	}()
	if err != nil {
		if created {
			os.RemoveAll(to)
		} else {
			clearDir(to)
		}
	}
	return err
}

// prepareEmptyDir makes sure dir exists and is empty, creating it (and its parents) if needed;
// created reports whether it did.
func prepareEmptyDir(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create %s: %w", dir, err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("restore into %s: %w", dir, err)
	case len(entries) > 0:
		return false, fmt.Errorf("restore into %s: the directory is not empty (restore makes a new data directory; pick another path or empty it)", dir)
	}
	return false, nil
}

// clearDir removes everything inside dir.
func clearDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// copyFile copies the regular file src to the new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// syncTree fsyncs every regular file directly in dir, then dir itself: the copy's data and its
// directory entries are durable before anyone is told it is done.
func syncTree(dir string) error {
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
