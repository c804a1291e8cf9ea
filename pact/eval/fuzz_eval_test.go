package eval_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// FuzzEval evaluates small Pact programs and checks that every top-level form
// ends in a value or a typed error (*eval.Error; *syntax.Error when the text
// does not parse), never in a panic or a hang.
//
// An input whose first byte is '(' or ';' is taken as program text (the
// hand-written seeds, and whatever the mutator makes of them). Any other
// input drives progGen, which turns the bytes into a well-formed program:
// a module with a schema, a table, table helpers, defconsts and defuns, then
// top-level expressions over literals, lists, objects, let, lambda, if and
// the list, string, arithmetic, time and database natives.
//
// Bounds. Interp.StepLimit (fuzzStepLimit) bounds the applications. Values
// are bounded by the generator: sizes (make-list, enumerate, take counts)
// come from a small set of literals, folds with a lambda run over at most
// five elements and their bodies contain no loops or defun calls. The
// evaluator itself bounds make-list and enumerate at 2^24 elements and
// integers from ^ and shift at 2^24 bits, but not what a loop builds
// step by step (a fold doubling a string is 2^n characters after n steps,
// which the step limit does not see), so as a backstop every evaluation
// runs with a budget of allocated bytes (fuzzAllocBudget, read through
// runtime/metrics from the Coverage hook) and an input that exceeds it is
// skipped, not failed.
//
// Hangs. The evaluation runs on a goroutine of its own. One that has not
// ended after fuzzHangLimit crashes the fuzzing worker with the program and
// every goroutine's stack (the coordinator records the input); replaying the
// corpus in a plain go test, it fails the input at once and is left to run
// in the background.
//
// Known finding (testdata/fuzz/FuzzEval/hang-*): ^ on decimals is bounded
// only by MPFR's exponent range, so one step can make a decimal of millions
// of digits, and rendering it (show, format, hash, the REPL's output) takes
// tens of seconds. The generator keeps decimal exponents small so that the
// fuzzer looks for other problems; the corpus entries keep the finding.
//
//	go test ./pact/eval -run '^$' -fuzz '^FuzzEval$' -fuzztime 3m
func FuzzEval(f *testing.F) {
	for _, s := range fuzzEvalPrograms {
		f.Add([]byte(s))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 12 {
		b := make([]byte, 64+r.IntN(512))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		b[0] |= 0x80 // not '(' or ';': generated mode
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runFuzzProgram(t, fuzzSource(data))
	})
}

const (
	fuzzStepLimit   = 100_000
	fuzzAllocBudget = 256 << 20
)

// fuzzHangLimit is the hang guard's: under the race detector on a busy machine an evaluation of
// fuzzStepLimit steps can take seconds.
var fuzzHangLimit = hangguard.Limit

// fuzzEvalPrograms are the hand-written seeds: each reaches a different part
// of the evaluator (modules and tables, folds, string and integer natives,
// errors that must stay errors).
var fuzzEvalPrograms = []string{
	"(fold (+) 0 (enumerate 1 10000))",
	"(let ((xs (enumerate 1 10)) (f (lambda (x) (* x x)))) [(map f xs) (filter (lambda (x) (= 0 (mod x 2))) xs)])",
	`(format "{} is {} and {}" ["x" 1.5 [1 2]])`,
	`[(str-to-int 16 "ff") (int-to-str 2 -5) (base64-decode "aGVsbG8") (base64-encode "héllo") (str-to-int 64 "-_")]`,
	`(let* ((a 10) (b (* a a)) (c (^ b 7))) [(shift c -3) (& c 255) (xor a b) (~ a) (/ c -7) (mod -7 3)])`,
	`[(take 2 [1 2 3]) (drop -1 "abc") (at 1 ["a" "b"]) (length "😀é") (concat ["a" "b"]) (sort [3 1 2]) (reverse [1 2])]`,
	`(fold (lambda (acc x) (+ acc (int-to-str 10 x))) "" (make-list 5 7))`,
	`(module fz G (defcap G () true) (defschema row a:integer b:string) (deftable tbl:{row})
  (defun put (k:string a:integer) (insert tbl k {'a: a, 'b: k}))
  (defun get (k:string) (read tbl k))
  (defun sum () (fold (+) 0 (map (at 'a) (select tbl (where 'a (< 0)))))))
(create-table tbl)
(map (lambda (i) (fz.put (int-to-str 10 i) i)) (enumerate 1 20))
[(fz.get "7") (fz.sum) (fz.put "7" 0)]`,
	`(module m G (defcap G () true) (defconst C:integer 3) (defun f:integer (x:integer) (+ x C))
  (defun g (x:integer) (f (f x))))
[(m.g 1) m.C (m.f "a")]`,
	`[(/ 1 0) (at 5 [1]) (enforce false "no") (str-to-int "x")]`,
	`(try 1 (enforce (= (hash [1 {'a: 2.5}]) "") "different"))`,
	`[(round 2.5) (floor -1.5) (ceiling 1.000001 3) (sqrt 2.0) (ln 0.5) (exp 1.0) (log 2 1024) (dec 3) (+ 1.5 2)]`,
	`(format-time "%Y-%m-%d %H:%M:%S.%v" (add-time (time "2016-07-22T12:00:00Z") (days 400)))`,
	`(bind {'a: 1, 'b: "x"} {'a := a, 'b := b} [(+ a 1) (+ b "y") (zip (+) [1 2] [3 4]) (distinct [1 1 2])])`,
	`(defun sq (x) (* x x)) (defconst K (sq 9)) (sq K)`,
}

func fuzzSource(data []byte) string {
	if len(data) > 0 && (data[0] == '(' || data[0] == ';') {
		return string(data)
	}
	return generateProgram(data)
}

type fuzzBudgetExceeded struct{ allocated uint64 }

func allocatedBytes(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// fuzzing reports whether this process runs under -fuzz (the coordinator
// and its workers) rather than replaying the corpus in a plain go test.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// fuzzOutcome is how the evaluation of a program ended: a failure message,
// or a skip because it went over the allocation budget, or neither.
type fuzzOutcome struct {
	fail, skip string
}

func runFuzzProgram(t *testing.T, src string) {
	file, err := syntax.ParseRepl("fuzz", src)
	if err != nil {
		if _, ok := err.(*syntax.Error); !ok {
			t.Fatalf("parse error of type %T: %v\nprogram:\n%s", err, err, src)
		}
		return
	}
	// The evaluation runs on its own goroutine so that a hang can be
	// reported even when it is inside one native call that never returns to
	// the evaluator.
	done := make(chan fuzzOutcome, 1)
	go func() { done <- evalFuzzProgram(file, src) }()
	timer := time.NewTimer(fuzzHangLimit)
	defer timer.Stop()
	select {
	case o := <-done:
		if o.fail != "" {
			t.Fatal(o.fail)
		}
		if o.skip != "" {
			t.Skip(o.skip)
		}
	case <-timer.C:
		msg := fmt.Sprintf("evaluation still running after %v; program:\n%s", fuzzHangLimit, src)
		if fuzzing() {
			// Under -fuzz a failed input is retried during minimisation;
			// each retry would leave another evaluation running. Crash the
			// worker instead (the coordinator records the input), with
			// every goroutine's stack.
			debug.SetTraceback("all")
			panic("FuzzEval: " + msg)
		}
		// Replaying the corpus: fail now. The evaluation goes on in the
		// background until it ends or the test binary exits.
		buf := make([]byte, 1<<20)
		t.Fatalf("%s\ngoroutines:\n%s", msg, buf[:runtime.Stack(buf, true)])
	}
}

// allocGuard uses the coverage hook, which the evaluator calls for every
// expression, to stop a program once it has allocated fuzzAllocBudget.
type allocGuard struct {
	sample []metrics.Sample
	start  uint64
	calls  int
}

func (g *allocGuard) Expr(syntax.Span) {
	if g.calls++; g.calls%256 == 0 {
		if a := allocatedBytes(g.sample) - g.start; a > fuzzAllocBudget {
			panic(fuzzBudgetExceeded{a})
		}
	}
}
func (*allocGuard) Code(eval.CodeMap)        {}
func (*allocGuard) Enter(*eval.Def)          {}
func (*allocGuard) Branch(syntax.Span, bool) {}

// evalFuzzProgram evaluates the forms of a program in a fresh interpreter
// and checks each result.
func evalFuzzProgram(file *syntax.File, src string) fuzzOutcome {
	in := eval.New(db.NewMemDB())
	in.StepLimit = fuzzStepLimit
	g := &allocGuard{sample: []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}}
	g.start = allocatedBytes(g.sample)
	in.Coverage = g
	for _, item := range file.Items {
		v, err, panicked, stack := evalCatching(in, item)
		if panicked != nil {
			if b, ok := panicked.(fuzzBudgetExceeded); ok {
				return fuzzOutcome{skip: fmt.Sprintf("allocation budget exceeded (%d MB)", b.allocated>>20)}
			}
			return fuzzOutcome{fail: fmt.Sprintf("panic: %v\nprogram:\n%s\n%s", panicked, src, stack)}
		}
		if err != nil {
			if _, ok := err.(*value.Error); !ok {
				return fuzzOutcome{fail: fmt.Sprintf("error of type %T: %v\nprogram:\n%s", err, err, src)}
			}
			continue
		}
		if v == nil {
			return fuzzOutcome{fail: fmt.Sprintf("nil value and nil error for %s\nprogram:\n%s", item.Span(), src)}
		}
		_ = value.Pretty(v) // what the REPL prints
	}
	return fuzzOutcome{}
}

func evalCatching(in *eval.Interp, item syntax.TopLevel) (v value.Value, err error, panicked any, stack []byte) {
	defer func() {
		if p := recover(); p != nil {
			panicked, stack = p, debug.Stack()
		}
	}()
	v, err = in.EvalTopLevel(item, true)
	return
}

// Program generator.

type fty uint8

const (
	tInt fty = iota
	tDec
	tStr
	tBool
	tInts
	tStrs
	tObj
	nTypes
)

// annot is the type annotation of t, "" where none is written.
func (t fty) annot(inModule bool) string {
	switch t {
	case tInt:
		return "integer"
	case tDec:
		return "decimal"
	case tStr:
		return "string"
	case tBool:
		return "bool"
	case tInts:
		return "[integer]"
	case tStrs:
		return "[string]"
	case tObj:
		if inModule {
			return "object{row}"
		}
	}
	return ""
}

type fvar struct {
	name string
	t    fty
}

type fdef struct {
	name   string
	params []fty
	ret    fty
}

// progGen turns fuzz bytes into a program. Every choice reads one byte; when
// the bytes run out every choice is 0, which always picks a leaf, so the
// program ends soon after.
type progGen struct {
	data     []byte
	pos      int
	b        strings.Builder
	scope    []fvar
	defs     []fdef // generated defuns callable from here
	consts   []fvar
	inModule bool
	pure     bool // no database access (defconst values)
	loop     int  // > 0 inside a fold/map/filter lambda
	argDepth int  // depth of the arguments op writes
	fresh    int
}

func generateProgram(data []byte) string {
	g := &progGen{data: data}
	g.module()
	g.w("(create-table fz.tbl)\n")
	for n := 1 + g.choose(6); n > 0; n-- {
		g.expr(fty(g.choose(int(nTypes))), 4)
		g.w("\n")
		if g.exhausted() {
			break
		}
	}
	return g.b.String()
}

func (g *progGen) exhausted() bool { return g.pos >= len(g.data) }

func (g *progGen) choose(n int) int {
	if g.pos >= len(g.data) {
		return 0
	}
	c := int(g.data[g.pos]) % n
	g.pos++
	return c
}

func (g *progGen) w(ss ...string) {
	for _, s := range ss {
		g.b.WriteString(s)
	}
}

func (g *progGen) pick(xs []string) { g.w(xs[g.choose(len(xs))]) }

func (g *progGen) name(prefix string) string {
	g.fresh++
	return prefix + strconv.Itoa(g.fresh)
}

// qual names a module member from where the generator is.
func (g *progGen) qual(n string) string {
	if g.inModule {
		return n
	}
	return "fz." + n
}

var (
	intLits = []string{"0", "1", "2", "3", "-1", "-7", "10", "16", "42", "255", "1000",
		"9223372036854775807", "-9223372036854775808", "18446744073709551617", "-123456789012345678901234567890"}
	// sizeLits feed make-list and enumerate: small, or far enough over the
	// evaluator's 2^24-element limit that any range between two of them with
	// a step of at most 3 is refused before anything is allocated. (A range
	// just under the limit is legal and costs one step but seconds of work:
	// (enumerate 3 16777217) builds and renders 16.7 M integers.)
	sizeLits = []string{"0", "1", "2", "3", "5", "8", "16", "-1", "-3", "67108865", "18446744073709551616"}
	idxLits  = []string{"0", "1", "2", "3", "-1", "-2", "100", "9223372036854775808"}
	expLits  = []string{"0", "1", "2", "3", "7", "64", "-1", "100000000"}
	baseLits = []string{"2", "10", "16", "64", "1", "0", "37"}
	decLits  = []string{"0.0", "1.5", "-2.25", "0.1", "3.0", "1000000.000001", "-0.000000000000000001",
		"123456789012345678901234567890.5"}
	strLits = []string{`""`, `"a"`, `"hello"`, `"{}"`, `"{} and {}"`, `"aGVsbG8"`, `"aGVsbG8="`, `"!!"`,
		`"ä€😀"`, `"123"`, `"-7"`, `"ff"`, `"k1"`, `"1.5"`, `"2016-07-22T12:00:00Z"`}
	keyLits  = []string{`"a"`, `"b"`, `"k1"`, `""`}
	tmplLits = []string{`"{}"`, `"{} {}"`, `"x{}y{}z{}"`, `""`, `"{}{}{}{}"`, `"{"`}
	timeFmts = []string{`"%Y-%m-%d"`, `"%H:%M:%S.%v"`, `"%s"`, `"%c"`, `"%G-W%V-%u %j %a %b"`, `"%%%Z%z"`}
)

func (g *progGen) module() {
	g.inModule = true
	g.w("(module fz G\n  (defcap G () true)\n  (defschema row a:integer b:string)\n  (deftable tbl:{row})\n",
		"  (defun put:string (k:string a:integer b:string) (insert tbl k {'a: a, 'b: b}))\n",
		"  (defun upd:string (k:string a:integer b:string) (write tbl k {'a: a, 'b: b}))\n",
		"  (defun get:object{row} (k:string) (read tbl k))\n",
		"  (defun getd:integer (k:string) (with-default-read tbl k {'a: -1, 'b: \"\"} {'a := a} a))\n",
		"  (defun ks:[string] () (keys tbl))\n",
		"  (defun sel:[integer] (n:integer) (map (at 'a) (select tbl (where 'a (< n)))))\n")
	for n := g.choose(3); n > 0; n-- {
		name := g.name("C")
		t := fty(g.choose(int(tStrs) + 1))
		g.w("  (defconst ", name, " ")
		g.pure = true // a defconst is evaluated at load: no table or defun
		g.expr(t, 1)
		g.pure = false
		g.w(")\n")
		g.consts = append(g.consts, fvar{name, t})
	}
	for n := g.choose(4); n > 0; n-- {
		d := fdef{name: g.name("f"), ret: fty(g.choose(int(nTypes)))}
		g.w("  (defun ", d.name)
		if a := d.ret.annot(true); a != "" && g.choose(2) == 0 {
			g.w(":", a)
		}
		g.w(" (")
		saved := len(g.scope)
		for i := g.choose(3); i > 0; i-- {
			p := fvar{g.name("p"), fty(g.choose(int(nTypes)))}
			d.params = append(d.params, p.t)
			if len(d.params) > 1 {
				g.w(" ")
			}
			g.w(p.name, ":", p.t.annot(true))
			g.scope = append(g.scope, p)
		}
		g.w(`) "generated" `) // a body that is a string literal must not be read as the docstring
		g.expr(d.ret, 3)
		g.w(")\n")
		g.scope = g.scope[:saved]
		g.defs = append(g.defs, d)
	}
	g.w(")\n")
	g.inModule = false
}

// leaf writes a variable or constant of type t, or a literal.
func (g *progGen) leaf(t fty) {
	var vs []fvar
	for _, v := range g.scope {
		if v.t == t {
			vs = append(vs, v)
		}
	}
	for _, v := range g.consts {
		if v.t == t {
			vs = append(vs, fvar{g.qual(v.name), t})
		}
	}
	if len(vs) > 0 && g.choose(3) != 0 {
		g.w(vs[g.choose(len(vs))].name)
		return
	}
	switch t {
	case tInt:
		g.pick(intLits)
	case tDec:
		g.pick(decLits)
	case tStr:
		g.pick(strLits)
	case tBool:
		g.pick([]string{"true", "false"})
	case tInts:
		g.w("[")
		for i := g.choose(5); i > 0; i-- {
			g.pick(intLits)
			g.w(" ")
		}
		g.w("]")
	case tStrs:
		g.w("[")
		for i := g.choose(5); i > 0; i-- {
			g.pick(strLits)
			g.w(" ")
		}
		g.w("]")
	case tObj:
		g.w("{'a: ")
		g.pick(intLits)
		g.w(", 'b: ")
		g.pick(strLits)
		g.w("}")
	}
}

// expr writes an expression of type t (in the generator's intent: natives
// applied out of their domain make errors, which is the point) nested at
// most depth deep.
func (g *progGen) expr(t fty, depth int) {
	if depth <= 0 || g.exhausted() {
		g.leaf(t)
		return
	}
	d := depth - 1
	// Forms of any type.
	switch g.choose(12) {
	case 0:
		g.leaf(t)
		return
	case 1:
		g.w("(if ")
		g.expr(tBool, d)
		g.w(" ")
		g.expr(t, d)
		g.w(" ")
		g.expr(t, d)
		g.w(")")
		return
	case 2:
		g.let(t, d)
		return
	case 3:
		if g.callDef(t, d) {
			return
		}
	case 4:
		// A lambda bound by let and applied.
		if g.loop == 0 {
			fn, p := g.name("fn"), fvar{g.name("x"), fty(g.choose(int(nTypes)))}
			g.w("(let ((", fn, " (lambda (", p.name)
			if a := p.t.annot(g.inModule); a != "" && g.choose(2) == 0 {
				g.w(":", a)
			}
			g.w(") ")
			g.scope = append(g.scope, p)
			g.expr(t, d)
			g.scope = g.scope[:len(g.scope)-1]
			g.w("))) (", fn, " ")
			g.expr(p.t, d)
			g.w("))")
			return
		}
	case 5:
		g.w("(try ")
		g.expr(t, d)
		g.w(" ")
		g.expr(t, d)
		g.w(")")
		return
	}
	switch t {
	case tInt:
		g.intExpr(d)
	case tDec:
		g.decExpr(d)
	case tStr:
		g.strExpr(d)
	case tBool:
		g.boolExpr(d)
	case tInts:
		g.intsExpr(d)
	case tStrs:
		g.strsExpr(d)
	case tObj:
		g.objExpr(d)
	}
}

func (g *progGen) let(t fty, d int) {
	form := "(let ("
	if g.choose(2) == 0 {
		form = "(let* ("
	}
	g.w(form)
	saved := len(g.scope)
	var bound []fvar
	for i := 1 + g.choose(2); i > 0; i-- {
		v := fvar{g.name("v"), fty(g.choose(int(nTypes)))}
		g.w("(", v.name, " ")
		g.expr(v.t, d)
		g.w(")")
		bound = append(bound, v)
		if form == "(let* (" {
			g.scope = append(g.scope, v)
		}
	}
	if form == "(let (" {
		g.scope = append(g.scope, bound...)
	}
	g.w(") ")
	g.expr(t, d)
	g.w(")")
	g.scope = g.scope[:saved]
}

// callDef calls a generated defun returning t, if there is one and we are
// not in a loop body.
func (g *progGen) callDef(t fty, d int) bool {
	if g.loop > 0 {
		return false
	}
	var cands []fdef
	for _, f := range g.defs {
		if f.ret == t {
			cands = append(cands, f)
		}
	}
	if len(cands) == 0 {
		return false
	}
	f := cands[g.choose(len(cands))]
	g.w("(", g.qual(f.name))
	for _, p := range f.params {
		g.w(" ")
		g.expr(p, d)
	}
	g.w(")")
	return true
}

// lambda writes (lambda (params) body) with the params in scope for body.
func (g *progGen) lambda(params []fvar, ret fty, d int) {
	g.loop++
	g.w("(lambda (")
	for i, p := range params {
		if i > 0 {
			g.w(" ")
		}
		g.w(p.name)
	}
	g.w(") ")
	g.scope = append(g.scope, params...)
	g.expr(ret, min(d, 2))
	g.scope = g.scope[:len(g.scope)-len(params)]
	g.w(")")
	g.loop--
}

// shortInts is a list of at most five integers, for folds with a lambda.
func (g *progGen) shortInts() {
	switch g.choose(3) {
	case 0:
		g.w("(enumerate 1 ", strconv.Itoa(g.choose(6)), ")")
	case 1:
		g.w("(make-list ", strconv.Itoa(g.choose(6)), " ")
		g.pick(intLits)
		g.w(")")
	default:
		g.leaf(tInts)
	}
}

func (g *progGen) fold(t fty, d int) {
	if g.loop > 0 {
		g.leaf(t)
		return
	}
	g.w("(fold ")
	g.lambda([]fvar{{g.name("acc"), t}, {g.name("x"), tInt}}, t, d)
	g.w(" ")
	g.expr(t, min(d, 1))
	g.w(" ")
	g.shortInts()
	g.w(")")
}

func (g *progGen) op(name string, args ...fty) {
	g.w("(", name)
	for _, a := range args {
		g.w(" ")
		g.expr(a, g.argDepth)
	}
	g.w(")")
}

func (g *progGen) intExpr(d int) {
	g.argDepth = d
	switch g.choose(26) {
	case 0:
		g.op(g.pickS("+", "-", "*", "/", "mod", "&", "|", "xor"), tInt, tInt)
	case 1:
		g.op(g.pickS("abs", "negate", "~", "-"), tInt)
	case 2:
		g.op("length", g.pickT(tInts, tStrs, tStr, tObj))
	case 3:
		g.w("(str-to-int ")
		if g.choose(2) == 0 {
			g.pick(baseLits)
			g.w(" ")
		}
		g.expr(tStr, d)
		g.w(")")
	case 4:
		g.w("(at ")
		g.pick(idxLits)
		g.w(" ")
		g.expr(tInts, d)
		g.w(")")
	case 5:
		if g.loop > 0 {
			g.leaf(tInt)
			return
		}
		g.w("(fold (", g.pickS("+", "*", "-"), ") ")
		g.expr(tInt, d)
		g.w(" ")
		g.expr(tInts, d)
		g.w(")")
	case 6:
		g.fold(tInt, d)
	case 7:
		g.w("(^ ")
		g.expr(tInt, d)
		g.w(" ")
		g.pick(expLits)
		g.w(")")
	case 8:
		g.w("(shift ")
		g.expr(tInt, d)
		g.w(" ")
		g.pick([]string{"1", "-1", "64", "-64", "1000", "-100000", "16777217", "-18446744073709551617"})
		g.w(")")
	case 9:
		g.op(g.pickS("round", "floor", "ceiling"), tDec)
	case 10:
		g.w("(at 'a ")
		g.expr(tObj, d)
		g.w(")")
	case 11:
		if g.noDB(tInt) {
			return
		}
		g.w("(", g.qual("getd"), " ")
		g.keyOrStr(d)
		g.w(")")
	case 12:
		g.w("(diff-time ")
		g.timeExpr(d)
		g.w(" ")
		g.timeExpr(d)
		g.w(")")
	case 13:
		g.w("(bind ")
		g.expr(tObj, d)
		v := fvar{g.name("b"), tInt}
		g.w(" {'a := ", v.name, "} ")
		g.scope = append(g.scope, v)
		g.expr(tInt, d)
		g.scope = g.scope[:len(g.scope)-1]
		g.w(")")
	default:
		g.leaf(tInt)
	}
}

func (g *progGen) decExpr(d int) {
	g.argDepth = d
	switch g.choose(12) {
	case 0:
		g.op(g.pickS("+", "-", "*", "/"), tDec, tDec)
	case 1:
		g.op(g.pickS("+", "-", "*", "/", "log"), tDec, tInt)
	case 2:
		g.op(g.pickS("sqrt", "ln", "exp", "abs", "negate"), tDec)
	case 3:
		g.op("dec", tInt)
	case 4:
		g.w("(", g.pickS("round", "floor", "ceiling"), " ")
		g.expr(tDec, d)
		g.w(" ")
		g.pick([]string{"0", "2", "-1", "255", "256"})
		g.w(")")
	case 5:
		g.fold(tDec, d)
	case 6:
		g.w("(^ ")
		g.expr(tDec, d)
		g.w(" ")
		g.pick([]string{"0.5", "2.0", "-1.5", "3", "10", "0"})
		g.w(")")
	default:
		g.leaf(tDec)
	}
}

func (g *progGen) strExpr(d int) {
	g.argDepth = d
	switch g.choose(24) {
	case 0:
		g.op("+", tStr, tStr)
	case 1:
		g.w("(int-to-str ")
		g.pick(baseLits)
		g.w(" ")
		g.expr(tInt, d)
		g.w(")")
	case 2:
		g.w("(format ")
		g.pick(tmplLits)
		g.w(" [")
		for i := g.choose(4); i > 0; i-- {
			g.expr(fty(g.choose(int(nTypes))), d)
			g.w(" ")
		}
		g.w("])")
	case 3:
		g.w("(", g.pickS("take", "drop"), " ")
		g.pick(idxLits)
		g.w(" ")
		g.expr(tStr, d)
		g.w(")")
	case 4:
		g.op(g.pickS("base64-encode", "base64-decode"), tStr)
	case 5:
		g.op(g.pickS("hash", "typeof", "show"), fty(g.choose(int(nTypes))))
	case 6:
		g.op("concat", tStrs)
	case 7:
		g.w("(at ")
		g.pick(idxLits)
		g.w(" ")
		g.expr(tStrs, d)
		g.w(")")
	case 8:
		if g.loop > 0 {
			g.leaf(tStr)
			return
		}
		g.w("(fold (+) ")
		g.expr(tStr, d)
		g.w(" ")
		g.expr(tStrs, d)
		g.w(")")
	case 9:
		g.fold(tStr, d)
	case 10:
		g.w("(at 'b ")
		g.expr(tObj, d)
		g.w(")")
	case 11:
		if g.noDB(tStr) {
			return
		}
		g.w("(", g.qual("put"), " ")
		g.keyOrStr(d)
		g.w(" ")
		g.expr(tInt, d)
		g.w(" ")
		g.expr(tStr, d)
		g.w(")")
	case 12:
		if g.noDB(tStr) {
			return
		}
		g.w("(", g.qual("upd"), " ")
		g.keyOrStr(d)
		g.w(" ")
		g.expr(tInt, d)
		g.w(" ")
		g.expr(tStr, d)
		g.w(")")
	case 13:
		g.w("(format-time ")
		g.pick(timeFmts)
		g.w(" ")
		g.timeExpr(d)
		g.w(")")
	default:
		g.leaf(tStr)
	}
}

func (g *progGen) boolExpr(d int) {
	g.argDepth = d
	switch g.choose(10) {
	case 0:
		t := fty(g.choose(int(nTypes)))
		g.op(g.pickS("=", "!="), t, t)
	case 1:
		t := g.pickT(tInt, tDec, tStr)
		g.op(g.pickS("<", "<=", ">", ">="), t, t)
	case 2:
		g.op(g.pickS("and", "or"), tBool, tBool)
	case 3:
		g.op("not", tBool)
	case 4:
		switch g.choose(3) {
		case 0:
			g.op("contains", tInt, tInts)
		case 1:
			g.op("contains", tStr, tStr)
		default:
			g.op("contains", tStr, tObj)
		}
	case 5:
		g.w("(enforce ")
		g.expr(tBool, d)
		g.w(` "enforced")`)
	default:
		g.leaf(tBool)
	}
}

func (g *progGen) intsExpr(d int) {
	g.argDepth = d
	switch g.choose(18) {
	case 0:
		g.w("(enumerate ")
		g.pick(sizeLits)
		g.w(" ")
		g.pick(sizeLits)
		if g.choose(2) == 0 {
			g.w(" ")
			g.pick([]string{"1", "2", "-1", "0", "3"})
		}
		g.w(")")
	case 1:
		if g.loop > 0 {
			g.leaf(tInts)
			return
		}
		g.w("(make-list ")
		g.pick(sizeLits)
		g.w(" ")
		g.expr(tInt, d)
		g.w(")")
	case 2:
		g.w("(", g.pickS("take", "drop"), " ")
		g.pick(idxLits)
		g.w(" ")
		g.expr(tInts, d)
		g.w(")")
	case 3:
		if g.loop > 0 {
			g.leaf(tInts)
			return
		}
		g.w("(map ")
		g.lambda([]fvar{{g.name("x"), tInt}}, tInt, d)
		g.w(" ")
		g.expr(tInts, d)
		g.w(")")
	case 4:
		if g.loop > 0 {
			g.leaf(tInts)
			return
		}
		g.w("(filter ")
		g.lambda([]fvar{{g.name("x"), tInt}}, tBool, d)
		g.w(" ")
		g.expr(tInts, d)
		g.w(")")
	case 5:
		g.op(g.pickS("sort", "reverse", "distinct"), tInts)
	case 6:
		g.op("+", tInts, tInts)
	case 7:
		if g.loop > 0 {
			g.leaf(tInts)
			return
		}
		g.w("(zip (", g.pickS("+", "*", "-"), ") ")
		g.expr(tInts, d)
		g.w(" ")
		g.expr(tInts, d)
		g.w(")")
	case 8:
		if g.noDB(tInts) {
			return
		}
		g.w("(", g.qual("sel"), " ")
		g.expr(tInt, d)
		g.w(")")
	case 9:
		if g.loop > 0 {
			g.leaf(tInts)
			return
		}
		g.w("(map (", g.pickS("str-to-int", "length"), ") ")
		g.expr(tStrs, d)
		g.w(")")
	default:
		g.leaf(tInts)
	}
}

func (g *progGen) strsExpr(d int) {
	g.argDepth = d
	switch g.choose(14) {
	case 0:
		g.op("str-to-list", tStr)
	case 1:
		g.op(g.pickS("sort", "reverse", "distinct"), tStrs)
	case 2:
		if g.loop > 0 {
			g.leaf(tStrs)
			return
		}
		g.w("(map ")
		g.lambda([]fvar{{g.name("x"), tInt}}, tStr, d)
		g.w(" ")
		g.expr(tInts, d)
		g.w(")")
	case 3:
		if g.loop > 0 {
			g.leaf(tStrs)
			return
		}
		g.w("(make-list ")
		g.pick(sizeLits)
		g.w(" ")
		g.expr(tStr, d)
		g.w(")")
	case 4:
		if g.noDB(tStrs) {
			return
		}
		g.w("(", g.qual("ks"), ")")
	case 5:
		g.op("+", tStrs, tStrs)
	case 6:
		g.w("(", g.pickS("take", "drop"), " ")
		g.pick(idxLits)
		g.w(" ")
		g.expr(tStrs, d)
		g.w(")")
	case 7:
		if g.loop > 0 {
			g.leaf(tStrs)
			return
		}
		g.w("(map (int-to-str ")
		g.pick(baseLits)
		g.w(") ")
		g.expr(tInts, d)
		g.w(")")
	default:
		g.leaf(tStrs)
	}
}

func (g *progGen) objExpr(d int) {
	g.argDepth = d
	switch g.choose(8) {
	case 0:
		g.w("{'a: ")
		g.expr(tInt, d)
		g.w(", 'b: ")
		g.expr(tStr, d)
		g.w("}")
	case 1:
		if g.noDB(tObj) {
			return
		}
		g.w("(", g.qual("get"), " ")
		g.keyOrStr(d)
		g.w(")")
	case 2:
		g.op("+", tObj, tObj)
	case 3:
		g.w("(remove ")
		g.pick([]string{"'a", "'b", `"c"`})
		g.w(" ")
		g.expr(tObj, d)
		g.w(")")
	case 4:
		g.w("(take ")
		g.pick([]string{"['a]", "['b 'a]", "[]", `["x"]`})
		g.w(" ")
		g.expr(tObj, d)
		g.w(")")
	default:
		g.leaf(tObj)
	}
}

// noDB writes a leaf instead when the database may not be used.
func (g *progGen) noDB(t fty) bool {
	if g.pure {
		g.leaf(t)
	}
	return g.pure
}

func (g *progGen) keyOrStr(d int) {
	if g.choose(3) == 0 {
		g.expr(tStr, d)
		return
	}
	g.pick(keyLits)
}

func (g *progGen) timeExpr(d int) {
	switch g.choose(3) {
	case 0:
		g.w(`(time "2016-07-22T12:00:00Z")`)
	case 1:
		g.w("(add-time ")
		g.timeExpr(d - 1)
		g.w(" ")
		if g.choose(2) == 0 {
			g.w("(", g.pickS("days", "hours", "minutes"), " ")
			g.expr(tInt, d-1)
			g.w(")")
		} else {
			g.expr(tDec, d-1)
		}
		g.w(")")
	default:
		g.w("(parse-time ")
		g.pick(timeFmts)
		g.w(" ")
		g.expr(tStr, d-1)
		g.w(")")
	}
}

func (g *progGen) pickS(xs ...string) string { return xs[g.choose(len(xs))] }
func (g *progGen) pickT(ts ...fty) fty       { return ts[g.choose(len(ts))] }

// TestFuzzEvalGenerator checks that the generator writes programs that
// parse, and that a fair share of their forms evaluate without error (a
// generator whose programs all fail early would test little).
func TestFuzzEvalGenerator(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	forms, ok, modErrs := 0, 0, 0
	for range 300 {
		b := make([]byte, 32+r.IntN(1024))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		b[0] |= 0x80
		src := generateProgram(b)
		file, err := syntax.ParseRepl("gen", src)
		if err != nil {
			t.Fatalf("generated program does not parse: %v\n%s", err, src)
		}
		in := eval.New(db.NewMemDB())
		in.StepLimit = fuzzStepLimit
		for i, item := range file.Items {
			_, err := in.EvalTopLevel(item, true)
			switch {
			case i < 2 && err != nil: // the module and create-table
				modErrs++
				if modErrs <= 3 {
					t.Logf("setup form fails: %v\n%s", err, src)
				}
			case i >= 2:
				forms++
				if err == nil {
					ok++
				}
			}
		}
	}
	t.Logf("%d programs whose module or table failed", modErrs)
	t.Logf("%d of %d generated top-level forms evaluated without error", ok, forms)
	if ok*5 < forms {
		t.Errorf("only %d of %d generated forms evaluate without error", ok, forms)
	}
}
