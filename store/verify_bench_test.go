package store

import (
	"testing"
)

// BenchmarkScanLog measures what verifying every record of a 1M-header log costs at Open: the
// crc32c of every record plus the walk (the log is in the page cache, as after a clean stop).
func BenchmarkScanLog(b *testing.B) {
	const n = 1_000_000
	hs := benchHeaders(b, 1000, 9)
	var log []byte
	log = append(log, make([]byte, logHeaderSize)...)
	for i := 0; i < n; i++ {
		log = appendRecord(log, hs[i%len(hs)])
	}
	log = append(log, make([]byte, 4096)...)
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for range b.N {
		if end, torn := scanLog(log, logHeaderSize); torn || end != uint64(len(log)-4096) {
			b.Fatal(end, torn)
		}
	}
}
