package persist

import (
	"fmt"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/value"
)

// BenchmarkInsertRead1000 is pact/db's benchmark of the same name on DB:
// transactions that insert 1,000 rows and read each back. "rollback" works
// on a database already holding 10,000 rows and rolls back, so every
// iteration starts from the same state; "commit" commits into a fresh table
// each time (one synced goleveldb batch of 1,000 rows). "commit-rows" does
// the same with account-like object rows, and "read-stored" reads 1,000
// committed rows with an empty row cache, so that each is fetched from
// goleveldb and decoded.
func BenchmarkInsertRead1000(b *testing.B) {
	keys := make([]string, 1000)
	ints := make([]any, 1000)
	rows := make([]any, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%04d", i)
		ints[i] = value.NewInt(int64(i))
		rows[i] = value.NewObject(
			value.Field{Key: "balance", Val: value.NewDecimal(value.NewInt(int64(i)*1000+5), 3)},
			value.Field{Key: "guard", Val: value.NewKeySet([]string{fmt.Sprintf("%064x", i)}, "")},
		)
	}
	open := func(b *testing.B) *DB {
		d, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { d.Close() })
		return d
	}
	insertRead := func(d *DB, table string, vals []any) {
		if _, err := d.BeginTx(db.Transactional); err != nil {
			b.Fatal(err)
		}
		for i, k := range keys {
			if err := d.Write(db.UserTable, table, k, vals[i], db.Insert); err != nil {
				b.Fatal(err)
			}
		}
		for _, k := range keys {
			if _, ok, err := d.Read(db.UserTable, table, k); err != nil || !ok {
				b.Fatal(k, ok, err)
			}
		}
	}

	b.Run("rollback", func(b *testing.B) {
		d := open(b)
		if err := d.CreateTable("t"); err != nil {
			b.Fatal(err)
		}
		if _, err := d.BeginTx(db.Transactional); err != nil {
			b.Fatal(err)
		}
		for i := range 10000 {
			if err := d.Write(db.UserTable, "t", fmt.Sprintf("base-%05d", i), value.NewInt(int64(i)), db.Insert); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := d.CommitTx(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			insertRead(d, "t", ints)
			if err := d.RollbackTx(); err != nil {
				b.Fatal(err)
			}
		}
	})

	commit := func(vals []any) func(b *testing.B) {
		return func(b *testing.B) {
			d := open(b)
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				n++
				table := fmt.Sprintf("t%d", n)
				if err := d.CreateTable(table); err != nil {
					b.Fatal(err)
				}
				insertRead(d, table, vals)
				if log, err := d.CommitTx(); err != nil || len(log) != len(keys) {
					b.Fatal(len(log), err)
				}
			}
		}
	}
	b.Run("commit", commit(ints))
	b.Run("commit-rows", commit(rows))

	b.Run("read-stored", func(b *testing.B) {
		d := open(b)
		if err := d.CreateTable("t"); err != nil {
			b.Fatal(err)
		}
		insertRead(d, "t", rows)
		if _, err := d.CommitTx(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			d.cache = NewRowCache(DefaultCacheEntries)
			for _, k := range keys {
				if _, ok, err := d.Read(db.UserTable, "t", k); err != nil || !ok {
					b.Fatal(k, ok, err)
				}
			}
		}
	})
}
