package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// sweepLimit is the gas limit of a measured evaluation: far above a block's
// 150,000 gas, so that every size the interpreter's own bounds allow (2^20-bit
// integers, 2,000,000 list elements) is measured, not cut short by gas.
var sweepLimit = gas.FromGas(1 << 40)

// prepared is one point of a sweep made ready to run: an interpreter holding
// the point's inputs as REPL defconsts (built under the free model, so they
// cost the measured expression nothing: a reference to a top-level defconst
// is free in P5) and the expression, compiled once.
type prepared struct {
	r    *repl.Runner
	expr *eval.Prepared
}

// prepare builds the inputs of pt and parses its expression.
func prepare(pt point) (*prepared, error) {
	r := repl.New(io.Discard)
	// The inputs are built without gas but against the evaluation budget
	// of an unmetered run; the largest (a million strings) need more.
	r.In.Gas.SetBudget(gas.FromGas(1 << 40))
	if pt.data != nil {
		r.In.Data = pt.data
	}
	for _, c := range pt.consts {
		if !mentions(pt.expr, c.name) {
			continue // building inputs the expression does not read is slow at large sizes
		}
		src := "(defconst " + c.name + " " + c.src + ")"
		if _, err := r.EvalSource("inputs.repl", src, true); err != nil {
			return nil, fmt.Errorf("input %s: %s", c.name, repl.FormatError(err))
		}
	}
	f, err := syntax.ParseRepl("expr.repl", pt.expr)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", pt.expr, err)
	}
	if len(f.Items) != 1 {
		return nil, errors.New("an expression must be one form: " + pt.expr)
	}
	return &prepared{r: r, expr: eval.Prepare(f.Items[0])}, nil
}

// mentions reports whether name occurs in expr as a whole symbol.
func mentions(expr, name string) bool {
	for i := 0; ; {
		j := strings.Index(expr[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isSymbolChar(expr[j-1])) && (end == len(expr) || !isSymbolChar(expr[end])) {
			return true
		}
		i = j + 1
	}
}

func isSymbolChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// run evaluates the expression once on a fresh table meter with limit and
// returns the milligas it used and its error, if any: a point may measure a
// native's failure (str-to-int past 512 characters), which is charged too.
func (p *prepared) run(limit gas.MilliGas) (gas.MilliGas, error) {
	p.r.In.Gas = gas.NewMeter(gas.Table, limit)
	_, err := p.r.In.EvalPrepared(p.expr, true)
	return p.r.In.Gas.Used(), err
}

// timing is how long one evaluation takes: the median of samples, each
// sample the mean of enough back-to-back evaluations to last minSample.
type timing struct {
	nsPerOp float64
	ops     int
}

// timer sets how long a point is measured.
type timer struct {
	minSample time.Duration // a sample lasts at least this long
	total     time.Duration // samples are taken until this much has passed
	minRuns   int           // and at least this many samples
}

// measure times f by the timer's rules. It collects garbage first so that
// one point's garbage is not collected during the next point's samples.
func (t timer) measure(f func() error) (timing, error) {
	runtime.GC()
	start := time.Now()
	if err := f(); err != nil { // warm-up, and the size of a batch
		return timing{}, err
	}
	first := time.Since(start)
	if first >= t.total/2 {
		// One evaluation fills the time: it is the measurement (the
		// quadratic natives of the "before" table take seconds).
		return timing{nsPerOp: float64(first.Nanoseconds()), ops: 1}, nil
	}
	batch := 1
	if first < t.minSample {
		batch = int(t.minSample/max(first, time.Microsecond)) + 1
	}
	var samples []float64
	ops := 1
	for len(samples) < t.minRuns || time.Since(start) < t.total {
		s := time.Now()
		for range batch {
			if err := f(); err != nil {
				return timing{}, err
			}
		}
		samples = append(samples, float64(time.Since(s).Nanoseconds())/float64(batch))
		ops += batch
	}
	return timing{nsPerOp: median(samples), ops: ops}, nil
}

func median(xs []float64) float64 { return stats.Median(xs) }

// result is one measured point.
type result struct {
	size    int
	gas     gas.MilliGas
	nsPerOp float64
	err     string // the evaluation's error, when the point measures one
}

// nsPerGas is the point's nanoseconds per gas (per 1000 milligas charged).
func (r result) nsPerGas() float64 {
	if r.gas == 0 {
		return 0
	}
	return r.nsPerOp / (float64(r.gas) / 1000)
}

// measurePoint prepares pt and times its expression. An expression whose
// error is not the one pt expects is a harness failure.
func measurePoint(pt point, t timer) (result, error) {
	p, err := prepare(pt)
	if err != nil {
		return result{}, err
	}
	used, runErr := p.run(sweepLimit)
	res := result{size: pt.size, gas: used}
	if runErr != nil {
		res.err = repl.FormatError(runErr)
		if !pt.fails {
			return res, fmt.Errorf("%s: %s", pt.expr, res.err)
		}
	} else if pt.fails {
		return res, fmt.Errorf("%s: expected an error", pt.expr)
	}
	tm, err := t.measure(func() error {
		_, err := p.run(sweepLimit)
		if pt.fails {
			return nil
		}
		return err
	})
	if err != nil {
		return res, err
	}
	res.nsPerOp = tm.nsPerOp
	return res, nil
}
