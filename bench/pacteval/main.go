// Command pacteval measures what our Pact interpreter costs on three workloads, each against a
// plain Go loop doing the equivalent work on the interpreter's own values:
//
//   - fold: (fold (+) 0 (enumerate 1 10000)) evaluated by the REPL runner, against making the
//     10,000 eval.Integer values of the list and summing them with eval.Add; per element;
//   - insert: (begin-tx) (map (bench.put) (enumerate 1 1000)) (commit-tx), where bench.put is a
//     defun doing (insert rows (int-to-str 10 i) {...}) on a fresh table, against inserting
//     1,000 *eval.Object rows under strconv.Itoa keys into a Go map; per row;
//   - read: 1,000 reads through a defun doing (at 'n (read rows ...)), summed with fold, in a
//     transaction, against 1,000 map lookups + Object.At + eval.Add; per row;
//   - load: parsing and loading a generated 500-line module (a schema, a table, defconsts and
//     defuns) into a fresh REPL runner, against syntax.ParseRepl of the same text; per load.
//
// The ratio is interpreter ns/op ÷ baseline ns/op: how many times the Go loop's time the
// interpreter takes for the same work (1 would be free interpretation; for load it is the share
// of loading that is not parsing, plus 1). The two sides of each pair run one after the other
// (testing.Benchmark, 1 s each) in every round, the ratio is taken per round, and the median
// round is the result. The forms are parsed once outside the timed loops (except for load,
// where parsing is part of what is measured); fresh runners for insert and load are made with
// the timer stopped. pact/repl/bench_test.go has the same pairs as go test benchmarks.
//
// Usage (from the repository root): go run ./bench/pacteval [-rounds 5]
package main

import (
	"flag"
	"fmt"
	"github.com/ledgernode/ledger-node/internal/pactbench"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

const (
	foldElems   = 10_000
	tableRows   = 1_000
	moduleLines = 500
)

const tableModule = `(module bench GOV
  (defcap GOV () true)
  (defschema row n:integer owner:string)
  (deftable rows:{row})
  (defun put:string (i:integer) (insert rows (int-to-str 10 i) {'n: i, 'owner: "alice"}))
  (defun get:integer (i:integer) (at 'n (read rows (int-to-str 10 i)))))
(create-table bench.rows)
`

type workload struct {
	name     string
	ops      int // operations per benchmark iteration
	unit     string
	base     func(*testing.B)
	pact     func(*testing.B)
	baseDesc string
}

func main() {
	rounds := flag.Int("rounds", 5, "alternating measurement rounds")
	flag.Parse()

	ws, err := workloads()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pacteval:", err)
		os.Exit(1)
	}

	fmt.Printf("pacteval: %s/%s, GOMAXPROCS=%d, %s; ratio = pact ns/op ÷ Go baseline ns/op, same round\n",
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())
	for _, w := range ws {
		fmt.Printf("  %-7s per %-8s baseline: %s\n", w.name, w.unit, w.baseDesc)
	}
	fmt.Printf("%-6s %-8s %14s %14s %8s %22s\n", "round", "workload", "base ns/op", "pact ns/op", "ratio", "allocs/op (base, pact)")
	type series struct{ base, pact, ratio []float64 }
	res := make([]series, len(ws))
	for r := 1; r <= *rounds; r++ {
		for i, w := range ws {
			rb := testing.Benchmark(w.base)
			rp := testing.Benchmark(w.pact)
			if rb.N == 0 || rp.N == 0 {
				fmt.Fprintf(os.Stderr, "pacteval: %s failed\n", w.name)
				os.Exit(1)
			}
			b, p := perOp(rb, w.ops), perOp(rp, w.ops)
			s := &res[i]
			s.base, s.pact, s.ratio = append(s.base, b), append(s.pact, p), append(s.ratio, p/b)
			fmt.Printf("%-6d %-8s %14.1f %14.1f %8.2f %13.2f, %.2f\n", r, w.name, b, p, p/b,
				float64(rb.AllocsPerOp())/float64(w.ops), float64(rp.AllocsPerOp())/float64(w.ops))
		}
	}
	for i, w := range ws {
		s := res[i]
		fmt.Printf("%-6s %-8s %14.1f %14.1f %8.2f\n", "median", w.name, stats.Median(s.base), stats.Median(s.pact), stats.Median(s.ratio))
	}
}

// perOp is the time per operation in ns: the benchmark's ns/op over the operations in one
// iteration.
func perOp(r testing.BenchmarkResult, ops int) float64 {
	return float64(r.T.Nanoseconds()) / float64(r.N) / float64(ops)
}

func newRunner(src string) (*repl.Runner, error) {
	r := repl.New(io.Discard)
	if _, err := r.EvalSource("setup.repl", src, true); err != nil {
		return nil, err
	}
	return r, nil
}

func evalForms(r *repl.Runner, forms []syntax.TopLevel) (eval.Value, error) {
	var v eval.Value
	for _, item := range forms {
		var err error
		if v, err = r.In.EvalTopLevel(item, true); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func parseForms(src string) []syntax.TopLevel {
	f, err := syntax.ParseRepl("bench.repl", src)
	if err != nil {
		panic(err)
	}
	return f.Items
}

func row(i int) *eval.Object {
	return eval.NewObject(eval.Field{Key: "n", Val: eval.NewInt(int64(i))}, eval.Field{Key: "owner", Val: eval.String("alice")})
}

// workloads builds the pairs and checks, once, that each interpreted workload computes what
// its baseline does.
func workloads() ([]workload, error) {
	fold := parseForms("(fold (+) 0 (enumerate 1 10000))")
	insert := parseForms("(begin-tx) (map (bench.put) (enumerate 1 1000)) (commit-tx)")
	read := parseForms("(begin-tx) (fold (+) 0 (map (bench.get) (enumerate 1 1000))) (commit-tx)")
	module := pactbench.GeneratedModule(moduleLines)
	if n := strings.Count(module, "\n"); n != moduleLines {
		return nil, fmt.Errorf("generated module has %d lines", n)
	}

	foldRunner, err := newRunner("")
	if err != nil {
		return nil, err
	}
	if v, err := evalForms(foldRunner, fold); err != nil || !eval.Equal(v, eval.NewInt(50005000)) {
		return nil, fmt.Errorf("fold: %v, %v", v, err)
	}
	readRunner, err := newRunner(tableModule)
	if err != nil {
		return nil, err
	}
	if _, err := evalForms(readRunner, insert); err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	if v, err := evalForms(readRunner, read[:2]); err != nil || !eval.Equal(v, eval.NewInt(500500)) {
		return nil, fmt.Errorf("read: %v, %v", v, err)
	}
	if _, err := evalForms(readRunner, read[2:]); err != nil {
		return nil, err
	}
	if _, err := newRunner(module + "(create-table gen.accounts) (gen.credit \"a\" 1.0) (gen.f0 1.0 1)"); err != nil {
		return nil, fmt.Errorf("generated module: %w", err)
	}

	must := func(b *testing.B, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	readMap := make(map[string]*eval.Object)
	for i := 1; i <= tableRows; i++ {
		readMap[strconv.Itoa(i)] = row(i)
	}

	return []workload{
		{
			name: "fold", ops: foldElems, unit: "element",
			baseDesc: "10,000 eval.NewInt into an eval.List, summed with eval.Add",
			base: func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					l := make(eval.List, foldElems)
					for i := range l {
						l[i] = eval.NewInt(int64(i + 1))
					}
					var acc eval.Value = eval.NewInt(0)
					for _, x := range l {
						var err error
						acc, err = eval.Add(acc, x)
						must(b, err)
					}
				}
			},
			pact: func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, err := evalForms(foldRunner, fold)
					must(b, err)
				}
			},
		},
		{
			name: "insert", ops: tableRows, unit: "row",
			baseDesc: "1,000 *eval.Object rows into a map[string]*eval.Object (strconv.Itoa keys)",
			base: func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					m := make(map[string]*eval.Object)
					for i := 1; i <= tableRows; i++ {
						k := strconv.Itoa(i)
						if _, ok := m[k]; ok {
							b.Fatal("duplicate key")
						}
						m[k] = row(i)
					}
				}
			},
			pact: func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					r, err := newRunner(tableModule)
					must(b, err)
					b.StartTimer()
					_, err = evalForms(r, insert)
					must(b, err)
				}
			},
		},
		{
			name: "read", ops: tableRows, unit: "row",
			baseDesc: "1,000 map lookups + Object.At(\"n\") + eval.Add",
			base: func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					var acc eval.Value = eval.NewInt(0)
					for i := 1; i <= tableRows; i++ {
						v, err := readMap[strconv.Itoa(i)].At("n")
						must(b, err)
						acc, err = eval.Add(acc, v)
						must(b, err)
					}
				}
			},
			pact: func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, err := evalForms(readRunner, read)
					must(b, err)
				}
			},
		},
		{
			name: "load", ops: 1, unit: "load",
			baseDesc: fmt.Sprintf("syntax.ParseRepl of the %d-line module (%d bytes)", moduleLines, len(module)),
			base: func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, err := syntax.ParseRepl("gen.pact", module)
					must(b, err)
				}
			},
			pact: func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					r := repl.New(io.Discard)
					b.StartTimer()
					_, err := r.EvalSource("gen.pact", module, true)
					must(b, err)
				}
			},
		},
	}, nil
}
