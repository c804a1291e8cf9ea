package state

import (
	"errors"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist"
)

// wantMeta checks Meta(name) on w.
func wantMeta(t *testing.T, w db.DB, name string, want string, wantOK bool) {
	t.Helper()
	got, ok, err := w.(*View).Meta(name)
	if err != nil || ok != wantOK || (ok && (string(got) != want || got == nil)) {
		t.Fatalf("meta %q as of %d = %q %v %v, want %q %v", name, w.(*View).Base(), got, ok, err, want, wantOK)
	}
}

// Metadata is versioned with the blocks, dropped by a rewind, kept across
// a reopening, and no part of the Pact state or its tx logs.
func TestVersionedMeta(t *testing.T) {
	dir := t.TempDir()
	ldb := openLevel(t, dir)
	defer func() { ldb.Close() }()
	v := openVersioned(t, ldb, "m/")

	w0 := v.View(0)
	wantMeta(t, w0, "hash", "", false)
	buf := []byte("h0")
	if err := w0.(*View).PutMeta("hash", buf); err != nil {
		t.Fatal(err)
	}
	buf[1] = 'X' // the view keeps its own copy
	if err := w0.(*View).PutMeta("empty", nil); err != nil {
		t.Fatal(err)
	}
	wantMeta(t, w0, "hash", "h0", true)
	wantMeta(t, w0, "empty", "", true)

	// Refused inside a transaction, and never in its log; readable there.
	if err := w0.CreateTable("t"); err != nil {
		t.Fatal(err)
	}
	if _, err := w0.BeginTx(db.Transactional); err != nil {
		t.Fatal(err)
	}
	if err := w0.(*View).PutMeta("rk:a", []byte("0")); !errors.Is(err, db.ErrInTx) {
		t.Fatalf("put meta in a tx: %v", err)
	}
	wantMeta(t, w0, "hash", "h0", true)
	if err := w0.Write(db.UserTable, "t", "a", row("a0"), db.Write); err != nil {
		t.Fatal(err)
	}
	log, err := w0.CommitTx()
	if err != nil || len(log) != 1 || log[0].Key != "a" {
		t.Fatalf("tx log %+v %v", log, err)
	}
	wantMeta(t, w0, "rk:a", "", false)
	if err := v.Apply(w0, 0); err != nil {
		t.Fatal(err)
	}

	w1 := v.View(0)
	wantMeta(t, w1, "hash", "h0", true)
	if err := w1.(*View).PutMeta("hash", []byte("h1")); err != nil {
		t.Fatal(err)
	}
	if err := w1.(*View).PutMeta("rk:a", []byte("1")); err != nil {
		t.Fatal(err)
	}
	// A tx after metadata was written logs only its own writes.
	if _, err := w1.BeginTx(db.Transactional); err != nil {
		t.Fatal(err)
	}
	if err := w1.Write(db.UserTable, "t", "b", row("b1"), db.Write); err != nil {
		t.Fatal(err)
	}
	if log, err := w1.CommitTx(); err != nil || len(log) != 1 || log[0].Key != "b" {
		t.Fatalf("tx log %+v %v", log, err)
	}
	if err := v.Apply(w1, 1); err != nil {
		t.Fatal(err)
	}
	w2 := v.View(1)
	if err := w2.(*View).PutMeta("hash", []byte("h2")); err != nil {
		t.Fatal(err)
	}
	if err := v.Apply(w2, 2); err != nil {
		t.Fatal(err)
	}

	for h, want := range []string{"h0", "h1", "h2"} {
		w := v.View(uint64(h))
		wantMeta(t, w, "hash", want, true)
		wantMeta(t, w, "rk:a", "1", h >= 1)
		wantMeta(t, w, "empty", "", true)
		// Metadata is not Pact data: no domain or table lists it.
		for d := db.Domain(0); int(d) < persist.NumDomains; d++ {
			if d == db.UserTable {
				continue
			}
			if ks, err := w.Keys(d, ""); err != nil || len(ks) != 0 {
				t.Fatalf("as of %d: %v keys %q %v", h, d, ks, err)
			}
		}
		if ks, err := w.Keys(db.UserTable, "t"); err != nil || len(ks) != min(h+1, 2) {
			t.Fatalf("as of %d: keys %q %v", h, ks, err)
		}
	}
	// Metadata is not seen through the row cache either.
	v.cacheMu.Lock()
	for h := uint64(0); h <= 2; h++ {
		for _, name := range []string{"hash", "empty", "rk:a"} {
			if _, ok := v.cache.Get(string(v.versionKey(lMetaKey(name), h))); ok {
				t.Fatalf("metadata %q of block %d cached", name, h)
			}
		}
	}
	// The rows are cached under the same kind of key, so the check above can see one.
	if _, ok := v.cache.Get(string(v.versionKey(string(esc([]byte(space(db.UserTable, "t")), "a")), 0))); !ok {
		t.Fatal("row a of block 0 not cached: the check of metadata cannot fail")
	}
	v.cacheMu.Unlock()

	// A rewind drops the metadata of the blocks it drops, and a view of
	// a dropped block fails rather than read the new branch.
	stale := v.View(2)
	if err := v.Rewind(0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := stale.(*View).Meta("hash"); !errors.Is(err, ErrStaleView) {
		t.Fatalf("meta through a stale view: %v", err)
	}
	wantMeta(t, v.View(0), "hash", "h0", true)
	wantMeta(t, v.View(0), "rk:a", "", false)
	w1 = v.View(0)
	if err := v.Apply(w1, 1); err != nil { // a block without metadata
		t.Fatal(err)
	}
	wantMeta(t, v.View(1), "hash", "h0", true)
	wantMeta(t, v.View(1), "rk:a", "", false)
	if _, _, err := stale.(*View).Meta("hash"); !errors.Is(err, ErrStaleView) {
		t.Fatalf("meta through a stale view after a new block: %v", err)
	}
	w2 = v.View(1)
	if err := w2.(*View).PutMeta("rk:a", []byte("2'")); err != nil {
		t.Fatal(err)
	}
	if err := v.Apply(w2, 2); err != nil {
		t.Fatal(err)
	}

	// Everything survives reopening.
	ldb.Close()
	ldb = openLevel(t, dir)
	v = openVersioned(t, ldb, "m/")
	wantMeta(t, v.View(0), "hash", "h0", true)
	wantMeta(t, v.View(1), "rk:a", "", false)
	wantMeta(t, v.View(2), "rk:a", "2'", true)
	wantMeta(t, v.View(2), "empty", "", true)
	if r, ok, err := v.View(2).Read(db.UserTable, "t", "a"); err != nil || !ok || eval.Pretty(r.(eval.Value)) != `{"v": "a0"}` {
		t.Fatalf("row after reopen: %v %v %v", r, ok, err)
	}

	// A view that could not be made fails with its error.
	bad := v.View(9)
	if err := bad.(*View).PutMeta("x", nil); !errors.Is(err, ErrHeight) {
		t.Fatalf("put meta on a view above the height: %v", err)
	}
	if _, _, err := bad.(*View).Meta("x"); !errors.Is(err, ErrHeight) {
		t.Fatalf("meta on a view above the height: %v", err)
	}
}

// Every read of stored state through a view whose block was rewound
// fails with ErrStaleView, also once the height is applied again; views
// at or below the fork point keep reading their state.
func TestVersionedStaleViewReads(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	v := openVersioned(t, ldb, "s/")
	block(t, v, 0, 0, "k", "0")
	block(t, v, 1, 1, "k", "1")
	block(t, v, 2, 2, "k", "2")
	stale, kept, below := v.View(2), v.View(1), v.View(0)
	if r, _, err := stale.Read(db.UserTable, "t", "k"); err != nil || eval.Pretty(r.(eval.Value)) != `{"v": "2"}` {
		t.Fatalf("read before the rewind: %v %v", r, err)
	}
	if err := v.Rewind(1); err != nil {
		t.Fatal(err)
	}
	block(t, v, 2, 2, "k", "2'")

	wantStale := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrStaleView) {
			t.Fatalf("%s through a stale view: %v", what, err)
		}
	}
	_, _, err := stale.Read(db.UserTable, "t", "k")
	wantStale("read", err)
	_, err = stale.Keys(db.UserTable, "t")
	wantStale("keys", err)
	wantStale("insert", stale.Write(db.UserTable, "t", "new", row("x"), db.Insert))
	wantStale("create-table", stale.CreateTable("t2")) // existence is not cached yet
	_, _, err = stale.(*View).ModuleVersion(eval.ModuleName{Name: "m"}, "h")
	wantStale("module version", err)
	if stale.HasTable("t3") {
		t.Fatal("a stale view has a table")
	}
	// Its own writes still read back (to a table it knew of before the
	// rewind): they are not stored state.
	if err := stale.Write(db.UserTable, "t", "k", row("mine"), db.Write); err != nil {
		t.Fatal(err)
	}
	if r, _, err := stale.Read(db.UserTable, "t", "k"); err != nil || eval.Pretty(r.(eval.Value)) != `{"v": "mine"}` {
		t.Fatalf("own write through a stale view: %v %v", r, err)
	}

	for w, want := range map[db.DB]string{kept: `{"v": "1"}`, below: `{"v": "0"}`, v.View(2): `{"v": "2'"}`} {
		if r, ok, err := w.Read(db.UserTable, "t", "k"); err != nil || !ok || eval.Pretty(r.(eval.Value)) != want {
			t.Fatalf("as of %d: %v %v %v, want %s", w.(*View).Base(), r, ok, err, want)
		}
	}
}

// Metas reads what Meta reads, record by record, at every height: from a view's own writes,
// from the newest-version index, and through its one shared iterator (a reopened state knows
// no versions), for names that are prefixes of one another, empty values, repeats and names
// never written.
func TestMetasAgreeWithMeta(t *testing.T) {
	dir := t.TempDir()
	ldb := openLevel(t, dir)
	defer func() { ldb.Close() }()
	v := openVersioned(t, ldb, "m/")
	writes := []map[string]string{
		{"rk:a": "a0", "empty": ""},
		{"rk:ab": "ab1"},
		{"rk:a": "a2", "rk:": "root2"},
		{"rk:b": "b3", "rk:ab": "ab3"},
	}
	for h, ws := range writes {
		base := uint64(0) // block 0 builds on the empty state
		if h > 0 {
			base = uint64(h - 1)
		}
		w := v.View(base)
		for name, val := range ws {
			if err := w.(*View).PutMeta(name, []byte(val)); err != nil {
				t.Fatal(err)
			}
		}
		if err := v.Apply(w, uint64(h)); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"rk:ab", "rk:a", "nope", "rk:", "empty", "rk:b", "rk:a", "rk:abc", "r"}
	check := func(w *View, when string) {
		t.Helper()
		vals, found, err := w.Metas(names)
		if err != nil {
			t.Fatalf("%s: Metas: %v", when, err)
		}
		for i, name := range names {
			want, ok, err := w.Meta(name)
			if err != nil {
				t.Fatal(err)
			}
			if found[i] != ok || string(vals[i]) != string(want) || (ok && vals[i] == nil) {
				t.Errorf("%s, as of %d: Metas %q = %q %v, Meta %q %v", when, w.Base(), name, vals[i], found[i], want, ok)
			}
		}
	}
	for round, when := range []string{"reopened", "warm"} {
		if round == 0 {
			ldb.Close()
			ldb = openLevel(t, dir)
			v = openVersioned(t, ldb, "m/")
		}
		for h := range uint64(len(writes)) {
			check(v.View(h).(*View), when)
		}
	}
	w := v.View(3).(*View)
	if err := w.PutMeta("rk:a", []byte("a4")); err != nil {
		t.Fatal(err)
	}
	check(w, "with the view's own write")
	if vals, found, _ := w.Metas([]string{"rk:a", "rk:ab", "nope"}); string(vals[0]) != "a4" || string(vals[1]) != "ab3" || found[2] {
		t.Errorf("Metas %q %v", vals, found)
	}
}
