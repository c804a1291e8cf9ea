package repl_test

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/pactbench"

	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Benchmarks of the interpreter on three workloads, each next to a plain Go
// baseline doing the equivalent work on eval values:
//
//   - Fold: (fold (+) 0 (enumerate 1 10000)) against building 10,000
//     eval.Integer and summing them with eval.Add; ns/elem per element;
//   - TableInsert / TableRead: 1,000 inserts (a defun doing insert, in a
//     begin-tx/commit-tx transaction) and 1,000 reads (a defun doing read)
//     against 1,000 inserts and lookups of *eval.Object in a Go map;
//     ns/row per row;
//   - LoadModule: parsing and loading a generated 500-line module (defconsts,
//     defuns, a schema and a table) against syntax.ParseRepl of the same
//     text; ns/op per load.
//
// bench/pacteval runs the same pairs alternately and prints the ratios
// (interpreter ÷ baseline); its results are in bench/RESULTS.md.
//
//	go test -run '^$' -bench . -benchmem ./pact/repl

const (
	foldElems = 10_000
	tableRows = 1_000
)

// tableModule is the module of the table benchmarks.
const tableModule = `(module bench GOV
  (defcap GOV () true)
  (defschema row n:integer owner:string)
  (deftable rows:{row})
  (defun put:string (i:integer) (insert rows (int-to-str 10 i) {'n: i, 'owner: "alice"}))
  (defun get:integer (i:integer) (at 'n (read rows (int-to-str 10 i)))))
(create-table bench.rows)
`

func newRunner(tb testing.TB, src string) *repl.Runner {
	r := repl.New(io.Discard)
	if _, err := r.EvalSource("setup.repl", src, true); err != nil {
		tb.Fatal(err)
	}
	return r
}

// parseForms parses REPL source into top-level forms evaluated one by one
// with EvalTopLevel, so that the timed loops do not parse.
func parseForms(tb testing.TB, src string) []syntax.TopLevel {
	f, err := syntax.ParseRepl("bench.repl", src)
	if err != nil {
		tb.Fatal(err)
	}
	return f.Items
}

func evalForms(tb testing.TB, r *repl.Runner, forms []syntax.TopLevel) value.Value {
	var v value.Value
	for _, item := range forms {
		var err error
		if v, err = r.In.EvalTopLevel(item, true); err != nil {
			tb.Fatal(err)
		}
	}
	return v
}

func perOp(b *testing.B, ops int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ops), unit)
}

func BenchmarkFold(b *testing.B) {
	r := newRunner(b, "")
	forms := parseForms(b, "(fold (+) 0 (enumerate 1 10000))")
	if v := evalForms(b, r, forms); !value.Equal(v, value.NewInt(50005000)) {
		b.Fatalf("fold = %v", v)
	}
	b.ReportAllocs()
	for b.Loop() {
		evalForms(b, r, forms)
	}
	perOp(b, foldElems, "ns/elem")
}

func BenchmarkFoldGo(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		l := make(value.List, foldElems)
		for i := range l {
			l[i] = value.NewInt(int64(i + 1))
		}
		var acc value.Value = value.NewInt(0)
		for _, x := range l {
			var err error
			if acc, err = value.Add(acc, x); err != nil {
				b.Fatal(err)
			}
		}
	}
	perOp(b, foldElems, "ns/elem")
}

func BenchmarkTableInsert(b *testing.B) {
	forms := parseForms(b, "(begin-tx) (map (bench.put) (enumerate 1 1000)) (commit-tx)")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := newRunner(b, tableModule) // fresh table: insert fails on existing keys
		b.StartTimer()
		evalForms(b, r, forms)
	}
	perOp(b, tableRows, "ns/row")
}

func BenchmarkTableRead(b *testing.B) {
	r := newRunner(b, tableModule+"(begin-tx) (map (bench.put) (enumerate 1 1000)) (commit-tx)")
	forms := parseForms(b, "(begin-tx) (fold (+) 0 (map (bench.get) (enumerate 1 1000))) (commit-tx)")
	if v := evalForms(b, r, forms[:2]); !value.Equal(v, value.NewInt(500500)) {
		b.Fatalf("sum of reads = %v", v)
	}
	evalForms(b, r, forms[2:])
	b.ReportAllocs()
	for b.Loop() {
		evalForms(b, r, forms)
	}
	perOp(b, tableRows, "ns/row")
}

func row(i int) *value.Object {
	return value.NewObject(value.Field{Key: "n", Val: value.NewInt(int64(i))}, value.Field{Key: "owner", Val: value.String("alice")})
}

func BenchmarkMapInsertGo(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m := make(map[string]*value.Object)
		for i := 1; i <= tableRows; i++ {
			k := strconv.Itoa(i)
			if _, ok := m[k]; ok {
				b.Fatal("duplicate")
			}
			m[k] = row(i)
		}
	}
	perOp(b, tableRows, "ns/row")
}

func BenchmarkMapReadGo(b *testing.B) {
	m := make(map[string]*value.Object)
	for i := 1; i <= tableRows; i++ {
		m[strconv.Itoa(i)] = row(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		var acc value.Value = value.NewInt(0)
		for i := 1; i <= tableRows; i++ {
			v, err := m[strconv.Itoa(i)].At("n")
			if err != nil {
				b.Fatal(err)
			}
			if acc, err = value.Add(acc, v); err != nil {
				b.Fatal(err)
			}
		}
	}
	perOp(b, tableRows, "ns/row")
}

func BenchmarkLoadModule(b *testing.B) {
	src := pactbench.GeneratedModule(500)
	b.ReportMetric(float64(strings.Count(src, "\n")), "lines")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := repl.New(io.Discard)
		b.StartTimer()
		if _, err := r.EvalSource("gen.pact", src, true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseModuleGo(b *testing.B) {
	src := pactbench.GeneratedModule(500)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := syntax.ParseRepl("gen.pact", src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGeneratedModuleLoads checks the benchmark module: it has the length
// asked for, loads, and its functions run.
func TestGeneratedModuleLoads(t *testing.T) {
	src := pactbench.GeneratedModule(500)
	if n := strings.Count(src, "\n"); n != 500 {
		t.Fatalf("%d lines", n)
	}
	r := newRunner(t, src+"(create-table gen.accounts)")
	v, err := r.EvalSource("t.repl", `(gen.credit "a" 2.5) (gen.f69 1.0 2) (gen.g13 "a")`, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(v)
}
