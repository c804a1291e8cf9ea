package state

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist/dbtest"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/store"
)

func openLevel(t testing.TB, dir string) *leveldb.DB {
	t.Helper()
	ldb, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ldb
}

func openVersioned(t *testing.T, ldb *leveldb.DB, prefix string) *Versioned {
	t.Helper()
	v, err := OpenVersioned(ldb, []byte(prefix))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The conformance suite on a view; Reopen applies the view as the next
// block, reopens the goleveldb database and continues on a view of that
// block, so what a block keeps is checked against what must survive a
// restart.
func TestConformanceVersioned(t *testing.T) {
	var ldb *leveldb.DB
	var dir string
	dbtest.Run(t, dbtest.Impl{
		New: func(t *testing.T) db.DB {
			dir = t.TempDir()
			ldb = openLevel(t, dir)
			t.Cleanup(func() { ldb.Close() })
			// Another chain's state in the same database, which must not show.
			other := openVersioned(t, ldb, "chain-1/")
			ow := other.View(0)
			if err := ow.CreateTable("free.t"); err != nil {
				t.Fatal(err)
			}
			if err := ow.Write(db.KeySets, "", "k1", eval.String("other"), db.Write); err != nil {
				t.Fatal(err)
			}
			if err := other.Apply(ow, 0); err != nil {
				t.Fatal(err)
			}
			return openVersioned(t, ldb, "chain-0/").View(0)
		},
		Reopen: func(t *testing.T, d db.DB) db.DB {
			t.Helper()
			w := d.(*View)
			h, ok := w.v.Height()
			next := uint64(0)
			if ok {
				next = h + 1
			}
			if err := w.v.Apply(w, next); err != nil {
				t.Fatal(err)
			}
			if err := ldb.Close(); err != nil {
				t.Fatal(err)
			}
			ldb = openLevel(t, dir)
			v := openVersioned(t, ldb, "chain-0/")
			if h, ok := v.Height(); !ok || h != next {
				t.Fatalf("height after reopen %d %v, want %d", h, ok, next)
			}
			return v.View(next)
		},
	})
}

// wantState checks the rows and keys of a user table as of height h.
func wantState(t *testing.T, v *Versioned, h uint64, table string, want map[string]string) {
	t.Helper()
	checkRows(t, v.View(h), h, table, want)
}

// checkRows checks the rows and keys of a user table in view w (as of height h).
func checkRows(t *testing.T, w db.DB, h uint64, table string, want map[string]string) {
	t.Helper()
	if len(want) == 0 {
		if w.HasTable(table) {
			ks, _ := w.Keys(db.UserTable, table)
			if len(ks) > 0 {
				t.Fatalf("at %d: %s has keys %q, want none", h, table, ks)
			}
		}
		return
	}
	if !w.HasTable(table) {
		t.Fatalf("at %d: no table %s", h, table)
	}
	var wantKeys []string
	for k, s := range want {
		wantKeys = append(wantKeys, k)
		got, ok, err := w.Read(db.UserTable, table, k)
		if err != nil || !ok || eval.Pretty(got.(eval.Value)) != s {
			t.Fatalf("at %d: %s %q = %v %v %v, want %s", h, table, k, got, ok, err, s)
		}
	}
	ks, err := w.Keys(db.UserTable, table)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(wantKeys)
	if !reflect.DeepEqual(ks, wantKeys) {
		t.Fatalf("at %d: keys %q, want %q", h, ks, wantKeys)
	}
}

func row(s string) *eval.Object {
	return eval.NewObject(eval.Field{Key: "v", Val: eval.String(s)})
}

// block applies one block of raw writes to table "t" (created in block 0),
// in one transaction, and checks its tx id.
func block(t *testing.T, v *Versioned, h uint64, wantTx db.TxID, kv ...string) {
	t.Helper()
	var w db.DB
	if h == 0 {
		w = v.View(0)
		if err := w.CreateTable("t"); err != nil {
			t.Fatal(err)
		}
	} else {
		w = v.View(h - 1)
	}
	id, err := w.BeginTx(db.Transactional)
	if err != nil || id != wantTx {
		t.Fatalf("block %d: tx %d %v, want %d", h, id, err, wantTx)
	}
	for i := 0; i < len(kv); i += 2 {
		if err := w.Write(db.UserTable, "t", kv[i], row(kv[i+1]), db.Write); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.CommitTx(); err != nil {
		t.Fatal(err)
	}
	// A Local transaction and a rolled back one leave nothing and use no id.
	for _, end := range []string{"local", "rollback"} {
		mode := db.Local
		if end == "rollback" {
			mode = db.Transactional
		}
		if id, err := w.BeginTx(mode); err != nil || id != wantTx+1 {
			t.Fatalf("block %d %s: tx %d %v", h, end, id, err)
		}
		if err := w.Write(db.UserTable, "t", "zz-"+end, row("x"), db.Write); err != nil {
			t.Fatal(err)
		}
		if err := w.CreateTable("t-" + end); err != nil {
			t.Fatal(err)
		}
		if end == "local" {
			_, err = w.CommitTx()
		} else {
			err = w.RollbackTx()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Apply(w, h); err != nil {
		t.Fatalf("apply %d: %v", h, err)
	}
}

func TestVersionedBlocks(t *testing.T) {
	dir := t.TempDir()
	ldb := openLevel(t, dir)
	defer func() { ldb.Close() }()
	v := openVersioned(t, ldb, "c0")
	if _, ok := v.Height(); ok {
		t.Fatal("empty state has a height")
	}
	if err := v.Apply(v.View(0), 1); !errors.Is(err, ErrHeight) {
		t.Fatalf("apply 1 on empty: %v", err)
	}
	// Another chain in the same database.
	nb := openVersioned(t, ldb, "c1")
	block(t, nb, 0, 0, "a", "other")

	genesis2 := v.View(0) // a second genesis candidate, on the empty state
	block(t, v, 0, 0, "a", "a0", "b\x00x", "b0")
	if genesis2.HasTable("t") {
		t.Fatal("a view of the empty state sees block 0")
	}
	if err := v.Apply(genesis2, 1); !errors.Is(err, ErrStaleView) {
		t.Fatalf("apply a view of the empty state as block 1: %v", err)
	}
	block(t, v, 1, 1, "a", "a1", "c", "c1")
	block(t, v, 2, 2, "b", "b2", "b\x00x", "b2x")
	if h, ok := v.Height(); !ok || h != 2 {
		t.Fatalf("height %d %v", h, ok)
	}
	states := []map[string]string{
		{"a": `{"v": "a0"}`, "b\x00x": `{"v": "b0"}`},
		{"a": `{"v": "a1"}`, "b\x00x": `{"v": "b0"}`, "c": `{"v": "c1"}`},
		{"a": `{"v": "a1"}`, "b": `{"v": "b2"}`, "b\x00x": `{"v": "b2x"}`, "c": `{"v": "c1"}`},
	}
	for h, s := range states {
		wantState(t, v, uint64(h), "t", s)
	}
	for _, tb := range []string{"t-local", "t-rollback"} {
		if v.View(2).HasTable(tb) {
			t.Fatalf("table %s kept", tb)
		}
	}

	// Stale views and wrong heights are refused.
	old := v.View(1)
	if err := v.Apply(old, 3); !errors.Is(err, ErrStaleView) {
		t.Fatalf("apply a view of 1 as 3: %v", err)
	}
	if err := v.Apply(v.View(2), 2); !errors.Is(err, ErrHeight) {
		t.Fatalf("apply 2 again: %v", err)
	}
	if err := v.Apply(db.NewMemDB(), 3); !errors.Is(err, ErrStaleView) {
		t.Fatalf("apply a MemDB: %v", err)
	}
	if err := v.Rewind(5); !errors.Is(err, ErrHeight) {
		t.Fatalf("rewind above: %v", err)
	}

	// A reorg: back to 0, a different block 1, and the old block 1's and
	// 2's writes are gone; tx ids continue from block 0.
	stale := v.View(2)
	if err := v.Rewind(0); err != nil {
		t.Fatal(err)
	}
	if h, _ := v.Height(); h != 0 {
		t.Fatalf("height after rewind %d", h)
	}
	if err := v.Apply(stale, 1); !errors.Is(err, ErrStaleView) {
		t.Fatalf("apply a view from before the rewind: %v", err)
	}
	wantState(t, v, 0, "t", states[0])
	block(t, v, 1, 1, "d", "d1'")
	reorged := map[string]string{"a": `{"v": "a0"}`, "b\x00x": `{"v": "b0"}`, "d": `{"v": "d1'"}`}
	wantState(t, v, 1, "t", reorged)
	wantState(t, nb, 0, "t", map[string]string{"a": `{"v": "other"}`})

	// Everything survives reopening the database.
	ldb.Close()
	ldb = openLevel(t, dir)
	v = openVersioned(t, ldb, "c0")
	if h, ok := v.Height(); !ok || h != 1 {
		t.Fatalf("height after reopen %d %v", h, ok)
	}
	wantState(t, v, 0, "t", states[0])
	wantState(t, v, 1, "t", reorged)
	block(t, v, 2, 2, "a", "a2")
	wantState(t, v, 1, "t", reorged)

	// Rewinding touched only the versions the dropped blocks wrote: no
	// version above the height is left.
	if err := v.Rewind(1); err != nil {
		t.Fatal(err)
	}
	it := ldb.NewIterator(nil, nil)
	n := 0
	for it.Next() {
		k := it.Key()
		if len(k) > 3 && string(k[:3]) == "c0\x02" {
			n++
			if h := ^beU64(k[len(k)-8:]); h > 1 {
				t.Fatalf("version at %d left after rewind: %q", h, k)
			}
		}
	}
	it.Release()
	if n != 4 { // table t, a@0, b\x00x@0, d@1
		t.Fatalf("%d versions stored", n)
	}
}

func beU64(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}

// chainSession drives an interpreter over views of a versioned state, one
// block at a time, as the executor does.
type chainSession struct {
	t  *testing.T
	v  *Versioned
	w  db.DB
	in *eval.Interp
	h  uint64
	n  int
}

// startBlock opens block h on the state as of h-1.
func (c *chainSession) startBlock(h uint64) {
	c.h = h
	if h == 0 {
		c.w = c.v.View(0)
	} else {
		c.w = c.v.View(h - 1)
	}
	in := eval.New(c.w)
	if c.in != nil {
		in.Data, in.Signers = c.in.Data, c.in.Signers
	}
	c.in = in
}

func (c *chainSession) endBlock() {
	c.t.Helper()
	if err := c.v.Apply(c.w, c.h); err != nil {
		c.t.Fatal(err)
	}
}

// tx runs src in one Transactional transaction, which must get id wantID.
func (c *chainSession) tx(wantID db.TxID, src string) eval.Value {
	c.t.Helper()
	id, err := c.w.BeginTx(db.Transactional)
	if err != nil || id != wantID {
		c.t.Fatalf("tx %d %v, want %d", id, err, wantID)
	}
	c.n++
	name := fmt.Sprintf("block-%d.repl", c.n)
	f, err := syntax.ParseRepl(name, src)
	if err != nil {
		c.t.Fatal(err)
	}
	c.in.SetSource(name, src)
	var last eval.Value
	for _, item := range f.Items {
		if last, err = c.in.EvalTopLevel(item, true); err != nil {
			c.t.Fatalf("%s: %v", src, err)
		}
	}
	if _, err := c.w.CommitTx(); err != nil {
		c.t.Fatal(err)
	}
	c.in.ResetTx()
	return last
}

func (c *chainSession) want(wantID db.TxID, src, want string) {
	c.t.Helper()
	if got := eval.Pretty(c.tx(wantID, src)); got != want {
		c.t.Fatalf("%s = %s, want %s", src, got, want)
	}
}

func (c *chainSession) keys(ks ...string) {
	c.in.Signers = nil
	for _, k := range ks {
		c.in.Signers = append(c.in.Signers, eval.Signer{PubKey: k})
	}
}

// An interpreter over views: modules, keysets, namespaces, rows and a
// defpact written in blocks, read as of each block, across a reorg and a
// reopening of the database.
func TestVersionedInterpreter(t *testing.T) {
	dir := t.TempDir()
	ldb := openLevel(t, dir)
	defer func() { ldb.Close() }()
	c := &chainSession{t: t, v: openVersioned(t, ldb, "chain-7/")}

	c.startBlock(0)
	c.in.Data = dbtest.KeysetData("gov", "gov-key", "user", "user-key", "alice", "alice-key", "bob", "bob-key")
	c.keys("gov-key", "user-key")
	c.tx(0, dbtest.BankSrc)
	c.want(1, `(free.bank.open-account "alice" (read-keyset "alice"))`, `"Write succeeded"`)
	c.want(2, `(free.bank.open-account "bob" (read-keyset "bob"))`, `"Write succeeded"`)
	c.endBlock()

	c.startBlock(1)
	c.want(3, `(free.bank.deposit "alice" 100.25)`, `"Write succeeded"`)
	c.in.TxHash = eval.HashBytes([]byte("pact-1"))
	c.keys("alice-key")
	c.want(4, `(free.bank.transfer "alice" "bob" 10.5)`, `"debited"`)
	c.endBlock()

	// Block 2 upgrades sq (installed in block 2 too) and continues the
	// defpact.
	c.startBlock(2)
	c.keys("gov-key")
	c.tx(5, fmt.Sprintf(dbtest.ModuleV1, "sq")+`(create-table sq.entries)`)
	sqHash := string(c.tx(6, `(sq.add-entry "a") (at 'hash (describe-module "sq"))`).(eval.String))
	c.tx(7, `(module cli 'gov-ks (defun version:integer () (sq.version)))`)
	c.keys()
	id, err := c.w.BeginTx(db.Transactional)
	if err != nil || id != 8 {
		t.Fatalf("tx %d %v", id, err)
	}
	if v, err := c.in.ContinuePact(1, false, eval.HashBytes([]byte("pact-1")), nil); err != nil || eval.Pretty(v) != `"credited"` {
		t.Fatalf("continue: %v %v", v, err)
	}
	if _, err := c.w.CommitTx(); err != nil {
		t.Fatal(err)
	}
	c.in.ResetTx()
	c.endBlock()

	c.startBlock(3)
	c.keys("gov-key")
	c.tx(9, fmt.Sprintf(dbtest.ModuleV2, "sq", `(bless "`+sqHash+`")`))
	c.endBlock()

	// Reads as of each block, through an interpreter on a view.
	check := func(h uint64, src, want string) {
		t.Helper()
		w := c.v.View(h)
		in := eval.New(w)
		in.Signers = []eval.Signer{{PubKey: "gov-key"}}
		f, err := syntax.ParseRepl("check.repl", src)
		if err != nil {
			t.Fatal(err)
		}
		in.SetSource("check.repl", src)
		if _, err := w.BeginTx(db.Local); err != nil {
			t.Fatal(err)
		}
		var last eval.Value
		for _, item := range f.Items {
			if last, err = in.EvalTopLevel(item, true); err != nil {
				last = eval.String("error: " + err.Error())
				break
			}
		}
		if _, err := w.CommitTx(); err != nil {
			t.Fatal(err)
		}
		if got := eval.Pretty(last); got != want {
			t.Fatalf("as of %d: %s = %s, want %s", h, src, got, want)
		}
	}
	check(0, `(free.bank.balance "alice")`, `0.0`)
	check(1, `(free.bank.balance "alice")`, `89.75`)
	check(1, `(free.bank.balance "bob")`, `0.0`)
	check(2, `(free.bank.balance "bob")`, `10.5`)
	check(0, `(acquire-module-admin free.bank) (keys free.bank.accounts)`, `["alice" "bob"]`)
	check(0, `(at 'admin-guard (describe-namespace "free"))`, `'gov-ks`)
	check(2, `(sq.version)`, `1`)
	check(3, `(sq.version)`, `2`)
	check(3, `(sq.get-entry "a")`, `1`)
	check(2, `(cli.version)`, `1`)
	check(3, `(cli.version)`, `1`) // a dependent keeps the version it was loaded with

	// Raw reads of the system domains as of each block.
	for h, want := range map[uint64]bool{1: false, 2: true} {
		w := c.v.View(h)
		tables := w.HasTable("sq_entries")
		mods, _ := w.Keys(db.Modules, "")
		if tables != want || slices.Index(mods, "sq") >= 0 != want {
			t.Fatalf("as of %d: sq_entries %v, modules %q", h, tables, mods)
		}
		ks, _, err := w.Read(db.KeySets, "", "gov-ks")
		if err != nil || ks == nil {
			t.Fatalf("as of %d: keyset %v %v", h, ks, err)
		}
		p, ok, err := w.Read(db.DefPacts, "", string(eval.HashBytes([]byte("pact-1"))))
		if err != nil || !ok {
			t.Fatalf("as of %d: defpact %v %v %v", h, p, ok, err)
		}
		if done := p.(*eval.PactExec) == nil; done != (h == 2) {
			t.Fatalf("as of %d: defpact state %v", h, p)
		}
	}

	// Reopen (modules rebuilt from records), then reorg away blocks 2 and
	// 3 and apply a different block 2: the defpact is pending again and sq
	// is gone.
	ldb.Close()
	ldb = openLevel(t, dir)
	c = &chainSession{t: t, v: openVersioned(t, ldb, "chain-7/")}
	check(3, `(sq.version)`, `2`)
	check(2, `(free.bank.balance "bob")`, `10.5`)
	check(3, `(cli.version)`, `1`) // rebuilt against sq's old version, as of block 3
	if err := c.v.Rewind(1); err != nil {
		t.Fatal(err)
	}
	c.startBlock(2)
	c.in.Data = dbtest.KeysetData("gov", "gov-key")
	c.keys("gov-key")
	c.want(5, `(free.bank.deposit "bob" 1.0)`, `"Write succeeded"`)
	c.endBlock()
	check(2, `(free.bank.balance "bob")`, `1.0`)
	check(2, `(free.bank.balance "alice")`, `89.75`)
	w := c.v.View(2)
	if mods, _ := w.Keys(db.Modules, ""); slices.Index(mods, "sq") >= 0 || w.HasTable("sq_entries") {
		t.Fatalf("sq survived the reorg: %q", mods)
	}
	c.startBlock(3)
	c.keys()
	if _, err := c.w.BeginTx(db.Transactional); err != nil {
		t.Fatal(err)
	}
	if v, err := c.in.ContinuePact(1, false, eval.HashBytes([]byte("pact-1")), nil); err != nil || eval.Pretty(v) != `"credited"` {
		t.Fatalf("continue after reorg: %v %v", v, err)
	}
	if _, err := c.w.CommitTx(); err != nil {
		t.Fatal(err)
	}
	c.endBlock()
	check(3, `(free.bank.balance "bob")`, `11.5`)
}

// Keys and reads as of each height with keys rewritten in many blocks,
// and views kept across a rewind to their own height.
func TestVersionedKeysAndForkViews(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	v := openVersioned(t, ldb, "x/")
	block(t, v, 0, 0, "k", "0")
	block(t, v, 1, 1, "k", "1", "m", "1")
	block(t, v, 2, 2, "k", "2")
	block(t, v, 3, 3, "k", "3", "n", "3", "m", "3")
	block(t, v, 4, 4, "k", "4")
	wantKeys := [][]string{{"k"}, {"k", "m"}, {"k", "m"}, {"k", "m", "n"}, {"k", "m", "n"}}
	for h, want := range wantKeys {
		w := v.View(uint64(h))
		ks, err := w.Keys(db.UserTable, "t")
		if err != nil || !reflect.DeepEqual(ks, want) {
			t.Fatalf("keys as of %d: %q %v, want %q", h, ks, err, want)
		}
		r, _, _ := w.Read(db.UserTable, "t", "k")
		if got := eval.Pretty(r.(eval.Value)); got != fmt.Sprintf(`{"v": "%d"}`, h) {
			t.Fatalf("k as of %d: %s", h, got)
		}
		if id, _ := w.BeginTx(db.Transactional); id != db.TxID(h+1) {
			t.Fatalf("next tx id as of %d: %d", h, id)
		}
	}
	if _, err := v.View(5).BeginTx(db.Transactional); !errors.Is(err, ErrHeight) {
		t.Fatalf("view above the height: %v", err)
	}

	// A view of the fork point, made before the rewind, still applies; a
	// view of a dropped block does not.
	fork := v.View(2)
	if err := fork.Write(db.UserTable, "t", "k", row("3'"), db.Update); err != nil {
		t.Fatal(err)
	}
	dropped := v.View(3)
	if err := v.Rewind(2); err != nil {
		t.Fatal(err)
	}
	if err := v.Apply(dropped, 3); !errors.Is(err, ErrStaleView) {
		t.Fatalf("apply a view of a dropped block: %v", err)
	}
	if err := v.Apply(fork, 3); err != nil {
		t.Fatal(err)
	}
	wantState(t, v, 3, "t", map[string]string{"k": `{"v": "3'"}`, "m": `{"v": "1"}`})
	wantState(t, v, 2, "t", map[string]string{"k": `{"v": "2"}`, "m": `{"v": "1"}`})
	if err := v.Apply(fork, 4); !errors.Is(err, ErrStaleView) {
		t.Fatalf("apply a view twice: %v", err)
	}
}

func TestVersionedCorrupt(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	if err := ldb.Put([]byte("p\x00"), []byte{1, 2}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenVersioned(ldb, []byte("p")); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("bad height record: %v", err)
	}
	v := openVersioned(t, ldb, "q")
	block(t, v, 0, 0, "a", "a0")
	block(t, v, 1, 1, "a", "a1")
	if err := ldb.Put([]byte("q\x01\x00\x00\x00\x00\x00\x00\x00\x01"), []byte{0, 0, 0, 0, 0, 0, 0, 2, 9}, nil); err != nil {
		t.Fatal(err)
	}
	if err := v.Rewind(0); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("bad block record: %v", err)
	}
	if h, _ := v.Height(); h != 1 {
		t.Fatalf("a failed rewind moved the height to %d", h)
	}
	// A corrupt version (and a corrupt block record, above) is an error,
	// not a panic.
	it := ldb.NewIterator(nil, nil)
	var vk []byte
	for it.Next() {
		if k := it.Key(); k[0] == 'q' && k[1] == vVersion && len(it.Value()) > 0 {
			vk = slices.Clone(k)
		}
	}
	it.Release()
	if err := ldb.Put(vk, []byte{1, 99}, nil); err != nil {
		t.Fatal(err)
	}
	v = openVersioned(t, ldb, "q")
	if _, _, err := v.View(1).Read(db.UserTable, "t", "a"); !errors.Is(err, kv.ErrCorrupt) || store.IsCorrupt(err) {
		t.Fatalf("view on a corrupt block record: %v", err)
	}
	if _, _, err := v.View(0).Read(db.UserTable, "t", "a"); !errors.Is(err, kv.ErrCorrupt) { // a@0, the last version key
		t.Fatalf("corrupt version: %v", err)
	}
}

// A view of the head takes its next transaction id from memory, after an
// Open and after a Rewind as after an Apply: with the head's block record
// gone from the store, such a view still begins at the right id, while a
// view of an older block, which reads its record, fails.
func TestHeadViewReadsNoBlockRecord(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	v := openVersioned(t, ldb, "q")
	block(t, v, 0, 0, "a", "a0")
	block(t, v, 1, 1, "a", "a1")
	block(t, v, 2, 2, "a", "a2")
	recordKey := func(h uint64) []byte { return append([]byte{'q', vBlock}, be64(h)...) }
	nextID := func(v *Versioned, h uint64) (db.TxID, error) {
		w := v.View(h)
		id, err := w.BeginTx(db.Transactional)
		if err == nil {
			err = w.RollbackTx()
		}
		return id, err
	}

	v = openVersioned(t, ldb, "q") // as a restarted node
	if err := ldb.Delete(recordKey(2), nil); err != nil {
		t.Fatal(err)
	}
	if id, err := nextID(v, 2); err != nil || id != 3 {
		t.Fatalf("head view after Open: tx %d, %v; want 3", id, err)
	}

	if err := ldb.Put(recordKey(2), []byte{0, 0, 0, 0, 0, 0, 0, 3}, nil); err != nil {
		t.Fatal(err)
	}
	if err := v.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if err := ldb.Delete(recordKey(1), nil); err != nil {
		t.Fatal(err)
	}
	if id, err := nextID(v, 1); err != nil || id != 2 {
		t.Fatalf("head view after Rewind: tx %d, %v; want 2", id, err)
	}
	if _, err := nextID(v, 0); err != nil {
		t.Fatalf("view of block 0, whose record is there: %v", err)
	}
	if err := ldb.Delete(recordKey(0), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := nextID(v, 0); err == nil {
		t.Fatal("a view below the head read no block record")
	}
}

// A rollback to a savepoint undoes every transaction committed since, tables, rows, keys and
// transaction ids, and keeps what was committed before it; a released savepoint keeps all.
func TestSavepoint(t *testing.T) {
	v := openVersioned(t, openLevel(t, t.TempDir()), "c0/")
	block(t, v, 0, 0, "a", "1")
	w := v.View(0).(*View)
	commit := func(kv ...string) {
		t.Helper()
		if _, err := w.BeginTx(db.Transactional); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(kv); i += 2 {
			if err := w.Write(db.UserTable, "t", kv[i], row(kv[i+1]), db.Write); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.CommitTx(); err != nil {
			t.Fatal(err)
		}
	}
	commit("a", "2", "b", "1") // before the savepoint: kept
	if err := w.Savepoint(); err != nil {
		t.Fatal(err)
	}
	commit("a", "3", "c", "1")
	if _, err := w.BeginTx(db.Transactional); err != nil {
		t.Fatal(err)
	}
	if err := w.CreateTable("u"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CommitTx(); err != nil {
		t.Fatal(err)
	}
	commit("b", "2", "d", "1")
	if _, err := w.BeginTx(db.Transactional); err != nil { // left open: rolled back too
		t.Fatal(err)
	}
	if err := w.RollbackToSavepoint(); err != nil {
		t.Fatal(err)
	}
	if w.InTx() || w.HasTable("u") {
		t.Fatalf("after the rollback: in a transaction %v, table u %v", w.InTx(), w.HasTable("u"))
	}
	checkRows(t, w, 0, "t", map[string]string{"a": `{"v": "2"}`, "b": `{"v": "1"}`})
	if id, err := w.BeginTx(db.Transactional); err != nil || id != 2 {
		t.Fatalf("the next transaction is %d %v, want 2 (ids of undone transactions are used again)", id, err)
	}
	w.RollbackTx()
	if err := w.RollbackToSavepoint(); err == nil {
		t.Fatal("rolled back to a savepoint twice")
	}
	if err := w.Savepoint(); err != nil {
		t.Fatal(err)
	}
	commit("e", "1")
	w.ReleaseSavepoint()
	checkRows(t, w, 0, "t", map[string]string{"a": `{"v": "2"}`, "b": `{"v": "1"}`, "e": `{"v": "1"}`})
}
