package dbtest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Impl is an implementation under test.
type Impl struct {
	// New returns an empty database. The test cleans it up.
	New func(t *testing.T) db.DB
	// Reopen closes d, which is not in a transaction, and returns the same
	// database opened again; nil for implementations that do not persist.
	Reopen func(t *testing.T, d db.DB) db.DB
}

// Run runs every scenario as a subtest of t.
func Run(t *testing.T, impl Impl) {
	scenarios := []struct {
		name string
		fn   func(h *harness)
	}{
		{"Errors", errorsScenario},
		{"WritesOutsideTx", writesOutsideTx},
		{"CommitRollbackVisibility", commitRollbackVisibility},
		{"TxIDs", txIDs},
		{"LocalMode", localMode},
		{"TableCreatedThenRolledBack", tableCreatedThenRolledBack},
		{"LogOrder", logOrder},
		{"KeysSorted", keysSorted},
		{"Values", values},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			h := &harness{T: t, DB: impl.New(t), reopen: impl.Reopen}
			s.fn(h)
		})
	}
}

// harness is one scenario's state: the test and the database, which Reopen may
// replace.
type harness struct {
	*testing.T
	DB     db.DB
	reopen func(t *testing.T, d db.DB) db.DB
}

// Reopen reopens the database if the implementation persists, and does
// nothing otherwise: the scenarios' checks that follow hold either way.
func (h *harness) Reopen() {
	h.Helper()
	if h.reopen != nil {
		h.DB = h.reopen(h.T, h.DB)
	}
}

// OK fails on an error.
func (h *harness) OK(err error) {
	h.Helper()
	if err != nil {
		h.Fatal(err)
	}
}

// WantErr fails unless err is want.
func (h *harness) WantErr(err, want error) {
	h.Helper()
	if !errors.Is(err, want) {
		h.Fatalf("got error %v, want %v", err, want)
	}
}

// Begin opens a transaction and checks its id.
func (h *harness) Begin(mode db.Mode, want db.TxID) {
	h.Helper()
	id, err := h.DB.BeginTx(mode)
	h.OK(err)
	if id != want {
		h.Fatalf("BeginTx = %d, want %d", id, want)
	}
}

// Commit commits and returns the log.
func (h *harness) Commit() []db.TxLog {
	h.Helper()
	log, err := h.DB.CommitTx()
	h.OK(err)
	return log
}

// Row checks the value under key; want nil means no row. Values compare
// with eval.StructEqual and must render the same (so that decimal places
// count).
func (h *harness) Row(d db.Domain, table, key string, want any) {
	h.Helper()
	v, ok, err := h.DB.Read(d, table, key)
	h.OK(err)
	if want == nil {
		if ok {
			h.Fatalf("%v %q %q: got %v, want no row", d, table, key, v)
		}
		return
	}
	if !ok || !Same(v, want) {
		h.Fatalf("%v %q %q: got %v (%v), want %v", d, table, key, v, ok, want)
	}
}

// Keys checks the keys of a domain or table.
func (h *harness) Keys(d db.Domain, table string, want ...string) {
	h.Helper()
	ks, err := h.DB.Keys(d, table)
	h.OK(err)
	if len(ks) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(ks, want) {
		h.Fatalf("%v %q keys: got %q, want %q", d, table, ks, want)
	}
}

// Log checks a transaction log.
func (h *harness) Log(got, want []db.TxLog) {
	h.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		g, w := got[i], want[i]
		ok = g.Domain == w.Domain && g.Table == w.Table && g.Key == w.Key && Same(g.Value, w.Value)
	}
	if !ok {
		h.Fatalf("log:\n got %v\nwant %v", got, want)
	}
}

// Same compares stored values: eval values structurally and by rendering,
// anything else with reflect.DeepEqual.
func Same(a, b any) bool {
	va, ok1 := a.(value.Value)
	vb, ok2 := b.(value.Value)
	if ok1 && ok2 {
		return value.StructEqual(va, vb) && value.Pretty(va) == value.Pretty(vb)
	}
	return reflect.DeepEqual(a, b)
}

// s is a short way to write a string value.
func s(x string) value.Value { return value.String(x) }

func errorsScenario(h *harness) {
	m := h.DB
	_, err := m.CommitTx()
	h.WantErr(err, db.ErrNotInTx)
	h.WantErr(m.RollbackTx(), db.ErrNotInTx)

	// Missing table, for every user-table operation.
	_, _, err = m.Read(db.UserTable, "nope", "k")
	h.WantErr(err, db.ErrNoTable)
	h.WantErr(m.Write(db.UserTable, "nope", "k", s("v"), db.Write), db.ErrNoTable)
	h.WantErr(m.Write(db.UserTable, "nope", "k", s("v"), db.Insert), db.ErrNoTable)
	h.WantErr(m.Write(db.UserTable, "nope", "k", s("v"), db.Update), db.ErrNoTable)
	_, err = m.Keys(db.UserTable, "nope")
	h.WantErr(err, db.ErrNoTable)
	if m.HasTable("nope") {
		h.Fatal("HasTable on a missing table")
	}

	h.OK(m.CreateTable("t"))
	h.WantErr(m.CreateTable("t"), db.ErrTableExists)
	if !m.HasTable("t") {
		h.Fatal("HasTable after CreateTable")
	}
	h.OK(m.Write(db.UserTable, "t", "a", s("1"), db.Insert))
	h.Reopen()
	m = h.DB
	h.WantErr(m.CreateTable("t"), db.ErrTableExists)
	h.WantErr(m.Write(db.UserTable, "t", "a", s("2"), db.Insert), db.ErrRowExists)
	h.WantErr(m.Write(db.UserTable, "t", "b", s("2"), db.Update), db.ErrNoRow)
	h.Row(db.UserTable, "t", "a", s("1"))
	h.Row(db.UserTable, "t", "b", nil)

	// The same checks on a system domain.
	h.OK(m.Write(db.KeySets, "", "ks", s("v1"), db.Insert))
	h.WantErr(m.Write(db.KeySets, "", "ks", s("v2"), db.Insert), db.ErrRowExists)
	h.WantErr(m.Write(db.KeySets, "", "other", s("v2"), db.Update), db.ErrNoRow)

	_, err = m.BeginTx(db.Transactional)
	h.OK(err)
	_, err = m.BeginTx(db.Transactional)
	h.WantErr(err, db.ErrInTx)
	_, err = m.BeginTx(db.Local)
	h.WantErr(err, db.ErrInTx)
	if !m.InTx() {
		h.Fatal("InTx after a refused BeginTx")
	}
	// Failed writes leave no trace in the log.
	h.WantErr(m.Write(db.UserTable, "t", "a", s("x"), db.Insert), db.ErrRowExists)
	h.WantErr(m.Write(db.UserTable, "t", "zz", s("x"), db.Update), db.ErrNoRow)
	h.WantErr(m.Write(db.KeySets, "", "ks", s("x"), db.Insert), db.ErrRowExists)
	if log := h.Commit(); len(log) != 0 {
		h.Fatalf("log of failed writes: %v", log)
	}

	if _, _, err := m.Read(db.Domain(99), "", "k"); err == nil {
		h.Fatal("Read of an unknown domain succeeded")
	}
	if err := m.Write(db.Domain(99), "", "k", s("v"), db.Write); err == nil {
		h.Fatal("Write to an unknown domain succeeded")
	}
	if _, err := m.Keys(db.Domain(99), ""); err == nil {
		h.Fatal("Keys of an unknown domain succeeded")
	}
}

func writesOutsideTx(h *harness) {
	m := h.DB
	if m.InTx() {
		h.Fatal("new DB in tx")
	}
	h.OK(m.CreateTable("t"))
	h.OK(m.Write(db.UserTable, "t", "k", s("v"), db.Write))
	h.OK(m.Write(db.Modules, "ignored", "coin", s("mod"), db.Write))
	h.Row(db.UserTable, "t", "k", s("v"))
	h.Row(db.Modules, "", "coin", s("mod"))
	// The table argument is ignored for system domains.
	h.Row(db.Modules, "whatever", "coin", s("mod"))

	// Writes outside a transaction last.
	h.Reopen()
	m = h.DB
	if !m.HasTable("t") {
		h.Fatal("table lost")
	}
	h.Row(db.UserTable, "t", "k", s("v"))
	h.Row(db.Modules, "", "coin", s("mod"))

	// Writes made before a transaction are not part of its log, and an
	// overwrite outside one replaces the row.
	h.OK(m.Write(db.UserTable, "t", "k", s("v2"), db.Update))
	h.Begin(db.Transactional, 0)
	if log := h.Commit(); len(log) != 0 {
		h.Fatalf("log: %v", log)
	}
	h.Row(db.UserTable, "t", "k", s("v2"))
	h.Reopen()
	h.Row(db.UserTable, "t", "k", s("v2"))
}

func commitRollbackVisibility(h *harness) {
	m := h.DB
	h.OK(m.CreateTable("t"))
	h.OK(m.Write(db.UserTable, "t", "a", s("a0"), db.Insert))
	h.OK(m.Write(db.UserTable, "t", "b", s("b0"), db.Insert))
	h.OK(m.Write(db.Namespaces, "", "ns", s("ns0"), db.Write))

	// Rolled back: every kind of change is undone.
	h.Begin(db.Transactional, 0)
	h.OK(m.Write(db.UserTable, "t", "a", s("a1"), db.Update))
	h.OK(m.Write(db.UserTable, "t", "a", s("a2"), db.Write)) // second write, same key
	h.OK(m.Write(db.UserTable, "t", "c", s("c1"), db.Insert))
	h.OK(m.Write(db.Namespaces, "", "ns", s("ns1"), db.Write))
	h.OK(m.Write(db.KeySets, "", "ks", s("ks1"), db.Write))
	h.OK(m.Write(db.DefPacts, "", "pid", s("p1"), db.Write))
	// Reads inside the tx see the writes at once.
	h.Row(db.UserTable, "t", "a", s("a2"))
	h.Row(db.UserTable, "t", "c", s("c1"))
	h.Row(db.KeySets, "", "ks", s("ks1"))
	h.Keys(db.UserTable, "t", "a", "b", "c")
	h.Keys(db.KeySets, "", "ks")
	// A write in the tx cannot be inserted again, an update finds it.
	h.WantErr(m.Write(db.UserTable, "t", "c", s("c2"), db.Insert), db.ErrRowExists)
	h.OK(m.Write(db.KeySets, "", "ks", s("ks1"), db.Update))
	h.OK(m.RollbackTx())
	if m.InTx() {
		h.Fatal("InTx after rollback")
	}
	check0 := func() {
		h.Helper()
		h.Row(db.UserTable, "t", "a", s("a0"))
		h.Row(db.UserTable, "t", "b", s("b0"))
		h.Row(db.UserTable, "t", "c", nil)
		h.Row(db.Namespaces, "", "ns", s("ns0"))
		h.Row(db.KeySets, "", "ks", nil)
		h.Row(db.DefPacts, "", "pid", nil)
		h.Keys(db.UserTable, "t", "a", "b")
		h.Keys(db.KeySets, "")
	}
	check0()
	h.Reopen()
	m = h.DB
	check0()

	// Committed: the changes stay.
	h.Begin(db.Transactional, 0)
	h.OK(m.Write(db.UserTable, "t", "a", s("a3"), db.Update))
	h.OK(m.Write(db.UserTable, "t", "d", s("d3"), db.Insert))
	h.OK(m.Write(db.Modules, "", "m", s("m3"), db.Write))
	h.Commit()
	check1 := func() {
		h.Helper()
		h.Row(db.UserTable, "t", "a", s("a3"))
		h.Row(db.UserTable, "t", "d", s("d3"))
		h.Row(db.Modules, "", "m", s("m3"))
		h.Keys(db.UserTable, "t", "a", "b", "d")
		h.Keys(db.Modules, "", "m")
	}
	check1()
	h.Reopen()
	m = h.DB
	check1()

	// A later rollback restores the committed state, not the original one.
	h.Begin(db.Transactional, 1)
	h.OK(m.Write(db.UserTable, "t", "a", s("a4"), db.Write))
	h.OK(m.Write(db.Modules, "", "m", s("m4"), db.Write))
	h.Row(db.UserTable, "t", "a", s("a4"))
	h.OK(m.RollbackTx())
	check1()
	h.Reopen()
	check1()
}

func txIDs(h *harness) {
	m := h.DB
	h.Begin(db.Transactional, 0)
	h.Commit()
	h.Begin(db.Transactional, 1)
	h.OK(m.RollbackTx())
	h.Begin(db.Transactional, 1) // a rollback does not use up the id
	h.OK(m.RollbackTx())
	h.Begin(db.Local, 1)
	h.Commit()
	h.Begin(db.Transactional, 1) // nor does a Local commit
	h.Commit()
	h.Reopen() // the sequence survives a restart
	m = h.DB
	h.Begin(db.Transactional, 2)
	h.Commit()
	h.Begin(db.Transactional, 3)
	h.OK(m.RollbackTx())
	h.Reopen()
	h.Begin(db.Transactional, 3)
	h.Commit()
}

func localMode(h *harness) {
	m := h.DB
	h.OK(m.CreateTable("t"))
	h.OK(m.Write(db.UserTable, "t", "a", s("a0"), db.Write))

	h.Begin(db.Local, 0)
	h.OK(m.CreateTable("u"))
	if !m.HasTable("u") {
		h.Fatal("table created in a Local tx not visible in it")
	}
	h.OK(m.Write(db.UserTable, "u", "x", s("x1"), db.Insert))
	h.OK(m.Write(db.UserTable, "t", "a", s("a1"), db.Update))
	h.OK(m.Write(db.KeySets, "", "ks", s("ks1"), db.Write))
	h.Row(db.UserTable, "t", "a", s("a1"))
	h.Row(db.UserTable, "u", "x", s("x1"))
	h.Keys(db.UserTable, "u", "x")
	log := h.Commit()
	h.Log(log, []db.TxLog{
		{Domain: db.UserTable, Table: "u", Key: "x", Value: s("x1")},
		{Domain: db.UserTable, Table: "t", Key: "a", Value: s("a1")},
		{Domain: db.KeySets, Key: "ks", Value: s("ks1")},
	})
	// ...but nothing was kept.
	check := func() {
		h.Helper()
		if h.DB.InTx() {
			h.Fatal("InTx after a Local commit")
		}
		if h.DB.HasTable("u") {
			h.Fatal("table created in a Local tx survived")
		}
		h.Row(db.UserTable, "t", "a", s("a0"))
		h.Row(db.KeySets, "", "ks", nil)
	}
	check()
	h.Reopen()
	check()
	h.Begin(db.Transactional, 0)
	h.OK(h.DB.RollbackTx())
}

func tableCreatedThenRolledBack(h *harness) {
	m := h.DB
	h.Begin(db.Transactional, 0)
	h.OK(m.CreateTable("t"))
	h.WantErr(m.CreateTable("t"), db.ErrTableExists)
	h.OK(m.Write(db.UserTable, "t", "k", s("v"), db.Insert))
	h.OK(m.Write(db.UserTable, "t", "k", s("w"), db.Update))
	h.OK(m.RollbackTx())
	gone := func() {
		h.Helper()
		if h.DB.HasTable("t") {
			h.Fatal("table survived the rollback")
		}
		_, _, err := h.DB.Read(db.UserTable, "t", "k")
		h.WantErr(err, db.ErrNoTable)
		h.WantErr(h.DB.Write(db.UserTable, "t", "k", s("v"), db.Write), db.ErrNoTable)
	}
	gone()
	h.Reopen()
	m = h.DB
	gone()

	// It can be created again, empty, and then kept.
	h.Begin(db.Transactional, 0)
	h.OK(m.CreateTable("t"))
	h.Keys(db.UserTable, "t")
	h.OK(m.Write(db.UserTable, "t", "k", s("v2"), db.Insert))
	h.Commit()
	h.Row(db.UserTable, "t", "k", s("v2"))
	h.Reopen()
	m = h.DB
	h.Row(db.UserTable, "t", "k", s("v2"))

	// Creating an existing table inside a tx fails and a rollback keeps it.
	h.Begin(db.Transactional, 1)
	h.WantErr(m.CreateTable("t"), db.ErrTableExists)
	h.OK(m.RollbackTx())
	h.Row(db.UserTable, "t", "k", s("v2"))
}

func logOrder(h *harness) {
	m := h.DB
	h.OK(m.CreateTable("t"))
	h.OK(m.Write(db.UserTable, "t", "pre", s("p"), db.Write)) // outside: not logged
	h.Begin(db.Transactional, 0)
	h.OK(m.Write(db.UserTable, "t", "b", s("b1"), db.Insert))
	h.OK(m.Write(db.Modules, "", "m", s("m1"), db.Write))
	h.OK(m.Write(db.UserTable, "t", "a", s("a1"), db.Write))
	h.OK(m.Write(db.UserTable, "t", "b", s("b2"), db.Update)) // a rewrite is logged again
	h.OK(m.Write(db.Namespaces, "x", "ns", s("n1"), db.Insert))
	h.Log(h.Commit(), []db.TxLog{
		{Domain: db.UserTable, Table: "t", Key: "b", Value: s("b1")},
		{Domain: db.Modules, Key: "m", Value: s("m1")},
		{Domain: db.UserTable, Table: "t", Key: "a", Value: s("a1")},
		{Domain: db.UserTable, Table: "t", Key: "b", Value: s("b2")},
		{Domain: db.Namespaces, Key: "ns", Value: s("n1")},
	})
	h.Row(db.UserTable, "t", "b", s("b2"))
	// The next transaction starts with an empty log.
	h.Begin(db.Transactional, 1)
	h.OK(m.Write(db.UserTable, "t", "c", s("c1"), db.Write))
	log := h.Commit()
	if len(log) != 1 || log[0].Key != "c" {
		h.Fatalf("second log: %v", log)
	}
}

func keysSorted(h *harness) {
	m := h.DB
	h.OK(m.CreateTable("t"))
	h.OK(m.CreateTable("t2"))
	// Byte order: upper case before lower case, a prefix before its
	// extensions, UTF-8 multibyte after ASCII.
	in := []string{"b", "é", "B", "a", "ab", "", "A", "10", "9"}
	want := []string{"", "10", "9", "A", "B", "a", "ab", "b", "é"}
	for _, k := range in[:5] {
		h.OK(m.Write(db.UserTable, "t", k, s(k), db.Insert))
		h.OK(m.Write(db.DefPacts, "", k, s(k), db.Insert))
	}
	// The rest inside a transaction: Keys merges stored and pending keys.
	h.Begin(db.Transactional, 0)
	for _, k := range in[5:] {
		h.OK(m.Write(db.UserTable, "t", k, s(k), db.Insert))
		h.OK(m.Write(db.DefPacts, "", k, s(k), db.Insert))
	}
	h.OK(m.Write(db.UserTable, "t", "a", s("again"), db.Update))
	h.Keys(db.UserTable, "t", want...)
	h.Keys(db.DefPacts, "", want...)
	h.Commit()
	h.Keys(db.UserTable, "t", want...)
	h.Keys(db.DefPacts, "", want...)
	h.Keys(db.Modules, "")
	// Tables whose names are prefixes of each other keep their own rows.
	h.OK(m.Write(db.UserTable, "t2", "x", s("x"), db.Insert))
	h.Keys(db.UserTable, "t", want...)
	h.Keys(db.UserTable, "t2", "x")
	h.Reopen()
	h.Keys(db.UserTable, "t", want...)
	h.Keys(db.UserTable, "t2", "x")
	h.Keys(db.DefPacts, "", want...)
}

// values stores one of each kind of stored value in each domain, in and out
// of transactions, and reads them back.
func values(h *harness) {
	m := h.DB
	h.OK(m.CreateTable("free.m_t"))
	vs := SampleValues()
	for i, v := range vs {
		k := fmt.Sprintf("k%03d", i)
		h.OK(m.Write(db.UserTable, "free.m_t", k, v, db.Insert))
		h.OK(m.Write(db.KeySets, "", k, v, db.Insert))
	}
	h.Begin(db.Transactional, 0)
	for i, v := range vs {
		k := fmt.Sprintf("t%03d", i)
		h.OK(m.Write(db.UserTable, "free.m_t", k, v, db.Insert))
		h.OK(m.Write(db.Namespaces, "", k, v, db.Write))
		h.Row(db.UserTable, "free.m_t", k, v)
	}
	h.Commit()
	check := func() {
		h.Helper()
		for i, v := range vs {
			h.Row(db.UserTable, "free.m_t", fmt.Sprintf("k%03d", i), v)
			h.Row(db.KeySets, "", fmt.Sprintf("k%03d", i), v)
			h.Row(db.UserTable, "free.m_t", fmt.Sprintf("t%03d", i), v)
			h.Row(db.Namespaces, "", fmt.Sprintf("t%03d", i), v)
		}
	}
	check()
	h.Reopen()
	check()
}
