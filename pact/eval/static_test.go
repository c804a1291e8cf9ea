package eval

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// refusal is a program Pact 5 refuses: the error kind and a part of the
// message it is refused with.
type refusal struct {
	name, src string
	kind      ErrorKind
	msg       string
}

// runProgram runs src form by form on a fresh interpreter, as the REPL
// runs a script when repl is set (but without the REPL's natives), and
// returns the first error.
func runProgram(t *testing.T, src string, repl bool, flags ...string) error {
	t.Helper()
	in := New(db.NewMemDB())
	in.ReplEvaluator = repl
	for _, f := range flags {
		in.Flags[f] = true
	}
	f, err := syntax.ParseRepl("test.repl", src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	for _, item := range f.Items {
		if _, err := in.EvalTopLevel(item, true); err != nil {
			return err
		}
	}
	return nil
}

func checkRefusals(t *testing.T, cases []refusal, repl bool, flags ...string) {
	t.Helper()
	for _, c := range cases {
		err := runProgram(t, c.src, repl, flags...)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: %T %v, want an *Error", c.name, err, err)
			continue
		}
		if e.Kind != c.kind || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: kind %d %q, want kind %d with %q", c.name, e.Kind, e.Msg, c.kind, c.msg)
		}
	}
}

// A program that does not resolve is refused as P5's desugarer refuses it,
// with a kind of its own, not as an error of evaluation.
func TestDesugarErrorKind(t *testing.T) {
	checkRefusals(t, []refusal{
		{"unbound", `(+ 1 no-such-name)`, ErrDesugar, "no-such-name"},
		{"member", "(module gov-m G (defcap G () true) (defun f () (gov-m.nothing)))", ErrDesugar, "nothing"},
	}, false)
	if err := runProgram(t, `(+ 1 "a")`, false); err == nil || err.(*Error).Kind == ErrDesugar {
		t.Errorf("a failure at run time: %v, want an error of evaluation", err)
	}
}
