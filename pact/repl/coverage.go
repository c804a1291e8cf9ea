package repl

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Coverage collects line coverage: for each source file, how many evaluated
// applications started on each line. Give its Hit method to
// eval.Interp.Coverage (Runner.Install does that) and write the result with
// WriteLCOV or WriteReport.
type Coverage struct {
	files []string // in the order first seen
	hits  map[string]map[int]int
}

// NewCoverage makes an empty collector.
func NewCoverage() *Coverage {
	return &Coverage{hits: map[string]map[int]int{}}
}

// Hit records one evaluated application.
func (c *Coverage) Hit(span syntax.Span) {
	lines := c.file(span.File)
	lines[int(span.Start.Line)]++
}

// AddFile makes sure file appears in the report even if nothing in it ran.
func (c *Coverage) AddFile(file string) { c.file(file) }

func (c *Coverage) file(name string) map[int]int {
	lines, ok := c.hits[name]
	if !ok {
		lines = map[int]int{}
		c.hits[name] = lines
		c.files = append(c.files, name)
	}
	return lines
}

// Files lists the files seen, in the order first seen.
func (c *Coverage) Files() []string { return slices.Clone(c.files) }

// Lines returns file's line counts: every line on which an application was
// evaluated, with its count, and, if file can be read and parsed, every
// other line on which an application starts, with 0.
func (c *Coverage) Lines(file string) map[int]int {
	out := map[int]int{}
	if src, err := os.ReadFile(file); err == nil {
		if f, err := syntax.ParseFile(file, string(src)); err == nil {
			for _, line := range CodeLines(f) {
				out[line] = 0
			}
		}
	}
	for line, n := range c.hits[file] {
		out[line] += n
	}
	return out
}

// WriteLCOV writes the report in the LCOV tracefile format: per file an
// SF record, a DA line per line of code, LF (lines found), LH (lines hit)
// and end_of_record. Files are in the order first seen, lines in order.
func (c *Coverage) WriteLCOV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, file := range c.files {
		lines := c.Lines(file)
		nums := make([]int, 0, len(lines))
		for n := range lines {
			nums = append(nums, n)
		}
		slices.Sort(nums)
		fmt.Fprintf(bw, "SF:%s\n", file)
		hit := 0
		for _, n := range nums {
			fmt.Fprintf(bw, "DA:%d,%d\n", n, lines[n])
			if lines[n] > 0 {
				hit++
			}
		}
		fmt.Fprintf(bw, "LF:%d\nLH:%d\nend_of_record\n", len(nums), hit)
	}
	return bw.Flush()
}

// ReportPath is where the CLI writes the coverage report of a script:
// <dir of script>/coverage/lcov.info.
func ReportPath(script string) string {
	return filepath.Join(filepath.Dir(script), "coverage", "lcov.info")
}

// WriteReport writes the LCOV report to path, creating its directory.
func (c *Coverage) WriteReport(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := c.WriteLCOV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CodeLines lists, in order and without repeats, the lines of f on which
// an application the evaluator reports to Interp.Coverage starts: every
// application in expressions, function, capability and defpact bodies and
// constant values, except the cond form itself (its clauses are reported
// instead) and the empty (do).
func CodeLines(f *syntax.File) []int {
	var lines []int
	var expr func(e syntax.Expr)
	exprs := func(es []syntax.Expr) {
		for _, e := range es {
			expr(e)
		}
	}
	expr = func(e syntax.Expr) {
		switch x := e.(type) {
		case *syntax.App:
			name := ""
			if v, ok := x.Fn.(*syntax.Var); ok && v.Name.Kind == syntax.BareName {
				name = v.Name.Name
			}
			if name != "cond" && (name != "do" || len(x.Args) > 0) {
				lines = append(lines, int(x.Loc.Start.Line))
			}
			expr(x.Fn)
			exprs(x.Args)
		case *syntax.List:
			exprs(x.Elems)
		case *syntax.Object:
			for _, fl := range x.Fields {
				expr(fl.Value)
			}
		case *syntax.Binding:
			exprs(x.Body)
		case *syntax.Let:
			for _, b := range x.Binders {
				expr(b.Value)
			}
			exprs(x.Body)
		case *syntax.Lambda:
			exprs(x.Body)
		}
	}
	var decl func(d syntax.Node)
	decl = func(d syntax.Node) {
		switch x := d.(type) {
		case *syntax.Module:
			for _, d := range x.Body {
				decl(d)
			}
		case *syntax.Interface:
			for _, d := range x.Body {
				decl(d)
			}
		case *syntax.Defun:
			exprs(x.Body)
		case *syntax.DefCap:
			exprs(x.Body)
		case *syntax.DefConst:
			expr(x.Value)
		case *syntax.DefPact:
			for _, s := range x.Steps {
				for _, e := range []syntax.Expr{s.Entity, s.Expr, s.Rollback} {
					if e != nil {
						expr(e)
					}
				}
			}
		case syntax.Expr:
			expr(x)
		}
	}
	for _, item := range f.Items {
		decl(item)
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// Hooks are the command line's additions to a Runner's interpreter. They
// are reinstalled when (load FILE true) replaces the interpreter.
type Hooks struct {
	// Coverage, when set, receives every evaluated application.
	Coverage *Coverage
	// TracePrint prefixes print output with file:line:col:Print: (the
	// position of the print call), as `pact -t` does.
	TracePrint bool
}

// Install installs h in r's interpreter, and replaces the load native with
// one that installs h again in the interpreter (load FILE true) makes and
// records loaded files with h.Coverage.
func (r *Runner) Install(h Hooks) {
	var load *eval.Native
	apply := func() {
		if h.Coverage != nil {
			r.In.Coverage = h.Coverage.Hit
		}
		if h.TracePrint {
			r.In.Register(native("print", 1, 1, func(c eval.Call, a []eval.Value) (eval.Value, error) {
				fmt.Fprintf(r.Out, "%s:%d:%d:Print: %s\n", c.Loc.File, c.Loc.Start.Line, c.Loc.Start.Col, eval.Pretty(a[0]))
				return eval.UnitValue, nil
			}))
		}
		r.In.Register(load)
	}
	load = native("load", 1, 2, func(c eval.Call, a []eval.Value) (eval.Value, error) {
		s, ok := a[0].(eval.String)
		if !ok {
			return r.load(c, a)
		}
		if h.Coverage != nil {
			path := string(s)
			if !filepath.IsAbs(path) {
				path = filepath.Join(r.dir(), path)
			}
			h.Coverage.AddFile(path)
		}
		if len(a) == 2 {
			if b, ok := a[1].(eval.Bool); ok && bool(b) {
				// What r.load does for a reset, then the hooks again.
				results, out, trace := r.Results, r.Out, r.Trace
				r.reset()
				r.Results, r.Out, r.Trace = results, out, trace
				apply()
				return r.load(c, a[:1])
			}
		}
		return r.load(c, a)
	})
	apply()
}
