package repl

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Version is the Pact version we implement and report.
const Version = "5.4"

// TestResult is one expect, expect-failure or expect-that.
type TestResult struct {
	Doc    string
	Passed bool
	Msg    string
	Loc    syntax.Span
}

// Runner runs REPL programs against one interpreter.
type Runner struct {
	In *eval.Interp
	DB *db.MemDB
	// Out receives print output (and trace lines).
	Out io.Writer
	// Trace echoes each top-level result as file:line:col:Trace: value.
	Trace bool
	// Results are the test outcomes so far, in order.
	Results []TestResult

	files []string // the file being run, innermost last
	// sources are the texts of the files run (as loaded last) and of the
	// last interactive input, by name: RenderError shows lines of them.
	sources map[string]string
	tx      *txInfo
	// interrupt, when set (SetInterrupt), stops an evaluation at its next gas charge;
	// evaluating says that an interactive evaluation runs (Evaluating).
	interrupt  *atomic.Bool
	evaluating atomic.Bool
}

// SetInterrupt makes flag the runner's interrupt: storing true stops the running evaluation
// at its next gas charge ("Execution interrupted: Ctrl-C") and leaves the session as any
// failed form does. An interactive evaluation (Edit, Interactive) clears it when it starts.
func (r *Runner) SetInterrupt(flag *atomic.Bool) {
	r.interrupt = flag
	r.In.Interrupt = flag
}

// Evaluating reports whether an interactive evaluation is running: a SIGINT then means
// "stop it", not "leave".
func (r *Runner) Evaluating() bool { return r.evaluating.Load() }

type txInfo struct {
	id   db.TxID
	name string
}

// New makes a runner with a fresh in-memory database and the REPL natives.
func New(out io.Writer) *Runner {
	r := &Runner{Out: out}
	r.reset()
	return r
}

func (r *Runner) reset() {
	r.DB = db.NewMemDB()
	r.In = eval.New(r.DB)
	r.In.Print = func(s string) { fmt.Fprintln(r.Out, s) }
	r.In.Warn = func(s string) { fmt.Fprintln(r.Out, "Warning: "+s) }
	r.In.Register(r.natives()...)
	r.In.ReplEvaluator = true
	r.In.Interrupt, r.In.InterruptReason = r.interrupt, "Ctrl-C"
	r.tx = nil
}

// Failures returns the failed tests.
func (r *Runner) Failures() []TestResult {
	var out []TestResult
	for _, t := range r.Results {
		if !t.Passed {
			out = append(out, t)
		}
	}
	return out
}

// LoadFile runs a file: a .pact file without REPL natives, anything else as
// a REPL script. It stops at the first error, which it returns located.
func (r *Runner) LoadFile(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = r.EvalSource(path, string(src), !strings.HasSuffix(path, ".pact"))
	return err
}

// EvalSource parses and evaluates a program, returning each top-level
// result.
func (r *Runner) EvalSource(name, src string, repl bool) ([]value.Value, error) {
	r.remember(name, src)
	var f *syntax.File
	var err error
	if repl {
		f, err = syntax.ParseRepl(name, src)
	} else {
		f, err = syntax.ParseProgram(name, src)
	}
	if err != nil {
		return nil, err
	}
	r.In.SetSource(name, src)
	r.files = append(r.files, name)
	defer func() { r.files = r.files[:len(r.files)-1] }()
	var out []value.Value
	for _, item := range f.Items {
		v, err := r.In.EvalTopLevel(item, repl)
		if err != nil {
			return out, err
		}
		if r.Trace {
			loc := item.Span()
			fmt.Fprintf(r.Out, "%s:%d:%d:Trace: %s\n", loc.File, loc.Start.Line, loc.Start.Col, value.Pretty(v))
		}
		out = append(out, v)
	}
	return out, nil
}

// FormatError renders an error on one line, "file:line:col: message" with
// our 1-based line and column: the form tools that list many errors use
// (the REPL and `pact FILE` print RenderError's P5 layout instead).
func FormatError(err error) string {
	switch e := err.(type) {
	case *value.Error:
		if e.Located {
			return fmt.Sprintf("%s:%d:%d: %s", e.Loc.File, e.Loc.Start.Line, e.Loc.Start.Col, e.Msg)
		}
		return e.Msg
	}
	return err.Error()
}

func (r *Runner) dir() string {
	if len(r.files) == 0 {
		return "."
	}
	return filepath.Dir(r.files[len(r.files)-1])
}
