package state

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// Verify finds rows and block records that a damaged or deleted goleveldb table took away,
// which reads cannot tell from rows never written.
func TestVerifyFindsLostRows(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	v := openVersioned(t, ldb, "chain-0/")
	for h := uint64(0); h < 4; h++ {
		// Block h applies to the state as of block h-1 (an empty state for the first).
		w := v.View(max(h, 1) - 1)
		if h == 0 {
			if err := w.CreateTable("free.t"); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range []string{"a", "b"} {
			if err := w.Write(db.KeySets, "", k, eval.String(k+string(rune('0'+h))), db.Write); err != nil {
				t.Fatal(err)
			}
		}
		if err := v.Apply(w, h); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := v.Verify()
	if err != nil || !whole.Whole() || whole.Blocks != 4 || whole.Rows < 8 {
		t.Fatalf("intact state: %+v %v", whole, err)
	}
	// A row version of block 2 and the record of block 1 go, as with a lost table.
	_, keys, err := v.blockRecord(2, true)
	if err != nil || len(keys) == 0 {
		t.Fatalf("block 2 record: %v %v", keys, err)
	}
	if err := ldb.Delete(v.versionKey(keys[0], 2), nil); err != nil {
		t.Fatal(err)
	}
	if err := ldb.Delete(v.key(vBlock, be64(1)), nil); err != nil {
		t.Fatal(err)
	}
	whole, err = v.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if whole.Whole() || whole.MissingRows != 1 || whole.FirstMissingRow != 2 || whole.MissingBlockCount != 1 || whole.MissingBlocks[0] != 1 {
		t.Fatalf("damaged state: %+v", whole)
	}
	t.Log(whole)
}
