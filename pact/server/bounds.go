package server

import (
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Bounds of evaluation that hold whatever the gas settings (DECISIONS.md,
// "pact server gasLimit/gasRate" and "resource bounds"): P5's server runs
// commands with free gas, so without them one request of a few hundred
// bytes could take the server's memory or hold it for hours (issue 14).

// DefaultMaxResultSize bounds the JSON of what a command returns: 1 MiB,
// far above any contract's answer (a coin transfer's result with its
// events is under 1 KB), and small enough that results kept in memory and
// sent to clients cannot add up to much.
const DefaultMaxResultSize = 1 << 20

// evalBudget is the gas budget of one command, in milligas.
func (e *Engine) evalBudget() gas.MilliGas {
	if e.cfg.EvalBudget > 0 {
		return gas.FromGas(e.cfg.EvalBudget)
	}
	return eval.DefaultBudget
}

// Bounds are the effective bounds (the configured ones, or the defaults),
// for the server's start-up log.
func (e *Engine) Bounds() (evalBudget uint64, maxElements int64, maxResultSize int, timeLimit time.Duration) {
	maxElements = e.cfg.MaxElements
	if maxElements <= 0 {
		maxElements = eval.DefaultMaxElements
	}
	return e.evalBudget().Gas(), maxElements, e.maxResultSize(), e.timeLimit()
}

// timePerGas is the time a command may take per gas of its evaluation budget: the node's
// figure for a transaction (chainweb's 2.5 µs a gas, five times over), 12.5 s for the default
// budget of a million.
const timePerGas = 5 * 2500 * time.Nanosecond

// DefaultTimeLimit is the wall-clock bound of a command under an evaluation budget of
// budgetGas.
func DefaultTimeLimit(budgetGas uint64) time.Duration { return time.Duration(budgetGas) * timePerGas }

// timeLimit is a command's wall-clock bound.
func (e *Engine) timeLimit() time.Duration {
	if e.cfg.TimeLimit > 0 {
		return e.cfg.TimeLimit
	}
	return DefaultTimeLimit(e.evalBudget().Gas())
}

// timed bounds in's evaluation by the time limit: the returned stop ends the timer.
func (e *Engine) timed(in *eval.Interp) (stop func()) {
	limit := e.timeLimit()
	flag := new(atomic.Bool)
	in.Interrupt = flag
	in.InterruptReason = "this server's time bound on a command (" + limit.String() + ", timeLimit) passed"
	t := time.AfterFunc(limit, func() { flag.Store(true) })
	return func() { t.Stop() }
}

func (e *Engine) maxResultSize() int {
	if e.cfg.MaxResultSize > 0 {
		return e.cfg.MaxResultSize
	}
	return DefaultMaxResultSize
}

// bound sets an interpreter's meter and element limit for one command.
// With a gas rate the meter is the constant-rate one against the command's
// limit, as P4's server charges, and the work budget still holds beside
// it: a rate prices a concatenation of megabytes like an addition, so the
// limit alone bounds nothing. Without a rate the command runs under the
// budget.
func (e *Engine) bound(in *eval.Interp, gasLimit uint64) {
	if e.cfg.GasRate > 0 {
		in.MaxElements = e.cfg.MaxElements
		// Every metered operation costs the rate, against the command's gas
		// limit (0 fails at the first charge).
		in.Gas = gas.NewMeter(gas.ConstantRate(uint64(e.cfg.GasRate)), gas.FromGas(gasLimit))
		in.Gas.SetBudget(e.evalBudget())
		return
	}
	e.budget(in)
}

// budget bounds an interpreter by the work budget and the element limit:
// the table model prices the work, against a limit of the budget. That is
// a table meter with a limit rather than eval's own per-form budget,
// because a command has many top-level forms and each would otherwise get
// the whole budget again (twenty forms, twenty budgets: half a minute of
// work for one request).
func (e *Engine) budget(in *eval.Interp) {
	in.MaxElements = e.cfg.MaxElements
	in.Gas = gas.NewMeter(gas.Table, e.evalBudget())
}

// gasUsed is what a command's result reports: the constant-rate gas, or 0
// under free gas (P5's server always reports 0; the budget is not gas).
func (e *Engine) gasUsed(in *eval.Interp) int64 {
	if e.cfg.GasRate > 0 {
		return int64(in.Gas.Used().Gas())
	}
	return 0
}

// budgetError turns the out-of-gas error of a budget meter (see budget)
// into the budget's own text: the command asked for no gas limit, so `Gas
// limit "1000000"exceeded` would name a limit it never set.
func (e *Engine) budgetError(in *eval.Interp, err error) error {
	limit := e.evalBudget()
	if l, limited := in.Gas.Limit(); in.Gas.Model() != gas.Table || !limited || l != limit {
		return err
	}
	var ee *value.Error
	if !errors.As(err, &ee) || ee.Kind != value.ErrGas ||
		!strings.HasPrefix(ee.Msg, `Gas limit "`+strconv.FormatUint(limit.Gas(), 10)+`"exceeded`) {
		return err
	}
	be := *ee
	be.Msg = budgetText(limit)
	return &be
}

func budgetText(limit gas.MilliGas) string {
	return "Evaluation budget exceeded: the work of this command passed " + strconv.FormatUint(limit.Gas(), 10) +
		" gas (priced by the table gas model) while running without a gas limit"
}

// resultTooLarge reports whether what a command returns (its value, the
// parameters of its events, its continuation's yield and arguments)
// encodes to more than limit bytes of JSON. The walk stops as soon as the
// count passes the limit, and every value it visits adds at least one
// byte, so it visits at most limit values: a value that holds its
// predecessor twice, 64 levels deep, has 2^64 leaves to encode but is
// rejected after a million.
func resultTooLarge(v value.Value, events []value.Event, pe *eval.PactExec, limit int) bool {
	w := sizeWalk{left: limit}
	if v != nil {
		w.value(v)
	}
	for _, ev := range events {
		w.values(ev.Args)
	}
	w.pactExec(pe)
	return w.left < 0
}

// sizeWalk counts JSON bytes down from a limit (left < 0: over). The
// counts are exact for the shapes eval.AppendJSON writes; leaves of fixed
// shape are measured by encoding them.
type sizeWalk struct {
	left    int
	scratch []byte
}

func (w *sizeWalk) over() bool { return w.left < 0 }

func (w *sizeWalk) add(n int) { w.left -= n }

func (w *sizeWalk) values(vs []value.Value) {
	w.add(2 + max(len(vs)-1, 0)) // brackets and commas
	for _, v := range vs {
		if w.over() {
			return
		}
		w.value(v)
	}
}

func (w *sizeWalk) value(v value.Value) {
	if w.over() {
		return
	}
	switch x := v.(type) {
	case value.String:
		w.add(jsonStringSize(string(x)))
	case value.List:
		w.values(x)
	case *value.Object:
		w.add(2 + max(x.Len()-1, 0))
		for i := 0; i < x.Len() && !w.over(); i++ {
			w.add(jsonStringSize(x.Key(i)) + 1)
			w.value(x.Val(i))
		}
	case *value.UserGuard:
		g := *x
		g.Args = nil
		w.shell(&g)
		w.values(x.Args)
	case *value.CapabilityGuard:
		g := *x
		g.Args = nil
		w.shell(&g)
		w.values(x.Args)
	case *value.CapToken:
		t := *x
		t.Args = nil
		w.shell(&t)
		w.values(x.Args)
	default:
		w.leaf(v)
	}
}

// shell measures a value with arguments encoded without them ("[]"), so
// that adding the arguments' size gives the whole.
func (w *sizeWalk) shell(v value.Value) {
	w.leaf(v)
	w.add(-2)
}

// leaf measures a value that holds no other values by encoding it. A value
// with no JSON form (a closure) is written as null by the result writer.
func (w *sizeWalk) leaf(v value.Value) {
	b, err := value.AppendJSON(w.scratch[:0], v)
	if err != nil {
		w.add(len("null"))
		return
	}
	w.scratch = b
	w.add(len(b))
}

func (w *sizeWalk) pactExec(pe *eval.PactExec) {
	if pe == nil || w.over() {
		return
	}
	if pe.Yield != nil && pe.Yield.Data != nil {
		w.value(pe.Yield.Data)
	}
	w.values(pe.Args)
	for _, n := range pe.Nested {
		w.pactExec(n)
	}
}

// jsonStringSize is the length of s as eval writes a JSON string: quotes,
// two-byte escapes for quote, backslash, \n, \r and \t, six-byte \u00XX
// for the other control characters. Invalid UTF-8 is written as U+FFFD
// (three bytes), counted here per invalid byte, which can only overstate.
func jsonStringSize(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		case c >= 0x80:
			// Multi-byte sequences are copied as they are; only invalid
			// bytes grow (to the three bytes of U+FFFD).
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				n += 2
			} else {
				i += size - 1
			}
		}
	}
	return n
}
