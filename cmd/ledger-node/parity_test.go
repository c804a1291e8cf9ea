package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// cutHeight is the sum of the cut's chain heights.
func cutHeight(c *ledger.Cut) uint64 {
	s := uint64(0)
	for _, e := range c.Entries {
		s += e.Height
	}
	return s
}

// Issue 32: 64 random bytes in the middle of headers.log cost nothing. headers.parity restores
// them at the start (without it the log was cut at the bad record and every header after it
// dropped, and the cut fell back with it); the node resumes from the cut it had, and its Pact
// state answers.
func TestParityRepairsLogDamage(t *testing.T) {
	t.Parallel() // waits on node processes: it overlaps with the other slow ones
	dir := t.TempDir()
	n := startMiningNodeArgs(t, damageArgs(dir)...)
	waitCut(t, n.url, 6)
	n.stop()
	// The store's heads after the stop are the cut the node resumes from.
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	heads, err := db.Heads()
	if err != nil || len(heads) != 20 {
		t.Fatalf("heads: %v %v", heads, err)
	}
	before := uint64(0)
	for _, h := range heads {
		hd, err := db.Header(h)
		if err != nil {
			t.Fatal(err)
		}
		before += hd.Height
	}
	db.Close()

	end := logRecordsEnd(t, dir)
	f, err := os.OpenFile(filepath.Join(dir, "headers.log"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, 64)
	r := rand.New(rand.NewPCG(32, 64))
	for i := range junk {
		junk[i] = byte(r.Uint32() | 1)
	}
	if _, err := f.WriteAt(junk, end/2); err != nil {
		t.Fatal(err)
	}
	f.Close()

	code, out, errOut := runCmd("check", "--data-dir", dir)
	if code != 1 || !strings.Contains(out, "headers.parity restores it") || !strings.Contains(out, "nothing is lost") {
		t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
	}
	// repair does the same at once, on a copy.
	fixed := copyDataDir(t, dir)
	code, out, errOut = runCmd("repair", "--data-dir", fixed)
	if code != 0 || !strings.Contains(out, "headers.log repaired from headers.parity") || strings.Contains(out, "cut at offset") ||
		!strings.Contains(out, "is healthy") {
		t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
	}
	n = startMiningNodeArgs(t, damageArgs(dir)...)
	defer n.stop()
	after := fetchCut(t, n.url)
	if b, a := before, cutHeight(after); a*10 < b*9 {
		t.Fatalf("cut height %d after the start, %d before: below 90%%", a, b)
	} else {
		t.Logf("cut height %d after the start, %d before (%.1f%%)", a, b, 100*float64(a)/float64(b))
	}
	if bal := backupBalance(t, n.url, 0, "sender00", 0); bal.Sign() <= 0 {
		t.Fatalf("sender00 on chain 0: %v", bal)
	}
}
