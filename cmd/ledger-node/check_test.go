package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/store"
)

// Damaged data directories (issue 19): each kind of damage is reported by `ledger-node check`,
// and then either repaired when the node starts (which then serves every list page of every
// chain without a 5xx, and goes on mining) or refused with a message naming the file and the
// command that repairs it.

// minedDir runs a mining node until every chain is at height 6 or more, stops it cleanly and
// returns its data directory, to be copied and damaged.
func minedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	n := startMiningNodeArgs(t, damageArgs(dir)...)
	waitCut(t, n.url, 6)
	n.stop()
	return dir
}

func damageArgs(dir string) []string {
	return []string{"--data-dir", dir, "--block-delay", "2s", "--miner-account", "alice", "--miner-key", testMinerKey}
}

// copyDataDir copies src into a new directory.
func copyDataDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// runCmd runs the command line args and returns its exit code and output.
func runCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// logRecordsEnd is the end of the header log's records (the first zero length).
func logRecordsEnd(t *testing.T, dir string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "headers.log"))
	if err != nil {
		t.Fatal(err)
	}
	off := 32
	for off+2 <= len(b) && (b[off] != 0 || b[off+1] != 0) {
		off += 6 + (int(b[off]) | int(b[off+1])<<8)
	}
	return int64(off)
}

// servesAndMines starts a node on dir and checks that every list page of every chain answers
// 200 and that the cut grows.
func servesAndMines(t *testing.T, dir string) {
	t.Helper()
	n := startMiningNodeArgs(t, damageArgs(dir)...)
	defer n.stop()
	start := fetchCut(t, n.url)
	for c := range 20 {
		for _, list := range []string{"hash", "header", "block"} {
			url := fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/%s?limit=1000", n.url, c, list)
			resp, err := http.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
			}
		}
	}
	low, _ := cutRange(start)
	waitCut(t, n.url, low+2)
	if e := n.node.svc.InternalErrors(); e != 0 {
		t.Fatalf("%d internal errors", e)
	}
}

func TestDamagedDataDirectory(t *testing.T) {
	t.Parallel() // mostly waits on other processes and peers: it overlaps with the other slow ones
	base := minedDir(t)
	if code, out, errOut := runCmd("check", "--data-dir", base); code != 0 {
		t.Fatalf("check of a healthy directory: exit %d\n%s%s", code, out, errOut)
	}
	journal := func(dir string) string {
		m, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9][0-9][0-9][0-9][0-9].log"))
		if len(m) == 0 {
			t.Fatal("no goleveldb journal")
		}
		return m[len(m)-1] // the newest
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		report string // in check's output
	}{
		{"random bytes at several offsets of headers.log", func(t *testing.T, dir string) {
			end := logRecordsEnd(t, dir)
			f, err := os.OpenFile(filepath.Join(dir, "headers.log"), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := rand.New(rand.NewPCG(1, 2))
			for _, frac := range []int64{30, 60, 90} {
				junk := make([]byte, 512)
				for i := range junk {
					junk[i] = byte(r.Uint32())
				}
				if _, err := f.WriteAt(junk, end*frac/100); err != nil {
					t.Fatal(err)
				}
			}
		}, "DAMAGED   headers.log: "},
		{"truncated headers.log", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, "headers.log"), logRecordsEnd(t, dir)/2); err != nil {
				t.Fatal(err)
			}
		}, "DAMAGED   headers.log: "},
		{"headers.log damaged from its first record", func(t *testing.T, dir string) {
			// Every header lost, genesis blocks included: the node stores them again, replays
			// the Pact states from genesis, and mines on. (Without headers.parity, which would
			// restore them: TestParityRepairsLogDamage.)
			os.Remove(filepath.Join(dir, "headers.parity"))
			f, err := os.OpenFile(filepath.Join(dir, "headers.log"), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(bytes.Repeat([]byte{0xee}, 100), 40); err != nil {
				t.Fatal(err)
			}
		}, "DAMAGED   headers.log: 0 intact records"},
		{"emptied headers.idx", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, "headers.idx"), 0); err != nil {
				t.Fatal(err)
			}
		}, "DAMAGED   headers.idx: unusable"},
		{"truncated goleveldb journal", func(t *testing.T, dir string) {
			j := journal(dir)
			st, err := os.Stat(j)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(j, st.Size()*2/3); err != nil {
				t.Fatal(err)
			}
		}, "DAMAGED   goleveldb journal "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDataDir(t, base)
			tc.damage(t, dir)
			code, out, errOut := runCmd("check", "--data-dir", dir)
			if code != 1 || !strings.Contains(out, tc.report) || !strings.Contains(out, "the node repairs it when it starts") {
				t.Fatalf("check: exit %d, want 1 and %q\n%s%s", code, tc.report, out, errOut)
			}
			servesAndMines(t, dir)
			if code, out, errOut := runCmd("check", "--data-dir", dir); code != 0 {
				t.Fatalf("check after the repairing start: exit %d\n%s%s", code, out, errOut)
			}
		})
	}

	// goleveldb's manifest emptied: the node refuses, naming the file and the command; repair
	// rebuilds it, and the node then starts.
	t.Run("emptied goleveldb manifest", func(t *testing.T) {
		dir := copyDataDir(t, base)
		m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
		if len(m) != 1 {
			t.Fatalf("manifests: %v", m)
		}
		if err := os.Truncate(m[0], 0); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd("check", "--data-dir", dir)
		if code != 1 || !strings.Contains(out, "DAMAGED!  goleveldb: cannot open") || !strings.Contains(out, filepath.Base(m[0])) ||
			!strings.Contains(out, "run `ledger-node repair --data-dir "+dir+"`") {
			t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
		}
		code, _, errOut = runCmd(append(damageArgs(dir), "--service-port", "0", "--p2p-port", "0", "--log-level", "error")...)
		if code != 1 || !strings.Contains(errOut, filepath.Base(m[0])) || !strings.Contains(errOut, "ledger-node repair --data-dir "+dir) {
			t.Fatalf("start on a damaged manifest: exit %d\n%s", code, errOut)
		}
		code, out, errOut = runCmd("repair", "--data-dir", dir)
		if code != 0 || !strings.Contains(out, "is healthy") {
			t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
		}
		servesAndMines(t, dir)
	})

	// repair does at once what a start would do for a cut log, and leaves nothing for the start.
	t.Run("repair of a truncated headers.log", func(t *testing.T) {
		dir := copyDataDir(t, base)
		if err := os.Truncate(filepath.Join(dir, "headers.log"), logRecordsEnd(t, dir)/3); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd("repair", "--data-dir", dir)
		if code != 0 || !strings.Contains(out, "repaired: headers.log cut at offset") || !strings.Contains(out, "repaired: heads of chains") ||
			!strings.Contains(out, "is healthy") {
			t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
		}
		servesAndMines(t, dir)
	})
}

func TestCheckUsage(t *testing.T) {
	for _, args := range [][]string{{"check"}, {"check", "--data-dir"}, {"repair"}, {"check", "--data-dir", "x", "extra"}, {"check", "--bogus"}} {
		if code, _, errOut := runCmd(args...); code != 2 || errOut == "" {
			t.Errorf("%q: exit %d, %q", args, code, errOut)
		}
	}
	if code, _, errOut := runCmd("check", "--data-dir", t.TempDir()); code != 2 || !strings.Contains(errOut, "not a data directory") {
		t.Errorf("check of an empty directory: exit %d, %q", code, errOut)
	}
	// A running node holds its directory: check says so instead of reading a moving store.
	dir := t.TempDir()
	n := startNodeScoped(t, dir)
	defer n.stop()
	if code, _, errOut := runCmd("check", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "stop the node first") {
		t.Errorf("check of a running node's directory: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCmd("repair", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "stop the node first") {
		t.Errorf("repair of a running node's directory: exit %d, %q", code, errOut)
	}
}

// tabledCopy copies src and has goleveldb write its rows into tables (a node that stopped
// cleanly may still hold them in the journal alone), so that a table can be damaged.
func tabledCopy(t *testing.T, src string) string {
	t.Helper()
	dir := copyDataDir(t, src)
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Compact(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.ldb")); len(m) == 0 {
		t.Fatal("no goleveldb table after compaction")
	}
	return dir
}

// refusesLost starts a node on dir and wants it refused as a directory that lost data, naming
// restore.
func refusesLost(t *testing.T, dir string) {
	t.Helper()
	code, _, errOut := runCmd(append(damageArgs(dir), "--service-port", "0", "--p2p-port", "0", "--log-level", "error")...)
	if code != 1 || !strings.Contains(errOut, "data lost") || !strings.Contains(errOut, "has lost data that no repair brings back") ||
		!strings.Contains(errOut, "ledger-node restore") {
		t.Fatalf("start on a directory that lost data: exit %d\n%s", code, errOut)
	}
}

// Issue 32: goleveldb data lost (a deleted table, damaged blocks of one, rows gone) is never
// called healthy. What the log and the payloads can rebuild is rebuilt (a Pact state is
// replayed from genesis); what they cannot is reported as lost, repair exits 1, and the node
// refuses to start, naming restore.
func TestLostGoleveldbData(t *testing.T) {
	t.Parallel() // waits on node processes: it overlaps with the other slow ones
	base := minedDir(t)

	t.Run("deleted tables", func(t *testing.T) {
		dir := tabledCopy(t, base)
		tables, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
		for _, tb := range tables {
			if err := os.Remove(tb); err != nil {
				t.Fatal(err)
			}
		}
		// Before any repair the node refuses (goleveldb cannot open a table its manifest names).
		if code, out, _ := runCmd("check", "--data-dir", dir); code != 1 || !strings.Contains(out, "DAMAGED") {
			t.Fatalf("check: exit %d\n%s", code, out)
		}
		code, out, errOut := runCmd("repair", "--data-dir", dir)
		if code != 1 || !strings.Contains(out, "LOST      goleveldb: no network record, yet headers.log holds") ||
			strings.Contains(out, "is healthy") || !strings.Contains(out, "marked "+dir+" as having lost data") {
			t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
		}
		refusesLost(t, dir)
	})

	t.Run("lost Pact state rows", func(t *testing.T) {
		// A lost part of a table that held only chain 0's Pact state: the payloads rebuild it.
		dir := copyDataDir(t, base)
		db, err := store.Open(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		space := db.PactSpace(0)
		versions := append(space.Prefix(), 0x02) // chain/state's row versions
		it := space.NewIterator(versions, kv.PrefixEnd(versions))
		var b kv.Batch
		for i := 0; it.Next(); i++ {
			if i%2 == 0 {
				b.Delete(slices.Clone(it.Key()))
			}
		}
		it.Release()
		if b.Len() == 0 {
			t.Fatal("chain 0's Pact state has no rows")
		}
		if err := space.Write(&b); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if code, out, _ := runCmd("check", "--data-dir", dir); code != 1 || !strings.Contains(out, "Pact state of chain 0: ") ||
			!strings.Contains(out, "row versions they list are missing") {
			t.Fatalf("check: exit %d\n%s", code, out)
		}
		code, out, errOut := runCmd("repair", "--data-dir", dir)
		if code != 0 || !strings.Contains(out, "repaired: Pact states of chains [0] had lost rows") || !strings.Contains(out, "is healthy") {
			t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
		}
		// The node replays chain 0 from genesis: the coin contract is there again, and it mines.
		n := startMiningNodeArgs(t, damageArgs(dir)...)
		defer n.stop()
		if bal := backupBalance(t, n.url, 0, "sender00", 0); bal.Sign() <= 0 {
			t.Fatalf("sender00 on chain 0 after the replay: %v", bal)
		}
		low, _ := cutRange(fetchCut(t, n.url))
		waitCut(t, n.url, low+2)
	})

	t.Run("random bytes in a table", func(t *testing.T) {
		dir := tabledCopy(t, base)
		tables, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
		r := rand.New(rand.NewPCG(3, 4))
		f, err := os.OpenFile(tables[0], os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		junk := make([]byte, 128)
		for i := range junk {
			junk[i] = byte(r.Uint32())
		}
		if _, err := f.WriteAt(junk, st.Size()/2); err != nil {
			t.Fatal(err)
		}
		f.Close()
		code, out, errOut := runCmd("repair", "--data-dir", dir)
		if !strings.Contains(out, "repaired: goleveldb table "+filepath.Base(tables[0])+": ") {
			t.Fatalf("repair did not salvage the table: exit %d\n%s%s", code, out, errOut)
		}
		// Whatever the damaged block held decides: lost payloads (refused), or only rows the
		// log and payloads rebuild (the node then runs). Never healthy over loss.
		switch {
		case code == 1 && strings.Contains(out, "LOST"):
			t.Log("the damaged block held payloads: lost")
			refusesLost(t, dir)
		case code == 0 && strings.Contains(out, "is healthy") && !strings.Contains(out, "LOST"):
			t.Log("the damaged block held rows the log and payloads rebuild")
			servesAndMines(t, dir)
		default:
			t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
		}
	})
}
