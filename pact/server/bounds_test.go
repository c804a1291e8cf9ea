package server

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/exhaust"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/value"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// foldForm costs 2,381 gas under the table model (env-gas after it in the
// REPL): the unit of work of the budget tests.
const foldForm = "(fold (+) 0 (enumerate 0 9999))\n"

func failure(t *testing.T, r cmdResult, prefix string) {
	t.Helper()
	if r.Result.Status != "failure" || r.Result.Error == nil || !strings.HasPrefix(r.Result.Error.Message, prefix) {
		t.Fatalf("want a failure starting %q, got %+v %s", prefix, r.Result.Error, r.Result.Data)
	}
}

func success(t *testing.T, r cmdResult) {
	t.Helper()
	if r.Result.Status != "success" {
		t.Fatalf("want success, got %+v", r.Result.Error)
	}
}

// The budget holds for a command as a whole: two units of work fit in a
// budget of 6,000 gas, three do not, though each form alone would.
// budgetTestTimeLimit replaces, in the tests of the evaluation budget, the time bound a budget
// implies (12.5 µs a gas: 75 ms for 6,000 gas), which a loaded machine passes before the budget
// and so fails the test with the time bound's text instead of the budget's.
const budgetTestTimeLimit = time.Hour

func TestBudgetPerCommand(t *testing.T) {
	e := open(t, Config{EvalBudget: 6000, TimeLimit: budgetTestTimeLimit})
	success(t, local(t, e, build(t, cmdSpec{code: strings.Repeat(foldForm, 2), nonce: "b2"})))
	r := local(t, e, build(t, cmdSpec{code: strings.Repeat(foldForm, 3), nonce: "b3"}))
	failure(t, r, "Evaluation budget exceeded: the work of this command passed 6000 gas")
	if r.Gas != 0 {
		t.Errorf("free gas reports 0, got %d", r.Gas)
	}
	// The same through send, and the budget is the command's, not the
	// engine's: the next command has all of it again.
	failure(t, sendOne(t, e, build(t, cmdSpec{code: strings.Repeat(foldForm, 3), nonce: "b3s"})), "Evaluation budget exceeded")
	success(t, sendOne(t, e, build(t, cmdSpec{code: strings.Repeat(foldForm, 2), nonce: "b2s"})))

	// The default budget (one million gas) runs what 6,000 does not.
	success(t, local(t, open(t, Config{}), build(t, cmdSpec{code: strings.Repeat(foldForm, 3), nonce: "b3d"})))
}

// A gas rate keeps P4's constant-rate semantics under the bounds: the
// command's own limit, its out-of-gas text, and the gas reported.
func TestBudgetLeavesGasRate(t *testing.T) {
	e := open(t, Config{GasRate: 1})
	r := local(t, e, build(t, cmdSpec{code: foldForm, nonce: "r1", gasLimit: 1_000_000}))
	success(t, r)
	if r.Gas <= 0 {
		t.Errorf("gas %d", r.Gas)
	}
	failure(t, local(t, e, build(t, cmdSpec{code: foldForm, nonce: "r2", gasLimit: 5})), `Gas limit "5"exceeded`)
}

// Under a gas rate the budget still holds, for the command as a whole:
// a rate prices every operation alike, so a limit alone would let a
// cheap operation build anything. Two units of work fit in 6,000 gas of
// table-priced work, three do not, however large the command's limit.
func TestBudgetUnderGasRate(t *testing.T) {
	e := open(t, Config{GasRate: 1, EvalBudget: 6000, TimeLimit: budgetTestTimeLimit})
	success(t, local(t, e, build(t, cmdSpec{code: strings.Repeat(foldForm, 2), nonce: "rb2", gasLimit: 1_000_000_000})))
	r := local(t, e, build(t, cmdSpec{code: strings.Repeat(foldForm, 3), nonce: "rb3", gasLimit: 1_000_000_000}))
	failure(t, r, "Evaluation budget exceeded: the work of this evaluation passed 6000 gas (priced by the table gas model) whatever the gas rate")
	// The string doubling of the exhaustion tests costs one rate unit a
	// step: 64 steps of a limit of a billion, yet 2^65 characters.
	failure(t, local(t, open(t, Config{GasRate: 1}), build(t, cmdSpec{code: exhaust.Named("string-doubling").Code,
		nonce: "rb-doubling", gasLimit: 1_000_000_000})), "Evaluation budget exceeded")
}

func TestMaxElements(t *testing.T) {
	e := open(t, Config{MaxElements: 1000})
	success(t, local(t, e, build(t, cmdSpec{code: "(length (enumerate 1 1000))", nonce: "e1"})))
	failure(t, local(t, e, build(t, cmdSpec{code: "(length (enumerate 0 1000))", nonce: "e2"})),
		"Evaluation budget exceeded: more than 1000 list elements")
	// Under a gas rate too.
	rated := open(t, Config{MaxElements: 1000, GasRate: 1})
	failure(t, local(t, rated, build(t, cmdSpec{code: `(length (make-list 1001 "x"))`, nonce: "e3", gasLimit: 1_000_000})),
		"Evaluation budget exceeded: more than 1000 list elements")
	// The default is two million.
	success(t, local(t, open(t, Config{}), build(t, cmdSpec{code: "(length (enumerate 0 1000))", nonce: "e4"})))
}

// resultSize is the size the cap measures: the JSON of the value as the
// result writer encodes it.
func resultSize(t *testing.T, v value.Value) int {
	t.Helper()
	b, err := value.AppendJSON(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// The walk counts exactly what the result writer writes, so the cap is a
// cap in bytes: every value passes at its own size and fails one below.
func TestResultSizeIsExact(t *testing.T) {
	e := open(t, Config{})
	in := eval.New(e.state)
	evalCode := func(code string) value.Value {
		t.Helper()
		c := build(t, cmdSpec{code: code, nonce: code})
		pc, err := api.VerifyCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		v, err := in.EvalProgram(pc.Code.Items)
		if err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		return v
	}
	codes := []string{
		`"plain"`,
		`"quote \" backslash \\ newline \n tab \t"`,
		`"unicode: é中😀"`,
		"(str-to-list \"ab\x01c\")",
		`123`, `-9007199254740993`, `(^ 7 300)`,
		`1.5`, `0.000000001`, `123456789012345678901234567890.5`,
		`true`, `(time "2016-07-22T12:00:00Z")`, `(add-time (time "2016-07-22T12:00:00Z") 0.5)`,
		`{"b": [1 2 {"c": "d"}], "a": {}}`, `[]`, `[[] [[]] {}]`,
		`(read-keyset "ks")`,
		`(create-user-guard (ug.g ["arg" {"k": 1}]))`,
		`(create-capability-guard (ug.C "arg"))`,
		`(fold (lambda (l i) [l l]) ["leaf"] (enumerate 1 8))`,
	}
	in.Data = value.NewObject(value.Field{Key: "ks", Val: value.NewKeySet([]string{strings.Repeat("ab", 32)}, value.KeysAll)})
	evalCode(`(module ug G (defcap G () true) (defcap C (s:string) true) (defun g:bool (x:list) true))`)
	for _, code := range codes {
		v := evalCode(code)
		n := resultSize(t, v)
		if resultTooLarge(v, nil, nil, n) {
			t.Errorf("%s: too large at its own size %d", code, n)
		}
		if !resultTooLarge(v, nil, nil, n-1) {
			t.Errorf("%s: not too large at %d, one below its size", code, n-1)
		}
	}
	// Invalid UTF-8 (which Pact strings cannot hold, but Go values can)
	// may only be overstated.
	bad := value.String("a\xffb")
	if n := resultSize(t, bad); resultTooLarge(bad, nil, nil, n+4) || !resultTooLarge(bad, nil, nil, n-1) {
		t.Errorf("invalid UTF-8 measured wrong (encoded size %d)", n)
	}
}

func TestMaxResultSize(t *testing.T) {
	// (make-list 100 "abcdefghij") is 100 * 13 bytes, plus 99 commas and
	// two brackets: 1,400.
	e := open(t, Config{MaxResultSize: 1400})
	success(t, local(t, e, build(t, cmdSpec{code: `(make-list 100 "abcdefghij")`, nonce: "s1"})))
	failure(t, local(t, e, build(t, cmdSpec{code: `(make-list 100 "abcdefghijk")`, nonce: "s2"})),
		"Result too large: the command's value, events and continuation encode to more than 1400 bytes")

	// A command whose result is too large fails as a whole: its module is
	// not installed.
	deploy := "(module big g (defcap g () true) (defun f () 1))\n(make-list 200 \"abcdefghij\")"
	failure(t, sendOne(t, e, build(t, cmdSpec{code: deploy, nonce: "s3"})), "Result too large")
	failure(t, local(t, e, build(t, cmdSpec{code: "(big.f)", nonce: "s4"})), "")

	// Events and continuations count: a defpact's arguments and yield.
	ev := open(t, Config{MaxResultSize: 1000})
	mod := `(module ev g (defcap g () true)
  (defcap SAID (s:string) @event true)
  (defun say (s:string) (emit-event (SAID s)) 1)
  (defpact keep (s:string) (step (yield {'s: s})) (step 1)))`
	success(t, sendOne(t, ev, build(t, cmdSpec{code: mod, nonce: "s5"})))
	long := `(fold (+) "" (make-list 100 "abcdefghij"))`
	failure(t, local(t, ev, build(t, cmdSpec{code: "(ev.say " + long + ")", nonce: "s6"})), "Result too large")
	failure(t, local(t, ev, build(t, cmdSpec{code: "(ev.keep " + long + ")", nonce: "s7"})), "Result too large")
	success(t, local(t, ev, build(t, cmdSpec{code: `(ev.keep "short")`, nonce: "s8"})))
}

// Every resource-exhaustion program gets a failure (or, for the bounded
// ones, an answer) from the engine, with bounds a tenth of the defaults so
// that the race detector keeps this quick. dag-type-error is left to the
// process test in cmd/ledger-node (exhaust_test.go): its failure mode is
// unbounded memory, which would take this test process with it.
func TestExhaustionPrograms(t *testing.T) {
	e := open(t, Config{EvalBudget: 100_000, MaxElements: 200_000})
	for _, p := range exhaust.Programs {
		if p.Name == "dag-type-error" {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			for _, mode := range []string{"local", "send"} {
				c := build(t, cmdSpec{code: p.Code, nonce: mode + p.Name})
				start := time.Now()
				var r cmdResult
				if mode == "local" {
					r = local(t, e, c)
				} else {
					r = sendOne(t, e, c)
				}
				took := time.Since(start)
				if p.Want == exhaust.Fails && r.Result.Status != "failure" {
					t.Errorf("%s: %s succeeded (%s): %.200s", mode, p.Name, p.Why, r.Result.Data)
				}
				// A failure must be a bound's, or the program tests nothing (a typo
				// fails too).
				if e := r.Result.Error; e != nil && !strings.HasPrefix(e.Message, "Evaluation budget exceeded") &&
					!strings.HasPrefix(e.Message, "Result too large") {
					t.Errorf("%s: %s failed, but not on a bound: %s", mode, p.Name, e.Message)
				}
				if r.Result.Error != nil {
					t.Logf("%s: %v: %s", mode, took, r.Result.Error.Message)
				} else {
					t.Logf("%s: %v: success, %d bytes", mode, took, len(r.Result.Data))
				}
			}
		})
	}
}

// A batch releases the engine between its commands: a local sent while a
// batch of heavy commands runs is answered before the batch is done, and
// the batch's keys cannot be sent again meanwhile.
func TestBatchTakesTurns(t *testing.T) {
	e := open(t, Config{})
	var batch []*api.Command
	for i := range 10 {
		batch = append(batch, build(t, cmdSpec{code: strings.Repeat(foldForm, 8), nonce: "heavy" + string(rune('a'+i))}))
	}
	var wg sync.WaitGroup
	wg.Add(1)
	sent := make(chan error, 1)
	go func() {
		defer wg.Done()
		_, err := e.Send(context.Background(), batch)
		sent <- err
	}()
	defer wg.Wait()
	// Wait until the batch is pending, then ask for something trivial.
	for deadline := hangguard.Deadline(); ; {
		e.mu.Lock()
		started := e.pending[batch[0].Hash]
		e.mu.Unlock()
		if started {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batch was never seen pending: it did not start, or held the engine until it was done")
		}
		time.Sleep(time.Millisecond)
	}
	success(t, local(t, e, build(t, cmdSpec{code: exhaust.Trivial, nonce: "trivial"})))
	select {
	case err := <-sent:
		t.Fatalf("the local waited for the whole batch (send returned %v first)", err)
	default:
	}
	if _, err := e.Send(context.Background(), batch[8:9]); err == nil || !strings.Contains(err.Error(), "has already been submitted") {
		t.Errorf("a pending key sent again: %v", err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	got, err := e.Poll(context.Background(), []api.Hash{batch[0].Hash, batch[9].Hash}, contractapi.PollOptions{})
	if err != nil || len(got) != 2 {
		t.Fatalf("poll after the batch: %d results, %v", len(got), err)
	}
}

// Verify evaluates top-level forms: the budget holds across the request.
func TestVerifyIsBounded(t *testing.T) {
	e := open(t, Config{EvalBudget: 6000, TimeLimit: budgetTestTimeLimit})
	body := `{"modules": [` + quote(strings.Repeat(foldForm, 3)) + `]}`
	out, err := e.Verify(context.Background(), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "Evaluation budget exceeded: the work of this command passed 6000 gas") {
		t.Errorf("verify of three units of work under a budget of two: %s", out)
	}
}
