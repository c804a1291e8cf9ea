package repl

import (
	"bytes"
	"strings"
	"testing"
)

// typecheck does no type inference yet, so it must not say a module typechecked: the
// ill-typed defun of issue 35 got "Typechecking successful". It warns instead.
func TestTypecheckDoesNotClaimSuccess(t *testing.T) {
	var out bytes.Buffer
	r := New(&out)
	_, err := r.EvalSource("typecheck.repl", `(module m g (defcap g () true) (defun f:integer (x:integer) (+ x "a")))
(typecheck "m")`, true)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "successful") || !strings.Contains(got, "Warning: typecheck: types are not inferred yet: module m was not typechecked") {
		t.Fatalf("typecheck printed %q", got)
	}
}
