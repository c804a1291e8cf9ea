package persist

import (
	"bytes"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/storage"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist/dbtest"
	"github.com/ledgernode/ledger-node/pact/value"
)

// fuzzSeeds are the encodings of every sample value and of each other kind
// of entry.
func fuzzSeeds(f *testing.F) {
	s := newStub()
	for _, v := range dbtest.SampleValues() {
		f.Add(encode(f, v, s))
	}
	mn := value.ModuleName{Name: "m", Namespace: "free"}
	def := &eval.Def{Kind: eval.DefPactKind, Name: "p", Module: &eval.Module{Name: mn, Hash: "h"}}
	f.Add(encode(f, &eval.PactExec{PactID: "id", StepCount: 2, Def: def, Args: []value.Value{value.NewInt(1)},
		Yield:  &eval.Yield{Data: value.NewObject(value.Field{Key: "a", Val: value.True})},
		Nested: map[string]*eval.PactExec{"n": {PactID: "n", Def: def}}}, s))
	f.Add(encode(f, (*eval.PactExec)(nil), s))
	f.Add(encode(f, &eval.Namespace{Name: "ns", User: value.NewKeySet([]string{"k"}, ""), Admin: &value.KeySetRef{Name: "a"}}, s))
	m, _ := s.RestoreModule(eval.ModuleRecord{Name: mn, Code: "(module m g)", Hash: "h", Blessed: []string{"x"}, GovKeyset: "g",
		Deps: []eval.ModuleDep{{Name: value.ModuleName{Name: "coin"}, Hash: "c"}}})
	f.Add(encode(f, m, s))
	f.Add(encode(f, nil, s))
}

// FuzzDecodeEntry feeds arbitrary bytes to the entry decoder: it must
// return an error or a value, never panic and never allocate what a length
// merely claims; and what decodes must encode back to exactly the input
// (the encoding is canonical).
func FuzzDecodeEntry(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newStub()
		v, err := DecodeEntry(b, s)
		if err != nil {
			return
		}
		again, err := EncodeEntry(nil, v, s.record)
		if err != nil {
			t.Fatalf("re-encode %v: %v", v, err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("not canonical:\n in %x\nout %x", b, again)
		}
	})
}

// FuzzReadRow stores arbitrary bytes as a row and reads it through the
// database, whose resolver rebuilds modules and defpacts from whatever the
// bytes name: errors, no panics.
func FuzzReadRow(f *testing.F) {
	fuzzSeeds(f)
	// In-memory storage: goleveldb's write stalls on disk would dominate.
	ldb, err := leveldb.Open(storage.NewMemStorage(), nil)
	if err != nil {
		f.Fatal(err)
	}
	d, err := openLDB(ldb, "mem", 4)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { d.Close() })
	if err := d.CreateTable("t"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range [][]byte{rowKey(userPrefix("t"), "k"), rowKey(d.sys[3], "m"), versionKey("free.m", "h")} {
			if err := d.ldb.Put(k, b, nil); err != nil {
				t.Fatal(err)
			}
		}
		d.cache = NewRowCache(4)
		d.mods = NewModuleCache()
		d.Read(0, "t", "k")
		d.Read(3, "", "m")
		d.Read(4, "", "m")
		d.ModuleVersion(value.ModuleName{Name: "m", Namespace: "free"}, "h")
	})
}
