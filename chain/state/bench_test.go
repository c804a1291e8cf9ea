package state

import (
	"fmt"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist"
)

// BenchmarkVersionedRead reads 1,000 account-like rows through a view of a
// state of 10 blocks, each rewriting every row: "head-cached" as of the
// state's height with the row cache warm (the path a node's readers take
// most: /send's gas payer check, local, building the next block),
// "head-stored" the same with an empty row cache (a point read and a decode
// per row); "cached", "cached-parallel" (on every core at once) and
// "stored" as of a block below the height (rewindDepth, poll at a
// confirmation depth), where each row's version is sought.
func BenchmarkVersionedRead(b *testing.B) {
	ldb := openLevel(b, b.TempDir())
	b.Cleanup(func() { ldb.Close() })
	v, err := OpenVersioned(ldb, []byte("bench/"))
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%04d", i)
	}
	const blocks = 10
	for h := range uint64(blocks) {
		w := v.View(max(h, 1) - 1)
		if h == 0 {
			if err := w.CreateTable("t"); err != nil {
				b.Fatal(err)
			}
		}
		for i, k := range keys {
			row := eval.NewObject(
				eval.Field{Key: "balance", Val: eval.NewDecimal(eval.NewInt(int64(i)*1000+int64(h)), 3)},
				eval.Field{Key: "guard", Val: eval.NewKeySet([]string{fmt.Sprintf("%064x", i)}, "")},
			)
			if err := w.Write(db.UserTable, "t", k, row, db.Write); err != nil {
				b.Fatal(err)
			}
		}
		if err := v.Apply(w, h); err != nil {
			b.Fatal(err)
		}
	}
	read := func(b *testing.B, h uint64) {
		w := v.View(h)
		for _, k := range keys {
			if _, ok, err := w.Read(db.UserTable, "t", k); err != nil || !ok {
				b.Fatal(k, ok, err)
			}
		}
	}
	b.Run("head-cached", func(b *testing.B) {
		read(b, blocks-1)
		b.ReportAllocs()
		for b.Loop() {
			read(b, blocks-1)
		}
	})
	b.Run("head-stored", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v.cache = persist.NewRowCache(persist.DefaultCacheEntries)
			read(b, blocks-1)
		}
	})
	b.Run("cached", func(b *testing.B) {
		read(b, blocks/2)
		b.ReportAllocs()
		for b.Loop() {
			read(b, blocks/2)
		}
	})
	// Readers on every core, each through views of its own, as the
	// node's request handlers read.
	b.Run("cached-parallel", func(b *testing.B) {
		read(b, blocks/2)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				read(b, blocks/2)
			}
		})
	})
	b.Run("stored", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v.cache = persist.NewRowCache(persist.DefaultCacheEntries)
			read(b, blocks/2)
		}
	})
}
