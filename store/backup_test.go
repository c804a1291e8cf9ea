package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/store/backup"
)

// backupFixture is a store holding 100 chain-5 headers, a payload per header, heads, and a Pact
// state of chain 5 at heights 0–2, with what happens after its snapshot written on top.
type backupFixture struct {
	db      *store.DB
	hs      []*ledger.Header
	pact    *state.Versioned
	payload *ledger.PayloadWithOutputs
}

func newBackupFixture(t *testing.T) *backupFixture {
	t.Helper()
	hs := store.Chain5Headers(t)
	db := store.OpenTest(t, store.Options{})
	if err := db.CheckVersion("mainnet01"); err != nil {
		t.Fatal(err)
	}
	f := &backupFixture{db: db, hs: hs}
	if err := db.PutHeaders(hs[:100]...); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[99].Hash}); err != nil {
		t.Fatal(err)
	}
	f.payload = ledger.NewPayloadWithOutputs([]byte(`{"m":1}`), []byte(`{"c":1}`),
		[]ledger.TxWithOutput{{Tx: []byte(`{"tx":1}`), Output: []byte(`{"out":1}`)}})
	if err := db.PutPayload(f.payload); err != nil {
		t.Fatal(err)
	}
	st, err := state.Open(db.PactSpace(5))
	if err != nil {
		t.Fatal(err)
	}
	f.pact = st
	for h := range uint64(3) {
		f.applyMeta(t, h, fmt.Sprint("v", h))
	}
	return f
}

// applyMeta applies block height h to the Pact state, writing metadata "k" = val.
func (f *backupFixture) applyMeta(t *testing.T, h uint64, val string) {
	t.Helper()
	base := uint64(0)
	if h > 0 {
		base = h - 1
	}
	v := f.pact.View(base).(*state.View)
	if err := v.PutMeta("k", []byte(val)); err != nil {
		t.Fatal(err)
	}
	if err := f.pact.Apply(v, h); err != nil {
		t.Fatal(err)
	}
}

// writeAfter changes the store after a snapshot: more headers, new heads, a new Pact block.
func (f *backupFixture) writeAfter(t *testing.T) {
	t.Helper()
	if err := f.db.PutHeaders(f.hs[100:200]...); err != nil {
		t.Fatal(err)
	}
	if err := f.db.SetHeads(map[ledger.ChainID]ledger.Hash{5: f.hs[199].Hash}); err != nil {
		t.Fatal(err)
	}
	f.applyMeta(t, 3, "v3")
}

func TestBackupRestoreRoundTrip(t *testing.T) {
	for _, withPact := range []bool{true, false} {
		t.Run(fmt.Sprint("pact=", withPact), func(t *testing.T) {
			f := newBackupFixture(t)
			bdir := t.TempDir()
			// Hold the job after its snapshot, write more, then let it copy: what it copies must
			// be the store as of Start.
			hold, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			b, err := backup.Open(f.db, backup.Config{Dir: bdir, Logger: discardLogger(), Progress: func(string, store.BackupStats) {
				once.Do(func() { close(hold); <-release })
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			id, err := b.Start(withPact)
			if err != nil {
				t.Fatal(err)
			}
			<-hold
			f.writeAfter(t)
			close(release)
			waitState(t, b, id, backup.Done)

			m, err := backup.ReadManifest(filepath.Join(bdir, id))
			if err != nil {
				t.Fatal(err)
			}
			if m.ID != id || m.Network != "mainnet01" || m.Pact != withPact || len(m.Heads) != 1 ||
				m.Heads[0] != (store.BackupHead{Chain: 5, Height: f.hs[99].Height, Hash: f.hs[99].Hash}) {
				t.Fatalf("manifest: %+v", m)
			}
			if m.Rows == 0 || m.HeaderLogBytes < 100*318 || (m.PactRows > 0) != withPact {
				t.Fatalf("manifest stats: %+v", m.BackupStats)
			}

			to := filepath.Join(t.TempDir(), "restored")
			if err := backup.Restore(filepath.Join(bdir, id), to); err != nil {
				t.Fatal(err)
			}
			db, err := store.Open(to, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.CheckVersion("mainnet01"); err != nil {
				t.Fatal(err)
			}
			heads, err := db.Heads()
			if err != nil || heads[5] != f.hs[99].Hash {
				t.Fatalf("restored heads %v, %v", heads, err)
			}
			for i, h := range f.hs[:200] {
				got, err := db.Header(h.Hash)
				if i < 100 && (err != nil || got.Hash != h.Hash) {
					t.Fatalf("header %d: %v", i, err)
				}
				if i >= 100 && !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("header %d, written after the snapshot: %v", i, err)
				}
			}
			if got := store.ScanAll(t, db, 5, store.Position{}); len(got) != 100 {
				t.Fatalf("height index holds %d headers", len(got))
			}
			if _, err := db.PayloadWithOutputs(f.payload.PayloadHash); err != nil {
				t.Fatal(err)
			}
			st, err := state.Open(db.PactSpace(5))
			if err != nil {
				t.Fatal(err)
			}
			height, has := st.Height()
			if !withPact {
				if has {
					t.Fatalf("a backup without Pact state has a Pact state at %d", height)
				}
				return
			}
			if !has || height != 2 {
				t.Fatalf("restored Pact state at %d (%v), want 2", height, has)
			}
			val, ok, err := st.View(2).(*state.View).Meta("k")
			if err != nil || !ok || string(val) != "v2" {
				t.Fatalf("Pact state at 2: %q %v %v", val, ok, err)
			}
		})
	}
}

func TestBackupOneJobAtATime(t *testing.T) {
	f := newBackupFixture(t)
	bdir := t.TempDir()
	hold := make(chan string, 1)
	release := make(chan struct{})
	var holding sync.Once
	b, err := backup.Open(f.db, backup.Config{Dir: bdir, Logger: discardLogger(), Progress: func(id string, _ store.BackupStats) {
		holding.Do(func() { hold <- id; <-release })
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	first, _ := b.Start(true)
	<-hold
	for range 3 {
		if again, err := b.Start(false); !errors.Is(err, backup.ErrRunning) || again != first {
			t.Fatalf("second request while %s runs: %s, %v", first, again, err)
		}
	}
	if s, ok := b.Status(first); !ok || s != backup.InProgress {
		t.Fatalf("running job: %s %v", s, ok)
	}
	if entries, _ := os.ReadDir(bdir); len(entries) != 1 {
		t.Fatalf("%d job directories, want 1", len(entries))
	}
	close(release)
	waitState(t, b, first, backup.Done)

	// Fast successive jobs get distinct, increasing ids.
	prev := first
	for range 20 {
		id, _ := b.Start(false)
		if mustID(t, id) <= mustID(t, prev) {
			t.Fatalf("id %s after %s", id, prev)
		}
		waitState(t, b, id, backup.Done)
		prev = id
	}
	// The ids are microseconds since the epoch.
	n := mustID(t, first)
	if d := time.Since(time.UnixMicro(int64(n))); d < 0 || d > time.Minute {
		t.Fatalf("id %s is %v from now", first, d)
	}
}

func TestBackupStatusUnknownAndMalformed(t *testing.T) {
	f := newBackupFixture(t)
	bdir := t.TempDir()
	os.Mkdir(filepath.Join(bdir, "notes"), 0o755)
	b, err := backup.Open(f.db, backup.Config{Dir: bdir, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id, _ := b.Start(false)
	waitState(t, b, id, backup.Done)
	for _, bad := range []string{"", "1", "123456", "0" + id, "+" + id, "-1", id + "0", "abc", "..", "../" + id,
		"notes", "99999999999999999999", "184467440737095516160", id + "/data"} {
		if s, ok := b.Status(bad); ok {
			t.Errorf("Status(%q) = %s, want unknown", bad, s)
		}
	}
}

func TestBackupStatusSurvivesRestart(t *testing.T) {
	f := newBackupFixture(t)
	bdir := t.TempDir()
	b, _ := backup.Open(f.db, backup.Config{Dir: bdir, Logger: discardLogger()})
	done, _ := b.Start(false)
	waitState(t, b, done, backup.Done)
	b.Close()
	if _, err := b.Start(false); !errors.Is(err, backup.ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}

	// A job a crashed process left in progress.
	crashed := "1700000000000000"
	os.MkdirAll(filepath.Join(bdir, crashed, "data"), 0o755)
	if err := writeStatusFile(filepath.Join(bdir, crashed), backup.InProgress, ""); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	b2, err := backup.Open(f.db, backup.Config{Dir: bdir, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if s, ok := b2.Status(done); !ok || s != backup.Done {
		t.Fatalf("finished job after a restart: %s %v", s, ok)
	}
	if s, ok := b2.Status(crashed); !ok || s != backup.Failed {
		t.Fatalf("interrupted job: %s %v", s, ok)
	}
	if _, err := os.Stat(filepath.Join(bdir, crashed, "data")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the interrupted job's partial copy was kept: %v", err)
	}
	if !strings.Contains(log.String(), "interrupted") {
		t.Fatalf("log: %s", log.String())
	}
	if id, _ := b2.Start(false); mustID(t, id) <= mustID(t, done) {
		t.Fatalf("id %s after the restart is not above %s", id, done)
	}
}

// TestBackupFailures: a backup directory that became unusable, and a job cut short by Close;
// both end as backup-failed with the reason in the log, and leave no partial copy.
func TestBackupFailures(t *testing.T) {
	f := newBackupFixture(t)
	bdir := filepath.Join(t.TempDir(), "backups")
	var log syncbuf.Buffer
	b, err := backup.Open(f.db, backup.Config{Dir: bdir, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	// The directory is replaced by a file: no job directory can be made.
	os.Remove(bdir)
	os.WriteFile(bdir, []byte("x"), 0o644)
	id, err := b.Start(true)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := b.Status(id); !ok || s != backup.Failed {
		t.Fatalf("job in an unusable directory: %s %v", s, ok)
	}
	if !strings.Contains(log.String(), "backup failed") || !strings.Contains(log.String(), "not a directory") {
		t.Fatalf("log: %s", log.String())
	}
	b.Close()

	// A job stopped by Close (the node shutting down).
	os.Remove(bdir)
	hold := make(chan struct{})
	var once sync.Once
	b, err = backup.Open(f.db, backup.Config{Dir: bdir, Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Progress: func(string, store.BackupStats) { once.Do(func() { close(hold) }) }})
	if err != nil {
		t.Fatal(err)
	}
	id, _ = b.Start(true)
	<-hold
	b.Close()
	if s, ok := b.Status(id); !ok || s != backup.Failed {
		t.Fatalf("job stopped by Close: %s %v", s, ok)
	}
	if state, reason, err := backup.ReadStatus(filepath.Join(bdir, id)); err != nil || state != backup.Failed ||
		!strings.Contains(reason, "shutting down") {
		t.Fatalf("status file: %s %q %v", state, reason, err)
	}
	if _, err := os.Stat(filepath.Join(bdir, id, "data")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("partial copy kept: %v", err)
	}
	if err := backup.Restore(filepath.Join(bdir, id), t.TempDir()); err == nil || !strings.Contains(err.Error(), "backup-failed") {
		t.Fatalf("restore of a failed backup: %v", err)
	}
}

func TestOpenBackupsRefusesUnusableDirectory(t *testing.T) {
	f := newBackupFixture(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := backup.Open(f.db, backup.Config{Dir: filepath.Join(file, "backups")}); err == nil ||
		!strings.Contains(err.Error(), "backup directory") {
		t.Fatalf("backup directory under a file: %v", err)
	}
	if _, err := backup.Open(f.db, backup.Config{}); err == nil {
		t.Fatal("no directory accepted")
	}
}

func TestWriteBackupErrors(t *testing.T) {
	f := newBackupFixture(t)
	snap, err := f.db.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := snap.WriteBackup(context.Background(), filepath.Join(file, "data"), true, nil); err == nil {
		t.Fatal("backup under a file")
	}
	existing := t.TempDir()
	if _, err := snap.WriteBackup(context.Background(), existing, true, nil); err == nil {
		t.Fatal("backup into an existing directory")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := snap.WriteBackup(ctx, filepath.Join(t.TempDir(), "data"), true, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled backup: %v", err)
	}
}

func TestRestoreRefuses(t *testing.T) {
	f := newBackupFixture(t)
	bdir := t.TempDir()
	b, _ := backup.Open(f.db, backup.Config{Dir: bdir, Logger: discardLogger()})
	defer b.Close()
	id, _ := b.Start(false)
	waitState(t, b, id, backup.Done)
	from := filepath.Join(bdir, id)

	nonEmpty := t.TempDir()
	os.WriteFile(filepath.Join(nonEmpty, "keep"), []byte("x"), 0o644)
	if err := backup.Restore(from, nonEmpty); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("restore into a non-empty directory: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(nonEmpty, "keep")); string(b) != "x" {
		t.Fatal("restore touched the non-empty directory")
	}
	if err := backup.Restore(bdir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a backup") {
		t.Fatalf("restore from the backup directory itself: %v", err)
	}
	// A damaged backup: its header log is gone. Restore fails and leaves nothing behind.
	os.Remove(filepath.Join(from, "data", "headers.log"))
	to := filepath.Join(t.TempDir(), "new")
	if err := backup.Restore(from, to); err == nil {
		t.Fatal("restore of a backup without its header log")
	}
	if _, err := os.Stat(to); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed restore left %s: %v", to, err)
	}
}

// waitState waits until job id reports want, failing on any other final state.
func waitState(t *testing.T, b *backup.Jobs, id, want string) {
	t.Helper()
	deadline := hangguard.Deadline()
	for {
		s, ok := b.Status(id)
		if !ok {
			t.Fatalf("job %s unknown", id)
		}
		if s == want {
			return
		}
		if s != backup.InProgress || time.Now().After(deadline) {
			t.Fatalf("job %s: %s, want %s", id, s, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func mustID(t *testing.T, id string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != id {
		t.Fatalf("bad id %q", id)
	}
	return n
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// A backup directory keeps the newest Keep jobs: each job that ends deletes the oldest beyond
// it, done or failed alike, and leaves the operator's own files alone.
func TestBackupRetention(t *testing.T) {
	f := newBackupFixture(t)
	bdir := t.TempDir()
	os.Mkdir(filepath.Join(bdir, "notes"), 0o755)
	old := "1600000000000000" // a failed job of an earlier run
	os.MkdirAll(filepath.Join(bdir, old), 0o755)
	if err := writeStatusFile(filepath.Join(bdir, old), backup.Failed, "earlier"); err != nil {
		t.Fatal(err)
	}
	b, err := backup.Open(f.db, backup.Config{Dir: bdir, Logger: discardLogger(), Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var ids []string
	for range 4 {
		id, err := b.Start(false)
		if err != nil {
			t.Fatal(err)
		}
		waitState(t, b, id, backup.Done)
		ids = append(ids, id)
	}
	for _, id := range append([]string{old}, ids[:2]...) {
		if s, ok := b.Status(id); ok {
			t.Errorf("job %s is still there (%s) with Keep 2", id, s)
		}
	}
	for _, id := range ids[2:] {
		if s, ok := b.Status(id); !ok || s != backup.Done {
			t.Errorf("newest job %s: %s %v", id, s, ok)
		}
	}
	if _, err := os.Stat(filepath.Join(bdir, "notes")); err != nil {
		t.Errorf("the operator's directory was deleted: %v", err)
	}
}

// writeStatusFile writes a job directory's status file as a job would (state, then the reason).
func writeStatusFile(dir, state, reason string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	text := state + "\n"
	if reason != "" {
		text += reason + "\n"
	}
	return os.WriteFile(filepath.Join(dir, "status"), []byte(text), 0o644)
}
