package eval

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// refusal is a program Pact 5 refuses: the error kind and a part of the
// message it is refused with.
type refusal struct {
	name, src string
	kind      value.ErrorKind
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
		e, ok := err.(*value.Error)
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
		{"unbound", `(+ 1 no-such-name)`, value.ErrDesugar, "no-such-name"},
		{"member", "(module gov-m G (defcap G () true) (defun f () (gov-m.nothing)))", value.ErrDesugar, "nothing"},
	}, false)
	if err := runProgram(t, `(+ 1 "a")`, false); err == nil || err.(*value.Error).Kind == value.ErrDesugar {
		t.Errorf("a failure at run time: %v, want an error of evaluation", err)
	}
}

// The REPL refuses any name that would shadow a native, wherever it is
// bound; chain execution lets a local do so.
func TestReplRefusesNativeShadowing(t *testing.T) {
	cases := []refusal{
		{"let", `(let ((a 1) (length 2)) a)`, value.ErrDesugar, "Variable length shadows native with the same name"},
		{"let inside", `[1 (let* ((reverse 3)) reverse)]`, value.ErrDesugar, "Variable reverse"},
		{"lambda", `((lambda (x sort) x) 1 2)`, value.ErrDesugar, "Variable sort"},
		{"module name", "(module concat G (defcap G () true))", value.ErrDesugar, "Variable concat"},
		{"interface name", "(interface distinct (defun f ()))", value.ErrDesugar, "Variable distinct"},
		{"defun parameter", "(module m G (defcap G () true) (defun f (a take) a))", value.ErrDesugar, "Variable take"},
		{"defun body", "(module m G (defcap G () true) (defun f () (let ((drop 1)) drop)))", value.ErrDesugar, "Variable drop"},
		{"defcap parameter", "(module m G (defcap G () true) (defcap C (filter) true))", value.ErrDesugar, "Variable filter"},
		{"defpact step", "(module m G (defcap G () true) (defpact p () (step (let ((zip 1)) zip))))", value.ErrDesugar, "Variable zip"},
		{"defconst value", "(module m G (defcap G () true) (defconst K (let ((abs 1)) abs)))", value.ErrDesugar, "Variable abs"},
		{"interface parameter", "(interface i (defcap C:bool (format)))", value.ErrDesugar, "Variable format"},
		{"repl defun", "(defun f (x show) x)", value.ErrDesugar, "Variable show"},
		// The natives the 5.1 fork added are natives only without DisablePact51.
		{"pact 5.1 native", `(let ((hash-keccak256 1)) hash-keccak256)`, value.ErrDesugar, "Variable hash-keccak256"},
	}
	checkRefusals(t, cases, true)
	for _, c := range cases {
		if c.name == "let" || c.name == "lambda" {
			if err := runProgram(t, c.src, false); err != nil {
				t.Errorf("%s outside the REPL: %v", c.name, err)
			}
		}
	}
	for _, ok := range []string{
		`(bind {"a": 1} {"a" := length} length)`, // a binding form's names are not checked
		"(module m G (defcap G () true) (defschema s length:integer))",
		`(let ((hash-poseidon 1)) hash-poseidon)`,
	} {
		if err := runProgram(t, ok, true, "DisablePact51"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// A binding form needs a body: P5's desugarer refuses one without, at top
// level and in a module, with-read's included.
func TestBindingWithoutBodyRefused(t *testing.T) {
	checkRefusals(t, []refusal{
		{"bind", `(bind {"x": 1, "y": 2} {"y" := y})`, value.ErrDesugar, "Bind expression lacks an accompanying body"},
		{"in a function", `(module m G (defcap G () true) (defun f (o:object) (bind o {"k" := v})))`, value.ErrDesugar, "lacks an accompanying body"},
	}, false)
	if err := runProgram(t, `(bind {"x": 1} {"x" := x} x)`, false); err != nil {
		t.Errorf("with a body: %v", err)
	}
}

// mod::member needs mod to be a local holding a module reference: P5's
// renamer refuses a definition's name there, and anything else as
// unbound.
func TestDynamicInvokeNeedsALocal(t *testing.T) {
	lib := "(module lib G (defcap G () true) (defun one () 1))\n"
	checkRefusals(t, []refusal{
		{"module name", lib + "(module user H (defcap H () true) (defun f () (lib::one)))", value.ErrDesugar, "Unbound variable lib"},
		{"top level", lib + "(lib::one)", value.ErrDesugar, "Unbound variable lib"},
		{"member", "(module user H (defcap H () true) (defun g () 1) (defun f () (g::one)))", value.ErrDesugar, "Invalid dynamic call: g::one"},
		{"repl definition", "(defun g () 1)\n(defun f () (g::one))", value.ErrDesugar, "Invalid dynamic call: g::one"},
	}, false)
	if err := runProgram(t, lib+"(let ((m lib)) (m::one))", false); err != nil {
		t.Errorf("through a local: %v", err)
	}
}

// With DisablePact51 (before the 5.1 fork) the natives 5.1 added do not
// resolve.
func TestPact51NativesNeedTheFork(t *testing.T) {
	cases := []refusal{
		{"keccak", `(hash-keccak256 ["AA"])`, value.ErrDesugar, "hash-keccak256"},
		{"poseidon", `(hash-poseidon 1 2)`, value.ErrDesugar, "hash-poseidon"},
		{"in a module", "(module m G (defcap G () true) (defun f () (hash-poseidon 1)))", value.ErrDesugar, "hash-poseidon"},
	}
	checkRefusals(t, cases, false, "DisablePact51")
	for _, c := range cases {
		if err := runProgram(t, c.src, false); err != nil {
			t.Errorf("%s after the fork: %v", c.name, err)
		}
	}
}

// What P5's desugarer and renamer refuse in a module before any of it
// runs, and the compiler once let through.
func TestModuleStaticRefusals(t *testing.T) {
	iface := "(interface ti (defcap MOVE:bool (n:integer) @managed n MOVE-mgr) (defun MOVE-mgr:integer (a:integer b:integer)))\n"
	checkRefusals(t, []refusal{
		{"empty do", "(do)", value.ErrDesugar, "do form must have at least 1 expression"},
		{"empty do in a function", "(module m G (defcap G () true) (defun f () (do)))", value.ErrDesugar, "do form must have"},
		{"with-capability in a defcap", "(module m G (defcap G () true) (defcap A () true) (defcap B () (with-capability (A) true)))",
			value.ErrDesugar, "with-capability form not allowed within defcap"},
		{"with-capability in a lambda of a defcap", "(module m G (defcap G () true) (defcap A () true) (defcap B () (let ((f (lambda () (with-capability (A) 1)))) true)))",
			value.ErrDesugar, "with-capability form not allowed within defcap"},
		{"schema as a value", "(module m G (defcap G () true) (defschema row a:integer) (defun f () row))", value.ErrDesugar, "Invalid definition in term variable position: row"},
		{"schema applied", "(module m G (defcap G () true) (defschema row a:integer) (defun f () (row)))", value.ErrDesugar, "row"},
		{"interface manager a module", "(module other G (defcap G () true) (defun h () 1))\n(interface ti (defcap C:bool (n:integer) @managed n other))",
			value.ErrDesugar, "Module ti has no such member: other"},
		{"interface manager qualified", "(module other G (defcap G () true) (defun h (a:integer b:integer) 1))\n(interface ti (defcap C:bool (n:integer) @managed n other.h))",
			value.ErrDesugar, "Module ti has no such member: other.h"},
		{"implementation not managed", iface + "(module m G (defcap G () true) (implements ti) (defcap MOVE:bool (n:integer) true) (defun MOVE-mgr:integer (a:integer b:integer) a))",
			value.ErrDesugar, "defcap mismatch for MOVE from Interface ti"},
		{"implementation managed otherwise", iface + "(module m G (defcap G () true) (implements ti) (defcap MOVE:bool (n:integer) @managed n other-mgr true) (defun MOVE-mgr:integer (a:integer b:integer) a) (defun other-mgr:integer (a:integer b:integer) a))",
			value.ErrDesugar, "defcap mismatch for MOVE"},
		{"implementation an event", "(interface te (defcap E:bool (n:integer) @event))\n(module m G (defcap G () true) (implements te) (defcap E:bool (n:integer) true))",
			value.ErrDesugar, "defcap mismatch for E"},
		{"constant a function", "(module m G (defcap G () true) (defconst K (lambda (x) x)))", value.ErrEval, "Evaluation did not reduce to a value"},
		{"interface constant a function", "(interface ti (defconst K (lambda (x) x)))", value.ErrEval, "Evaluation did not reduce to a value"},
	}, false)
	for _, ok := range []string{
		iface + "(module m G (defcap G () true) (implements ti) (defcap MOVE:bool (n:integer) @managed n MOVE-mgr true) (defun MOVE-mgr:integer (a:integer b:integer) a))",
		"(interface ta (defcap C:bool (n:integer) @managed))\n(module m G (defcap G () true) (implements ta) (defcap C:bool (n:integer) @managed n mgr true) (defun mgr:integer (a:integer b:integer) a))",
		"(module m G (defcap G () true) (defcap A () true) (defun f () (with-capability (A) 1)))",
		"(module m G (defcap G () true) (defschema row a:integer) (deftable tbl:{row}) (defun f:object{row} () {'a: 1}))",
	} {
		if err := runProgram(t, ok, false); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// What P5 finds only while executing a form is an execution error, not a
// desugaring one, though the compiler finds it.
func TestExecutionErrorsFoundCompiling(t *testing.T) {
	checkRefusals(t, []refusal{
		{"interface upgraded", "(interface up (defun f ()))\n(interface up (defun f ()) (defun g ()))", value.ErrEval, "Interface cannot be upgraded: up"},
		{"interface upgraded to a module", "(interface up (defun f ()))\n(module up G (defcap G () true))", value.ErrEval, "Interface cannot be upgraded: up"},
		{"defpact entity", "(module m G (defcap G () true) (defpact p () (step \"someone\" 1) (step 2)))", value.ErrEval, "does not support entity expressions"},
	}, false)
}

// A special form given the wrong arguments is refused before any of the code runs, as P5's
// desugarer refuses it (InvalidSyntax), also in a function nothing calls; enforce alone is
// refused only when it runs, as in P5 (its suite catches a one-argument enforce with
// expect-failure).
func TestSpecialFormArityRefusedCompiling(t *testing.T) {
	checkRefusals(t, []refusal{
		{"if", "(module m G (defcap G () true) (defun f () (if true 1)))", value.ErrDesugar, "Invalid syntax, if expects 3 arguments"},
		{"enforce-one", `(enforce-one "x")`, value.ErrDesugar, "Invalid syntax, enforce-one expects 2 arguments"},
		{"with-capability", "(module m G (defcap G () true) (defun f () (with-capability (G))))", value.ErrDesugar,
			"Invalid syntax, with-capability expects a capability and a body"},
		{"try", "(try 1)", value.ErrDesugar, "Invalid syntax, wrong number of arguments"},
		{"create-user-guard", "(create-user-guard)", value.ErrDesugar, "Invalid syntax, wrong number of arguments"},
		{"create-user-guard of a literal", "(create-user-guard 1)", value.ErrDesugar, "must be an application"},
		{"create-user-guard of a variable", "(let ((x 1)) (create-user-guard x))", value.ErrDesugar, "must be an application"},
		{"create-user-guard of a list", "(create-user-guard [1])", value.ErrDesugar, "must be an application"},
	}, false)
	// An application is left to run, where the function it names is checked.
	if err := runProgram(t, "(module m G (defcap G () true) (defun f () true) (defun g () (create-user-guard (f))))", false); err != nil {
		t.Errorf("create-user-guard of an application: %v", err)
	}
	err := runProgram(t, "(module m G (defcap G () true) (defun f () (enforce true)))", false)
	if err != nil {
		t.Fatalf("a module whose uncalled function has a one-argument enforce: %v", err)
	}
	if err := runProgram(t, "(enforce true)", false); err == nil || err.(*value.Error).Kind == value.ErrDesugar ||
		!strings.Contains(err.Error(), "enforce expects 2 arguments") {
		t.Errorf("a one-argument enforce: %v, want an error when it runs", err)
	}
}

// Module references refused with P5's kinds: an interface named bare as a
// value is a desugar error (InvalidModuleReference); named ns.iface it
// resolves and fails when evaluated (ExpectedModule); a module used bare
// inside a namespace, found neither at the root nor in the namespace, is
// an execution error naming ns.name (getModuleData's ModuleDoesNotExist).
func TestModuleReferenceErrorKinds(t *testing.T) {
	run := func(src string) error {
		t.Helper()
		in := New(db.NewMemDB())
		in.Data = value.NewObject(value.Field{Key: "ks", Val: value.List{value.String("k")}})
		in.Signers = []value.Signer{{PubKey: "k"}}
		f, err := syntax.ParseRepl("test.repl", `(define-namespace 'carl (read-keyset 'ks) (read-keyset 'ks))`+src)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range f.Items {
			if _, err := in.EvalTopLevel(item, true); err != nil {
				return err
			}
		}
		return nil
	}
	cases := []refusal{
		{"bare interface", "(interface iface (defun foo:string ())) iface", value.ErrDesugar,
			"Invalid Interface attempted to be used as module reference: iface"},
		{"namespaced interface", "(namespace 'carl) (interface iface (defun foo:string ())) (namespace \"\") carl.iface", value.ErrEval,
			"Expected module, found interface: carl.iface"},
		{"use of an unknown module in a namespace", "(namespace 'carl) (module m g (defcap g () true) (use m))", value.ErrEval,
			"Cannot find module: carl.m"},
		{"use of an unknown module at the root", "(module m g (defcap g () true) (use nonexistent))", value.ErrDesugar,
			"Cannot find module: nonexistent"},
	}
	for _, c := range cases {
		err := run(c.src)
		e, ok := err.(*value.Error)
		if !ok || e.Kind != c.kind || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: %v, want kind %d with %q", c.name, err, c.kind, c.msg)
		}
	}
}
