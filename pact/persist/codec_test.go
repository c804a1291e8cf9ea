package persist

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist/dbtest"
	"github.com/ledgernode/ledger-node/pact/value"
)

// stubResolver stands in for the database: modules are placeholders that
// remember their records, defpacts are made up on demand. Encoding with
// its record function gives back the record a placeholder came from, so
// what decodes re-encodes exactly.
type stubResolver struct {
	recs map[*eval.Module]eval.ModuleRecord
}

func newStub() *stubResolver { return &stubResolver{recs: map[*eval.Module]eval.ModuleRecord{}} }

func (s *stubResolver) RestoreModule(rec eval.ModuleRecord) (*eval.Module, error) {
	m := &eval.Module{Name: rec.Name, Hash: rec.Hash}
	s.recs[m] = rec
	return m, nil
}

func (s *stubResolver) PactDef(mod value.ModuleName, name, hash string) (*eval.Def, error) {
	m := &eval.Module{Name: mod, Hash: hash}
	return &eval.Def{Kind: eval.DefPactKind, Name: name, Module: m}, nil
}

func (s *stubResolver) record(m *eval.Module) (eval.ModuleRecord, error) {
	rec, ok := s.recs[m]
	if !ok {
		return eval.ModuleRecord{}, errors.New("unknown module")
	}
	return rec, nil
}

func encode(t testing.TB, v any, s *stubResolver) []byte {
	t.Helper()
	b, err := EncodeEntry(nil, v, s.record)
	if err != nil {
		t.Fatalf("encode %v: %v", v, err)
	}
	return b
}

// roundTrip encodes v, decodes it and checks that the result encodes to
// the same bytes.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	s := newStub()
	b := encode(t, v, s)
	got, err := DecodeEntry(b, s)
	if err != nil {
		t.Fatalf("decode %v: %v", v, err)
	}
	if again := encode(t, got, s); !bytes.Equal(again, b) {
		t.Fatalf("%v: re-encoded\n %x\nwant\n %x", v, again, b)
	}
	return got
}

func TestRoundTripValues(t *testing.T) {
	for _, v := range dbtest.SampleValues() {
		got := roundTrip(t, v)
		if !dbtest.Same(got, v) {
			t.Errorf("round trip of %v gave %v", v, got)
		}
		// Decimal places, big integers and times survive exactly.
		switch x := v.(type) {
		case value.Decimal:
			if y := got.(value.Decimal); y.Places() != x.Places() || y.Mantissa().Cmp(x.Mantissa()) != 0 {
				t.Errorf("decimal %v gave %v", x, y)
			}
		case value.Time:
			if got.(value.Time).Micros() != x.Micros() {
				t.Errorf("time %d gave %d", x.Micros(), got.(value.Time).Micros())
			}
		}
	}
}

func TestRoundTripRecursiveSchema(t *testing.T) {
	mn := value.ModuleName{Name: "m"}
	node := &value.Schema{Name: value.QualifiedName{Module: mn, Name: "node"}}
	node.Fields = []value.SchemaField{
		{Name: "next", Type: value.Type{Kind: value.TyObject, Schema: node}},
		{Name: "kids", Type: value.Type{Kind: value.TyList, Elem: &value.Type{Kind: value.TyObject, Schema: node}}},
		{Name: "v", Type: value.Type{Kind: value.TyPrim, Prim: "integer"}},
	}
	tbl := &value.Table{Name: "nodes", Module: mn, Hash: "h", Schema: *node}
	got := roundTrip(t, tbl).(*value.Table)
	s := got.Schema.Fields[0].Type.Schema
	if s == nil || s.Name != node.Name || len(s.Fields) != 3 {
		t.Fatalf("schema: %+v", s)
	}
	if s.Fields[0].Type.Schema != s || s.Fields[1].Type.Elem.Schema != s || got.Schema.Fields[1].Type.Elem.Schema != s {
		t.Fatal("the schema's self-references are not one schema")
	}
}

func TestRoundTripPactAndNamespace(t *testing.T) {
	mn := value.ModuleName{Name: "m", Namespace: "free"}
	def := &eval.Def{Kind: eval.DefPactKind, Name: "transfer", Module: &eval.Module{Name: mn, Hash: "h1"}}
	data := value.NewObject(value.Field{Key: "amount", Val: value.NewDecimal(value.NewInt(1000), 3)})
	pe := &eval.PactExec{
		PactID: "pid", StepCount: 3, Step: 1, StepHasRollback: true, Def: def,
		Yield: &eval.Yield{Data: data, TargetChain: "1", HasTarget: true, SourceChain: "0", ModuleHash: "mh"},
		Args:  []value.Value{value.String("a"), value.NewInt(7)},
		Nested: map[string]*eval.PactExec{
			"n2": {PactID: "n2", StepCount: 3, Step: 1, Def: def, Args: []value.Value{}, Nested: map[string]*eval.PactExec{}},
			"n1": {PactID: "n1", StepCount: 3, Def: def, Yield: &eval.Yield{}, Args: []value.Value{}},
		},
	}
	got := roundTrip(t, pe).(*eval.PactExec)
	if got.PactID != "pid" || got.StepCount != 3 || got.Step != 1 || !got.StepHasRollback ||
		got.Def.Name != "transfer" || got.Def.Module.Name != mn || got.Def.Module.Hash != "h1" ||
		!value.StructEqual(got.Yield.Data, data) || got.Yield.TargetChain != "1" || !got.Yield.HasTarget || got.Yield.SourceChain != "0" || got.Yield.ModuleHash != "mh" ||
		!value.StructEqual(value.List(got.Args), value.List(pe.Args)) || len(got.Nested) != 2 {
		t.Fatalf("defpact: %+v", got)
	}
	if n := got.Nested["n2"]; n.Nested == nil || len(n.Nested) != 0 || n.Yield != nil {
		t.Fatalf("nested n2: %+v", n)
	}
	if n := got.Nested["n1"]; n.Nested != nil || n.Yield == nil || n.Yield.Data != nil {
		t.Fatalf("nested n1: %+v", n)
	}
	if got := roundTrip(t, (*eval.PactExec)(nil)); got.(*eval.PactExec) != nil {
		t.Fatal("completed defpact")
	}
	roundTrip(t, &eval.PactExec{PactID: "no def"})

	ns := &eval.Namespace{Name: "free", User: value.NewKeySet([]string{"k"}, "")}
	gotNS := roundTrip(t, ns).(*eval.Namespace)
	if gotNS.Name != "free" || !value.StructEqual(gotNS.User, ns.User) || gotNS.Admin != nil {
		t.Fatalf("namespace: %+v", gotNS)
	}
}

func TestRoundTripModuleRecord(t *testing.T) {
	rec := eval.ModuleRecord{
		Name: value.ModuleName{Name: "coin"}, Code: "(module coin GOV (defcap GOV () true))", Hash: "h2", TxHash: "tx",
		Blessed: []string{"a", "b"}, GovCap: "GOV",
		Deps: []eval.ModuleDep{{Name: value.ModuleName{Name: "a", Namespace: "z"}, Hash: "x"}, {Name: value.ModuleName{Name: "b"}}, {Name: value.ModuleName{Name: "b", Namespace: "free"}, Hash: "y"}},
	}
	s := newStub()
	m, _ := s.RestoreModule(rec)
	b := encode(t, m, s)
	got, err := DecodeEntry(b, s)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.recs[got.(*eval.Module)]; !sameRecord(&r, &rec) {
		t.Fatalf("record: %+v", r)
	}
	// Without a resolver, a module entry is an error, not a panic.
	if _, err := DecodeEntry(b, nil); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("module entry without resolver: %v", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	v := func(body ...byte) []byte { return append([]byte{codecVersion, entryValue}, body...) }
	cases := map[string][]byte{
		"empty":               {},
		"version":             {2, entryValue, tagUnit},
		"entry tag":           {codecVersion, 99},
		"value tag":           v(99),
		"none as value":       v(tagNone),
		"trailing":            v(tagUnit, 0),
		"truncated string":    v(tagString, 3, 'a'),
		"huge string":         v(tagString, 0xff, 0xff, 0xff, 0xff, 0x0f),
		"huge list":           v(tagList, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
		"varint overflow":     v(tagInt, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
		"varint not minimal":  v(tagInt, 0x82, 0x00),
		"bad bool":            v(tagCapGuard, 0, 0, 0, 2, 0, 0),
		"big int fits":        v(tagBigInt, 0, 1, 5),
		"big int zero pad":    v(tagBigInt, 0, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8),
		"big int empty":       v(tagBigInt, 0, 0),
		"object order":        v(tagObject, 2, 1, 'b', tagUnit, 1, 'a', tagUnit),
		"object dup":          v(tagObject, 2, 1, 'a', tagUnit, 1, 'a', tagUnit),
		"decimal mantissa":    v(tagDecimal, 2, tagString, 0),
		"type kind":           v(tagTableRef, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'f', 99),
		"schema ref":          v(tagTableRef, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'f', 0, 0, 0, schemaRef, 0, 0),
		"schema marker":       v(tagTableRef, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'f', 0, 0, 0, 7, 0),
		"yield data":          {codecVersion, entryPact, 0, 0, 0, 1, tagUnit, 0, 0, 0, 0, 0, 0, 0},
		"nested order":        {codecVersion, entryPact, 0, 0, 0, 0, 0, 0, 0, 3, 1, 'b', 0, 0, 0, 0, 0, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 0},
		"blessed order":       {codecVersion, entryModule, 1, 'm', 0, 0, 0, 1, 'h', 0, 2, 1, 'b', 1, 'a', 0, 0, 0},
		"pact def sans res":   {codecVersion, entryPact, 0, 0, 0, 0, 0, 1, 1, 'm', 0, 1, 'p', 1, 'h', 0, 0},
		"truncated pact":      {codecVersion, entryPact, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"deep":                append(v(bytes.Repeat([]byte{tagList, 1}, maxDepth+1)...), tagUnit),
		"namespace truncated": {codecVersion, entryNamespace, 1, 'n', tagString},
	}
	for name, b := range cases {
		res := Resolver(newStub())
		if name == "pact def sans res" {
			res = nil
		}
		if _, err := DecodeEntry(b, res); !errors.Is(err, kv.ErrCorrupt) {
			t.Errorf("%s: %v, want kv.ErrCorrupt", name, err)
		}
	}
	// Every proper prefix of a valid entry is an error.
	s := newStub()
	for _, v := range dbtest.SampleValues() {
		b := encode(t, v, s)
		for i := range len(b) {
			if _, err := DecodeEntry(b[:i], s); err == nil {
				t.Fatalf("%v: prefix of %d bytes decoded", v, i)
			}
		}
	}
}

func TestDepthLimit(t *testing.T) {
	v := value.Value(value.UnitValue)
	for range maxDepth - 1 {
		v = value.List{v}
	}
	roundTrip(t, v)
	if _, err := EncodeEntry(nil, value.List{v}, nil); !errors.Is(err, errTooDeep) {
		t.Fatalf("encode too deep: %v", err)
	}
}
