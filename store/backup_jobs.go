package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Backup jobs: what the backup API starts and reports on (interface.md "Backup job"). One job
// runs at a time; a request while one runs gets the running job's id. A job's state is kept in
// its status file (backup.go), so check-backup answers for old jobs after a restart too.
//
// Ids are microseconds since the epoch in decimal (DECISIONS.md). A new id is above every id
// this process handed out and is the name of a directory made with mkdir, which fails if it
// exists: ids stay unique for jobs started in the same microsecond, across restarts and if the
// clock steps back.

// ErrBackupsClosed is returned by Start once Close has been called (the node is stopping).
var ErrBackupsClosed = errors.New("store: backups are shutting down")

// ErrBackupRunning is returned by Start, with the running job's id, while a job runs: one job at
// a time, so that requests cannot pile copies of the database on the disk.
var ErrBackupRunning = errors.New("store: a backup is running")

// DefaultBackupKeep is how many jobs a backup directory keeps by default (BackupConfig.Keep).
const DefaultBackupKeep = 5

// BackupConfig configures Backups.
type BackupConfig struct {
	// Dir is the backup directory: it is created if missing and must be writable.
	Dir    string
	Logger *slog.Logger // nil = slog.Default()
	// Progress, if set, is called from a job's goroutine when the copy starts and after each
	// batch written. It may block: the job waits (tests hold a job running this way).
	Progress func(id string, st BackupStats)
	// ProgressEvery is how often a running job logs its progress (DefaultBackupProgressEvery
	// if zero).
	ProgressEvery time.Duration
	// Keep is how many jobs the directory keeps, done or failed (DefaultBackupKeep if zero):
	// when a job ends, the oldest beyond it are deleted.
	Keep int
}

// BackupJobStats count the jobs of a Backups since it opened, for the metrics.
type BackupJobStats struct {
	Started, Done, Failed uint64
	Running               bool
	// Rows and Bytes count what the jobs copied, the running one's progress included.
	Rows, Bytes uint64
}

// Backups runs backup jobs of one store into one backup directory. Its methods are safe for
// concurrent use. Only one Backups (one node) may use a backup directory at a time.
type Backups struct {
	db       *DB
	dir      string
	log      *slog.Logger
	progress func(string, BackupStats)
	every    time.Duration
	keep     int

	// The metrics' counters (Stats).
	started, done, failed atomic.Uint64
	rows, bytes           atomic.Uint64

	ctx    context.Context // cancelled by Close: stops a running copy
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running string // the running job's id; "" when none
	lastID  uint64
	closed  bool
	// unrecorded holds the jobs of this process that failed where even their status file could
	// not be written (an unusable backup directory): they still report backup-failed.
	unrecorded map[string]bool
}

// DefaultBackupProgressEvery is how often a running job logs its progress.
const DefaultBackupProgressEvery = 5 * time.Second

// OpenBackups prepares the backup directory: it creates it if missing, checks that a file can
// be written in it, and marks the jobs a previous process left in progress (it stopped or
// crashed during them) as failed.
func OpenBackups(db *DB, cfg BackupConfig) (*Backups, error) {
	if cfg.Dir == "" {
		return nil, errors.New("store: backups need a directory")
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("backup directory %s: %w", cfg.Dir, err)
	}
	probe, err := os.CreateTemp(cfg.Dir, ".write-test-*")
	if err == nil {
		_, err = probe.Write([]byte("ok"))
		if cerr := probe.Close(); cerr != nil && err == nil {
			err = cerr
		}
		os.Remove(probe.Name())
	}
	if err != nil {
		return nil, fmt.Errorf("backup directory %s is not writable: %w", cfg.Dir, err)
	}
	lg := cfg.Logger
	if lg == nil {
		lg = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Backups{db: db, dir: cfg.Dir, log: lg, progress: cfg.Progress, every: cfg.ProgressEvery, keep: cfg.Keep, ctx: ctx,
		cancel: cancel, unrecorded: map[string]bool{}}
	if b.keep <= 0 {
		b.keep = DefaultBackupKeep
	}
	if b.every <= 0 {
		b.every = DefaultBackupProgressEvery
	}
	if err := b.recoverInterrupted(); err != nil {
		cancel()
		return nil, err
	}
	return b, nil
}

// recoverInterrupted marks the jobs left in progress by an earlier process as failed, removes
// their partial copies, and makes new ids follow every existing one.
func (b *Backups) recoverInterrupted() error {
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return fmt.Errorf("backup directory %s: %w", b.dir, err)
	}
	for _, e := range entries {
		n, ok := parseBackupID(e.Name())
		if !ok || !e.IsDir() {
			continue // not a job: the operator's own files are left alone
		}
		b.lastID = max(b.lastID, n)
		job := filepath.Join(b.dir, e.Name())
		if state, _, err := ReadBackupStatus(job); err != nil || state != BackupInProgress {
			continue
		}
		const reason = "interrupted: the node stopped before the backup finished"
		os.RemoveAll(filepath.Join(job, backupDataDir))
		if err := writeBackupStatus(job, BackupFailed, reason); err != nil {
			return fmt.Errorf("backup %s: mark interrupted job failed: %w", e.Name(), err)
		}
		b.log.Warn("backup failed", "id", e.Name(), "reason", reason)
	}
	return nil
}

// parseBackupID accepts the canonical decimal form of a job id only, so that an id names
// exactly one directory and no other text (a path, a signed or padded number) reaches the
// file system.
func parseBackupID(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != s {
		return 0, false
	}
	return n, true
}

// Start starts a backup job, with the Pact state if withPact, and returns its id; while a job
// runs it starts nothing and returns the running job's id with ErrBackupRunning. The snapshot
// is taken before Start returns: the backup is the store as of the request. A job that cannot
// even begin (the directory became unusable, the snapshot failed) is logged and reported as
// failed under its id; the only other error is ErrBackupsClosed.
func (b *Backups) Start(withPact bool) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return "", ErrBackupsClosed
	}
	if b.running != "" {
		return b.running, ErrBackupRunning
	}
	id, job, err := b.newJobDir()
	b.started.Add(1)
	if err == nil {
		err = writeBackupStatus(job, BackupInProgress, "")
	}
	var snap *Snapshot
	if err == nil {
		snap, err = b.db.Snapshot()
	}
	if err != nil {
		b.fail(id, job, err)
		return id, nil
	}
	b.running = id
	b.log.Info("backup started", "id", id, "pact", withPact, "dir", job)
	b.wg.Add(1)
	go b.run(id, job, snap, withPact)
	return id, nil
}

// newJobDir makes the directory of a new job under a fresh id. On failure it still returns an
// id (and its would-be directory), under which the failure is reported.
func (b *Backups) newJobDir() (string, string, error) {
	n := max(uint64(time.Now().UnixMicro()), b.lastID+1)
	for tries := 0; ; tries++ {
		b.lastID = n
		id := strconv.FormatUint(n, 10)
		job := filepath.Join(b.dir, id)
		err := os.Mkdir(job, 0o755)
		if err == nil || !errors.Is(err, fs.ErrExist) || tries == 1000 {
			return id, job, err
		}
		n++ // taken (by a job of an earlier run whose clock was ahead): the next one
	}
}

// fail records a job as failed: in its status file if possible, else in memory. Called with
// mu held or from the job's goroutine before it clears running.
func (b *Backups) fail(id, job string, cause error) {
	b.failed.Add(1)
	reason := cause.Error()
	b.log.Error("backup failed", "id", id, "reason", reason)
	os.RemoveAll(filepath.Join(job, backupDataDir)) // a partial copy only takes space (disk full)
	if err := writeBackupStatus(job, BackupFailed, reason); err != nil {
		b.log.Error("backup failed and its status file cannot be written; it is reported as failed until the node stops",
			"id", id, "err", err)
		b.unrecorded[id] = true
	}
}

// run is a job's goroutine: it writes the copy and the manifest, then the final status.
func (b *Backups) run(id, job string, snap *Snapshot, withPact bool) {
	defer b.wg.Done()
	started := time.Now()
	lastLog := started
	var counted BackupStats // what b.rows and b.bytes hold of this job
	progress := func(st BackupStats) {
		b.rows.Add(uint64(st.Rows - counted.Rows))
		b.bytes.Add(uint64(st.Bytes() - counted.Bytes()))
		counted = st
		if b.progress != nil {
			b.progress(id, st)
		}
		if now := time.Now(); now.Sub(lastLog) >= b.every {
			lastLog = now
			b.log.Info("backup in progress", backupProgress(id, st, now.Sub(started))...)
		}
	}
	st, err := snap.WriteBackup(b.ctx, filepath.Join(job, backupDataDir), withPact, progress)
	elapsed := time.Since(started)
	var m *BackupManifest
	if err == nil {
		m = &BackupManifest{ID: id, Pact: withPact, Started: started.UTC(), Seconds: elapsed.Seconds(), BackupStats: st}
		if m.Heads, err = snap.heads(); err == nil {
			m.Network, err = snap.network()
		}
	}
	snap.Release()
	if err == nil {
		err = writeManifest(job, m)
	}
	if err == nil {
		err = writeBackupStatus(job, BackupDone, "")
	}
	if errors.Is(err, context.Canceled) {
		err = errors.New("cancelled: the node is shutting down")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.fail(id, job, err)
	} else {
		secs := max(elapsed.Seconds(), 1e-9)
		b.log.Info("backup done", "id", id, "pact", withPact, "rows", st.Rows, "MB", float64(st.Bytes())/1e6,
			"seconds", elapsed.Seconds(), "rowsPerSecond", float64(st.Rows)/secs, "mbPerSecond", float64(st.Bytes())/1e6/secs)
		b.done.Add(1)
	}
	b.running = ""
	b.prune()
}

// prune deletes the oldest jobs beyond b.keep, done or failed alike, so that the directory does
// not fill the disk with copies. The caller holds mu (no job is running).
func (b *Backups) prune() {
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		b.log.Warn("backup retention: cannot list the backup directory", "dir", b.dir, "err", err)
		return
	}
	var ids []uint64
	for _, e := range entries {
		if n, ok := parseBackupID(e.Name()); ok && e.IsDir() {
			ids = append(ids, n)
		}
	}
	slices.Sort(ids)
	for _, n := range ids[:max(0, len(ids)-b.keep)] {
		id := strconv.FormatUint(n, 10)
		if err := os.RemoveAll(filepath.Join(b.dir, id)); err != nil {
			b.log.Warn("backup retention: cannot delete an old backup", "id", id, "err", err)
			continue
		}
		delete(b.unrecorded, id)
		b.log.Info("old backup deleted", "id", id, "keep", b.keep)
	}
}

// backupProgress are the attributes of a progress line: rows and bytes so far, the rates, the
// share done and the time left at the rate so far (from the estimate of BackupStats.Done; "?"
// until it has one).
func backupProgress(id string, st BackupStats, elapsed time.Duration) []any {
	secs := max(elapsed.Seconds(), 1e-9)
	eta := "?"
	if st.Done > 0 {
		eta = time.Duration(float64(elapsed) * (1 - st.Done) / st.Done).Round(time.Second).String()
	}
	return []any{"id", id, "rows", st.Rows, "MB", fmt.Sprintf("%.1f", float64(st.Bytes())/1e6),
		"rowsPerSecond", fmt.Sprintf("%.0f", float64(st.Rows)/secs), "mbPerSecond", fmt.Sprintf("%.1f", float64(st.Bytes())/1e6/secs),
		"done", fmt.Sprintf("%.0f%%", 100*st.Done), "eta", eta}
}

// Stats returns the jobs' counters.
func (b *Backups) Stats() BackupJobStats {
	b.mu.Lock()
	running := b.running != ""
	b.mu.Unlock()
	return BackupJobStats{Started: b.started.Load(), Done: b.done.Load(), Failed: b.failed.Load(), Running: running,
		Rows: b.rows.Load(), Bytes: b.bytes.Load()}
}

func writeManifest(job string, m *BackupManifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(job, backupManifestFile, append(data, '\n'))
}

// Status reports the state of job id; ok is false when there is no such job (including any id
// that is not a canonical decimal number). A job whose status file says in progress but that
// this process is not running was interrupted: it is reported as failed.
func (b *Backups) Status(id string) (state string, ok bool) {
	if _, valid := parseBackupID(id); !valid {
		return "", false
	}
	b.mu.Lock()
	running, unrecorded := b.running == id, b.unrecorded[id]
	b.mu.Unlock()
	switch {
	case running:
		return BackupInProgress, true
	case unrecorded:
		return BackupFailed, true
	}
	state, _, err := ReadBackupStatus(filepath.Join(b.dir, id))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false
	case err != nil:
		// An unreadable or damaged status: whatever the copy holds, it is not a known-good backup.
		b.log.Warn("backup status unreadable", "id", id, "err", err)
		return BackupFailed, true
	case state == BackupInProgress:
		// Read again under the lock: the job may have finished between the two reads.
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.running == id {
			return BackupInProgress, true
		}
		if state, _, err = ReadBackupStatus(filepath.Join(b.dir, id)); err != nil || state == BackupInProgress {
			return BackupFailed, true
		}
	}
	return state, true
}

// Dir is the backup directory.
func (b *Backups) Dir() string { return b.dir }

// Close cancels a running job (it ends as failed) and waits for it. Call it before closing the
// store: a job holds a snapshot of it.
func (b *Backups) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
}
