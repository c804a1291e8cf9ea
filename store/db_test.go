package store

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
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
	if err := db.putRecord(metaKey(metaSchema), &schemaRecord{Version: schemaVersion + 1}, withSync); err != nil {
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
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, want ErrCorrupt", err)
	}
}

// A process killed with SIGKILL mid-life leaves a store that opens with every completed write:
// a child test process writes headers and heads, then kills itself without closing.
func TestSurvivesKill(t *testing.T) {
	hs, _ := chain5Headers(t)
	if dir := os.Getenv("STORE_KILL_DIR"); dir != "" {
		db, err := Open(dir, Options{})
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
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // wait for the signal
	}

	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSurvivesKill$")
	cmd.Env = append(os.Environ(), "STORE_KILL_DIR="+dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v\n%s", err, out)
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer db.Close()
	if n := len(scanAll(t, db, 5, Position{})); n != len(hs) {
		t.Fatalf("recovered %d headers, want %d", n, len(hs))
	}
	heads, err := db.Heads()
	if err != nil || heads[5] != hs[len(hs)-1].Hash {
		t.Fatalf("heads after kill: %v %v", heads, err)
	}
	if _, err := db.Header(heads[5]); err != nil {
		t.Fatalf("head header after kill: %v", err)
	}
}
