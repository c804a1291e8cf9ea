package store

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/ledger"
)

// benchHeaders makes n distinct degree-3 headers on chain 5 from a real one: random hashes,
// consecutive heights. The store does not check hashes, so these stand in for real blocks.
func benchHeaders(b testing.TB, n int, seed uint64) []*ledger.Header {
	hs, _ := chain5Headers(b)
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]*ledger.Header, n)
	for i := range out {
		h := hs[i%len(hs)].Clone()
		for j := 0; j < len(h.Hash); j += 8 {
			binary.LittleEndian.PutUint64(h.Hash[j:], r.Uint64())
		}
		h.Height = uint64(i)
		out[i] = h
	}
	return out
}

// benchStore writes n headers into a fresh directory (and compacts goleveldb, whose height index
// ScanChain reads). It returns the directory and the hashes in random order.
func benchStore(b *testing.B, n int) (string, []ledger.Hash) {
	hs := benchHeaders(b, n, 42)
	dir := b.TempDir()
	db, err := Open(dir, Options{HeaderCacheSize: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < n; i += 1000 {
		if err := db.PutHeaders(hs[i:min(i+1000, n)]...); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.ldb.CompactRange(util.Range{}); err != nil {
		b.Fatal(err)
	}
	keys := make([]ledger.Hash, n)
	for i, h := range hs {
		keys[i] = h.Hash
	}
	rand.New(rand.NewPCG(7, 7)).Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return dir, keys
}

const benchStoreSize = 100_000

// readBench runs read(key) over keys. The cached modes warm a default-size cache with the keys
// first, so every timed read hits: "cached" spreads over 50k headers (random DRAM accesses, as a
// node serving a wide range of heights), "cached-hot" over 1k (cache-resident, the pure CPU cost).
// The uncached modes turn the cache off: every read probes the hash index and copies (HeaderBinary)
// or decodes (Header) the record straight from the log mapping; with goleveldb this was a Get of
// 4–8 µs.
func readBench(b *testing.B, dir string, keys []ledger.Hash, read func(db *DB, h ledger.Hash) error) {
	for _, mode := range []struct {
		name     string
		size     int
		hot      int // distinct keys read
		parallel bool
		pread    bool // records read with pread rather than through the mapping
	}{
		{"cached-hot", 0, 1_000, false, false},
		{"cached", 0, 50_000, false, false},
		{"cached-parallel", 0, 50_000, true, false},
		{"uncached", -1, len(keys), false, false},
		{"uncached-parallel", -1, len(keys), true, false},
		{"uncached-pread", -1, len(keys), false, true},
		{"uncached-pread-parallel", -1, len(keys), true, true},
	} {
		b.Run(mode.name, func(b *testing.B) {
			opts := Options{HeaderCacheSize: mode.size}
			if mode.pread {
				opts.LogMapReadMiB = -1
			}
			db, err := Open(dir, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			hot := keys[:mode.hot]
			for _, h := range hot {
				if err := read(db, h); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			if !mode.parallel {
				for i := 0; b.Loop(); i++ {
					if err := read(db, hot[i%len(hot)]); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				i := rand.IntN(len(hot))
				for pb.Next() {
					if err := read(db, hot[i%len(hot)]); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
		})
	}
}

func BenchmarkHeaderGet(b *testing.B) {
	dir, keys := benchStore(b, benchStoreSize)
	readBench(b, dir, keys, func(db *DB, h ledger.Hash) error {
		_, err := db.Header(h)
		return err
	})
}

func BenchmarkHeaderBinary(b *testing.B) {
	dir, keys := benchStore(b, benchStoreSize)
	readBench(b, dir, keys, func(db *DB, h ledger.Hash) error {
		var buf [ledger.HeaderSize]byte // what a handler appends into: its own reusable buffer
		_, err := db.HeaderBinary(buf[:0], h)
		return err
	})
}

// BenchmarkPutHeaders appends with and without headers.parity (parity=off: the baseline).
func BenchmarkPutHeaders(b *testing.B) {
	for _, sub := range []struct {
		name  string
		batch int
		off   bool
	}{{"batch=1", 1, false}, {"batch=1/parity=off", 1, true}, {"batch=100", 100, false}, {"batch=100/parity=off", 100, true},
		{"batch=1000", 1000, false}, {"batch=1000/parity=off", 1000, true}} {
		batch := sub.batch
		b.Run(sub.name, func(b *testing.B) {
			db, _ := openTest(b, Options{noParity: sub.off})
			// Fresh headers for every write: re-puts of cached headers are skipped and would
			// flatter the figure. Generated in chunks outside the timer.
			const chunk = 20_000
			var pool []*ledger.Header
			seed := uint64(0)
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for b.Loop() {
				if len(pool) < batch {
					b.StopTimer()
					seed++
					pool = benchHeaders(b, max(chunk, batch), seed)
					b.StartTimer()
				}
				if err := db.PutHeaders(pool[:batch]...); err != nil {
					b.Fatal(err)
				}
				pool = pool[batch:]
				n += batch
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "headers/s")
		})
	}
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			return string(buf[i:])
		}
	}
}

// BenchmarkSyncedAppend appends 20 headers (one block per chain) and syncs the log, as a
// PutBlock that moves heads does: with headers.parity the sync also fsyncs the parity file
// (parity=off: the baseline).
func BenchmarkSyncedAppend(b *testing.B) {
	for _, off := range []bool{false, true} {
		name := "parity=on"
		if off {
			name = "parity=off"
		}
		b.Run(name, func(b *testing.B) {
			db, _ := openTest(b, Options{noParity: off})
			var pool []*ledger.Header
			seed := uint64(0)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if len(pool) < 20 {
					b.StopTimer()
					seed++
					pool = benchHeaders(b, 20_000, seed)
					b.StartTimer()
				}
				if err := db.PutHeaders(pool[:20]...); err != nil {
					b.Fatal(err)
				}
				if err := db.hl.syncLog(); err != nil {
					b.Fatal(err)
				}
				pool = pool[20:]
			}
		})
	}
}
