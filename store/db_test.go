package store

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store/internal/records"
)

func TestCheckVersion(t *testing.T) {
	db, dir := openTest(t, Options{})
	if err := db.CheckVersion("mainnet01"); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckVersion("mainnet01"); err != nil {
		t.Fatalf("same name again: %v", err)
	}
	err := db.CheckVersion("testnet04")
	if !errors.Is(err, ErrVersionMismatch) || !strings.Contains(err.Error(), "mainnet01") {
		t.Fatalf("other name: got %v, want ErrVersionMismatch naming mainnet01", err)
	}
	if err := db.CheckVersion(""); err == nil {
		t.Fatal("empty name accepted")
	}
	db.Close()

	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CheckVersion("development"); !errors.Is(err, ErrVersionMismatch) {
		t.Fatalf("after reopen: got %v, want ErrVersionMismatch", err)
	}
	if err := db.CheckVersion("mainnet01"); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
}

func TestOpenLocked(t *testing.T) {
	_, dir := openTest(t, Options{})
	db2, err := Open(dir, Options{})
	if err == nil {
		db2.Close()
		t.Fatal("a second Open of a store in use succeeded")
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("got %v, want ErrLocked naming the directory", err)
	}
}

func TestOpenRefusesOtherSchema(t *testing.T) {
	db, dir := openTest(t, Options{})
	if err := db.putRecord(metaKey(metaSchema), &records.Schema{Version: schemaVersion + 1}, withSync); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db2, err := Open(dir, Options{}); err == nil {
		db2.Close()
		t.Fatal("opened a store with a newer schema")
	}
}

func TestOpenRefusesForeignData(t *testing.T) {
	db, dir := openTest(t, Options{})
	if err := db.ldb.Delete(metaKey(metaSchema), withSync); err != nil {
		t.Fatal(err)
	}
	if err := db.ldb.Put([]byte("someone else's key"), []byte("v"), withSync); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db2, err := Open(dir, Options{})
	if err == nil {
		db2.Close()
		t.Fatal("adopted a directory with data but no schema record")
	}
	if !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("got %v, want kv.ErrCorrupt", err)
	}
}

// A process killed with SIGKILL mid-life leaves a store that opens with every completed write:
// a child test process writes headers and heads, then keeps four writers busy (the index and
// the log start tiny, so they grow all along) and moves heads while it kills itself without
// closing. After each PutHeaders returns, the writer appends the batch's hashes to a progress
// file; every hash listed there must be stored, by hash and in its chain's height index, and
// the heads must name readable headers.
func TestSurvivesKill(t *testing.T) {
	hs, _ := chain5Headers(t)
	if dir := os.Getenv("STORE_KILL_DIR"); dir != "" {
		killChild(t, dir, hs)
		return
	}

	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSurvivesKill$")
	cmd.Env = append(os.Environ(), "STORE_KILL_DIR="+dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v\n%s", err, out)
	}
	progress, err := os.ReadFile(filepath.Join(dir, "progress"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir, Options{HeaderCacheSize: -1})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer db.Close()
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("recovered %d headers, want %d", n, len(hs))
	}
	// Only complete lines count: the kill may cut the last write short.
	listed := map[ledger.ChainID]map[ledger.Hash]bool{}
	for _, line := range strings.Split(string(progress), "\n") {
		var c ledger.ChainID
		var hx string
		if _, err := fmt.Sscanf(line, "%d %s", &c, &hx); err != nil || len(hx) != 64 {
			continue
		}
		var h ledger.Hash
		if _, err := hex.Decode(h[:], []byte(hx)); err != nil {
			continue
		}
		if listed[c] == nil {
			listed[c] = map[ledger.Hash]bool{}
		}
		listed[c][h] = true
	}
	total := 0
	for c, want := range listed {
		for h := range want {
			hdr, err := db.Header(h)
			if err != nil || hdr.ChainID != c {
				t.Fatalf("chain %d header %s, stored before the kill: %v", c, h, err)
			}
		}
		seen := 0
		for _, h := range scanAll(t, db, c, Position{}) {
			if want[h.Hash] {
				seen++
			}
		}
		if seen != len(want) {
			t.Fatalf("chain %d: %d of %d stored headers in the height index", c, seen, len(want))
		}
		total += len(want)
	}
	if total < 1000 {
		t.Fatalf("only %d headers written before the kill: the test did not exercise much", total)
	}
	heads, err := db.Heads()
	if err != nil || heads[5] != hs[len(hs)-1].Hash || len(heads) != 2 {
		t.Fatalf("heads after kill: %v %v", heads, err)
	}
	for c, h := range heads {
		if hdr, err := db.Header(h); err != nil || hdr.ChainID != c {
			t.Fatalf("head of chain %d after kill: %v", c, err)
		}
	}
	t.Logf("%d headers written by 4 writers before the kill, all recovered", total)
}

// killChild is the child side of TestSurvivesKill.
func killChild(t *testing.T, dir string, hs []*ledger.Header) {
	db, err := Open(dir, Options{indexSlots: 2, logCap: pageSize})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(hs); i += 10 {
		if err := db.PutHeaders(hs[i : i+10]...); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[len(hs)-1].Hash}); err != nil {
		t.Fatal(err)
	}
	progress, err := os.OpenFile(filepath.Join(dir, "progress"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var written atomic.Int64
	for w := range 4 {
		go func() {
			mine := synthHeaders(t, 20_000, ledger.ChainID(w), uint64(w)+100)
			var line []byte
			for i, n := 0, 1; i+n <= len(mine); i, n = i+n, 1+(i+n)%17 {
				batch := mine[i : i+n]
				if err := db.PutHeaders(batch...); err != nil {
					panic(err)
				}
				line = line[:0]
				for _, h := range batch {
					line = fmt.Appendf(line, "%d %x\n", w, h.Hash[:])
				}
				progress.Write(line) // one O_APPEND write: whole lines, and in the page cache at once
				written.Add(int64(len(batch)))
				if w == 0 && i%5 == 0 {
					last := batch[len(batch)-1].Hash
					if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[len(hs)-1].Hash, 0: last}); err != nil {
						panic(err)
					}
				}
			}
		}()
	}
	// Kill mid-write once the writers are well under way (they have 80k headers to go). Waiting for
	// a count rather than a fixed time keeps the test meaningful on a loaded machine or under -race.
	for deadline := hangguard.Deadline(); written.Load() < 5000 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // wait for the signal
}
