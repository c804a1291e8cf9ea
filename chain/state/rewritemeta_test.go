package state

import (
	"errors"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
)

// Records added to an applied block are read as of that block and above, dropped by a rewind
// below it and kept by one above, and survive a reopening; DropMeta drops only the names with
// its prefixes; RewriteMeta replaces them from a view of the block or the one below, and refuses
// Pact writes and a view of another block.
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

	// Block 1's index record replaced, block 2 given one.
	if err := v.DropMeta(1, "tc:", "te:"); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, v.View(3), "tc:old", "", false)
	wantMeta(t, v.View(1), "b", "1", true) // another name stays
	for _, h := range []uint64{1, 2} {
		w := v.View(h).(*View)
		if err := w.PutMeta("tc:new", []byte{byte('a' + h)}); err != nil {
			t.Fatal(err)
		}
		if err := v.RewriteMeta(h, w); err != nil {
			t.Fatal(err)
		}
	}
	wantMeta(t, v.View(0), "tc:new", "", false)
	wantMeta(t, v.View(1), "tc:new", "b", true)
	wantMeta(t, v.View(3), "tc:new", "c", true)

	// Refused: a Pact write, a view of another block, a block above the state.
	w := v.View(2)
	if err := w.CreateTable("t"); err != nil {
		t.Fatal(err)
	}
	if err := v.RewriteMeta(2, w.(*View)); err == nil {
		t.Fatal("RewriteMeta took a view with a Pact write")
	}
	if err := v.RewriteMeta(1, v.View(2).(*View)); !errors.Is(err, ErrHeight) {
		t.Fatalf("RewriteMeta of a view above the block: %v", err)
	}
	if err := v.RewriteMeta(3, v.View(1).(*View)); !errors.Is(err, ErrHeight) {
		t.Fatalf("RewriteMeta of a view two blocks below: %v", err)
	}

	// From the block below: block 2's record replaced (its old one dropped by prefix), one
	// record added; block 1's is what the view reads.
	below := v.View(1).(*View)
	wantMeta(t, below, "tc:new", "b", true)
	if err := below.PutMeta("te:x", []byte("x2")); err != nil {
		t.Fatal(err)
	}
	if err := v.RewriteMeta(2, below, "tc:"); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, v.View(2), "tc:new", "b", true) // block 2's own dropped: block 1's shows
	wantMeta(t, v.View(2), "te:x", "x2", true)
	wantMeta(t, v.View(1), "te:x", "", false)
	wantMeta(t, v.View(2), "b", "2", true)
	if err := v.DropMeta(9, "tc:"); !errors.Is(err, ErrHeight) {
		t.Fatalf("DropMeta above the state: %v", err)
	}

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
