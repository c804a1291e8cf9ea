package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
)

// tiny starts the header index at 2 slots and the log at one page, so that a few hundred headers
// grow both many times.
var tiny = Options{indexSlots: 2, logCap: pageSize}

func tinyWith(cache int) Options { o := tiny; o.HeaderCacheSize = cache; return o }

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// synthHeaders makes n distinct headers on chain c from real ones: random hashes, heights from
// 0. The store takes h.Hash as given, so these stand in for real blocks.
func synthHeaders(t testing.TB, n int, c ledger.ChainID, seed uint64) []*ledger.Header {
	hs, _ := chain5Headers(t)
	r := rand.New(rand.NewPCG(seed, uint64(c)))
	out := make([]*ledger.Header, n)
	for i := range out {
		h := hs[i%len(hs)].Clone()
		h.ChainID = c
		h.Height = uint64(i)
		for j := 0; j < len(h.Hash); j += 8 {
			binary.LittleEndian.PutUint64(h.Hash[j:], r.Uint64())
		}
		out[i] = h
	}
	return out
}

// checkAll reads every header of hs by hash, binary and existence, and expects the exact bytes.
func checkAll(t *testing.T, db *DB, hs []*ledger.Header) {
	t.Helper()
	for i, h := range hs {
		want := h.Bytes()
		got, err := db.Header(h.Hash)
		if err != nil {
			t.Fatalf("header %d (%s): %v", i, h.Hash, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("header %d: read back differs", i)
		}
		bin, err := db.HeaderBinary(nil, h.Hash)
		if err != nil || !bytes.Equal(bin, want) {
			t.Fatalf("header binary %d: %v", i, err)
		}
		if ok, err := db.HasHeader(h.Hash); !ok || err != nil {
			t.Fatalf("has header %d: %v %v", i, ok, err)
		}
	}
}

// checkAbsent expects none of hs to be stored.
func checkAbsent(t *testing.T, db *DB, hs []*ledger.Header) {
	t.Helper()
	for i, h := range hs {
		if _, err := db.Header(h.Hash); !errors.Is(err, ErrNotFound) {
			t.Fatalf("header %d: got %v, want ErrNotFound", i, err)
		}
		if ok, err := db.HasHeader(h.Hash); ok || err != nil {
			t.Fatalf("has header %d: %v %v", i, ok, err)
		}
	}
}

// slots is the current index size.
func slots(db *DB) uint64 { return db.hl.view.Load().mask + 1 }

// recordOffset is where header h's record starts in the log.
func recordOffset(t *testing.T, db *DB, h ledger.Hash) uint64 {
	t.Helper()
	p, _, off, err := db.hl.locate(db.hl.view.Load(), &h, nil)
	if err != nil || p == nil {
		t.Fatalf("locate %s: %v", h, err)
	}
	return off
}

// slotOf is the index of the slot naming header h.
func slotOf(t *testing.T, v *logView, h ledger.Hash) uint64 {
	t.Helper()
	key := slotKey(&h)
	for i := key & v.mask; v.slots[2*i] != 0; i = (i + 1) & v.mask {
		if v.slots[2*i] == key {
			if p, _, ok := recordAt(v.log, v.slots[2*i+1]); ok && hashOf(p) == h {
				return i
			}
		}
	}
	t.Fatalf("no slot for %s", h)
	return 0
}

// writeLogAt overwrites bytes of headers.log, as disk damage would (the mapping sees it at once).
func writeLogAt(t *testing.T, dir string, off uint64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, logFileName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, int64(off)); err != nil {
		t.Fatal(err)
	}
}

// crash abandons db as kill -9 would: nothing is synced or checkpointed and the index is left
// marked unclean. goleveldb is closed (its writes are already in its journal), so that the
// directory can be opened again in this process.
func crash(db *DB) {
	hl := db.hl
	hl.mu.Lock()
	hl.view.Store(nil)
	hl.log.Close()
	hl.idx.Close()
	hl.mu.Unlock()
	db.ldb.Close()
}

func reopen(t *testing.T, dir string, opts Options) *DB {
	t.Helper()
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// The 360 real headers, put in small batches into an index that starts at 2 slots.
func TestHeaderLogChain5Growth(t *testing.T) {
	hs, raws := chain5Headers(t)
	db, dir := openTest(t, tinyWith(-1))
	for i := 0; i < len(hs); i += 7 {
		if err := db.PutHeaders(hs[i:min(i+7, len(hs))]...); err != nil {
			t.Fatal(err)
		}
		checkAll(t, db, hs[:min(i+7, len(hs))]) // after every growth, everything before it too
	}
	if n := slots(db); n != 1024 { // 360 entries at load <= 0.5
		t.Fatalf("index has %d slots, want 1024", n)
	}
	for i, h := range hs {
		bin, _ := db.HeaderBinary(nil, h.Hash)
		if !bytes.Equal(bin, raws[i]) {
			t.Fatalf("header %d: not the vector's bytes", i)
		}
	}
	db.Close()
	db = reopen(t, dir, tinyWith(-1))
	checkAll(t, db, hs)
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("scan after reopen: %d headers", n)
	}
}

// Thousands of headers on several chains, batches of every size, through ~13 index growths and
// ~12 log growths; then a clean reopen and a reopen that rebuilds the index.
func TestHeaderLogSyntheticGrowth(t *testing.T) {
	var all []*ledger.Header
	for c := range ledger.ChainID(4) {
		all = append(all, synthHeaders(t, 2500, c, 1)...)
	}
	rand.New(rand.NewPCG(3, 3)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	db, dir := openTest(t, tinyWith(64))
	r := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < len(all); {
		n := 1 + r.IntN(300)
		if err := db.PutHeaders(all[i:min(i+n, len(all))]...); err != nil {
			t.Fatal(err)
		}
		i += n
	}
	checkAll(t, db, all)
	if n := slots(db); n != 1<<15 {
		t.Fatalf("index has %d slots, want %d", n, 1<<15)
	}
	for c := range ledger.ChainID(4) {
		got := scanAll(t, db, c, Position{})
		if len(got) != 2500 || got[0].Height != 0 || got[2499].Height != 2499 {
			t.Fatalf("chain %d: scan returned %d headers", c, len(got))
		}
	}
	db.Close()
	db = reopen(t, dir, Options{HeaderCacheSize: -1})
	checkAll(t, db, all)
	db.Close()
	if err := os.Remove(filepath.Join(dir, idxFileName)); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, dir, Options{HeaderCacheSize: -1, indexSlots: 2})
	checkAll(t, db, all)
}

// collidingHeaders makes headers whose hashes all share one 8-byte prefix.
func collidingHeaders(t *testing.T, prefix uint64, n int) []*ledger.Header {
	hs, _ := chain5Headers(t)
	out := make([]*ledger.Header, n)
	for i := range out {
		h := hs[i].Clone()
		binary.LittleEndian.PutUint64(h.Hash[:8], prefix)
		for j := 8; j < 32; j++ {
			h.Hash[j] = byte(i*7 + j)
		}
		h.Height = uint64(1000 + i)
		out[i] = h
	}
	return out
}

// Hashes sharing their first 8 bytes share a slot key: every one must still be found, each with
// its own bytes, and an unstored hash with the same prefix must not be.
func TestHeaderLogPrefixCollisions(t *testing.T) {
	var hs []*ledger.Header
	hs = append(hs, collidingHeaders(t, 0x1122334455667788, 20)...)
	zero := collidingHeaders(t, 0, 5) // key 0 is mapped to 1 ...
	one := collidingHeaders(t, 1, 5)  // ... so these share it too
	for i := range one {
		one[i].Hash[31] ^= 0xff
	}
	hs = append(hs, zero...)
	hs = append(hs, one...)
	hs = append(hs, synthHeaders(t, 200, 5, 9)...)
	rand.New(rand.NewPCG(5, 5)).Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })

	db, dir := openTest(t, tinyWith(-1))
	for i := 0; i < len(hs); i += 3 {
		if err := db.PutHeaders(hs[i:min(i+3, len(hs))]...); err != nil {
			t.Fatal(err)
		}
	}
	stranger := collidingHeaders(t, 0x1122334455667788, 21)[20]
	stranger0 := collidingHeaders(t, 0, 6)[5]
	check := func(db *DB) {
		t.Helper()
		checkAll(t, db, hs)
		checkAbsent(t, db, []*ledger.Header{stranger, stranger0})
	}
	check(db)
	// Re-putting colliding headers stores nothing new.
	end := db.hl.end.Load()
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	if db.hl.end.Load() != end {
		t.Fatal("re-put headers were appended again")
	}
	db.Close()
	os.Remove(filepath.Join(dir, idxFileName))
	check(reopen(t, dir, tinyWith(-1))) // the rebuild path handles collisions too
}

// Writers on several goroutines add headers through many growths of both files while readers
// look up headers whose PutHeaders has returned: each must be found, with its bytes, every time.
// Run with -race.
func TestHeaderLogConcurrentGrowth(t *testing.T) {
	const writers, perWriter, readers = 4, 2000, 4
	db, _ := openTest(t, tinyWith(-1))
	hs := make([][]*ledger.Header, writers)
	raws := make([][][]byte, writers)
	for w := range hs {
		hs[w] = synthHeaders(t, perWriter, ledger.ChainID(w), 11)
		for _, h := range hs[w] {
			raws[w] = append(raws[w], h.Bytes())
		}
	}
	var done [writers]atomic.Int64 // headers of each writer whose PutHeaders returned
	var wg, rg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for i := 0; i < perWriter; {
				n := min(1+r.IntN(25), perWriter-i)
				if err := db.PutHeaders(hs[w][i : i+n]...); err != nil {
					t.Error(err)
					return
				}
				i += n
				done[w].Store(int64(i))
			}
		}()
	}
	var lookups atomic.Int64
	for g := range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 3))
			buf := make([]byte, 0, ledger.HeaderSize)
			for {
				select {
				case <-stop:
					return
				default:
				}
				w := r.IntN(writers)
				n := done[w].Load()
				if n == 0 {
					continue
				}
				i := r.Int64N(n)
				h := hs[w][i]
				var err error
				switch g % 3 {
				case 0:
					var b []byte
					if b, err = db.HeaderBinary(buf[:0], h.Hash); err == nil && !bytes.Equal(b, raws[w][i]) {
						err = errors.New("HeaderBinary returned other bytes")
					}
				case 1:
					var x *ledger.Header
					if x, err = db.Header(h.Hash); err == nil && x.Hash != h.Hash {
						err = errors.New("Header returned another header")
					}
				case 2:
					var ok bool
					if ok, err = db.HasHeader(h.Hash); err == nil && !ok {
						err = errors.New("HasHeader: not stored")
					}
				}
				if err != nil {
					t.Errorf("writer %d header %d of %d stored: %v", w, i, n, err)
					return
				}
				lookups.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	if lookups.Load() == 0 {
		t.Fatal("readers never ran")
	}
	for w := range writers {
		checkAll(t, db, hs[w])
		if n := len(scanAll(t, db, ledger.ChainID(w), Position{})); n != perWriter {
			t.Fatalf("chain %d: scan returned %d headers", w, n)
		}
	}
	if len(db.hl.maps) < 20 {
		t.Fatalf("only %d mappings: the test did not grow the files much", len(db.hl.maps))
	}
}

// The log cut in the middle of a record (disk damage, a lost tail): the store opens with every
// record before the cut, the height index drops the rest, and writing resumes cleanly.
func TestRecoverTruncatedLog(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, tinyWith(-1))
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	cut := recordOffset(t, db, hs[200].Hash)
	db.Close()
	if err := os.Truncate(filepath.Join(dir, logFileName), int64(cut+150)); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, dir, tinyWith(-1))
	checkAll(t, db, hs[:200])
	checkAbsent(t, db, hs[200:])
	got := scanAll(t, db, 5, Position{}) // no kv.ErrCorrupt: the lost headers' entries are gone
	if len(got) != 200 {
		t.Fatalf("scan returned %d headers, want 200", len(got))
	}
	if db.hl.end.Load() != cut {
		t.Fatalf("log end %d, want the cut record's start %d", db.hl.end.Load(), cut)
	}
	if err := db.PutHeaders(hs[200:]...); err != nil {
		t.Fatal(err)
	}
	checkAll(t, db, hs)
	db.Close()
	db = reopen(t, dir, Options{})
	checkAll(t, db, hs)
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("scan returned %d headers", n)
	}
}

// A record half written at the end (a crash inside the append): discarded, and the file past it
// zeroed, so the next append and the next scan start clean.
func TestRecoverTornTail(t *testing.T) {
	hs, _ := chain5Headers(t)
	for name, torn := range map[string]func(rec []byte) []byte{
		"header only":      func(rec []byte) []byte { return rec[:recHeaderSize] },
		"half the bytes":   func(rec []byte) []byte { return rec[:len(rec)/2] },
		"bad checksum":     func(rec []byte) []byte { r := slices.Clone(rec); r[50] ^= 1; return r },
		"two length bytes": func(rec []byte) []byte { return rec[:2] },
	} {
		t.Run(name, func(t *testing.T) {
			db, dir := openTest(t, tiny)
			if err := db.PutHeaders(hs[:100]...); err != nil {
				t.Fatal(err)
			}
			end := db.hl.end.Load()
			crash(db)
			writeLogAt(t, dir, end, torn(appendRecord(nil, hs[100])))
			db = reopen(t, dir, tiny)
			checkAll(t, db, hs[:100])
			checkAbsent(t, db, hs[100:101])
			if db.hl.end.Load() != end {
				t.Fatalf("log end %d, want %d", db.hl.end.Load(), end)
			}
			if err := db.PutHeaders(hs[150:160]...); err != nil {
				t.Fatal(err)
			}
			db.Close()
			db = reopen(t, dir, tiny)
			checkAll(t, db, append(slices.Clone(hs[:100]), hs[150:160]...))
		})
	}
}

// Without the index file, Open rebuilds it from the log.
func TestRecoverMissingIndex(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, tiny)
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Remove(filepath.Join(dir, idxFileName)); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, dir, Options{HeaderCacheSize: -1})
	checkAll(t, db, hs)
	if _, err := os.Stat(filepath.Join(dir, idxFileName)); err != nil {
		t.Fatalf("index not rewritten: %v", err)
	}
}

// An index file that fails any check is rebuilt from the log; one that claims more log than
// exists too. Open never fails over the index.
func TestRecoverBadIndex(t *testing.T) {
	hs, _ := chain5Headers(t)
	// resum makes a damaged header consistent again: a header that lies, not one that is torn.
	resum := func(b []byte) []byte {
		binary.LittleEndian.PutUint32(b[48:], crc32.Checksum(b[:48], castagnoli))
		return b
	}
	put64 := func(at int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[at:], v); return resum(b) }
	}
	cases := map[string]func([]byte) []byte{
		"bad magic":        func(b []byte) []byte { b[0] = 'X'; return b },
		"bad checksum":     func(b []byte) []byte { b[20] ^= 1; return b },
		"garbage header":   func(b []byte) []byte { copy(b, bytes.Repeat([]byte{0xa5}, 64)); return b },
		"empty file":       func(b []byte) []byte { return nil },
		"truncated":        func(b []byte) []byte { return b[:len(b)-16] },
		"slot count":       put64(16, 1<<20),
		"not a power of 2": put64(16, 3),
		"too many entries": put64(24, 1<<40),
		"covers past log":  put64(32, 1<<40),
		"covers header":    put64(32, 8),
		"another log":      put64(40, 12345),
		"newer version":    func(b []byte) []byte { b[8] = 9; return resum(b) },
		// Unclean (flag cleared) with its slots gone: the count of durable slots disagrees
		// with the header's, so the log decides.
		"zeroed slots": func(b []byte) []byte {
			clear(b[idxHeaderSize:])
			b[12] = 0
			return resum(b)
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			db, dir := openTest(t, tiny)
			if err := db.PutHeaders(hs[:300]...); err != nil {
				t.Fatal(err)
			}
			db.Close()
			path := filepath.Join(dir, idxFileName)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			db = reopen(t, dir, Options{HeaderCacheSize: -1})
			checkAll(t, db, hs[:300])
			if err := db.PutHeaders(hs[300:]...); err != nil {
				t.Fatal(err)
			}
			db.Close()
			checkAll(t, reopen(t, dir, Options{HeaderCacheSize: -1}), hs)
		})
	}
}

// Records appended to the log behind the index's back (a crash after the append, before the
// index or goleveldb saw them) are indexed by hash and by height at the next Open.
func TestRecoverUnindexedRecords(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, tiny)
	if err := db.PutHeaders(hs[:100]...); err != nil {
		t.Fatal(err)
	}
	end := db.hl.end.Load()
	db.Close() // clean: the index covers exactly the log
	var recs []byte
	for _, h := range hs[100:] {
		recs = appendRecord(recs, h)
	}
	writeLogAt(t, dir, end, recs)
	db = reopen(t, dir, Options{HeaderCacheSize: -1})
	checkAll(t, db, hs)
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("scan returned %d headers, want %d", n, len(hs))
	}
	if max, ok, _ := db.MaxHeight(5); !ok || max != 2111762 {
		t.Fatalf("max height %d %v", max, ok)
	}
}

// A crash (no checkpoint) after writes through several growths: the next Open keeps the slots
// the index had made durable, drops the rest and re-indexes their records from the log. Then a
// power cut is simulated on top: the log loses its last records while slots naming them
// survive. Those slots must be dropped, not left to name whatever is appended there next.
func TestRecoverAfterCrash(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, tiny)
	if err := db.PutHeaders(hs[:50]...); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = reopen(t, dir, tiny)
	for i := 50; i < 300; i += 10 {
		if err := db.PutHeaders(hs[i : i+10]...); err != nil {
			t.Fatal(err)
		}
	}
	lost := recordOffset(t, db, hs[280].Hash)
	crash(db)

	// The power cut: the last 20 records vanish from the log; the index file keeps its slots.
	if err := os.Truncate(filepath.Join(dir, logFileName), int64(lost)); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, dir, tinyWith(-1))
	checkAll(t, db, hs[:280])
	checkAbsent(t, db, hs[280:300])
	if n := len(scanAll(t, db, 5, Position{})); n != 280 {
		t.Fatalf("scan returned %d headers, want 280", n)
	}
	// New records now occupy the lost ones' offsets; the lost hashes must still be absent.
	if err := db.PutHeaders(hs[300:]...); err != nil {
		t.Fatal(err)
	}
	checkAbsent(t, db, hs[280:300])
	checkAll(t, db, hs[300:])
	if err := db.PutHeaders(hs[280:300]...); err != nil {
		t.Fatal(err)
	}
	crash(db)
	db = reopen(t, dir, tinyWith(-1))
	checkAll(t, db, hs)
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("scan returned %d headers, want %d", n, len(hs))
	}
}

// The process dies between a log append and its goleveldb batch: the headers are in the log and
// the hash index, but not in the height index. Open adds the entries.
func TestRecoverHeightIndexTail(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, tiny)
	if err := db.PutHeaders(hs[:100]...); err != nil {
		t.Fatal(err)
	}
	// What commit does, minus the goleveldb write.
	hl := db.hl
	hl.mu.Lock()
	var enc []byte
	for _, h := range hs[100:] {
		enc = appendRecord(enc, h)
	}
	off, err := hl.writeLocked(enc)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs[100:] {
		size := recHeaderSize + uint64(h.Size())
		if err := hl.insertLocked(slotKey(&h.Hash), off, size); err != nil {
			t.Fatal(err)
		}
		off += size
	}
	hl.mu.Unlock()
	checkAll(t, db, hs) // by hash, at once
	if n := len(scanAll(t, db, 5, Position{})); n != 100 {
		t.Fatalf("before the crash the height index has %d entries, want 100", n)
	}
	crash(db)
	db = reopen(t, dir, tiny)
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("after reopen the height index has %d entries, want %d", n, len(hs))
	}
}

// A store whose log vanished while goleveldb still refers to it is refused, not silently
// emptied; a store that never stored a header just gets a new log.
func TestOpenRefusesMissingLog(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, Options{})
	db.Close()
	os.Remove(filepath.Join(dir, logFileName))
	db = reopen(t, dir, Options{})
	if err := db.PutHeaders(hs[:3]...); err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Remove(filepath.Join(dir, logFileName))
	if db, err := Open(dir, Options{}); err == nil {
		db.Close()
		t.Fatal("opened a store whose header log is missing")
	} else if !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("got %v, want kv.ErrCorrupt", err)
	}
}

// A snapshot sees the log as it was: headers written later are not found through it, and its
// rows plus its log prefix restore a store holding exactly what it saw.
func TestSnapshotHeaderLog(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, _ := openTest(t, tinyWith(-1))
	if err := db.PutHeaders(hs[:100]...); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[99].Hash}); err != nil {
		t.Fatal(err)
	}
	snap, err := db.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	if err := db.PutHeaders(hs[100:]...); err != nil { // grows the log and the index meanwhile
		t.Fatal(err)
	}
	if got, want := snap.HeaderLogLen(), int64(logHeaderSize+100*(recHeaderSize+ledger.HeaderSize)); got != want {
		t.Fatalf("HeaderLogLen %d, want %d", got, want)
	}
	for _, h := range hs[:100] {
		if _, err := snap.Header(h.Hash); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range hs[100:] {
		if _, err := snap.Header(h.Hash); !errors.Is(err, ErrNotFound) {
			t.Fatalf("header written after the snapshot: got %v, want ErrNotFound", err)
		}
	}

	// Backup and restore.
	restored := t.TempDir()
	ldb, err := leveldb.OpenFile(restored, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.ForEach(func(k, v []byte) error { return ldb.Put(k, v, nil) }); err != nil {
		t.Fatal(err)
	}
	ldb.Close()
	f, err := os.Create(filepath.Join(restored, logFileName))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := snap.CopyHeaderLog(f); err != nil || n != snap.HeaderLogLen() {
		t.Fatalf("copy: %d bytes, %v", n, err)
	}
	f.Close()
	db2 := reopen(t, restored, Options{})
	checkAll(t, db2, hs[:100])
	checkAbsent(t, db2, hs[100:])
	if n := len(scanAll(t, db2, 5, Position{})); n != 100 {
		t.Fatalf("restored scan: %d headers", n)
	}
	if heads, _ := db2.Heads(); heads[5] != hs[99].Hash {
		t.Fatalf("restored heads %v", heads)
	}
}

// The serving path allocates nothing, cached or not, when dst has room.
func TestHeaderBinaryNoAllocs(t *testing.T) {
	hs, _ := chain5Headers(t)
	for _, cache := range []int{0, -1} {
		db, _ := openTest(t, Options{HeaderCacheSize: cache})
		if err := db.PutHeaders(hs...); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 0, 1024)
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			out, err := db.HeaderBinary(buf[:0], hs[i%len(hs)].Hash)
			if err != nil || len(out) != ledger.HeaderSize {
				t.Fatal(err)
			}
			i++
		})
		if allocs != 0 {
			t.Errorf("cache %d: %v allocations per HeaderBinary", cache, allocs)
		}
	}
}

// Reads racing Close fail cleanly; reads after it return errors.
func TestReadAfterClose(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, err := Open(t.TempDir(), Options{HeaderCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	v := db.hl.view.Load() // a reader that loaded the view just before Close
	db.Close()
	if _, err := db.HeaderBinary(nil, hs[0].Hash); err == nil {
		t.Fatal("HeaderBinary after Close succeeded")
	}
	if p, _, _, err := db.hl.locate(v, &hs[0].Hash, nil); p != nil || err != nil {
		t.Fatalf("a retired view still answers: %v %v", p != nil, err)
	}
	if err := db.PutHeaders(hs[0]); err == nil {
		t.Fatal("PutHeaders after Close succeeded")
	}
}

// The records scanner and record parser never panic and never read out of bounds.
func FuzzHeaderLog(f *testing.F) {
	hs, _ := chain5Headers(f)
	var seed []byte
	for _, h := range hs[:3] {
		seed = appendRecord(seed, h)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)-5])
	f.Add([]byte{0xff, 0xff, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		log := append(make([]byte, logHeaderSize), data...)
		end, _ := scanLog(log, logHeaderSize)
		if end < logHeaderSize || end > uint64(len(log)) {
			t.Fatalf("end %d outside the log", end)
		}
		n := 0
		if err := scanRecords(log, logHeaderSize, end, func(uint64, []byte) error { n++; return nil }); err != nil {
			t.Fatalf("a scanned prefix does not re-scan: %v", err)
		}
		for off := uint64(0); off < uint64(len(log))+8; off++ {
			if p, _, ok := recordAt(log, off); ok && off+recHeaderSize+uint64(len(p)) > uint64(len(log)) {
				t.Fatal("record past the end")
			}
		}
	})
}

// An index whose covered mark is not a record boundary (a header that lies, with a valid
// checksum) must not make Open cut the log there: the records after it survive.
func TestRecoverCoveredMidRecord(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, tiny)
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	mid := recordOffset(t, db, hs[100].Hash) + 10
	db.Close()
	path := filepath.Join(dir, idxFileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b[12:], 0) // unclean
	binary.LittleEndian.PutUint64(b[24:], countSlotsBelow(words(b[idxHeaderSize:]), mid))
	binary.LittleEndian.PutUint64(b[32:], mid)
	binary.LittleEndian.PutUint32(b[48:], crc32.Checksum(b[:48], castagnoli))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, dir, Options{HeaderCacheSize: -1})
	checkAll(t, db, hs)
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("scan returned %d headers", n)
	}
}

// A truncate that fails while Open recovers the log (zeroing past the last good record, then
// reserving room) fails the Open: it used to be ignored (the error was shadowed, SA4006), and
// the store went on over bytes it had not cleared.
func TestRecoverFailedTruncateFailsOpen(t *testing.T) {
	hs, _ := chain5Headers(t)
	for _, failing := range []int{1, 2} {
		t.Run(fmt.Sprintf("truncate %d fails", failing), func(t *testing.T) {
			db, dir := openTest(t, tiny)
			if err := db.PutHeaders(hs[:50]...); err != nil {
				t.Fatal(err)
			}
			db.Close()
			calls := 0
			o := tiny
			o.truncateLog = func(f *os.File, size int64) error {
				calls++
				if calls == failing {
					return errors.New("injected truncate failure")
				}
				return f.Truncate(size)
			}
			db2, err := Open(dir, o)
			if err == nil {
				db2.Close()
				t.Fatalf("Open succeeded although truncate %d failed (%d calls)", failing, calls)
			}
			if !strings.Contains(err.Error(), "injected truncate failure") {
				t.Fatalf("Open: %v", err)
			}
			// With truncates that work, the store opens with everything.
			db = reopen(t, dir, tiny)
			checkAll(t, db, hs[:50])
		})
	}
}
