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

// BenchmarkOpenMillion opens a cleanly closed store of a million headers, verifying every record
// (VerifyWholeLog, as check and repair do, and as every start did before) and trusting the clean
// index (the default): what the verification adds to a start. BenchmarkOpenScale does the same
// at larger sizes. The store is built once (about 20 s), so run it on its own:
//
//	go test ./store -run XX -bench OpenMillion -benchtime 3x
func BenchmarkOpenMillion(b *testing.B) {
	dir, _ := benchStore(b, 1_000_000)
	for _, trust := range []bool{false, true} {
		b.Run(map[bool]string{false: "verify-whole-log", true: "default"}[trust], func(b *testing.B) {
			for range b.N {
				db, err := Open(dir, Options{VerifyWholeLog: !trust, Logger: quiet()})
				b.ReportMetric(float64(db.hl.end.Load())/1e6, "log-MB")
				if err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
		})
	}
}
