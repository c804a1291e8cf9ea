package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
)

// Damage to a closed data directory, as a disk, a stray dd or an operator would do it: Open must
// repair it (cut the log at the first bad record, save the rest aside, make both indexes match)
// or refuse it, and Check must report it beforehand without changing a byte.

// damageStore writes the 360 chain-5 headers (with heads) and closes the store cleanly.
func damageStore(t *testing.T) (string, []*ledger.Header) {
	t.Helper()
	hs, _ := chain5Headers(t)
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(hs); i += 40 {
		if err := db.PutHeaders(hs[i:min(i+40, len(hs))]...); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[len(hs)-1].Hash}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, hs
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)) }

// recordingLogger keeps every record it is given.
type recordingLogger struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (l *recordingLogger) Enabled(context.Context, slog.Level) bool { return true }
func (l *recordingLogger) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r)
	return nil
}
func (l *recordingLogger) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *recordingLogger) WithGroup(string) slog.Handler      { return l }

func (l *recordingLogger) count(level slog.Level, substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.recs {
		if r.Level == level && strings.Contains(r.Message, substr) {
			n++
		}
	}
	return n
}

// offsets returns the log offset of every header's record, in log order.
func offsets(t *testing.T, dir string, hs []*ledger.Header) []uint64 {
	t.Helper()
	out := make([]uint64, len(hs))
	off := uint64(logHeaderSize)
	for i, h := range hs { // written in order, each once
		out[i] = off
		off += recHeaderSize + uint64(h.Size())
	}
	return out
}

// dirDigest hashes every file of dir (names, sizes and contents).
func dirDigest(t *testing.T, dir string) [32]byte {
	t.Helper()
	h := sha256.New()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(e.Name()))
		h.Write(b)
	}
	return [32]byte(h.Sum(nil))
}

// checkReport runs Check on dir, checks that it changed nothing, and returns the report.
func checkReport(t *testing.T, dir string) *CheckReport {
	t.Helper()
	before := dirDigest(t, dir)
	r, err := Check(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dirDigest(t, dir) != before {
		t.Fatal("Check changed the data directory")
	}
	return r
}

func finding(r *CheckReport, part string) *Finding {
	for i := range r.Findings {
		if r.Findings[i].Part == part && r.Findings[i].Severity != Fine {
			return &r.Findings[i]
		}
	}
	return nil
}

// afterCut checks a reopened store that must hold exactly hs[:kept] of the chain: those read
// back, the others are not found (not damaged), and the scan lists exactly the kept ones.
func afterCut(t *testing.T, db *DB, hs []*ledger.Header, kept int) {
	t.Helper()
	checkAll(t, db, hs[:kept])
	for _, h := range hs[kept:] {
		if _, err := db.Header(h.Hash); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a header past the cut: %v, want not found", err)
		}
	}
	got := scanAll(t, db, 5, Position{})
	if len(got) != kept {
		t.Fatalf("scan lists %d headers, want %d", len(got), kept)
	}
	if db.Damaged() {
		t.Fatal("a read met damage after the repair")
	}
}

func TestOpenCutsDamagedLog(t *testing.T) {
	const garbage = 4096
	for _, tc := range []struct {
		name  string
		index int // the header whose record the damage starts in
		at    uint64
	}{
		{"first record", 0, 3},
		{"middle", 150, 100},
		{"last record", 359, 40},
		{"record boundary", 200, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, hs := damageStore(t)
			offs := offsets(t, dir, hs)
			junk := make([]byte, garbage)
			r := rand.New(rand.NewPCG(uint64(tc.index), 9))
			for i := range junk {
				junk[i] = byte(r.Uint32() | 1) // never a zero length: the damage must be found as damage
			}
			dropParity(t, dir) // without it the log is cut (parity_test.go: with it, it is repaired)
			writeLogAt(t, dir, offs[tc.index]+tc.at, junk)
			logEnd := offs[len(offs)-1] + recHeaderSize + uint64(hs[len(hs)-1].Size())
			damageEnd := max(logEnd, offs[tc.index]+tc.at+garbage)

			rep := checkReport(t, dir)
			f := finding(rep, logFileName)
			if f == nil || f.Severity != RepairedAtStart || !strings.Contains(f.Text, "offset "+strconv.FormatUint(offs[tc.index], 10)) {
				t.Fatalf("check: %+v", rep.Findings)
			}
			if finding(rep, "heads") == nil {
				t.Fatalf("check does not report the lost head: %+v", rep.Findings)
			}

			lg := &recordingLogger{}
			db := reopen(t, dir, Options{HeaderCacheSize: -1, Logger: slog.New(lg)})
			afterCut(t, db, hs, tc.index)
			if n := lg.count(slog.LevelError, "headers.log is damaged"); n != 1 && tc.index < 359 {
				t.Errorf("%d error lines about the cut, want 1", n)
			}
			if len(db.Recovered()) == 0 || !strings.Contains(db.Recovered()[0], "cut at offset") {
				t.Errorf("Recovered: %q", db.Recovered())
			}
			// The cut-off bytes are kept, verbatim.
			saved, _ := filepath.Glob(filepath.Join(dir, logFileName+".damaged-*"))
			if len(saved) != 1 {
				t.Fatalf("saved tails: %v", saved)
			}
			b, _ := os.ReadFile(saved[0])
			if uint64(len(b)) != damageEnd-offs[tc.index] || !bytes.Equal(b[tc.at:tc.at+garbage], junk) {
				t.Fatalf("saved tail: %d bytes, want %d from the damaged record on", len(b), damageEnd-offs[tc.index])
			}
			// The store goes on: the lost headers can be stored again, and it closes healthy.
			if err := db.PutHeaders(hs[tc.index:]...); err != nil {
				t.Fatal(err)
			}
			checkAll(t, db, hs)
			db.Close()
			if rep := checkReport(t, dir); rep.Damaged() {
				t.Fatalf("after the repair and a clean close: %+v", rep.Findings)
			}
		})
	}
}

func TestOpenTruncatedLog(t *testing.T) {
	dir, hs := damageStore(t)
	offs := offsets(t, dir, hs)
	// Mid-record, as a copy cut short would leave it.
	if err := os.Truncate(filepath.Join(dir, logFileName), int64(offs[100]+50)); err != nil {
		t.Fatal(err)
	}
	rep := checkReport(t, dir)
	for _, part := range []string{logFileName, idxFileName, "height index", "heads"} {
		if finding(rep, part) == nil {
			t.Errorf("check does not report %s: %+v", part, rep.Findings)
		}
	}
	if rep.Worst() != RepairedAtStart {
		t.Errorf("worst finding %v, want repaired at start", rep.Worst())
	}
	db := reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	afterCut(t, db, hs, 100)
	db.Close()
	if rep := checkReport(t, dir); finding(rep, "heads") == nil || finding(rep, logFileName) != nil {
		// The store cannot choose new heads (the node does, from the blocks that remain).
		t.Fatalf("after reopening: %+v", rep.Findings)
	}
}

func TestOpenEmptiedIndex(t *testing.T) {
	dir, hs := damageStore(t)
	if err := os.Truncate(filepath.Join(dir, idxFileName), 0); err != nil {
		t.Fatal(err)
	}
	rep := checkReport(t, dir)
	if f := finding(rep, idxFileName); f == nil || f.Severity != RepairedAtStart {
		t.Fatalf("check: %+v", rep.Findings)
	}
	db := reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	afterCut(t, db, hs, len(hs))
	db.Close()
	if rep := checkReport(t, dir); rep.Damaged() {
		t.Fatalf("after reopening: %+v", rep.Findings)
	}
}

// A clean index whose slot area was damaged (here: a slot zeroed, so one header cannot be
// found, and the entry count disagrees) is rebuilt at Open.
func TestOpenRebuildsIndexWithWrongSlotCount(t *testing.T) {
	dir, hs := damageStore(t)
	b, err := os.ReadFile(filepath.Join(dir, idxFileName))
	if err != nil {
		t.Fatal(err)
	}
	w := words(b[idxHeaderSize:])
	for i := 0; i+1 < len(w); i += 2 {
		if w[i] != 0 {
			w[i], w[i+1] = 0, 0
			break
		}
	}
	if err := os.WriteFile(filepath.Join(dir, idxFileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := checkReport(t, dir); finding(rep, idxFileName) == nil {
		t.Fatalf("check: %+v", rep.Findings)
	}
	db := reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	afterCut(t, db, hs, len(hs))
}

// A read that meets damage while the store is open logs it once, marks the store, and the next
// Open rebuilds both indexes.
func TestReadDamageMarksRepair(t *testing.T) {
	dir, hs := damageStore(t)
	lg := &recordingLogger{}
	db, err := Open(dir, Options{HeaderCacheSize: -1, Logger: slog.New(lg)})
	if err != nil {
		t.Fatal(err)
	}
	// A slot now names an offset inside a record (through the writer's mapping), as a damaged
	// index page would.
	i := slotOf(t, db.hl.view.Load(), hs[10].Hash)
	ws := words(db.hl.idxMap[idxHeaderSize:])
	ws[2*i+1] += 7
	for range 3 {
		if _, err := db.Header(hs[10].Hash); !errors.Is(err, kv.ErrCorrupt) {
			t.Fatalf("read of the damaged slot: %v", err)
		}
	}
	if !db.Damaged() || lg.count(slog.LevelError, "damaged data") != 1 {
		t.Fatalf("damaged %v, %d error lines (want one)", db.Damaged(), lg.count(slog.LevelError, "damaged data"))
	}
	db.Close()
	if f := finding(checkReport(t, dir), "repair mark"); f == nil {
		t.Fatal("check does not report the repair mark")
	}
	db = reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	afterCut(t, db, hs, len(hs))
	if strings.Join(db.Recovered(), "\n") == "" {
		t.Fatal("Open says it repaired nothing")
	}
	db.Close()
	if rep := checkReport(t, dir); rep.Damaged() {
		t.Fatalf("after the repair: %+v", rep.Findings)
	}
}

func TestCheckRefusesWhileOpen(t *testing.T) {
	db, dir := openTest(t, Options{Logger: quiet()})
	if _, err := Check(dir, nil); !errors.Is(err, ErrLocked) {
		t.Fatalf("check of an open store: %v, want ErrLocked", err)
	}
	db.Close()
	if _, err := Check(t.TempDir(), nil); !errors.Is(err, ErrNotAStore) {
		t.Fatalf("check of an empty directory: %v, want ErrNotAStore", err)
	}
}

// goleveldb's own files: what Open does with each kind of damage, and what Check says.
func TestGoleveldbDamage(t *testing.T) {
	journal := func(dir string) string {
		m, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9][0-9][0-9][0-9][0-9].log"))
		if len(m) != 1 {
			t.Fatalf("journals: %v", m)
		}
		return m[0]
	}
	t.Run("truncated journal", func(t *testing.T) {
		dir, hs := damageStore(t)
		j := journal(dir)
		st, _ := os.Stat(j)
		if err := os.Truncate(j, st.Size()*2/3); err != nil {
			t.Fatal(err)
		}
		rep := checkReport(t, dir)
		if f := finding(rep, "goleveldb journal "+filepath.Base(j)); f == nil || f.Severity != RepairedAtStart {
			t.Fatalf("check: %+v", rep.Findings)
		}
		// goleveldb drops the torn tail; the height index lost with it is rebuilt from the log.
		db := reopen(t, dir, Options{HeaderCacheSize: -1, Logger: quiet()})
		afterCut(t, db, hs, len(hs))
	})
	t.Run("emptied manifest", func(t *testing.T) {
		dir, hs := damageStore(t)
		m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
		if err := os.Truncate(m[0], 0); err != nil {
			t.Fatal(err)
		}
		rep := checkReport(t, dir)
		if f := finding(rep, "goleveldb"); f == nil || f.Severity != NeedsRepair || !strings.Contains(f.Text, "MANIFEST") {
			t.Fatalf("check: %+v", rep.Findings)
		}
		_, err := Open(dir, Options{Logger: quiet()})
		if !errors.Is(err, kv.ErrCorrupt) || !strings.Contains(err.Error(), filepath.Base(m[0])) {
			t.Fatalf("open: %v, want kv.ErrCorrupt naming the file", err)
		}
		if _, err := RecoverLevelDB(dir); err != nil {
			t.Fatal(err)
		}
		db := reopen(t, dir, Options{HeaderCacheSize: -1, Repair: true, Logger: quiet()})
		afterCut(t, db, hs, len(hs))
		db.Close()
		if rep := checkReport(t, dir); rep.Damaged() {
			t.Fatalf("after the repair: %+v", rep.Findings)
		}
	})
}

// A goleveldb table that fails its checksum: reads of it fail as damage (and mark the store),
// Check names the table, the next Open refuses naming it, and a repair (RecoverLevelDB, then
// the indexes rebuilt from the log) brings every header back.
func TestGoleveldbDamagedTable(t *testing.T) {
	hs, _ := chain5Headers(t)
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	if err := db.Compact(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tables, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if len(tables) == 0 {
		t.Fatal("no table after compaction")
	}
	for _, tb := range tables {
		st, _ := os.Stat(tb)
		f, err := os.OpenFile(tb, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteAt(bytes.Repeat([]byte{0xa5}, 64), st.Size()/3)
		f.Close()
	}
	rep := checkReport(t, dir)
	if f := finding(rep, "goleveldb"); f == nil || f.Severity != NeedsRepair || !strings.Contains(f.Text, ".ldb") {
		t.Fatalf("check: %+v", rep.Findings)
	}
	// Depending on the block the damage hits, Open refuses at once, or a read meets it, marks
	// the store, and the next Open refuses; either way as damage.
	if db, err = Open(dir, Options{HeaderCacheSize: -1, Logger: quiet()}); err == nil {
		err = db.ScanChain(5, Position{}, func(*ledger.Header) bool { return true })
		if !errors.Is(err, kv.ErrCorrupt) || !db.Damaged() {
			t.Fatalf("scan over a damaged table: %v (marked %v)", err, db.Damaged())
		}
		db.Close()
		_, err = Open(dir, Options{Logger: quiet()})
	}
	if !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("open of a store with a damaged table: %v, want kv.ErrCorrupt", err)
	}
	t.Logf("refused: %v", err)

	if _, err := RecoverLevelDB(dir); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, dir, Options{HeaderCacheSize: -1, Repair: true, Logger: quiet()})
	afterCut(t, db, hs, len(hs))
	t.Logf("recovered: %q", db.Recovered())
}

// FuzzDamagedLog: any bytes written anywhere into a closed store's header log end in an Open
// that repairs (every read then succeeds or says not found) or refuses; never a panic, and never
// a read that meets damage after a successful Open.
func FuzzDamagedLog(f *testing.F) {
	f.Add(uint32(40), []byte{0xff})
	f.Add(uint32(1000), []byte{0, 0, 0, 0, 0, 0})
	f.Add(uint32(5), []byte("not a header log"))
	f.Add(uint32(50_000), bytes.Repeat([]byte{0x5a}, 700))
	f.Add(uint32(116_000), []byte{1, 2, 3})
	f.Add(uint32(1<<20), []byte{7})
	hs, _ := chain5Headers(f)
	hs = hs[:60]
	tmpl := f.TempDir()
	db, err := Open(tmpl, Options{Logger: quiet(), logCap: 64 << 10, indexSlots: 256}) // small files: fast copies

	if err != nil {
		f.Fatal(err)
	}
	if err := db.PutHeaders(hs...); err != nil {
		f.Fatal(err)
	}
	db.Close()
	files := map[string][]byte{}
	ents, _ := os.ReadDir(tmpl)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(tmpl, e.Name()))
		files[e.Name()] = b
	}
	f.Fuzz(func(t *testing.T, at uint32, junk []byte) {
		if len(junk) > 64<<10 || at > 2<<20 {
			return
		}
		dir := t.TempDir()
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		writeLogAt(t, dir, uint64(at), junk)
		if _, err := Check(dir, nil); err != nil {
			t.Fatalf("check: %v", err)
		}
		db, err := Open(dir, Options{HeaderCacheSize: -1, Logger: quiet()})
		if err != nil {
			if at >= logHeaderSize {
				t.Fatalf("damage to the records refused instead of repaired: %v", err)
			}
			// A damaged log header is refused at start; a repair rewrites it.
			if db, err = Open(dir, Options{HeaderCacheSize: -1, Repair: true, Logger: quiet()}); err != nil {
				t.Fatalf("repair: %v", err)
			}
		}
		defer db.Close()
		n := 0
		for _, h := range hs {
			if _, err := db.Header(h.Hash); err == nil {
				n++
			} else if !errors.Is(err, ErrNotFound) {
				t.Fatalf("read after Open: %v", err)
			}
		}
		if got := len(scanAll(t, db, 5, Position{})); got != n {
			t.Fatalf("scan lists %d headers, %d read by hash", got, n)
		}
		if db.Damaged() {
			t.Fatal("a read met damage after Open")
		}
	})
}

// lastNonZero finds the last non-zero byte whether it lies in a data extent after a hole, at a
// 64 KiB chunk boundary, or nowhere past from.
func TestLastNonZero(t *testing.T) {
	const size = 1 << 20
	for _, pos := range []int64{-1, 0, 4095, 4096, 65535, 65536, 300_000, size - 1} {
		f, err := os.Create(filepath.Join(t.TempDir(), "f"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		want := uint64(10)
		if pos >= 0 {
			if _, err := f.WriteAt([]byte{7}, pos); err != nil {
				t.Fatal(err)
			}
			want = max(want, uint64(pos)+1)
		}
		m, err := mapFile(f, size, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := lastNonZero(f, m, 10); got != want {
			t.Errorf("non-zero byte at %d: got %d, want %d", pos, got, want)
		}
		syscall.Munmap(m)
		f.Close()
	}
}

// Check verifies completeness, not only consistency (issue 32): a node's directory whose
// blocks up to the heads lack payloads is reported as lost data, naming the chain, how many
// and the heights, and never as healthy.
func TestCheckFindsLostPayloads(t *testing.T) {
	db, dir := openTest(t, Options{Logger: quiet()})
	var hs []*ledger.Header
	var parent ledger.Hash
	for i := range 10 {
		p := randomPayload(64)
		if err := db.PutPayload(p); err != nil {
			t.Fatal(err)
		}
		h := &ledger.Header{ChainID: 3, Height: uint64(i), Parent: parent, PayloadHash: p.PayloadHash, Hash: ledger.Hash{byte(i + 1), 3}}
		hs, parent = append(hs, h), h.Hash
	}
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{3: hs[9].Hash}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rep := checkReport(t, dir)
	if rep.Damaged() || !slices.ContainsFunc(rep.Findings, func(f Finding) bool {
		return f.Part == "payloads" && strings.Contains(f.Text, "every one of the 10 blocks")
	}) {
		t.Fatalf("complete directory: %+v", rep.Findings)
	}

	db = reopen(t, dir, Options{Logger: quiet()})
	for _, i := range []int{4, 6} { // rows gone, as with a deleted table
		k := hashKey(tagPayload, hs[i].PayloadHash)
		if err := db.ldb.Delete(k[:], nil); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	rep = checkReport(t, dir)
	f := finding(rep, "payloads")
	if f == nil || f.Severity != Lost || !strings.Contains(f.Text, "2 of the 10 blocks") ||
		!strings.Contains(f.Text, "chain 3: 2 between heights 4 and 6") || rep.Worst() != Lost || !rep.Damaged() {
		t.Fatalf("two payloads gone: %+v", rep.Findings)
	}
}

// When goleveldb loses writes the header log kept (a truncated journal: the newer heads, the
// height entries and logend of the newest headers), Open indexes the headers again and says,
// at WARN, how many blocks left the cut (issue 32: it logged one INFO line, and 87 blocks left
// the cut silently).
func TestOpenWarnsOfBlocksBeyondHeads(t *testing.T) {
	db, dir := openTest(t, Options{Logger: quiet()})
	var hs []*ledger.Header
	var parent ledger.Hash
	for i := range 10 {
		h := &ledger.Header{ChainID: 3, Height: uint64(i), Parent: parent, Hash: ledger.Hash{byte(i + 1), 3}}
		hs, parent = append(hs, h), h.Hash
	}
	if err := db.PutHeaders(hs[:6]...); err != nil {
		t.Fatal(err)
	}
	end := db.hl.end.Load()
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{3: hs[5].Hash}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutHeaders(hs[6:]...); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{3: hs[9].Hash}); err != nil {
		t.Fatal(err)
	}
	// What a journal cut after the first SetHeads loses: the later heights, logend and heads.
	for _, h := range hs[6:] {
		k := heightKey(h.ChainID, h.Height, h.Hash)
		if err := db.ldb.Delete(k[:], nil); err != nil {
			t.Fatal(err)
		}
	}
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], end)
	if err := db.ldb.Put(logEndKey, v[:], nil); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{3: hs[5].Hash}); err != nil {
		t.Fatal(err)
	}
	crash(db)

	var logs bytes.Buffer
	db = reopen(t, dir, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer db.Close()
	out := logs.String()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "left the cut") ||
		!strings.Contains(out, "blocksLeftCut=4") || !strings.Contains(out, "chains=[3]") {
		t.Fatalf("Open logged:\n%s", out)
	}
	checkAll(t, db, hs) // the headers themselves are kept
}

// A damaged table that holds several versions of a row (the heads, rewritten with every block,
// and flushed from the journal as they were) is rebuilt from its readable rows. goleveldb's own
// RecoverFile orders such rows with the user comparer and fails ("keys are not in increasing
// order"), which left `repair` unable to run at all.
func TestSalvageTableWithManyVersions(t *testing.T) {
	hs, _ := chain5Headers(t)
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if err := db.PutHeaders(h); err != nil {
			t.Fatal(err)
		}
		if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: h.Hash}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	// The reopen flushes the journal, every version of the heads with it, into a table.
	reopen(t, dir, Options{Logger: quiet()}).Close()
	tables, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if len(tables) != 1 {
		t.Fatalf("tables: %v", tables)
	}
	st, _ := os.Stat(tables[0])
	f, err := os.OpenFile(tables[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(bytes.Repeat([]byte{0x5a}, 64), st.Size()/2)
	f.Close()

	notes, err := RecoverLevelDB(dir)
	if err != nil {
		t.Fatalf("recover: %v (notes %q)", err, notes)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "damaged blocks; rebuilt from its") {
		t.Fatalf("notes: %q", notes)
	}
	if aside, _ := filepath.Glob(tables[0] + ".damaged-*"); len(aside) != 1 {
		t.Fatalf("the damaged table was not kept: %v", aside)
	}
	db = reopen(t, dir, Options{Repair: true, Logger: quiet()})
	db.Close()
	if rep := checkReport(t, dir); rep.Damaged() {
		t.Fatalf("check after the salvage: %+v", rep.Findings)
	}
	// A second recovery finds nothing left to salvage.
	if notes, err := RecoverLevelDB(dir); err != nil || len(notes) != 0 {
		t.Fatalf("second recovery: %q %v", notes, err)
	}
}

// goleveldb emptied under a header log (a deleted table): no network record and no heads while
// the log holds headers. Check reports it lost, and CheckVersion refuses rather than stamp the
// network again over a directory whose payloads and Pact states are gone.
func TestLostRowsRefused(t *testing.T) {
	hs, _ := chain5Headers(t)
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CheckVersion("development"); err != nil {
		t.Fatal(err)
	}
	if err := db.PutHeaders(hs[:20]...); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[19].Hash}); err != nil {
		t.Fatal(err)
	}
	for _, k := range [][]byte{metaKey(metaNetwork), metaKey(metaHeads)} {
		if err := db.ldb.Delete(k, withSync); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	rep := checkReport(t, dir)
	if f := finding(rep, "goleveldb"); f == nil || f.Severity != Lost || rep.Worst() != Lost {
		t.Fatalf("check: %+v", rep.Findings)
	}
	db = reopen(t, dir, Options{Logger: quiet()})
	defer db.Close()
	if err := db.CheckVersion("development"); !errors.Is(err, ErrDataLost) {
		t.Fatalf("CheckVersion: %v, want ErrDataLost", err)
	}
	if name, _ := db.Network(); name != "" {
		t.Fatalf("the network was stamped again: %q", name)
	}
	// A lost mark, as repair leaves one, is read back.
	if err := db.MarkLost("payloads: 3 missing"); err != nil {
		t.Fatal(err)
	}
	if what, ok, err := db.LostMark(); err != nil || !ok || what != "payloads: 3 missing" {
		t.Fatalf("LostMark: %q %v %v", what, ok, err)
	}
}
