package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

func TestZZExplore(t *testing.T) {
	for _, dmg := range []string{"truncate-journal", "empty-journal", "empty-manifest", "empty-current", "garbage-journal", "empty-ldb", "garbage-ldb"} {
		dir := t.TempDir()
		db, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		hs := synthHeaders(t, 300, 1, 1)
		for _, h := range hs {
			db.PutHeaders(h)
		}
		if strings.Contains(dmg, "ldb") {
			db.Compact()
		}
		db.Close()
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			st, _ := e.Info()
			names = append(names, fmt.Sprintf("%s:%d", e.Name(), st.Size()))
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			st, _ := e.Info()
			switch {
			case dmg == "truncate-journal" && strings.HasSuffix(e.Name(), ".log") && e.Name() != "headers.log":
				os.Truncate(p, st.Size()/2+3)
			case dmg == "empty-journal" && strings.HasSuffix(e.Name(), ".log") && e.Name() != "headers.log":
				os.Truncate(p, 0)
			case dmg == "garbage-journal" && strings.HasSuffix(e.Name(), ".log") && e.Name() != "headers.log":
				f, _ := os.OpenFile(p, os.O_RDWR, 0)
				f.WriteAt([]byte(strings.Repeat("x", 100)), st.Size()/3)
				f.Close()
			case dmg == "empty-manifest" && strings.HasPrefix(e.Name(), "MANIFEST"):
				os.Truncate(p, 0)
			case dmg == "empty-current" && e.Name() == "CURRENT":
				os.Truncate(p, 0)
			case dmg == "empty-ldb" && strings.HasSuffix(e.Name(), ".ldb"):
				os.Truncate(p, 0)
			case dmg == "garbage-ldb" && strings.HasSuffix(e.Name(), ".ldb"):
				f, _ := os.OpenFile(p, os.O_RDWR, 0)
				f.WriteAt([]byte(strings.Repeat("x", 100)), st.Size()/3)
				f.Close()
			}
		}
		db, err = Open(dir, Options{})
		t.Logf("%s: files %v\n  open: %v", dmg, names, err)
		if err == nil {
			n := 0
			cerr := db.ScanChain(1, Position{}, func(*ledger.Header) bool { n++; return true })
			t.Logf("  scan: %d %v", n, cerr)
			db.Close()
		}
	}
}
