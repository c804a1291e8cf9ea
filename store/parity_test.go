package store

import (
	"bytes"
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
)

// Parity (parity.go) turns damage to headers.log into a repair: every header stays, where
// without it the log is cut at the first bad record (TestOpenCutsDamagedLog) and all after it
// is lost.

// dropParity removes headers.parity, so that damage is met as a store without parity meets it.
func dropParity(t *testing.T, dir string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, parFileName)); err != nil {
		t.Fatal(err)
	}
}

// parityStore writes 4,000 headers as a node does (one block per chain and height, 20 chains,
// heads on every chain), closes the store cleanly and returns it with the log's length.
func parityStore(t *testing.T) (dir string, hs []*ledger.Header, heads map[ledger.ChainID]ledger.Hash, logEnd uint64) {
	t.Helper()
	const chains, height = 20, 200
	per := make([][]*ledger.Header, chains)
	for c := range per {
		per[c] = synthHeaders(t, height, ledger.ChainID(c), 77)
	}
	dir = t.TempDir()
	db, err := Open(dir, Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	heads = map[ledger.ChainID]ledger.Hash{}
	for h := range height {
		batch := make([]*ledger.Header, chains)
		for c := range chains {
			batch[c] = per[c][h]
			heads[ledger.ChainID(c)] = per[c][h].Hash
		}
		if err := db.PutHeaders(batch...); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, batch...)
	}
	if err := db.SetHeads(heads); err != nil {
		t.Fatal(err)
	}
	logEnd = db.hl.end.Load()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, hs, heads, logEnd
}

// keptAll expects every header of hs readable and equal to what was written, and the heads.
func keptAll(t *testing.T, db *DB, hs []*ledger.Header, heads map[ledger.ChainID]ledger.Hash) {
	t.Helper()
	checkAll(t, db, hs)
	got, err := db.Heads()
	if err != nil || len(got) != len(heads) {
		t.Fatalf("heads: %v %v", got, err)
	}
	for c, h := range heads {
		if got[c] != h {
			t.Fatalf("head of chain %d moved", c)
		}
	}
	if db.Damaged() || db.hl.cut.bytes > 0 {
		t.Fatalf("damaged %v, cut %+v", db.Damaged(), db.hl.cut)
	}
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32() | 1) // never equal to zeros past the end, rarely to a record's byte
	}
	return b
}

// parityMismatches counts the parity blocks of dir's files that differ from the log's parity.
func parityMismatches(t *testing.T, dir string) int {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(dir, logFileName))
	if err != nil {
		t.Fatal(err)
	}
	par, err := os.ReadFile(filepath.Join(dir, parFileName))
	if err != nil {
		t.Fatal(err)
	}
	p := &parity{m: par}
	return p.mismatches(log, uint64(len(log)), uint64(len(log)), false)
}

// 64 random bytes in the middle, over the first bytes, in the last records, and a 4 KiB block:
// Open repairs them from parity, whether it meets them at start (VerifyWholeLog, as check and
// repair do, or a write after the clean close) or a read meets them first (a bad sector under a
// clean start, which verifies only the newest records) and the next start does.
func TestParityRepairsDamage(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   func(end uint64) uint64
		n    int
		// older says a clean start does not read the damage (older than the newest eighth):
		// a read meets it first. The log header and the tail are met by the start itself.
		older bool
	}{
		{"middle", func(end uint64) uint64 { return end/2 + 17 }, 64, true},
		{"start", func(uint64) uint64 { return 0 }, 64, false},
		{"tail", func(end uint64) uint64 { return end - 40 }, 64, false},
		{"aligned block", func(end uint64) uint64 { return end / 2 &^ (parBlock - 1) }, parBlock, true},
		{"two adjacent blocks", func(end uint64) uint64 { return end/3&^(parBlock-1) - 60 }, 128, true},
		{"unaligned 4 KiB", func(end uint64) uint64 { return end/3 + 1000 }, parBlock, true},
	} {
		for _, mode := range []string{"verify whole log", "clean start then read"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				dir, hs, heads, end := parityStore(t)
				at := tc.at(end)
				rotLogAt(t, dir, at, randomBytes(at, tc.n))
				if mode == "verify whole log" {
					rep := checkReport(t, dir)
					f := finding(rep, logFileName)
					if f == nil || !strings.Contains(f.Text, "headers.parity restores") {
						t.Fatalf("check: %+v", rep.Findings)
					}
					if f := finding(rep, parFileName); f != nil {
						t.Fatalf("check: %+v", f)
					}
					lg := &recordingLogger{}
					db := reopen(t, dir, Options{HeaderCacheSize: -1, VerifyWholeLog: true, Logger: slog.New(lg)})
					keptAll(t, db, hs, heads)
					if lg.count(slog.LevelWarn, "repaired it from headers.parity") == 0 || len(db.Recovered()) == 0 ||
						!strings.Contains(db.Recovered()[0], "repaired from headers.parity") {
						t.Fatalf("no repair said: %q", db.Recovered())
					}
					return
				}
				db, err := Open(dir, Options{HeaderCacheSize: -1, Logger: quiet()})
				if err != nil {
					t.Fatal(err)
				}
				met := 0
				for _, h := range hs {
					got, err := db.Header(h.Hash)
					switch {
					case errors.Is(err, kv.ErrCorrupt):
						met++
					case err != nil:
						t.Fatal(err)
					case !bytes.Equal(got.Bytes(), h.Bytes()):
						t.Fatal("a damaged header was served")
					}
				}
				if (met > 0) != db.Damaged() || (met > 0) != tc.older {
					t.Fatalf("%d reads met damage, damaged %v", met, db.Damaged())
				}
				db.Close()
				db = reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
				keptAll(t, db, hs, heads)
				db.Close()
				if f := finding(checkReport(t, dir), parFileName); f != nil {
					t.Fatalf("check after the repair: %+v", f)
				}
			})
		}
	}
}

// Two damaged blocks of one group cannot be rebuilt: the log is cut at the first, as without
// parity, and nothing wrong is ever served.
func TestParitySameGroupFallsBackToCut(t *testing.T) {
	dir, hs, _, end := parityStore(t)
	blk := end / 2 / parBlock
	blk -= blk % (parGroup * parLanes) // the first block of a run; blk+parLanes is in its group
	rotLogAt(t, dir, blk*parBlock+100, randomBytes(1, 64))
	rotLogAt(t, dir, (blk+parLanes)*parBlock+100, randomBytes(2, 64))
	if parGroupOf(blk) != parGroupOf(blk+parLanes) {
		t.Fatal("not one group")
	}
	db := reopen(t, dir, Options{HeaderCacheSize: -1, VerifyWholeLog: true, Logger: quiet()})
	if db.hl.cut.bytes == 0 || db.hl.end.Load() > blk*parBlock+100 {
		t.Fatalf("not cut at the damage: end %d, cut %+v", db.hl.end.Load(), db.hl.cut)
	}
	kept := 0
	for _, h := range hs {
		got, err := db.Header(h.Hash)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			t.Fatal(err)
		case !bytes.Equal(got.Bytes(), h.Bytes()):
			t.Fatal("a wrong header was served")
		default:
			kept++
		}
	}
	if kept == 0 || kept == len(hs) {
		t.Fatalf("%d of %d headers kept", kept, len(hs))
	}
	// The parity now matches the cut log, so later damage is repaired again.
	db.Close()
	if n := parityMismatches(t, dir); n != 0 {
		t.Fatalf("%d parity blocks differ from the cut log", n)
	}
}

// A damaged parity file is found by check and rebuilt by repair (VerifyWholeLog compares every
// group); a damaged parity header is rebuilt at any start. Either way it protects the log again.
func TestParityDamagedFileRebuilt(t *testing.T) {
	t.Run("body", func(t *testing.T) {
		dir, hs, heads, end := parityStore(t)
		g := parGroupOf(end / 2 / parBlock)
		writeFileAt(t, filepath.Join(dir, parFileName), parHeaderSize+g*parBlock+10, randomBytes(5, 64))
		f := finding(checkReport(t, dir), parFileName)
		if f == nil || f.Severity != NeedsRepair {
			t.Fatalf("check: %+v", f)
		}
		db := reopen(t, dir, Options{HeaderCacheSize: -1, Repair: true, Logger: quiet()})
		keptAll(t, db, hs, heads)
		db.Close()
		if f := finding(checkReport(t, dir), parFileName); f != nil {
			t.Fatalf("check after the repair: %+v", f)
		}
		rotLogAt(t, dir, end/2+5, randomBytes(6, 64)) // in the group that was damaged
		db = reopen(t, dir, Options{HeaderCacheSize: -1, VerifyWholeLog: true, Logger: quiet()})
		keptAll(t, db, hs, heads)
	})
	t.Run("header", func(t *testing.T) {
		dir, hs, heads, end := parityStore(t)
		writeFileAt(t, filepath.Join(dir, parFileName), 20, []byte{0xff, 0xee})
		if f := finding(checkReport(t, dir), parFileName); f == nil || f.Severity != RepairedAtStart {
			t.Fatalf("check: %+v", f)
		}
		lg := &recordingLogger{}
		db := reopen(t, dir, Options{HeaderCacheSize: -1, Logger: slog.New(lg)})
		if lg.count(slog.LevelWarn, "rebuilding headers.parity") != 1 {
			t.Fatal("no log line about the rebuild")
		}
		db.Close()
		rotLogAt(t, dir, end/2, randomBytes(7, 64))
		db = reopen(t, dir, Options{HeaderCacheSize: -1, VerifyWholeLog: true, Logger: quiet()})
		keptAll(t, db, hs, heads)
	})
	t.Run("missing", func(t *testing.T) { // a restored backup carries none
		dir, hs, heads, end := parityStore(t)
		dropParity(t, dir)
		if f := finding(checkReport(t, dir), parFileName); f != nil {
			t.Fatalf("check: %+v", f)
		}
		reopen(t, dir, Options{Logger: quiet()}).Close()
		rotLogAt(t, dir, end/2, randomBytes(8, 64))
		db := reopen(t, dir, Options{HeaderCacheSize: -1, VerifyWholeLog: true, Logger: quiet()})
		keptAll(t, db, hs, heads)
	})
}

// After an unclean stop the parity of the runs past the last sync's mark is recomputed from the
// log: here the log was written past the parity (its last runs lost), and the start makes them
// match again, so damage there is repaired afterwards.
func TestParityUncleanStopRecomputesTail(t *testing.T) {
	dir, hs, heads, _ := parityStore(t)
	db, err := Open(dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	more := synthHeaders(t, 600, 3, 99)
	for i := 0; i < len(more); i += 50 {
		if err := db.PutHeaders(more[i : i+50]...); err != nil {
			t.Fatal(err)
		}
	}
	end := db.hl.end.Load()
	crash(db)
	// The parity of the new records never reached the disk: zeros from the run holding the
	// last sync's mark on.
	pf, ph, _, problem := openParityFile(dir, os.O_RDONLY)
	if problem != "" {
		t.Fatal(problem)
	}
	pf.Close()
	if ph.flags&parFlagClean != 0 || ph.covered >= end {
		t.Fatalf("parity header after a crash: %+v", ph)
	}
	from := ph.covered / parRun * parLanes
	par := filepath.Join(dir, parFileName)
	st, err := os.Stat(par)
	if err != nil {
		t.Fatal(err)
	}
	writeFileAt(t, par, parHeaderSize+from*parBlock, make([]byte, uint64(st.Size())-parHeaderSize-from*parBlock))
	if parityMismatches(t, dir) == 0 {
		t.Fatal("the parity still matches")
	}
	if f := finding(checkReport(t, dir), parFileName); f == nil || f.Severity != RepairedAtStart {
		t.Fatalf("check: %+v", f)
	}
	db = reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	checkAll(t, db, append(slices.Clip(hs), more...))
	db.Close()
	if n := parityMismatches(t, dir); n != 0 {
		t.Fatalf("%d parity blocks still differ", n)
	}
	rotLogAt(t, dir, end-2000, randomBytes(9, 64))
	db = reopen(t, dir, Options{HeaderCacheSize: -1, VerifyWholeLog: true, Logger: quiet()})
	keptAll(t, db, append(slices.Clip(hs), more...), heads)
}

func writeFileAt(t *testing.T, path string, off uint64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, int64(off)); err != nil {
		t.Fatal(err)
	}
}
