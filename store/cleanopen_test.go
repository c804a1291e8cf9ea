package store

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
)

// A start does not grow with the store: Open of a cleanly closed store reads only the newest
// records its index covers (recentStart) and those it does not. These tests damage a covered record as a bad sector would, without
// writing through the filesystem's time stamps (a write through the filesystem makes the log
// newer than its clean index, and Open verifies it whole: TestOpenCutsDamagedLog).

// rotLogAt overwrites bytes of headers.log and gives the file back its modification time, as
// damage below the filesystem (a bad sector, a flipped bit) leaves it.
func rotLogAt(t *testing.T, dir string, off uint64, b []byte) {
	t.Helper()
	path := filepath.Join(dir, logFileName)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	writeLogAt(t, dir, off, b)
	if err := os.Chtimes(path, time.Time{}, st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// The damaged record is not read at Open (which would cut the log there), but every read of it
// fails with kv.ErrCorrupt rather than serving it, Check reports it as needing a repair, and the
// start after a read met it verifies the whole log and cuts it off.
func TestCleanOpenSkipsCoveredRecords(t *testing.T) {
	dir, hs := damageStore(t)
	offs := offsets(t, dir, hs)
	dropParity(t, dir) // what happens without it (parity_test.go: with it, nothing is lost)
	rotLogAt(t, dir, offs[150]+100, []byte{0xde, 0xad, 0xbe, 0xef})

	rep := checkReport(t, dir)
	if f := finding(rep, logFileName); f == nil || f.Severity != NeedsRepair || !strings.Contains(f.Text, "ledger-node repair") {
		t.Fatalf("check: %+v", rep.Findings)
	}

	lg := &recordingLogger{}
	db, err := Open(dir, Options{HeaderCacheSize: -1, Logger: slog.New(lg)})
	if err != nil {
		t.Fatal(err)
	}
	if len(db.Recovered()) != 0 || db.hl.end.Load() != offs[len(offs)-1]+recHeaderSize+uint64(hs[len(hs)-1].Size()) {
		t.Fatalf("Open read the covered records: recovered %q, log end %d", db.Recovered(), db.hl.end.Load())
	}
	for _, h := range hs[:150] {
		if _, err := db.Header(h.Hash); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Header(hs[150].Hash); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("read of the damaged record: %v, want kv.ErrCorrupt", err)
	}
	var buf []byte
	if _, err := db.HeaderBinary(buf, hs[150].Hash); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("binary read of the damaged record: %v, want kv.ErrCorrupt", err)
	}
	if err := db.ScanChain(5, Position{}, func(*ledger.Header) bool { return true }); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("scan over the damaged record: %v, want kv.ErrCorrupt", err)
	}
	if !db.Damaged() || lg.count(slog.LevelError, "damaged data") != 1 {
		t.Fatalf("damaged %v", db.Damaged())
	}
	db.Close()

	// The repair mark makes the next start verify everything: the log is cut at the damage.
	db = reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	afterCut(t, db, hs, 150)
}

// Check and repair (VerifyWholeLog) read every record whatever the index says.
func TestVerifyWholeLogCutsCoveredDamage(t *testing.T) {
	dir, hs := damageStore(t)
	offs := offsets(t, dir, hs)
	dropParity(t, dir)
	rotLogAt(t, dir, offs[200]+10, []byte{0xff, 0xff})
	db := reopen(t, dir, Options{HeaderCacheSize: -1, VerifyWholeLog: true, Logger: quiet()})
	afterCut(t, db, hs, 200)
}

// After an unclean stop the index vouches for nothing: the whole log is verified.
func TestUncleanStopVerifiesWholeLog(t *testing.T) {
	dir, hs := damageStore(t)
	offs := offsets(t, dir, hs)
	db, err := Open(dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	crash(db) // the index stays marked unclean
	rotLogAt(t, dir, offs[20]+50, []byte{1, 2, 3})
	if f := finding(checkReport(t, dir), logFileName); f == nil || f.Severity != RepairedAtStart {
		t.Fatalf("check: %v", f)
	}
	db = reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	afterCut(t, db, hs, 20)
}

// A clean close gives the log and the index one time and records it in the index; any write to
// either after it (here: a byte written over with its own value) stamps another time, and the
// index no longer vouches for the log.
func TestCleanMarkFollowsFileTimes(t *testing.T) {
	for _, name := range []string{logFileName, idxFileName} {
		t.Run(name, func(t *testing.T) {
			dir, _ := damageStore(t)
			vouches := func() bool {
				f, ih, problem := openIndexFile(filepath.Join(dir, idxFileName), mustLogID(t, dir))
				if problem != "" {
					t.Fatal(problem)
				}
				f.Close()
				st, err := os.Stat(filepath.Join(dir, logFileName))
				if err != nil {
					t.Fatal(err)
				}
				return cleanLogOf(ih, st)
			}
			if !vouches() {
				t.Fatal("a cleanly closed store's index does not vouch for its log")
			}
			path := filepath.Join(dir, name)
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			var b [1]byte
			if _, err := f.ReadAt(b[:], 4200); err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(b[:], 4200); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if vouches() {
				t.Fatalf("%s written after the clean close, and the index still vouches for the log", name)
			}
		})
	}
}

func mustLogID(t *testing.T, dir string) uint64 {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, logFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id, err := readLogHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A clean start still verifies the newest records its index covers (the newest eighth, at most
// recentVerify bytes), those a start reads first: damage there is cut off at start, as before,
// and check says so.
func TestCleanOpenVerifiesNewestRecords(t *testing.T) {
	dir, hs := damageStore(t)
	offs := offsets(t, dir, hs)
	dropParity(t, dir)
	rotLogAt(t, dir, offs[350]+20, []byte{0xab})
	if f := finding(checkReport(t, dir), logFileName); f == nil || f.Severity != RepairedAtStart {
		t.Fatalf("check: %+v", f)
	}
	db := reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	afterCut(t, db, hs, 350)
}
