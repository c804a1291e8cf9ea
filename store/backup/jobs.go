package backup

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

	"github.com/ledgernode/ledger-node/store"
)

// Backup jobs: what the backup API starts and reports on (interface.md "Backup job"). One job
// runs at a time; a request while one runs gets the running job's id. A job's state is kept in
// its status file (backup.go), so check-backup answers for old jobs after a restart too.
//
// Ids are microseconds since the epoch in decimal (DECISIONS.md). A new id is above every id
// this process handed out and is the name of a directory made with mkdir, which fails if it
// exists: ids stay unique for jobs started in the same microsecond, across restarts and if the
// clock steps back.

// ErrClosed is returned by Start once Close has been called (the node is stopping).
var ErrClosed = errors.New("store: backups are shutting down")

// ErrRunning is returned by Start, with the running job's id, while a job runs: one job at
// a time, so that requests cannot pile copies of the database on the disk.
var ErrRunning = errors.New("store: a backup is running")

// DefaultKeep is how many jobs a backup directory keeps by default (Config.Keep).
const DefaultKeep = 5

// Config configures Jobs.
type Config struct {
	// Dir is the backup directory: it is created if missing and must be writable.
	Dir    string
	Logger *slog.Logger // nil = slog.Default()
	// Progress, if set, is called from a job's goroutine when the copy starts and after each
	// batch written. It may block: the job waits (tests hold a job running this way).
	Progress func(id string, st store.BackupStats)
	// ProgressEvery is how often a running job logs its progress (DefaultProgressEvery
	// if zero).
	ProgressEvery time.Duration
	// Keep is how many jobs the directory keeps, done or failed (DefaultKeep if zero):
	// when a job ends, the oldest beyond it are deleted.
	Keep int
}

// JobStats count the jobs of a Jobs since it opened, for the metrics.
type JobStats struct {
	Started, Done, Failed uint64
	Running               bool
	// Rows and Bytes count what the jobs copied, the running one's progress included.
	Rows, Bytes uint64
}

// Jobs runs backup jobs of one store into one backup directory. Its methods are safe for
// concurrent use. Only one Jobs (one node) may use a backup directory at a time.
type Jobs struct {
	db       *store.DB
	dir      string
	log      *slog.Logger
	progress func(string, store.BackupStats)
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

// DefaultProgressEvery is how often a running job logs its progress.
const DefaultProgressEvery = 5 * time.Second

// Open prepares the backup directory: it creates it if missing, checks that a file can
// be written in it, and marks the jobs a previous process left in progress (it stopped or
// crashed during them) as failed.
func Open(db *store.DB, cfg Config) (*Jobs, error) {
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
	b := &Jobs{db: db, dir: cfg.Dir, log: lg, progress: cfg.Progress, every: cfg.ProgressEvery, keep: cfg.Keep, ctx: ctx,
		cancel: cancel, unrecorded: map[string]bool{}}
	if b.keep <= 0 {
		b.keep = DefaultKeep
	}
	if b.every <= 0 {
		b.every = DefaultProgressEvery
	}
	if err := b.recoverInterrupted(); err != nil {
		cancel()
		return nil, err
	}
	return b, nil
}

// recoverInterrupted marks the jobs left in progress by an earlier process as failed, removes
// their partial copies, and makes new ids follow every existing one.
func (b *Jobs) recoverInterrupted() error {
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
		if state, _, err := ReadStatus(job); err != nil || state != InProgress {
			continue
		}
		const reason = "interrupted: the node stopped before the backup finished"
		os.RemoveAll(filepath.Join(job, dataDir))
		if err := writeStatus(job, Failed, reason); err != nil {
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
// runs it starts nothing and returns the running job's id with ErrRunning. The snapshot
// is taken before Start returns: the backup is the store as of the request. A job that cannot
// even begin (the directory became unusable, the snapshot failed) is logged and reported as
// failed under its id; the only other error is ErrClosed.
func (b *Jobs) Start(withPact bool) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return "", ErrClosed
	}
	if b.running != "" {
		return b.running, ErrRunning
	}
	id, job, err := b.newJobDir()
	b.started.Add(1)
	if err == nil {
		err = writeStatus(job, InProgress, "")
	}
	var snap *store.Snapshot
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
func (b *Jobs) newJobDir() (string, string, error) {
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
func (b *Jobs) fail(id, job string, cause error) {
	b.failed.Add(1)
	reason := cause.Error()
	b.log.Error("backup failed", "id", id, "reason", reason)
	os.RemoveAll(filepath.Join(job, dataDir)) // a partial copy only takes space (disk full)
	if err := writeStatus(job, Failed, reason); err != nil {
		b.log.Error("backup failed and its status file cannot be written; it is reported as failed until the node stops",
			"id", id, "err", err)
		b.unrecorded[id] = true
	}
}

// run is a job's goroutine: it writes the copy and the manifest, then the final status.
func (b *Jobs) run(id, job string, snap *store.Snapshot, withPact bool) {
	defer b.wg.Done()
	started := time.Now()
	lastLog := started
	var counted store.BackupStats // what b.rows and b.bytes hold of this job
	progress := func(st store.BackupStats) {
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
	st, err := snap.WriteBackup(b.ctx, filepath.Join(job, dataDir), withPact, progress)
	elapsed := time.Since(started)
	var m *Manifest
	if err == nil {
		m = &Manifest{ID: id, Pact: withPact, Started: started.UTC(), Seconds: elapsed.Seconds(), BackupStats: st}
		if m.Heads, err = snap.BackupHeads(); err == nil {
			m.Network, err = snap.Network()
		}
	}
	snap.Release()
	if err == nil {
		err = writeManifest(job, m)
	}
	if err == nil {
		err = writeStatus(job, Done, "")
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
func (b *Jobs) prune() {
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
// share done and the time left at the rate so far (from the estimate of store.BackupStats.Done; "?"
// until it has one).
func backupProgress(id string, st store.BackupStats, elapsed time.Duration) []any {
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
func (b *Jobs) Stats() JobStats {
	b.mu.Lock()
	running := b.running != ""
	b.mu.Unlock()
	return JobStats{Started: b.started.Load(), Done: b.done.Load(), Failed: b.failed.Load(), Running: running,
		Rows: b.rows.Load(), Bytes: b.bytes.Load()}
}

func writeManifest(job string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(job, manifestFile, append(data, '\n'))
}

// Status reports the state of job id; ok is false when there is no such job (including any id
// that is not a canonical decimal number). A job whose status file says in progress but that
// this process is not running was interrupted: it is reported as failed.
func (b *Jobs) Status(id string) (state string, ok bool) {
	if _, valid := parseBackupID(id); !valid {
		return "", false
	}
	b.mu.Lock()
	running, unrecorded := b.running == id, b.unrecorded[id]
	b.mu.Unlock()
	switch {
	case running:
		return InProgress, true
	case unrecorded:
		return Failed, true
	}
	state, _, err := ReadStatus(filepath.Join(b.dir, id))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false
	case err != nil:
		// An unreadable or damaged status: whatever the copy holds, it is not a known-good backup.
		b.log.Warn("backup status unreadable", "id", id, "err", err)
		return Failed, true
	case state == InProgress:
		// Read again under the lock: the job may have finished between the two reads.
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.running == id {
			return InProgress, true
		}
		if state, _, err = ReadStatus(filepath.Join(b.dir, id)); err != nil || state == InProgress {
			return Failed, true
		}
	}
	return state, true
}

// Dir is the backup directory.
func (b *Jobs) Dir() string { return b.dir }

// Close cancels a running job (it ends as failed) and waits for it. Call it before closing the
// store: a job holds a snapshot of it.
func (b *Jobs) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
}
