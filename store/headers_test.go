package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

func TestHeaderRoundTrip(t *testing.T) {
	hs, raws := chain5Headers(t)
	db, dir := openTest(t, Options{})
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, db *DB) {
		prefix := []byte("prefix:")
		for i, h := range hs {
			got, err := db.Header(h.Hash)
			if err != nil {
				t.Fatalf("header %d: %v", i, err)
			}
			if !bytes.Equal(got.Bytes(), raws[i]) {
				t.Fatalf("header %d: read back differs", i)
			}
			bin, err := db.HeaderBinary(slices.Clone(prefix), h.Hash)
			if err != nil {
				t.Fatalf("header binary %d: %v", i, err)
			}
			if !bytes.HasPrefix(bin, prefix) || !bytes.Equal(bin[len(prefix):], raws[i]) {
				t.Fatalf("header binary %d: want prefix + raw header", i)
			}
			if ok, err := db.HasHeader(h.Hash); err != nil || !ok {
				t.Fatalf("has header %d: %v %v", i, ok, err)
			}
		}
	}
	t.Run("fresh", func(t *testing.T) { check(t, db) })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened without a cache, every read decodes the bytes on disk.
	db2, err := Open(dir, Options{HeaderCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	t.Run("reopened", func(t *testing.T) { check(t, db2) })
}

func TestHeaderNotFound(t *testing.T) {
	db, _ := openTest(t, Options{})
	missing := ledger.Hash{1, 2, 3}
	if _, err := db.Header(missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Header: got %v, want ErrNotFound", err)
	}
	dst := []byte("keep")
	got, err := db.HeaderBinary(dst, missing)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("HeaderBinary: got %v, want ErrNotFound", err)
	}
	if string(got) != "keep" {
		t.Fatalf("HeaderBinary changed dst on error: %q", got)
	}
	if ok, err := db.HasHeader(missing); err != nil || ok {
		t.Fatalf("HasHeader: %v %v", ok, err)
	}
}

func TestPutHeadersIdempotent(t *testing.T) {
	hs, _ := chain5Headers(t)
	for _, cache := range []int{0, -1} {
		db, _ := openTest(t, Options{HeaderCacheSize: cache})
		for range 2 {
			if err := db.PutHeaders(hs...); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.PutHeaders(hs[:10]...); err != nil {
			t.Fatal(err)
		}
		if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
			t.Fatalf("cache %d: %d index entries after repeated puts, want %d", cache, n, len(hs))
		}
	}
}

func TestPutHeadersEmpty(t *testing.T) {
	db, _ := openTest(t, Options{})
	if err := db.PutHeaders(); err != nil {
		t.Fatal(err)
	}
}

func TestPutHeadersRejectsUnencodable(t *testing.T) {
	hs, _ := chain5Headers(t)
	unsorted := hs[1].Clone()
	unsorted.Adjacents[0], unsorted.Adjacents[1] = unsorted.Adjacents[1], unsorted.Adjacents[0]
	tooMany := hs[2].Clone()
	tooMany.Adjacents = make([]ledger.Adjacent, ledger.MaxAdjacents+1)
	for i := range tooMany.Adjacents {
		tooMany.Adjacents[i].Chain = ledger.ChainID(i)
	}
	for name, bad := range map[string]*ledger.Header{"nil": nil, "unsorted": unsorted, "too many": tooMany} {
		db, _ := openTest(t, Options{})
		// The good header in front must not be written either: the batch is all or nothing.
		if err := db.PutHeaders(hs[0], bad); err == nil {
			t.Fatalf("%s: accepted", name)
		}
		if ok, _ := db.HasHeader(hs[0].Hash); ok {
			t.Fatalf("%s: a rejected batch was partly written", name)
		}
	}
}

// scanAll collects a whole scan of chain c from pos.
func scanAll(t *testing.T, db *DB, c ledger.ChainID, pos Position) []*ledger.Header {
	t.Helper()
	var out []*ledger.Header
	if err := db.ScanChain(c, pos, func(h *ledger.Header) bool { out = append(out, h); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

// byIndexOrder is the order chainweb pages headers in: height, then raw hash bytes.
func byIndexOrder(a, b *ledger.Header) int {
	if a.Height != b.Height {
		if a.Height < b.Height {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.Hash[:], b.Hash[:])
}

// onChain copies h onto chain c under a distinct hash, so that it gets its own header record.
func onChain(h *ledger.Header, c ledger.ChainID) *ledger.Header {
	x := h.Clone()
	x.ChainID = c
	x.Hash[0] ^= 0xa5
	binary.BigEndian.PutUint32(x.Hash[1:], uint32(c))
	return x
}

func TestScanChainOrder(t *testing.T) {
	hs, _ := chain5Headers(t)
	heights := map[uint64]int{}
	for _, h := range hs {
		heights[h.Height]++
	}
	if dups := len(hs) - len(heights); dups != 6 {
		t.Fatalf("vector has %d duplicate heights, want 6", dups)
	}

	db, _ := openTest(t, Options{})
	// Shuffled insertion, neighbours on chains 4 and 6 and on the last chain id: the scan must
	// still come out in index order and stay within its chain.
	shuffled := slices.Clone(hs)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, c := range []ledger.ChainID{4, 6, ^ledger.ChainID(0)} {
		if err := db.PutHeaders(onChain(hs[0], c), onChain(hs[len(hs)-1], c)); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < len(shuffled); i += 50 {
		if err := db.PutHeaders(shuffled[i:min(i+50, len(shuffled))]...); err != nil {
			t.Fatal(err)
		}
	}

	want := slices.SortedFunc(slices.Values(hs), byIndexOrder)
	got := scanAll(t, db, 5, Position{})
	if len(got) != len(want) {
		t.Fatalf("scan returned %d headers, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Hash != want[i].Hash {
			t.Fatalf("position %d: got %s (height %d), want %s (height %d)",
				i, got[i].Hash, got[i].Height, want[i].Hash, want[i].Height)
		}
	}
	for _, c := range []ledger.ChainID{4, 6, ^ledger.ChainID(0)} {
		other := scanAll(t, db, c, Position{})
		if len(other) != 2 || other[0].ChainID != c || other[1].ChainID != c {
			t.Fatalf("chain %d: scan returned %d headers", c, len(other))
		}
	}
	if n := len(scanAll(t, db, 7, Position{})); n != 0 {
		t.Fatalf("empty chain 7: scan returned %d headers", n)
	}
}

func TestScanChainStart(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, _ := openTest(t, Options{})
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	sorted := slices.SortedFunc(slices.Values(hs), byIndexOrder)
	// A fork sibling pair: both at one height, hash order decides.
	fork := -1
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Height == sorted[i-1].Height {
			fork = i - 1
			break
		}
	}
	if fork < 0 {
		t.Fatal("no fork siblings in vector")
	}
	after := func(h ledger.Hash) ledger.Hash { // the next 32-byte value: strictly between h and any greater hash
		for i := len(h) - 1; i >= 0; i-- {
			h[i]++
			if h[i] != 0 {
				break
			}
		}
		return h
	}
	last := sorted[len(sorted)-1]
	cases := []struct {
		name  string
		from  Position
		first int // index into sorted of the first header expected; len(sorted) = none
	}{
		{"zero position", Position{}, 0},
		{"height only", Position{Height: sorted[100].Height}, firstAtHeight(sorted, sorted[100].Height)},
		{"exact key", Position{sorted[100].Height, sorted[100].Hash}, 100},
		{"exact first sibling", Position{sorted[fork].Height, sorted[fork].Hash}, fork},
		{"exact second sibling", Position{sorted[fork+1].Height, sorted[fork+1].Hash}, fork + 1},
		{"between siblings", Position{sorted[fork].Height, after(sorted[fork].Hash)}, fork + 1},
		{"between heights", Position{sorted[100].Height, after(sorted[100].Hash)}, 101},
		{"last key", Position{last.Height, last.Hash}, len(sorted) - 1},
		{"past the last hash", Position{last.Height, after(last.Hash)}, len(sorted)},
		{"past the last height", Position{Height: last.Height + 1}, len(sorted)},
		{"max position", Position{^uint64(0), ledger.Hash{0: 0xff, 31: 0xff}}, len(sorted)},
	}
	if sorted[101].Height == sorted[100].Height {
		t.Fatal("test assumes sorted[100] is alone at its height")
	}
	for _, tc := range cases {
		got := scanAll(t, db, 5, tc.from)
		if len(got) != len(sorted)-tc.first {
			t.Errorf("%s: %d headers, want %d", tc.name, len(got), len(sorted)-tc.first)
			continue
		}
		if len(got) > 0 && got[0].Hash != sorted[tc.first].Hash {
			t.Errorf("%s: starts at %s, want %s", tc.name, got[0].Hash, sorted[tc.first].Hash)
		}
	}

	// fn returning false stops the scan at once.
	n := 0
	if err := db.ScanChain(5, Position{}, func(*ledger.Header) bool { n++; return n < 3 }); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("scan went on after fn returned false: %d calls", n)
	}
}

func firstAtHeight(sorted []*ledger.Header, height uint64) int {
	i, _ := slices.BinarySearchFunc(sorted, height, func(h *ledger.Header, t uint64) int {
		if h.Height < t {
			return -1
		}
		if h.Height > t {
			return 1
		}
		return 0
	})
	return i
}

// ScanChain reads a snapshot: headers written during a scan do not appear in it.
func TestScanChainSnapshot(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, _ := openTest(t, Options{})
	if err := db.PutHeaders(hs[:100]...); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := db.ScanChain(5, Position{}, func(*ledger.Header) bool {
		if n == 0 {
			if err := db.PutHeaders(hs[100:]...); err != nil {
				t.Fatal(err)
			}
		}
		n++
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 100 {
		t.Fatalf("scan saw %d headers, want the 100 stored when it began", n)
	}
}

func TestMaxHeight(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, _ := openTest(t, Options{})
	if _, ok, err := db.MaxHeight(5); err != nil || ok {
		t.Fatalf("empty store: ok=%v err=%v", ok, err)
	}
	if err := db.PutHeaders(hs[:50]...); err != nil {
		t.Fatal(err)
	}
	want := uint64(0)
	for _, h := range hs[:50] {
		want = max(want, h.Height)
	}
	if got, ok, err := db.MaxHeight(5); err != nil || !ok || got != want {
		t.Fatalf("after 50: got %d %v %v, want %d", got, ok, err, want)
	}
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := db.MaxHeight(5); err != nil || !ok || got != 2111762 {
		t.Fatalf("after all: got %d %v %v, want 2111762", got, ok, err)
	}
	// Neighbouring chains do not leak into each other.
	if err := db.PutHeaders(onChain(hs[0], 6), onChain(hs[0], ^ledger.ChainID(0))); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := db.MaxHeight(6); !ok || got != hs[0].Height {
		t.Fatalf("chain 6: got %d %v", got, ok)
	}
	if got, ok, _ := db.MaxHeight(^ledger.ChainID(0)); !ok || got != hs[0].Height {
		t.Fatalf("last chain id: got %d %v", got, ok)
	}
	if _, ok, _ := db.MaxHeight(4); ok {
		t.Fatal("chain 4 has no header")
	}
}

// Paging through history must not push the hot set out of the cache.
func TestScanChainLeavesCacheAlone(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, Options{})
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("scan returned %d", n)
	}
	if n := db.cache.len(); n != 0 {
		t.Fatalf("a scan cached %d headers", n)
	}
}
