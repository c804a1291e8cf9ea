package typecheck_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/typecheck"
)

// The kinds of program pact-5's typechecker/bad directory holds (written
// here anew), and others: each loads, and fails at run time where the
// checker says.
const header = `
(module tci ifaceless-gov
  (defcap ifaceless-gov () true))
(interface greeter
  (defun greet:string (who:string)))
(interface counter
  (defun count:integer ()))
(module loud g
  (defcap g () true)
  (implements counter)
  (defun count:integer () 3))
`

const schemas = `
  (defschema acct owner:string balance:decimal opened:time)
  (deftable accts:{acct})
`

var badPrograms = map[string]struct{ src, want string }{
	"if branches against the result": {`
  (defun f:bool (x:integer) (if (> x 0) 1 x))`, "the result is integer where bool is required"},
	"list literal against the result": {`
  (defun f:[integer] () [1.5 2.5])`, "the result is [decimal] where [integer] is required"},
	"mixed list into a typed list": {`
  (defun takes (gs:[string]) true)
  (defun f () (takes ["a" 1]))`, "argument 1 of takes is [string or integer] where [string] is required"},
	"element of a mixed list": {`
  (defun f:integer (i:integer) (at i [1 "two" 3]))`, "the result is integer or string where integer is required"},
	"module without the interface": {`
  (defun greet-with (m:module{greeter}) (m::greet "x"))
  (defun f () (greet-with loud))`, "module loud does not implement greeter"},
	"modref call's result": {`
  (defun f:integer (m:module{greeter}) (m::greet "x"))`, "the result is string where integer is required"},
	"enforce of one argument": {`
  (defun f:bool () (enforce (enforce true) "x"))`, "enforce expects 2 arguments"},
	"write of a partial row": {schemas + `
  (defun f () (write accts "k" {"owner": "o", "balance": 1.0}))`, "field opened is missing"},
	"read of an unknown column": {schemas + `
  (defun f () (read accts "k" ["owner" "nickname"]))`, "column nickname is not in table{acct}"},
	"update of an unknown field": {schemas + `
  (defun f () (update accts "k" {"nickname": "n"}))`, "field nickname is not in the schema"},
	"update of a field's type": {schemas + `
  (defun f () (update accts "k" {"balance": 1}))`, "field balance is integer, expected decimal"},
	"with-capability's result": {schemas + `
  (defcap C () true)
  (defun f:object{acct} () (with-capability (C) {"owner": "o"}))`, "field balance is missing"},
	"with-read's partial result": {schemas + `
  (defun f:object{acct} () (with-read accts "k" {"owner" := o, "balance" := b} {"owner": o, "balance": b}))`,
		"field opened is missing"},
	"with-default-read missing its default": {schemas + `
  (defun f:object{acct} () (with-default-read accts "k" {"owner" := o} {"owner": o}))`, "the result is function where object{acct} is required"},
	"bind into other fields": {schemas + `
  (defun f:object{acct} (a:object{acct}) (bind a {"owner" := o} {"name": o}))`, "field name is not in the schema"},
	"bind of a field the object lacks": {schemas + `
  (defun f (a:object{acct}) (bind a {"nickname" := n} n))`, "bind: field nickname is not in object{acct}"},
	"a capability given too many arguments": {`
  (defcap C (a:string) true)
  (defun f () (with-capability (C "a" "b") 1))`, "C takes 1 argument, not 2"},
	"a native given the wrong types": {`
  (defun f () (+ 1 "a"))`, "+ cannot take arguments of type (integer, string)"},
	"a comparison of lists": {`
  (defun f () (< [1] [2]))`, "< cannot take arguments of type ([integer], [integer])"},
	"a let's declared type": {`
  (defun f () (let ((x:string (length "abc"))) x))`, "the value of x is integer where string is required"},
	"a function's result where a string is declared": {`
  (defun zero:string () (concat ["0"]))
  (defun f:string (b:bool) (if b "1" zero))`, "the result is string or (-> string) where string is required"},
	"a decimal parameter given an integer": {`
  (defun half:decimal (d:decimal) (/ d 2.0))
  (defun f () (half 3))`, "argument 1 of half is integer where decimal is required"},
}

// runModule loads header and a module of body, then typechecks it.
func runModule(t *testing.T, body string) (*typecheck.Report, *repl.Runner) {
	t.Helper()
	r := repl.New(io.Discard)
	src := header + "(module m g (defcap g () true)\n" + body + "\n)"
	if _, err := r.EvalSource("prog.repl", src, true); err != nil {
		t.Fatalf("the program does not load: %s", repl.FormatError(err))
	}
	m := r.In.LookupModule("m")
	if m == nil {
		t.Fatal("module m is not installed")
	}
	rep, err := typecheck.Check(r.In, m)
	if err != nil {
		t.Fatal(err)
	}
	return rep, r
}

func TestBadPrograms(t *testing.T) {
	for name, p := range badPrograms {
		t.Run(name, func(t *testing.T) {
			rep, _ := runModule(t, p.src)
			if !rep.Failed() {
				t.Fatalf("no type error found; undecided: %v", rep.Undecided)
			}
			if !strings.Contains(rep.ErrorText(), p.want) {
				t.Fatalf("want %q in:\n%s", p.want, rep.ErrorText())
			}
			for _, f := range rep.Errors {
				if f.Span.File != "prog.repl" || !f.Span.Start.IsValid() {
					t.Errorf("finding without its place in the file: %v", f)
				}
			}
		})
	}
}

// TestBadProgramsFailWhenRun runs the function each bad program defines
// (f, given what it needs): what the checker reports must be an error at
// run time too, or the checker would be refusing code that works.
func TestBadProgramsFailWhenRun(t *testing.T) {
	calls := map[string]string{
		"modref call's result":                           "(m.f loud)",
		"if branches against the result":                 "(m.f 1)",
		"element of a mixed list":                        "(m.f 1)",
		"bind into other fields":                         `(m.f {"owner": "o", "balance": 1.0, "opened": (time "2020-01-01T00:00:00Z")})`,
		"bind of a field the object lacks":               `(m.f {"owner": "o", "balance": 1.0, "opened": (time "2020-01-01T00:00:00Z")})`,
		"a function's result where a string is declared": "(m.f false)",
	}
	for name, p := range badPrograms {
		t.Run(name, func(t *testing.T) {
			_, r := runModule(t, p.src)
			call, ok := calls[name]
			if !ok {
				call = "(m.f)"
			}
			if name == "modref call's result" {
				// loud implements counter, not greeter: call through a greeter.
				if _, err := r.EvalSource("greeter.repl", `(module hi g (defcap g () true) (implements greeter) (defun greet:string (who:string) who))`, true); err != nil {
					t.Fatal(err)
				}
				call = "(m.f hi)"
			}
			if _, err := r.EvalSource("call.repl", "(begin-tx)"+call, true); err == nil {
				t.Fatalf("%s ran", call)
			} else if strings.Contains(err.Error(), "Cannot find module") || strings.Contains(err.Error(), "Unbound") {
				t.Fatalf("%s: the call itself is wrong: %v", call, err)
			}
		})
	}
}

var goodPrograms = map[string]string{
	"generic parameters": `
  (defun twice (x) (+ x x))
  (defun f:integer () (twice 2))
  (defun g2 (o) (at "k" o))
  (defun write-any (tbl) (write tbl "k" {"a": 1}))
  (defun h:string (x) (if (= x 1) "one" (format "{}" [x])))`,
	"heterogeneous lists where any list goes": `
  (defun f:string () (format "{} {}" ["a" 1]))
  (defun g2:bool () (contains 1 ["a" 1]))`,
	"natives applied partially": `
  (defun f:bool (p:integer) (and? (!= 2) (!= 3) p))
  (defun g2:[integer] () (map (+ 1) [1 2 3]))
  (defun h:[integer] () (filter (< 1) [1 2 3]))`,
	"a user function applied partially for a native": `
  (defun gt:bool (a:integer b:integer) (> b a))
  (defun f:[integer] () (filter (gt 1) [1 2 3]))`,
	"try's default of another type": `
  (defun f:decimal () (try 0.0 (/ 1 0)))`,
	"error in a branch": `
  (defun f:integer (x:integer) (if (> x 0) x (error "negative")))`,
	"integer and decimal arithmetic": `
  (defun f:decimal (x:integer) (+ x 1.5))`,
	"tables": schemas + `
  (defun f:decimal (k:string) (at "balance" (read accts k)))
  (defun g2:decimal (k:string) (with-read accts k {"balance" := b} b))
  (defun h () (write accts "k" {"owner": "o", "balance": 1.0, "opened": (time "2020-01-01T00:00:00Z")}))
  (defun i () (update accts "k" {"balance": 2.0}))
  (defun j:[object{acct}] () (select accts (where "balance" (< 1.0))))`,
	"an inferred result": `
  (defun one () 1)
  (defun f:integer () (+ (one) 1))`,
	"a module reference": `
  (defun count-of:integer (c:module{counter}) (c::count))
  (defun f:integer () (count-of loud))`,
}

func TestGoodPrograms(t *testing.T) {
	for name, body := range goodPrograms {
		t.Run(name, func(t *testing.T) {
			rep, _ := runModule(t, body)
			if rep.Failed() {
				t.Fatal(rep.ErrorText())
			}
			if rep.Checks == 0 {
				t.Fatal("nothing was checked")
			}
		})
	}
}

// TestReplTypecheck is the REPL's typecheck: an error it can catch, a
// warning (never "successful") for checks it could not decide, and
// "successful" only when every check decided.
func TestReplTypecheck(t *testing.T) {
	var out bytes.Buffer
	r := repl.New(&out)
	var warnings []string
	r.In.Warn = func(s string) { warnings = append(warnings, s) }
	src := header + `
(module decided g (defcap g () true) (defun f:integer (x:integer) (+ x 1)))
(typecheck "decided")
(module unsure g (defcap g () true) (defun f:integer () (read-msg "n")))
(typecheck "unsure")
(module wrong g (defcap g () true) (defun f:integer () (concat ["x"])))
(expect-failure "wrong types" "the result is string where integer is required" (typecheck "wrong"))
`
	if _, err := r.EvalSource("tc.repl", src, true); err != nil {
		t.Fatal(repl.FormatError(err))
	}
	if f := r.Failures(); len(f) > 0 {
		t.Fatalf("%+v", f)
	}
	if !strings.Contains(out.String(), "Typechecking successful for module decided") {
		t.Errorf("decided: output %q", out.String())
	}
	if strings.Contains(out.String(), "successful for module unsure") {
		t.Errorf("unsure was called successful: %q", out.String())
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "1 of 2 checks could not be decided") ||
		!strings.Contains(warnings[0], "tc.repl:") {
		t.Errorf("warnings %q", warnings)
	}
	if _, err := r.EvalSource("x.repl", `(typecheck "nope")`, true); err == nil || !strings.Contains(err.Error(), "Cannot find module: nope") {
		t.Errorf("unknown module: %v", err)
	}
}

// TestUnparsableCode: a module whose stored code does not parse (it was
// restored from a damaged record, say) is reported, not a panic.
func TestUnparsableCode(t *testing.T) {
	r := repl.New(io.Discard)
	if _, err := r.EvalSource("p.repl", "(module m g (defcap g () true))", true); err != nil {
		t.Fatal(err)
	}
	m := *r.In.LookupModule("m")
	m.Code = "(module m g"
	if _, err := typecheck.Check(r.In, &m); err == nil {
		t.Fatal("no error")
	}
}

// FuzzCheck: whatever module loads, checking it returns (no panic), and
// every finding has a place and a message.
func FuzzCheck(f *testing.F) {
	for _, p := range badPrograms {
		f.Add(p.src)
	}
	for _, body := range goodPrograms {
		f.Add(body)
	}
	f.Add(`(defun f (x) (bind x {"a" := a} (with-read a "k" {"b" := b} (map (lambda (y) (y b)) [a]))))`)
	f.Fuzz(func(t *testing.T, body string) {
		r := repl.New(io.Discard)
		src := header + "(module m g (defcap g () true)\n" + body + "\n)"
		if _, err := r.EvalSource("fuzz.repl", src, true); err != nil {
			return
		}
		m := r.In.LookupModule("m")
		if m == nil {
			return
		}
		rep, err := typecheck.Check(r.In, m)
		if err != nil {
			t.Fatalf("a loaded module does not check: %v", err)
		}
		for _, fd := range append(rep.Errors, rep.Undecided...) {
			if fd.Msg == "" || fd.Def == "" {
				t.Fatalf("finding without a message or member: %+v", fd)
			}
		}
	})
}
