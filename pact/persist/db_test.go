package persist

import (
	"errors"
	"strings"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist/dbtest"
	"github.com/ledgernode/ledger-node/pact/value"
)

// openTest opens a database in a fresh directory, closed at the end of
// the test (whichever instance reopen left open).
func openTest(t *testing.T, cacheEntries int) *DB {
	t.Helper()
	d, err := open(t.TempDir(), cacheEntries)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// persistImpl is the conformance suite's view of DB, with reopening.
func persistImpl(cacheEntries int) dbtest.Impl {
	var cur *DB
	return dbtest.Impl{
		New: func(t *testing.T) db.DB {
			cur = openTest(t, cacheEntries)
			t.Cleanup(func() { cur.Close() })
			return cur
		},
		Reopen: func(t *testing.T, d db.DB) db.DB {
			t.Helper()
			p := d.(*DB)
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			n, err := open(p.Dir(), cacheEntries)
			if err != nil {
				t.Fatal(err)
			}
			cur = n
			return n
		},
	}
}

func TestConformanceMemDB(t *testing.T) {
	dbtest.Run(t, dbtest.Impl{New: func(*testing.T) db.DB { return db.NewMemDB() }})
}

func TestConformance(t *testing.T) {
	dbtest.Run(t, persistImpl(DefaultCacheEntries))
}

// A tiny cache: every read goes through eviction and goleveldb.
func TestConformanceTinyCache(t *testing.T) {
	dbtest.Run(t, persistImpl(1))
}

func TestOpenLockedAndForeign(t *testing.T) {
	d := openTest(t, 16)
	defer d.Close()
	if _, err := Open(d.Dir()); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}

	// A goleveldb directory that is not ours is refused, not adopted.
	dir := t.TempDir()
	ldb, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ldb.Put([]byte("foreign"), []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	ldb.Close()
	if _, err := Open(dir); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("Open of a foreign database: %v, want kv.ErrCorrupt", err)
	}
}

func TestCorruptRow(t *testing.T) {
	d := openTest(t, 16)
	defer d.Close()
	if err := d.CreateTable("t"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, {codecVersion}, {9, entryValue, tagInt, 2}, {codecVersion, entryValue, tagString, 5, 'a'}} {
		if err := d.ldb.Put(rowKey(userPrefix("t"), "k"), bad, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := d.Read(db.UserTable, "t", "k"); !errors.Is(err, kv.ErrCorrupt) {
			t.Fatalf("Read of %x: %v, want kv.ErrCorrupt", bad, err)
		}
	}
}

func TestUnstorableValue(t *testing.T) {
	d := openTest(t, 16)
	defer d.Close()
	if err := d.CreateTable("t"); err != nil {
		t.Fatal(err)
	}
	fn := &eval.Closure{}
	deep := value.Value(value.List{})
	for range maxDepth + 1 {
		deep = value.List{deep}
	}
	for _, v := range []any{fn, value.List{value.NewInt(1), fn}, deep, 42, (*value.Object)(nil)} {
		if err := d.Write(db.UserTable, "t", "k", v, db.Write); err == nil {
			t.Fatalf("Write of %T succeeded", v)
		}
		if _, err := d.BeginTx(db.Transactional); err != nil {
			t.Fatal(err)
		}
		if err := d.Write(db.UserTable, "t", "k", v, db.Write); err == nil {
			t.Fatalf("Write of %T in a tx succeeded", v)
		}
		log, err := d.CommitTx()
		if err != nil || len(log) != 0 {
			t.Fatalf("log %v, %v", log, err)
		}
		if _, ok, err := d.Read(db.UserTable, "t", "k"); ok || err != nil {
			t.Fatalf("a failed write left a row (%v)", err)
		}
	}
}

// Reads are served decoded from the cache: the same row read twice is the
// same object, and a committed write replaces it.
func TestReadCache(t *testing.T) {
	d := openTest(t, 16)
	if err := d.CreateTable("t"); err != nil {
		t.Fatal(err)
	}
	row := value.NewObject(value.Field{Key: "a", Val: value.NewInt(1)})
	if err := d.Write(db.UserTable, "t", "k", row, db.Insert); err != nil {
		t.Fatal(err)
	}
	read := func() any {
		t.Helper()
		v, ok, err := d.Read(db.UserTable, "t", "k")
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		return v
	}
	if read() != any(row) {
		t.Fatal("a write is not cached as written")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Open(d.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	first := read()
	if first == any(row) || !dbtest.Same(first, row) {
		t.Fatalf("after reopen: %v", first)
	}
	if _, err := d.BeginTx(db.Transactional); err != nil {
		t.Fatal(err)
	}
	if read() != first {
		t.Fatal("the same row decoded twice")
	}
	row2 := row.Set("a", value.NewInt(2))
	if err := d.Write(db.UserTable, "t", "k", row2, db.Update); err != nil {
		t.Fatal(err)
	}
	if read() != any(row2) {
		t.Fatal("a pending write is not read back as written")
	}
	if _, err := d.CommitTx(); err != nil {
		t.Fatal(err)
	}
	if read() != any(row2) {
		t.Fatal("a committed write is not cached")
	}
}

func TestNamespaceAndPactEntries(t *testing.T) {
	d := openTest(t, 16)
	ns := &eval.Namespace{Name: "free", User: value.NewKeySet([]string{"u"}, ""), Admin: &value.KeySetRef{Name: "admin", Namespace: "free"}}
	if err := d.Write(db.Namespaces, "", "free", ns, db.Write); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(db.DefPacts, "", "done", (*eval.PactExec)(nil), db.Write); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(db.KeySets, "", "nil", nil, db.Write); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Open(d.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	v, ok, err := d.Read(db.Namespaces, "", "free")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	got, isNS := v.(*eval.Namespace)
	if !isNS || got.Name != "free" || !value.StructEqual(got.User, ns.User) || !value.StructEqual(got.Admin, ns.Admin) {
		t.Fatalf("namespace: %#v", v)
	}
	v, ok, err = d.Read(db.DefPacts, "", "done")
	if pe, isPact := v.(*eval.PactExec); err != nil || !ok || !isPact || pe != nil {
		t.Fatalf("completed defpact: %#v %v %v", v, ok, err)
	}
	v, ok, err = d.Read(db.KeySets, "", "nil")
	if err != nil || !ok || v != nil {
		t.Fatalf("nil entry: %#v %v %v", v, ok, err)
	}
}

func TestKeysOfEmptyTable(t *testing.T) {
	d := openTest(t, 16)
	defer d.Close()
	if err := d.CreateTable("t"); err != nil {
		t.Fatal(err)
	}
	ks, err := d.Keys(db.UserTable, "t")
	if err != nil || ks == nil || len(ks) != 0 {
		t.Fatalf("Keys of an empty table: %#v, %v", ks, err)
	}
	// Table names with odd bytes keep separate key spaces.
	for _, name := range []string{"", "t\x00", "t\x01x", strings.Repeat("x", 300)} {
		if err := d.CreateTable(name); err != nil {
			t.Fatal(err)
		}
		if err := d.Write(db.UserTable, name, "k", value.String(name), db.Insert); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"", "t\x00", "t\x01x", strings.Repeat("x", 300)} {
		ks, err := d.Keys(db.UserTable, name)
		if err != nil || len(ks) != 1 || ks[0] != "k" {
			t.Fatalf("Keys(%q) = %q, %v", name, ks, err)
		}
	}
	if ks, _ := d.Keys(db.UserTable, "t"); len(ks) != 0 {
		t.Fatalf("t got rows of other tables: %q", ks)
	}
}

// Entries that lead back to themselves (only corrupt data does) are
// errors, not endless recursion.
func TestSelfReferentialEntries(t *testing.T) {
	d := openTest(t, 16)
	defer d.Close()
	mn := value.ModuleName{Name: "m"}
	def := &eval.Def{Kind: eval.DefPactKind, Name: "p", Module: &eval.Module{Name: mn, Hash: "h"}}
	pact, err := EncodeEntry(nil, &eval.PactExec{PactID: "x", Def: def}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A defpact state stored where its module should be.
	for _, k := range [][]byte{rowKey(d.sys[db.Modules], "m"), versionKey("m", "h"), rowKey(d.sys[db.DefPacts], "x")} {
		if err := d.ldb.Put(k, pact, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := d.Read(db.DefPacts, "", "x"); err == nil {
		t.Fatal("a defpact whose module is itself decoded")
	}
	if _, _, err := d.Read(db.Modules, "", "m"); err == nil {
		t.Fatal("a defpact stored as a module decoded")
	}
	// A module pinned to a version of itself.
	s := newStub()
	rec := eval.ModuleRecord{Name: mn, Hash: "h", Code: "(module m G (use m) (defcap G () true))",
		Deps: []eval.ModuleDep{{Name: mn, Hash: "h"}}}
	m, _ := s.RestoreModule(rec)
	b := encode(t, m, s)
	for _, k := range [][]byte{rowKey(d.sys[db.Modules], "m"), versionKey("m", "h")} {
		if err := d.ldb.Put(k, b, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := d.Read(db.Modules, "", "m"); err == nil {
		t.Fatal("a module depending on itself restored")
	}
}
