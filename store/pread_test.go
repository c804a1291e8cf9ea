package store

import (
	"errors"
	"testing"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
)

// Past LogMapReadMiB, reads use pread instead of the log's mapping (recordIn): the same
// answers, damage refused the same way, no allocation per read, and errors after Close.
func TestPreadReads(t *testing.T) {
	hs, _ := chain5Headers(t)
	// A header of a higher degree than the usual 3 needs recordIn's second read.
	wide := hs[0].Clone()
	wide.Hash[0] ^= 0xff
	wide.Adjacents = nil
	for c := range 9 {
		wide.Adjacents = append(wide.Adjacents, ledger.Adjacent{Chain: ledger.ChainID(c), Hash: hs[c].Hash})
	}
	hs = append(hs, wide)
	dir := t.TempDir()
	db, err := Open(dir, Options{HeaderCacheSize: -1, LogMapReadMiB: -1, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	if db.hl.readBuf() == nil {
		t.Fatal("reads do not use pread")
	}
	checkAll(t, db, hs)
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("scan lists %d headers", n)
	}
	if err := db.PutHeaders(hs...); err != nil { // all found: nothing appended
		t.Fatal(err)
	}
	if end := db.hl.end.Load(); end != offsets(t, dir, hs)[len(hs)-1]+recHeaderSize+uint64(wide.Size()) {
		t.Fatalf("a re-put appended: log end %d", end)
	}
	buf := make([]byte, 0, 2*ledger.HeaderSize)
	if allocs := testing.AllocsPerRun(100, func() { db.HeaderBinary(buf, hs[7].Hash) }); allocs != 0 {
		t.Errorf("%v allocations per HeaderBinary", allocs)
	}
	db.Close()

	// Damage a clean start does not read is refused by a pread read too.
	offs := offsets(t, dir, hs)
	rotLogAt(t, dir, offs[33]+60, []byte{0x55})
	db = reopen(t, dir, Options{HeaderCacheSize: -1, LogMapReadMiB: -1, Logger: quiet()})
	if _, err := db.HeaderBinary(nil, hs[33].Hash); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("read of a damaged record: %v, want kv.ErrCorrupt", err)
	}
	if _, err := db.Header(hs[34].Hash); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := db.HeaderBinary(nil, hs[0].Hash); err == nil {
		t.Fatal("HeaderBinary after Close succeeded")
	}
}
