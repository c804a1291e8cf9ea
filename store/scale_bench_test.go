package store

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/syndtr/goleveldb/leveldb"
)

// Stores of millions of headers, for what grows with the store: Open, Check, and what a store
// being served keeps in memory. Building one takes a minute per million headers, so they are
// kept in $STORE_SCALE_DIR (built on first use; delete the directory to rebuild) and the sizes
// come from $STORE_SCALE_SIZES (default 1000000):
//
//	STORE_SCALE_DIR=/var/tmp/scale STORE_SCALE_SIZES=1000000,4000000 \
//	  go test ./store -run XX -bench 'Scale' -benchtime 1x
//
// The headers are 20 chains of real degree-3 mainnet headers with made-up hashes, each
// naming the previous one of its chain as parent, with heads set: what the store sees of a
// braided history (it checks no hashes).

func scaleSizes(tb testing.TB) []int {
	s := os.Getenv("STORE_SCALE_SIZES")
	if s == "" {
		s = "1000000"
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			tb.Fatalf("STORE_SCALE_SIZES: %q", f)
		}
		out = append(out, n)
	}
	return out
}

// scaleHash is the hash of the i-th header of a scale store.
func scaleHash(i uint64) ledger.Hash {
	var h ledger.Hash
	for j := range uint64(4) {
		binary.LittleEndian.PutUint64(h[8*j:], mix64(4*i+j))
	}
	return h
}

// scaleStore returns the directory of a cleanly closed store of n headers, building it if needed.
func scaleStore(tb testing.TB, n int) string {
	base := os.Getenv("STORE_SCALE_DIR")
	if base == "" {
		tb.Skip("STORE_SCALE_DIR is not set")
	}
	dir := filepath.Join(base, "h"+strconv.Itoa(n))
	if _, err := os.Stat(filepath.Join(dir, "built")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	src, _ := chain5Headers(tb)
	db, err := Open(dir, Options{HeaderCacheSize: -1, Logger: quiet()})
	if err != nil {
		tb.Fatal(err)
	}
	const chains, batch = 20, 1000
	var last [chains]ledger.Hash
	hs := make([]*ledger.Header, 0, batch)
	for i := 0; i < n; {
		hs = hs[:0]
		for ; i < n && len(hs) < batch; i++ {
			h := src[i%len(src)].Clone()
			c := i % chains
			h.ChainID, h.Height, h.Parent, h.Hash = ledger.ChainID(c), uint64(i/chains), last[c], scaleHash(uint64(i))
			last[c] = h.Hash
			hs = append(hs, h)
		}
		if err := db.PutHeaders(hs...); err != nil {
			tb.Fatal(err)
		}
	}
	heads := map[ledger.ChainID]ledger.Hash{}
	for c, h := range last {
		if h != (ledger.Hash{}) {
			heads[ledger.ChainID(c)] = h
		}
	}
	if err := db.SetHeads(heads); err != nil {
		tb.Fatal(err)
	}
	if err := db.Compact(); err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "built"), nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// procStatus reads kB fields of /proc/self/status (VmHWM, VmRSS, RssAnon, RssFile).
func procStatus() map[string]uint64 {
	out := map[string]uint64{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if f := strings.Fields(v); len(f) == 2 && f[1] == "kB" {
			n, _ := strconv.ParseUint(f[0], 10, 64)
			out[k] = n << 10
		}
	}
	return out
}

// peakMemory runs fn and returns the peak of the process's RSS over it (VmHWM, after resetting
// it), and the peaks of its anonymous and file-backed parts and of the Go heap, sampled every 10 ms. Mapped files
// count in VmHWM while their pages are mapped; RssAnon is memory nothing else can reclaim.
func peakMemory(fn func()) (hwm, anon, file, heap uint64) {
	runtime.GC()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // resets VmHWM to VmRSS
	var peakAnon, peakFile, peakHeap atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			st := procStatus()
			peakAnon.Store(max(peakAnon.Load(), st["RssAnon"]))
			peakFile.Store(max(peakFile.Load(), st["RssFile"]))
			runtime.ReadMemStats(&ms)
			peakHeap.Store(max(peakHeap.Load(), ms.HeapInuse))
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return procStatus()["VmHWM"], peakAnon.Load(), peakFile.Load(), peakHeap.Load()
}

// BenchmarkOpenScale opens cleanly closed stores the way a start does (the default) and the way
// a start did before, verifying every record (VerifyWholeLog, as check and repair do), in one
// run: the ratio is what a clean start saves. The cold modes evict the store's files from the
// page cache first (fadvise on those files only), as after a reboot.
func BenchmarkOpenScale(b *testing.B) {
	for _, n := range scaleSizes(b) {
		dir := scaleStore(b, n)
		for _, mode := range []struct {
			name string
			opts Options
			cold bool
		}{
			{"verify-whole-log", Options{VerifyWholeLog: true}, false}, {"default", Options{}, false},
			{"verify-whole-log-cold", Options{VerifyWholeLog: true}, true}, {"default-cold", Options{}, true},
			// Without headers.parity: the baseline of what settling and comparing it costs.
			{"verify-whole-log/parity=off", Options{VerifyWholeLog: true, noParity: true}, false},
			{"default/parity=off", Options{noParity: true}, false},
		} {
			b.Run(fmt.Sprintf("headers=%d/%s", n, mode.name), func(b *testing.B) {
				mode.opts.Logger = quiet()
				for range b.N {
					if mode.cold {
						b.StopTimer()
						evict(b, dir)
						b.StartTimer()
					}
					db, err := Open(dir, mode.opts)
					if err != nil {
						b.Fatal(err)
					}
					db.Close()
				}
			})
		}
	}
}

// evict drops dir's files from the page cache.
func evict(b *testing.B, dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range ents {
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		f.Sync()
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// damagedStore returns a copy of the scale store in dir with one hash-index slot zeroed and one
// height-index entry deleted: the digests check compares then differ, and it reads every
// slot's and every entry's record (its slow paths, as for a killed node's index). The log and
// goleveldb's tables are hard links: neither is written (goleveldb writes new files only).
func damagedStore(b *testing.B, dir string) string {
	out := dir + "-damaged"
	if _, err := os.Stat(out); err == nil {
		return out
	}
	tmp := out + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		b.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range ents {
		src, dst := filepath.Join(dir, e.Name()), filepath.Join(tmp, e.Name())
		if e.Name() == logFileName || strings.HasSuffix(e.Name(), ".ldb") {
			if err := os.Link(src, dst); err != nil {
				b.Fatal(err)
			}
			continue
		}
		m, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		if e.Name() == idxFileName {
			w := words(m[idxHeaderSize:])
			for i := 0; i+1 < len(w); i += 2 {
				if w[i] != 0 {
					w[i], w[i+1] = 0, 0
					break
				}
			}
		}
		if err := os.WriteFile(dst, m, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ldb, err := leveldb.OpenFile(tmp, nil)
	if err != nil {
		b.Fatal(err)
	}
	h := scaleHash(12345)
	k := heightKey(ledger.ChainID(12345%20), 12345/20, h)
	if err := ldb.Delete(k[:], nil); err != nil {
		b.Fatal(err)
	}
	ldb.Close()
	if err := os.Rename(tmp, out); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkCheckScale runs Check once per op and reports its peak memory: of a cleanly closed
// store, and of a damaged copy (damagedStore), where every slot's and every height-index
// entry's record is read.
func BenchmarkCheckScale(b *testing.B) {
	for _, n := range scaleSizes(b) {
		dir := scaleStore(b, n)
		b.Run(fmt.Sprintf("headers=%d", n), func(b *testing.B) {
			checkMemory(b, dir, false)
		})
		b.Run(fmt.Sprintf("headers=%d/damaged", n), func(b *testing.B) {
			checkMemory(b, damagedStore(b, dir), true)
		})
	}
}

func checkMemory(b *testing.B, dir string, damaged bool) {
	var hwm, anon, file, heap uint64
	for range b.N {
		hwm, anon, file, heap = peakMemory(func() {
			r, err := Check(dir, nil)
			if err != nil {
				b.Fatal(err)
			}
			if r.Damaged() != damaged {
				b.Fatalf("%+v", r.Findings)
			}
		})
	}
	b.ReportMetric(float64(hwm)/(1<<20), "VmHWM-MiB")
	b.ReportMetric(float64(anon)/(1<<20), "RssAnon-MiB")
	b.ReportMetric(float64(file)/(1<<20), "RssFile-MiB")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
}

// BenchmarkServeMemoryScale opens a store as the node does and reads random headers by hash
// (as GET header/{hash} does, with the cache off so that every read reaches the log), as many
// as it holds ($STORE_SCALE_READS to change that), then reports what the process holds: per
// header, on disk and in memory. "default" reads the log through its mapping up to 512 MiB and
// with pread past it; "mapped" always through the mapping, as before.
func BenchmarkServeMemoryScale(b *testing.B) {
	for _, n := range scaleSizes(b) {
		dir := scaleStore(b, n)
		for _, mode := range []struct {
			name string
			mib  int
		}{{"mapped", 1 << 20}, {"default", 0}} {
			b.Run(fmt.Sprintf("headers=%d/%s", n, mode.name), func(b *testing.B) {
				for range b.N {
					serveMemory(b, dir, n, mode.mib)
				}
			})
		}
	}
}

func serveMemory(b *testing.B, dir string, n, mib int) {
	runtime.GC()
	before := procStatus()
	db, err := Open(dir, Options{HeaderCacheSize: -1, LogMapReadMiB: mib, Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	reads := n
	if s := os.Getenv("STORE_SCALE_READS"); s != "" {
		reads, _ = strconv.Atoi(s)
	}
	x := uint64(1)
	var buf []byte
	start := time.Now()
	for range reads {
		x = mix64(x)
		if buf, err = db.HeaderBinary(buf[:0], scaleHash(x%uint64(n))); err != nil {
			b.Fatal(err)
		}
	}
	perRead := time.Since(start) / time.Duration(max(reads, 1))
	runtime.GC()
	after := procStatus()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var disk int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				// Allocated blocks: the log's capacity past its records is a hole.
				if st, ok := info.Sys().(*syscall.Stat_t); ok {
					disk += st.Blocks * 512
				}
			}
		}
		return nil
	})
	logBytes, idxBytes := db.hl.end.Load(), uint64(len(db.hl.idxMap))
	db.Close()
	b.ReportMetric(float64(perRead.Nanoseconds()), "ns/read")
	b.ReportMetric(float64(after["VmRSS"])/(1<<20), "VmRSS-MiB")
	b.ReportMetric(float64(after["RssAnon"]-min(after["RssAnon"], before["RssAnon"]))/float64(n), "anon-B/header")
	b.ReportMetric(float64(after["RssFile"])/float64(n), "file-B/header")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(logBytes)/float64(n), "log-B/header")
	b.ReportMetric(float64(idxBytes)/float64(n), "idx-B/header")
	b.ReportMetric(float64(disk)/float64(n), "disk-B/header")
}
