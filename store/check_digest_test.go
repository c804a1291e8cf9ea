package store

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"
)

// Check compares the indexes with the log through digests and reads records only when they
// differ: each kind of index damage must still be found, and counted as before.

func TestCheckFindsHeightIndexDamage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		damage   func(t *testing.T, ldb *leveldb.DB, dir string)
		severity Severity
		text     string
	}{
		{"entry deleted", func(t *testing.T, ldb *leveldb.DB, dir string) {
			hs, _ := chain5Headers(t)
			k := heightKey(5, hs[77].Height, hs[77].Hash)
			if err := ldb.Delete(k[:], nil); err != nil {
				t.Fatal(err)
			}
		}, NeedsRepair, "0 entries name another header than their key, 1 headers have no entry"},
		{"entry names another record", func(t *testing.T, ldb *leveldb.DB, dir string) {
			hs, _ := chain5Headers(t)
			offs := offsets(t, dir, hs)
			k := heightKey(5, hs[10].Height, hs[10].Hash)
			var v [8]byte
			binary.BigEndian.PutUint64(v[:], offs[11])
			if err := ldb.Put(k[:], v[:], nil); err != nil {
				t.Fatal(err)
			}
		}, NeedsRepair, "1 entries name another header than their key, 0 headers have no entry"},
		{"entry past the log", func(t *testing.T, ldb *leveldb.DB, dir string) {
			hs, _ := chain5Headers(t)
			k := heightKey(5, 1, hs[3].Hash)
			var v [8]byte
			binary.BigEndian.PutUint64(v[:], 1<<30)
			if err := ldb.Put(k[:], v[:], nil); err != nil {
				t.Fatal(err)
			}
		}, RepairedAtStart, "1 entries name headers lost from the log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := damageStore(t)
			ldb, err := leveldb.OpenFile(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			tc.damage(t, ldb, dir)
			ldb.Close()
			rep := checkReport(t, dir)
			if f := finding(rep, "height index"); f == nil || f.Severity != tc.severity || !strings.Contains(f.Text, tc.text) {
				t.Fatalf("check: %+v", rep.Findings)
			}
		})
	}
}

// A slot that names another header's record (its key no longer matches) is found.
func TestCheckFindsMisdirectedSlot(t *testing.T) {
	dir, hs := damageStore(t)
	offs := offsets(t, dir, hs)
	path := filepath.Join(dir, idxFileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w := words(b[idxHeaderSize:])
	for i := 0; i+1 < len(w); i += 2 {
		if w[i] != 0 && w[i+1] == offs[40] {
			w[i+1] = offs[41]
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := checkReport(t, dir)
	if f := finding(rep, idxFileName); f == nil || f.Severity != NeedsRepair || !strings.Contains(f.Text, "1 slots name no record of theirs, 1 records have no slot") {
		t.Fatalf("check: %+v", rep.Findings)
	}
}
