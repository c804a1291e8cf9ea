package state

import (
	"errors"
	"testing"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist"
)

// The newest-version index answers reads at the state's height with point reads, follows
// applies and rewinds, leaves reads below the height to the seek, and remembers absent keys.
func TestNewestIndex(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	v := openVersioned(t, ldb, "n/")
	write := func(w db.DB, kv ...string) {
		t.Helper()
		for i := 0; i < len(kv); i += 2 {
			if err := w.Write(db.UserTable, "t", kv[i], eval.String(kv[i+1]), db.Write); err != nil {
				t.Fatal(err)
			}
		}
	}
	apply := func(h uint64, kv ...string) {
		t.Helper()
		w := v.View(max(h, 1) - 1)
		if h == 0 {
			if err := w.CreateTable("t"); err != nil {
				t.Fatal(err)
			}
		}
		write(w, kv...)
		if err := v.Apply(w, h); err != nil {
			t.Fatal(err)
		}
	}
	want := func(h uint64, k, val string) {
		t.Helper()
		got, ok, err := v.View(h).Read(db.UserTable, "t", k)
		if val == "" {
			if err != nil || ok {
				t.Fatalf("%s as of %d: %v %v %v, want absent", k, h, got, ok, err)
			}
			return
		}
		if err != nil || !ok || got != eval.String(val) {
			t.Fatalf("%s as of %d: %v %v %v, want %s", k, h, got, ok, err, val)
		}
	}
	known := func(k string, h uint64) bool {
		v.mu.RLock()
		defer v.mu.RUnlock()
		_, _, ok := v.lookupNewest(string(esc([]byte(space(db.UserTable, "t")), k)), h)
		return ok
	}
	apply(0, "k", "a0")
	apply(1, "k", "a1")
	apply(2, "z", "z2")
	if !known("k", 2) {
		t.Fatal("a key a block wrote is not indexed")
	}
	want(2, "k", "a1")
	want(1, "k", "a1")
	want(0, "k", "a0") // below its newest version: sought
	want(2, "nope", "")
	if !known("nope", 2) {
		t.Fatal("an absent key read at the height is not remembered")
	}

	// A rewind forgets the versions it drops; the branch applied after it is read.
	if err := v.Rewind(0); err != nil {
		t.Fatal(err)
	}
	v.cacheMu.Lock()
	_, stale := v.newest.Get(string(esc([]byte(space(db.UserTable, "t")), "k")))
	v.cacheMu.Unlock()
	if stale {
		t.Fatal("a dropped version is still indexed")
	}
	want(0, "k", "a0")
	// The new branch's block 1 leaves k alone: k's newest version is block 0's again.
	apply(1, "nope", "n1")
	want(1, "k", "a0")
	want(1, "nope", "n1")
	want(0, "nope", "")
	apply(2, "k", "b2")
	want(2, "k", "b2")

	// Reads at the height go by the index: a version it names that is not stored is corruption,
	// not an absent row.
	v.cacheMu.Lock()
	v.cache = persist.NewRowCache(persist.DefaultCacheEntries)
	v.cacheMu.Unlock()
	lk := string(esc([]byte(space(db.UserTable, "t")), "k"))
	if err := ldb.Delete(v.versionKey(lk, 2), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.View(2).Read(db.UserTable, "t", "k"); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("read of an indexed version that is gone: %v", err)
	}
}

// failingSpace fails its next Write after running during, as a disk might fail a batch.
type failingSpace struct {
	levelSpace
	fail   bool
	during func()
}

func (f *failingSpace) Write(b *kv.Batch) error {
	if f.fail {
		f.fail = false
		f.during()
		return errors.New("disk full")
	}
	return f.levelSpace.Write(b)
}

// A rewind whose deletion fails leaves the state as it was, and the index with it: what readers
// learnt at the lowered height while the deletion ran is forgotten.
func TestNewestIndexFailedRewind(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	sp := &failingSpace{levelSpace: levelSpace{ldb, []byte("f/")}}
	v, err := Open(sp)
	if err != nil {
		t.Fatal(err)
	}
	for h, val := range []string{"a0", "", "a2"} {
		w := v.View(max(uint64(h), 1) - 1)
		if h == 0 {
			if err := w.CreateTable("t"); err != nil {
				t.Fatal(err)
			}
		}
		key := "k"
		if val == "" {
			key, val = "z", "z1"
		}
		if err := w.Write(db.UserTable, "t", key, eval.String(val), db.Write); err != nil {
			t.Fatal(err)
		}
		if err := v.Apply(w, uint64(h)); err != nil {
			t.Fatal(err)
		}
	}
	read := func(h uint64) any {
		t.Helper()
		got, ok, err := v.View(h).Read(db.UserTable, "t", "k")
		if err != nil || !ok {
			t.Fatalf("k as of %d: %v %v", h, ok, err)
		}
		return got
	}
	sp.fail = true
	sp.during = func() {
		if got := read(1); got != eval.String("a0") {
			t.Fatalf("k as of 1 during the rewind: %v", got)
		}
	}
	if err := v.Rewind(1); err == nil {
		t.Fatal("the rewind's failed write went unreported")
	}
	if h, _ := v.Height(); h != 2 {
		t.Fatalf("height %d after a failed rewind, want 2", h)
	}
	if got := read(2); got != eval.String("a2") {
		t.Fatalf("k as of 2 after a failed rewind: %v, want a2", got)
	}
}
