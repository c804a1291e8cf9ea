package state

import (
	"errors"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
)

// Records added to an applied block are read as of that block and above, dropped by a rewind
// below it and kept by one above, and survive a reopening; DropMeta drops only the names with
// its prefixes; RewriteMeta replaces them, for several blocks at once.
func TestRewriteMeta(t *testing.T) {
	dir := t.TempDir()
	ldb := openLevel(t, dir)
	defer func() { ldb.Close() }()
	v := openVersioned(t, ldb, "r/")
	for h := uint64(0); h < 4; h++ {
		var w db.DB
		if h == 0 {
			w = v.View(0)
		} else {
			w = v.View(h - 1)
		}
		if err := w.(*View).PutMeta("b", []byte{byte('0' + h)}); err != nil {
			t.Fatal(err)
		}
		if h == 1 {
			if err := w.(*View).PutMeta("tc:old", []byte("stale")); err != nil {
				t.Fatal(err)
			}
		}
		if err := v.Apply(w, h); err != nil {
			t.Fatal(err)
		}
	}

	// Block 1's index record replaced, block 2 given one, in one call.
	if err := v.DropMeta(1, "tc:", "te:"); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, v.View(3), "tc:old", "", false)
	wantMeta(t, v.View(1), "b", "1", true) // another name stays
	if err := v.RewriteMeta(1, []map[string][]byte{{"tc:new": []byte("b")}, {"tc:new": []byte("c")}}); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, v.View(0), "tc:new", "", false)
	wantMeta(t, v.View(1), "tc:new", "b", true)
	wantMeta(t, v.View(3), "tc:new", "c", true)

	// Refused: blocks above the state.
	if err := v.RewriteMeta(3, []map[string][]byte{{}, {}}); !errors.Is(err, ErrHeight) {
		t.Fatalf("RewriteMeta above the state: %v", err)
	}
	if err := v.DropMeta(9, "tc:"); !errors.Is(err, ErrHeight) {
		t.Fatalf("DropMeta above the state: %v", err)
	}

	// Block 2's records replaced: its tc: record dropped by prefix (block 1's shows), one
	// record added, another name kept.
	if err := v.RewriteMeta(2, []map[string][]byte{{"te:x": []byte("x2")}}, "tc:"); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, v.View(2), "tc:new", "b", true)
	wantMeta(t, v.View(2), "te:x", "x2", true)
	wantMeta(t, v.View(1), "te:x", "", false)
	wantMeta(t, v.View(2), "b", "2", true)

	// A rewind to 1 drops block 2's records, keeps block 1's; after a reopening too.
	if err := v.Rewind(1); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, v.View(1), "tc:new", "b", true)
	// Another block 2: the dropped block's record is gone from its height.
	w2 := v.View(1)
	if err := w2.(*View).PutMeta("b", []byte("2'")); err != nil {
		t.Fatal(err)
	}
	if err := v.Apply(w2, 2); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, v.View(2), "tc:new", "b", true)
	wantMeta(t, v.View(2), "te:x", "", false)
	if err := v.Rewind(1); err != nil {
		t.Fatal(err)
	}
	ldb.Close()
	ldb = openLevel(t, dir)
	v = openVersioned(t, ldb, "r/")
	wantMeta(t, v.View(1), "tc:new", "b", true)
	if err := v.Rewind(0); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, v.View(0), "tc:new", "", false)
	wantMeta(t, v.View(0), "b", "0", true)
}
