package store

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
)

// randomPayload is a payload of about n incompressible bytes.
func randomPayload(n int) *ledger.PayloadWithOutputs {
	tx, out := make([]byte, n/2), make([]byte, n/2)
	rand.Read(tx)
	rand.Read(out)
	return ledger.NewPayloadWithOutputs(ledger.NoMinerData, ledger.NoCoinbaseOutput(),
		[]ledger.TxWithOutput{{Tx: tx, Output: out}})
}

// An injected fault fails every write entry point, and ProbeWrite, with the error given and
// writes nothing; reads go on; clearing it lets writes through again.
func TestInjectedWriteFault(t *testing.T) {
	db, _ := openTest(t, Options{})
	before := randomPayload(100)
	if err := db.PutPayload(before); err != nil {
		t.Fatal(err)
	}
	db.SetWriteFault(fmt.Errorf("injected: %w", syscall.ENOSPC))
	p := randomPayload(100)
	h := &ledger.Header{ChainID: 0, Height: 1, PayloadHash: p.PayloadHash, Hash: ledger.Hash{1}}
	for name, err := range map[string]error{
		"PutPayload": db.PutPayload(p),
		"PutHeaders": db.PutHeaders(h),
		"PutBlock":   db.PutBlock(h, p, nil),
		"SetHeads":   db.SetHeads(map[ledger.ChainID]ledger.Hash{}),
		"ProbeWrite": db.ProbeWrite(),
	} {
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s under the fault: %v, want ENOSPC", name, err)
		}
	}
	if ok, err := db.HasPayload(p.PayloadHash); ok || err != nil {
		t.Fatalf("a payload was written under the fault (%v)", err)
	}
	if ok, err := db.HasHeader(h.Hash); ok || err != nil {
		t.Fatalf("a header was written under the fault (%v)", err)
	}
	if _, err := db.PayloadWithOutputs(before.PayloadHash); err != nil {
		t.Fatalf("read under the fault: %v", err)
	}
	db.ClearWriteFault()
	if err := db.ProbeWrite(); err != nil {
		t.Fatal(err)
	}
	if err := db.PutPayload(p); err != nil {
		t.Fatal(err)
	}
}

// On a real full file system (a tmpfs of a few MiB) writes fail with ENOSPC, and once space is
// freed ProbeWrite gets goleveldb writing again without reopening the store (its journal keeps
// the first write error until it is rotated). Skipped where mounting is not permitted (not
// root, or a container without CAP_SYS_ADMIN); TestInjectedWriteFault always runs.
func TestFullDiskRecovers(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	// The filler takes most of the space; removing it is "space was freed".
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, 5<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	// The default memtable (16 MiB) holds everything written here: the disk fills while it
	// has entries, which is when ProbeWrite can restart the journal (writefault.go says when
	// it cannot).
	db, err := Open(filepath.Join(dir, "db"), Options{indexSlots: 64, logCap: pageSize})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() { // before the unmount
		if !closed {
			db.Close()
		}
	})
	// Fill it: big payloads until one fails, then smaller ones until the smallest fails too.
	var stored []ledger.Hash
	var werr error
	for _, size := range []int{32 << 10, 1 << 10, 64} {
		for range 1000 {
			p := randomPayload(size)
			if werr = db.PutPayload(p); werr != nil {
				break
			}
			stored = append(stored, p.PayloadHash)
		}
		if !errors.Is(werr, syscall.ENOSPC) {
			t.Fatalf("after %d payloads: %v, want ENOSPC", len(stored), werr)
		}
	}
	for _, h := range stored {
		if _, err := db.PayloadWithOutputs(h); err != nil {
			t.Fatalf("read on a full disk: %v", err)
		}
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	// The node's prober retries with back-off; goleveldb's background compaction, failed on
	// the full disk, retries by itself too.
	freed := time.Now()
	if !hangguard.Wait(func() bool { werr = db.ProbeWrite(); return werr == nil }) {
		t.Fatalf("%s: %v", hangguard.Failure("a write after space was freed"), werr)
	}
	t.Logf("writes succeed %v after space was freed", time.Since(freed).Round(time.Millisecond))
	var after []ledger.Hash
	for range 20 {
		p := randomPayload(32 << 10)
		if err := db.PutPayload(p); err != nil {
			t.Fatalf("write %d after the probe: %v", len(after), err)
		}
		after = append(after, p.PayloadHash)
	}
	closed = true
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Everything written before and after the full disk is there after a reopen.
	db, err = Open(filepath.Join(dir, "db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, h := range append(stored, after...) {
		if _, err := db.PayloadWithOutputs(h); err != nil {
			t.Fatalf("after reopening: %v", err)
		}
	}
}

// chainHeights lists the heights ScanChain finds on chain 0.
func chainHeights(t *testing.T, db *DB) []uint64 {
	t.Helper()
	var hs []uint64
	if err := db.ScanChain(0, Position{}, func(h *ledger.Header) bool {
		hs = append(hs, h.Height)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return hs
}

// A goleveldb write that fails after the header's record went to the log (a disk that fills
// between the two) leaves the header readable by hash but without its height-index entry. The
// entry must not be lost: a retry of the same block (which finds the record and skips it) and
// any later batch carry it, and so it is in the height index after a reopen too. Before, the
// next batch moved the recorded log end past the record, so neither the retry nor Open indexed
// it and the block was missing from every list page.
func TestFailedBatchKeepsHeightEntries(t *testing.T) {
	db, dir := openTest(t, Options{})
	block := func(height uint64, tag byte) (*ledger.Header, *ledger.PayloadWithOutputs) {
		p := randomPayload(64)
		return &ledger.Header{ChainID: 0, Height: height, PayloadHash: p.PayloadHash, Hash: ledger.Hash{tag, byte(height)}}, p
	}
	h1, p1 := block(1, 1)
	if err := db.PutBlock(h1, p1, nil); err != nil {
		t.Fatal(err)
	}
	h2, p2 := block(2, 2)
	db.batchFault = fmt.Errorf("injected: %w", syscall.ENOSPC)
	if err := db.PutBlock(h2, p2, nil); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("PutBlock under a batch fault: %v", err)
	}
	db.batchFault = nil
	if ok, _ := db.HasHeader(h2.Hash); !ok {
		t.Fatal("the record written before the failed batch is not readable by hash")
	}
	if got := chainHeights(t, db); len(got) != 1 {
		t.Fatalf("heights before the retry: %v, want [1]", got)
	}
	// Another block lands first: its batch carries h2's entry.
	h3, p3 := block(3, 3)
	if err := db.PutBlock(h3, p3, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(chainHeights(t, db)); got != "[1 2 3]" {
		t.Fatalf("heights after the next batch: %s, want [1 2 3]", got)
	}
	// The retry of the same block writes its payload; nothing is indexed twice.
	if err := db.PutBlock(h2, p2, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PayloadWithOutputs(p2.PayloadHash); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2 := reopen(t, dir, Options{})
	if got := fmt.Sprint(chainHeights(t, db2)); got != "[1 2 3]" {
		t.Fatalf("heights after reopening: %s, want [1 2 3]", got)
	}
}
