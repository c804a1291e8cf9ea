package eval

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// TestTopLevelDesugarerRecycled compiles top-level expressions one after
// another with the kept desugaring pass, whose terms each compilation
// recycles: a compiled expression must not depend on them, and so still
// evaluate to its own value after later ones were compiled; the kept pass
// must also save the desugaring's allocations.
func TestTopLevelDesugarerRecycled(t *testing.T) {
	in := New(db.NewMemDB())
	srcs := map[string]string{
		`(+ 1 (* 2 3))`:                             "7",
		`(- 10 (* 4 5))`:                            "-10",
		`(let ((x "a") (y "b")) (+ x y))`:           `"ab"`,
		`(map (lambda (x) (* x 2)) [1 2 3])`:        "[2, 4, 6]",
		`(bind {"k": [1 2]} {"k" := k} (length k))`: "2",
	}
	parse := func(src string) syntax.Expr {
		f, err := syntax.ParseRepl("top.repl", src)
		if err != nil {
			t.Fatal(err)
		}
		return f.Items[0].(syntax.Expr)
	}
	nodes := map[string]node{}
	for src := range srcs {
		n, err := in.compileTopExpr(parse(src), true)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		nodes[src] = n
	}
	if in.topDsBusy {
		t.Fatal("the kept desugaring pass is still marked busy")
	}
	for src, want := range srcs {
		in.startTopLevel()
		v, err := in.eval(nodes[src], nil)
		if err != nil || value.Show(v) != want {
			t.Errorf("%s = %v (%v), want %s", src, v, err, want)
		}
	}
	x := parse(`(+ 1 (* 2 (- 3 4)))`)
	kept := testing.AllocsPerRun(50, func() { _, _ = in.compileTopExpr(x, true) })
	in.topDsBusy = true // as during another compilation: a pass of its own
	fresh := testing.AllocsPerRun(50, func() { _, _ = in.compileTopExpr(x, true) })
	in.topDsBusy = false
	if kept >= fresh {
		t.Errorf("compiling with the kept pass made %v allocations, with a fresh one %v", kept, fresh)
	}
}
