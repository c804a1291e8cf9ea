package repl

import (
	"bytes"
	"strings"
	"testing"
)

// The ill-typed defun of issue 35, which typecheck once called successful, is
// refused with the place and the reason (package typecheck tests the checker).
func TestTypecheckRefusesIssueExample(t *testing.T) {
	var out bytes.Buffer
	r := New(&out)
	_, err := r.EvalSource("typecheck.repl", `(module m g (defcap g () true) (defun f:integer (x:integer) (+ x "a")))
(typecheck "m")`, true)
	if err == nil {
		t.Fatalf("typecheck passed; printed %q", out.String())
	}
	msg := err.Error()
	for _, want := range []string{"Typecheck failed for module m", "typecheck.repl:1:61", "+ cannot take arguments of type (integer, string)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("want %q in %q", want, msg)
		}
	}
	if strings.Contains(out.String(), "successful") {
		t.Fatalf("printed %q", out.String())
	}
}
