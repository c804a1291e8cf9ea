package db

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// Rows are opaque to the package, so the tests store plain strings.

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got error %v, want %v", err, want)
	}
}

func readOf(t *testing.T, m *MemDB, d Domain, table, key string) (any, bool) {
	t.Helper()
	v, ok, err := m.Read(d, table, key)
	mustOK(t, err)
	return v, ok
}

func wantRow(t *testing.T, m *MemDB, d Domain, table, key string, want any) {
	t.Helper()
	v, ok := readOf(t, m, d, table, key)
	if want == nil {
		if ok {
			t.Fatalf("%v %q %q: got %v, want no row", d, table, key, v)
		}
		return
	}
	if !ok || v != want {
		t.Fatalf("%v %q %q: got %v (%v), want %v", d, table, key, v, ok, want)
	}
}

func wantKeys(t *testing.T, m *MemDB, d Domain, table string, want ...string) {
	t.Helper()
	ks, err := m.Keys(d, table)
	mustOK(t, err)
	if len(ks) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(ks, want) {
		t.Fatalf("%v %q keys: got %q, want %q", d, table, ks, want)
	}
}

func TestMemErrors(t *testing.T) {
	m := NewMemDB()

	_, err := m.CommitTx()
	wantErr(t, err, ErrNotInTx)
	wantErr(t, m.RollbackTx(), ErrNotInTx)

	// Missing table, for every user-table operation.
	_, _, err = m.Read(UserTable, "nope", "k")
	wantErr(t, err, ErrNoTable)
	wantErr(t, m.Write(UserTable, "nope", "k", "v", Write), ErrNoTable)
	wantErr(t, m.Write(UserTable, "nope", "k", "v", Insert), ErrNoTable)
	wantErr(t, m.Write(UserTable, "nope", "k", "v", Update), ErrNoTable)
	_, err = m.Keys(UserTable, "nope")
	wantErr(t, err, ErrNoTable)
	if m.HasTable("nope") {
		t.Fatal("HasTable on a missing table")
	}

	mustOK(t, m.CreateTable("t"))
	wantErr(t, m.CreateTable("t"), ErrTableExists)
	if !m.HasTable("t") {
		t.Fatal("HasTable after CreateTable")
	}

	mustOK(t, m.Write(UserTable, "t", "a", "1", Insert))
	wantErr(t, m.Write(UserTable, "t", "a", "2", Insert), ErrRowExists)
	wantErr(t, m.Write(UserTable, "t", "b", "2", Update), ErrNoRow)
	wantRow(t, m, UserTable, "t", "a", "1")
	wantRow(t, m, UserTable, "t", "b", nil)

	// The same checks on a system domain.
	mustOK(t, m.Write(KeySets, "", "ks", "v1", Insert))
	wantErr(t, m.Write(KeySets, "", "ks", "v2", Insert), ErrRowExists)
	wantErr(t, m.Write(KeySets, "", "other", "v2", Update), ErrNoRow)

	_, err = m.BeginTx(Transactional)
	mustOK(t, err)
	_, err = m.BeginTx(Transactional)
	wantErr(t, err, ErrInTx)
	_, err = m.BeginTx(Local)
	wantErr(t, err, ErrInTx)
	if !m.InTx() {
		t.Fatal("InTx after a refused BeginTx")
	}
	// Failed writes leave no trace in the log.
	wantErr(t, m.Write(UserTable, "t", "a", "x", Insert), ErrRowExists)
	wantErr(t, m.Write(UserTable, "t", "zz", "x", Update), ErrNoRow)
	log, err := m.CommitTx()
	mustOK(t, err)
	if len(log) != 0 {
		t.Fatalf("log of failed writes: %v", log)
	}

	if _, _, err := m.Read(Domain(99), "", "k"); err == nil {
		t.Fatal("Read of an unknown domain succeeded")
	}
}

func TestMemWritesOutsideTx(t *testing.T) {
	m := NewMemDB()
	if m.InTx() {
		t.Fatal("new DB in tx")
	}
	mustOK(t, m.CreateTable("t"))
	mustOK(t, m.Write(UserTable, "t", "k", "v", Write))
	mustOK(t, m.Write(Modules, "ignored", "coin", "mod", Write))
	wantRow(t, m, UserTable, "t", "k", "v")
	wantRow(t, m, Modules, "", "coin", "mod")
	// The table argument is ignored for system domains.
	wantRow(t, m, Modules, "whatever", "coin", "mod")

	// Writes made before a transaction are not part of its log.
	_, err := m.BeginTx(Transactional)
	mustOK(t, err)
	log, err := m.CommitTx()
	mustOK(t, err)
	if len(log) != 0 {
		t.Fatalf("log: %v", log)
	}
}

func TestMemCommitRollbackVisibility(t *testing.T) {
	m := NewMemDB()
	mustOK(t, m.CreateTable("t"))
	mustOK(t, m.Write(UserTable, "t", "a", "a0", Insert))
	mustOK(t, m.Write(UserTable, "t", "b", "b0", Insert))
	mustOK(t, m.Write(Namespaces, "", "ns", "ns0", Write))

	// Rolled back: every kind of change is undone.
	id, err := m.BeginTx(Transactional)
	mustOK(t, err)
	if id != 0 {
		t.Fatalf("first id %d", id)
	}
	mustOK(t, m.Write(UserTable, "t", "a", "a1", Update))
	mustOK(t, m.Write(UserTable, "t", "a", "a2", Write)) // second write, same key
	mustOK(t, m.Write(UserTable, "t", "c", "c1", Insert))
	mustOK(t, m.Write(Namespaces, "", "ns", "ns1", Write))
	mustOK(t, m.Write(KeySets, "", "ks", "ks1", Write))
	mustOK(t, m.Write(DefPacts, "", "pid", "p1", Write))
	// Reads inside the tx see the writes at once.
	wantRow(t, m, UserTable, "t", "a", "a2")
	wantRow(t, m, UserTable, "t", "c", "c1")
	wantKeys(t, m, UserTable, "t", "a", "b", "c")
	mustOK(t, m.RollbackTx())
	if m.InTx() {
		t.Fatal("InTx after rollback")
	}
	wantRow(t, m, UserTable, "t", "a", "a0")
	wantRow(t, m, UserTable, "t", "b", "b0")
	wantRow(t, m, UserTable, "t", "c", nil)
	wantRow(t, m, Namespaces, "", "ns", "ns0")
	wantRow(t, m, KeySets, "", "ks", nil)
	wantRow(t, m, DefPacts, "", "pid", nil)
	wantKeys(t, m, UserTable, "t", "a", "b")
	wantKeys(t, m, KeySets, "")

	// Committed: the changes stay.
	id, err = m.BeginTx(Transactional)
	mustOK(t, err)
	if id != 0 {
		t.Fatalf("id after rollback %d, want 0", id)
	}
	mustOK(t, m.Write(UserTable, "t", "a", "a3", Update))
	mustOK(t, m.Write(UserTable, "t", "d", "d3", Insert))
	mustOK(t, m.Write(Modules, "", "m", "m3", Write))
	_, err = m.CommitTx()
	mustOK(t, err)
	wantRow(t, m, UserTable, "t", "a", "a3")
	wantRow(t, m, UserTable, "t", "d", "d3")
	wantRow(t, m, Modules, "", "m", "m3")

	// A later rollback restores the committed state, not the original one.
	_, err = m.BeginTx(Transactional)
	mustOK(t, err)
	mustOK(t, m.Write(UserTable, "t", "a", "a4", Write))
	mustOK(t, m.Write(Modules, "", "m", "m4", Write))
	mustOK(t, m.RollbackTx())
	wantRow(t, m, UserTable, "t", "a", "a3")
	wantRow(t, m, Modules, "", "m", "m3")
}

func TestMemTxIDs(t *testing.T) {
	m := NewMemDB()
	begin := func(mode Mode, want TxID) {
		t.Helper()
		id, err := m.BeginTx(mode)
		mustOK(t, err)
		if id != want {
			t.Fatalf("BeginTx = %d, want %d", id, want)
		}
	}
	begin(Transactional, 0)
	_, err := m.CommitTx()
	mustOK(t, err)
	begin(Transactional, 1)
	mustOK(t, m.RollbackTx())
	begin(Transactional, 1) // a rollback does not use up the id
	mustOK(t, m.RollbackTx())
	begin(Local, 1)
	_, err = m.CommitTx()
	mustOK(t, err)
	begin(Transactional, 1) // nor does a Local commit
	_, err = m.CommitTx()
	mustOK(t, err)
	begin(Transactional, 2)
	_, err = m.CommitTx()
	mustOK(t, err)
}

func TestMemLocalMode(t *testing.T) {
	m := NewMemDB()
	mustOK(t, m.CreateTable("t"))
	mustOK(t, m.Write(UserTable, "t", "a", "a0", Write))

	_, err := m.BeginTx(Local)
	mustOK(t, err)
	mustOK(t, m.CreateTable("u"))
	mustOK(t, m.Write(UserTable, "u", "x", "x1", Insert))
	mustOK(t, m.Write(UserTable, "t", "a", "a1", Update))
	mustOK(t, m.Write(KeySets, "", "ks", "ks1", Write))
	wantRow(t, m, UserTable, "t", "a", "a1")
	log, err := m.CommitTx()
	mustOK(t, err)
	want := []TxLog{
		{Domain: UserTable, Table: "u", Key: "x", Value: "x1"},
		{Domain: UserTable, Table: "t", Key: "a", Value: "a1"},
		{Domain: KeySets, Key: "ks", Value: "ks1"},
	}
	if !reflect.DeepEqual(log, want) {
		t.Fatalf("Local log:\n got %v\nwant %v", log, want)
	}
	// ...but nothing was kept.
	if m.InTx() {
		t.Fatal("InTx after a Local commit")
	}
	if m.HasTable("u") {
		t.Fatal("table created in a Local tx survived")
	}
	wantRow(t, m, UserTable, "t", "a", "a0")
	wantRow(t, m, KeySets, "", "ks", nil)
}

func TestMemTableCreatedThenRolledBack(t *testing.T) {
	m := NewMemDB()
	_, err := m.BeginTx(Transactional)
	mustOK(t, err)
	mustOK(t, m.CreateTable("t"))
	mustOK(t, m.Write(UserTable, "t", "k", "v", Insert))
	mustOK(t, m.Write(UserTable, "t", "k", "w", Update))
	mustOK(t, m.RollbackTx())
	if m.HasTable("t") {
		t.Fatal("table survived the rollback")
	}
	_, _, err = m.Read(UserTable, "t", "k")
	wantErr(t, err, ErrNoTable)
	wantErr(t, m.Write(UserTable, "t", "k", "v", Write), ErrNoTable)

	// It can be created again, empty, and then kept.
	id, err := m.BeginTx(Transactional)
	mustOK(t, err)
	if id != 0 {
		t.Fatalf("id %d", id)
	}
	mustOK(t, m.CreateTable("t"))
	wantKeys(t, m, UserTable, "t")
	mustOK(t, m.Write(UserTable, "t", "k", "v2", Insert))
	_, err = m.CommitTx()
	mustOK(t, err)
	wantRow(t, m, UserTable, "t", "k", "v2")

	// Creating an existing table inside a tx fails and a rollback keeps it.
	_, err = m.BeginTx(Transactional)
	mustOK(t, err)
	wantErr(t, m.CreateTable("t"), ErrTableExists)
	mustOK(t, m.RollbackTx())
	wantRow(t, m, UserTable, "t", "k", "v2")
}

func TestMemLogOrder(t *testing.T) {
	m := NewMemDB()
	mustOK(t, m.CreateTable("t"))
	mustOK(t, m.Write(UserTable, "t", "pre", "p", Write)) // outside: not logged
	_, err := m.BeginTx(Transactional)
	mustOK(t, err)
	mustOK(t, m.Write(UserTable, "t", "b", "b1", Insert))
	mustOK(t, m.Write(Modules, "", "m", "m1", Write))
	mustOK(t, m.Write(UserTable, "t", "a", "a1", Write))
	mustOK(t, m.Write(UserTable, "t", "b", "b2", Update)) // a rewrite is logged again
	mustOK(t, m.Write(Namespaces, "", "ns", "n1", Insert))
	log, err := m.CommitTx()
	mustOK(t, err)
	want := []TxLog{
		{Domain: UserTable, Table: "t", Key: "b", Value: "b1"},
		{Domain: Modules, Key: "m", Value: "m1"},
		{Domain: UserTable, Table: "t", Key: "a", Value: "a1"},
		{Domain: UserTable, Table: "t", Key: "b", Value: "b2"},
		{Domain: Namespaces, Key: "ns", Value: "n1"},
	}
	if !reflect.DeepEqual(log, want) {
		t.Fatalf("log:\n got %v\nwant %v", log, want)
	}
	// The next transaction starts with an empty log.
	_, err = m.BeginTx(Transactional)
	mustOK(t, err)
	mustOK(t, m.Write(UserTable, "t", "c", "c1", Write))
	log, err = m.CommitTx()
	mustOK(t, err)
	if len(log) != 1 || log[0].Key != "c" {
		t.Fatalf("second log: %v", log)
	}
}

func TestMemKeysSorted(t *testing.T) {
	m := NewMemDB()
	mustOK(t, m.CreateTable("t"))
	// Byte order: upper case before lower case, a prefix before its
	// extensions, UTF-8 multibyte after ASCII.
	for _, k := range []string{"b", "é", "B", "a", "ab", "", "A", "10", "9"} {
		mustOK(t, m.Write(UserTable, "t", k, k, Insert))
		mustOK(t, m.Write(DefPacts, "", k, k, Insert))
	}
	want := []string{"", "10", "9", "A", "B", "a", "ab", "b", "é"}
	wantKeys(t, m, UserTable, "t", want...)
	wantKeys(t, m, DefPacts, "", want...)
	wantKeys(t, m, Modules, "")
}

// BenchmarkInsertRead1000 runs transactions that insert 1,000 rows and
// read each back. "rollback" works on a database already holding 10,000
// rows (so a copy-the-world snapshot at BeginTx would show) and rolls back
// so that every iteration starts from the same state; "commit" commits into
// a fresh table each time.
func BenchmarkInsertRead1000(b *testing.B) {
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%04d", i)
	}
	insertRead := func(m *MemDB, table string) {
		if _, err := m.BeginTx(Transactional); err != nil {
			b.Fatal(err)
		}
		for i, k := range keys {
			if err := m.Write(UserTable, table, k, i, Insert); err != nil {
				b.Fatal(err)
			}
		}
		for _, k := range keys {
			if _, ok, err := m.Read(UserTable, table, k); err != nil || !ok {
				b.Fatal(k, ok, err)
			}
		}
	}

	b.Run("rollback", func(b *testing.B) {
		m := NewMemDB()
		if err := m.CreateTable("t"); err != nil {
			b.Fatal(err)
		}
		for i := range 10000 {
			if err := m.Write(UserTable, "t", fmt.Sprintf("base-%05d", i), i, Insert); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			insertRead(m, "t")
			if err := m.RollbackTx(); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("commit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := NewMemDB()
			if err := m.CreateTable("t"); err != nil {
				b.Fatal(err)
			}
			insertRead(m, "t")
			if log, err := m.CommitTx(); err != nil || len(log) != len(keys) {
				b.Fatal(len(log), err)
			}
		}
	})
}

// TestMemTxAfterTx runs transactions one after another, as the REPL does,
// the later ones on the bookkeeping the earlier ones leave: a log already
// returned must not change, and a rollback must undo every row the rolled
// back transaction wrote, those an earlier one wrote too included.
func TestMemTxAfterTx(t *testing.T) {
	m := NewMemDB()
	mustOK(t, m.CreateTable("t"))
	_, err := m.BeginTx(Transactional)
	mustOK(t, err)
	mustOK(t, m.Write(UserTable, "t", "a", "1", Write))
	mustOK(t, m.Write(UserTable, "t", "b", "1", Write))
	first, err := m.CommitTx()
	mustOK(t, err)
	want := fmt.Sprint(first)
	for range 2 {
		_, err = m.BeginTx(Transactional)
		mustOK(t, err)
		mustOK(t, m.Write(UserTable, "t", "a", "2", Write))
		mustOK(t, m.Write(UserTable, "t", "c", "2", Write))
		mustOK(t, m.RollbackTx())
		wantRow(t, m, UserTable, "t", "a", "1")
		wantRow(t, m, UserTable, "t", "c", nil)
	}
	_, err = m.BeginTx(Transactional)
	mustOK(t, err)
	mustOK(t, m.Write(UserTable, "t", "b", "3", Write))
	second, err := m.CommitTx()
	mustOK(t, err)
	if got := fmt.Sprint(first); got != want {
		t.Errorf("the first transaction's log became %s, was %s", got, want)
	}
	if len(second) != 1 || second[0].Key != "b" || second[0].Value != "3" {
		t.Errorf("the last transaction's log is %v", second)
	}
}

// A rollback restores every row a transaction wrote, however often, both
// while the undo log is searched and once it is indexed (seenAfter).
func TestMemRollbackRestoresManyRows(t *testing.T) {
	for _, n := range []int{3, seenAfter - 1, seenAfter, 3 * seenAfter} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := NewMemDB()
			mustOK(t, m.CreateTable("t"))
			for i := 0; i < n; i += 2 {
				mustOK(t, m.Write(UserTable, "t", fmt.Sprint("k", i), fmt.Sprint("old", i), Insert))
			}
			_, err := m.BeginTx(Transactional)
			mustOK(t, err)
			for round := 0; round < 3; round++ {
				for i := 0; i < n; i++ {
					mustOK(t, m.Write(UserTable, "t", fmt.Sprint("k", i), fmt.Sprint("new", round, i), Write))
				}
			}
			mustOK(t, m.RollbackTx())
			for i := 0; i < n; i++ {
				var want any
				if i%2 == 0 {
					want = fmt.Sprint("old", i)
				}
				wantRow(t, m, UserTable, "t", fmt.Sprint("k", i), want)
			}
		})
	}
}
