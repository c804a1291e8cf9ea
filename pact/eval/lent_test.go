package eval

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// TestLentArgs evaluates calls of natives whose argument lists are lent
// (Native.argsLent) nested in each other's arguments, deep enough for the
// stack to grow while lists lower down are lent, and calls that fail
// half-way through their arguments: each must see its own arguments, and
// the stack must be empty after each top-level form.
func TestLentArgs(t *testing.T) {
	deep := strings.Repeat("(+ 1 ", 300) + "0" + strings.Repeat(")", 300)
	cases := []struct{ src, want string }{
		{deep, "300"},
		{"(- " + deep + " (- 10 (+ 2 (- 5 3))))", "294"},
		{"(= (+ 1 2) (- 5 " + deep + "))", "false"},
		{`(try 7 (+ 1 (enforce (= 1 (+ 1 1)) "no")))`, "7"},
		{`(+ (try 7 (+ 1 (enforce false "no"))) (+ 2 3))`, "12"},
		{`(map (+ 1) [1 2 3])`, "[2, 3, 4]"},
		{`(fold (+) 0 [1 2 3])`, "6"},
		{`(floor (+ 1.5 (floor 2.7)) (- 3 3))`, "3.0"},
	}
	in := New(db.NewMemDB())
	for _, c := range cases {
		f, err := syntax.ParseRepl("lent.repl", c.src)
		if err != nil {
			t.Fatal(err)
		}
		v, err := in.EvalTopLevel(f.Items[0], true)
		if err != nil {
			t.Errorf("%.60s: %v", c.src, err)
			continue
		}
		if got := value.Show(v); got != c.want {
			t.Errorf("%.60s = %s, want %s", c.src, got, c.want)
		}
		if len(in.lent) != 0 {
			t.Errorf("%.60s left %d values on the lent stack", c.src, len(in.lent))
		}
		if kept := keptLent(in); kept != 0 {
			t.Errorf("%.60s left %d values alive past the lent stack's end", c.src, kept)
		}
	}
	// A failure unwinds the stack too.
	f, err := syntax.ParseRepl("lent.repl", `(+ 1 (+ 2 (enforce false "no")))`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.EvalTopLevel(f.Items[0], true); err == nil {
		t.Error("(enforce false) did not fail")
	}
	if len(in.lent) != 0 {
		t.Errorf("a failure left %d values on the lent stack", len(in.lent))
	}
	if kept := keptLent(in); kept != 0 {
		t.Errorf("a failure left %d values alive past the lent stack's end", kept)
	}
}

// keptLent counts the values left in the lent stack's array past its end:
// unlend leaves them, but the end of a top-level expression clears them,
// so that the stack keeps nothing of it alive.
func keptLent(in *Interp) int {
	n := 0
	for _, v := range in.lent[len(in.lent):cap(in.lent)] {
		if v != nil {
			n++
		}
	}
	return n
}
