package repl

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Coverage collects what `pact -c` reports, per source file: lines,
// functions and branches, each with how often it ran. It is the
// interpreter's eval.CoverageHook (Runner.Install sets it): the interpreter
// describes the code it compiles (eval.CodeMap) before it runs any of it, so
// code that never runs is in the report with a count of 0. Write the
// result with WriteLCOV or WriteReport.
type Coverage struct {
	files []string // in the order first seen
	recs  map[string]*fileCov
	// fns finds the record of a definition the interpreter enters.
	fns map[*eval.Def]*fnCov
	// ifs finds the branches an if's report counts for.
	ifs map[posKey]*ifArms
}

// fileCov is one file's coverage.
type fileCov struct {
	lines map[int]int
	fns   map[string]*fnCov // by name
	sites map[posKey]*siteCov
}

type fnCov struct {
	name string
	line int
	hits int
}

// siteCov is an if or a cond: how often each of its branches was taken.
type siteCov struct {
	line, col int
	arms      []int
}

// ifArms are the branches an if's Branch report counts for: its own two
// for an if, the clause's (then) and, for the last clause, the default
// (else) for a cond clause; nil where a report counts for nothing.
type ifArms struct {
	then, els *armRef
}

type armRef struct {
	site *siteCov
	arm  int
}

type posKey struct {
	file      string
	line, col int32
}

func keyOf(s syntax.Span) posKey { return posKey{s.File, s.Start.Line, s.Start.Col} }

// NewCoverage makes an empty collector.
func NewCoverage() *Coverage {
	return &Coverage{recs: map[string]*fileCov{}, fns: map[*eval.Def]*fnCov{}, ifs: map[posKey]*ifArms{}}
}

// AddFile makes sure file is reported first among the files not yet seen;
// a file in which no code was compiled is left out of the report.
func (c *Coverage) AddFile(file string) { c.file(file) }

func (c *Coverage) file(name string) *fileCov {
	f, ok := c.recs[name]
	if !ok {
		f = &fileCov{lines: map[int]int{}, fns: map[string]*fnCov{}, sites: map[posKey]*siteCov{}}
		c.recs[name] = f
		c.files = append(c.files, name)
	}
	return f
}

// Files lists the files seen, in the order first seen.
func (c *Coverage) Files() []string { return slices.Clone(c.files) }

// Code records compiled code: its lines, functions and branches, each
// with a count of 0 unless it has one already (a module loaded again
// keeps its counts).
func (c *Coverage) Code(m eval.CodeMap) {
	for _, s := range m.Exprs {
		f := c.file(s.File)
		if _, ok := f.lines[int(s.Start.Line)]; !ok {
			f.lines[int(s.Start.Line)] = 0
		}
	}
	for _, d := range m.Functions {
		c.function(d)
	}
	for _, b := range m.Branches {
		c.site(b)
	}
}

// function is d's record, made (with no hits) if need be. A module member
// is named as upstream names it, mod.name.{hash}, so that the versions of
// an upgraded module count apart; a REPL defun by its name.
func (c *Coverage) function(d *eval.Def) *fnCov {
	if r, ok := c.fns[d]; ok {
		return r
	}
	name := d.Name
	if d.Module != nil {
		name = value.FullyQualifiedName{Module: d.Module.Name, Name: d.Name, Hash: d.Module.Hash}.String()
	}
	f := c.file(d.Loc.File)
	r, ok := f.fns[name]
	if !ok {
		r = &fnCov{name: name, line: int(d.Loc.Start.Line)}
		f.fns[name] = r
	}
	c.fns[d] = r
	return r
}

func (c *Coverage) site(b eval.BranchSite) {
	f := c.file(b.Loc.File)
	k := keyOf(b.Loc)
	s, ok := f.sites[k]
	if !ok {
		s = &siteCov{line: int(b.Loc.Start.Line), col: int(b.Loc.Start.Col), arms: make([]int, len(b.Arms))}
		f.sites[k] = s
	}
	for i, a := range b.Arms {
		ik := keyOf(a.If)
		arms := c.ifs[ik]
		if arms == nil {
			arms = &ifArms{}
			c.ifs[ik] = arms
		}
		ref := &armRef{site: s, arm: i}
		if a.Then {
			arms.then = ref
		} else {
			arms.els = ref
		}
	}
}

// Expr counts an evaluated expression on the line it starts on.
func (c *Coverage) Expr(loc syntax.Span) {
	if loc.Start.IsValid() {
		c.file(loc.File).lines[int(loc.Start.Line)]++
	}
}

// Enter counts a run of a function's body.
func (c *Coverage) Enter(d *eval.Def) { c.function(d).hits++ }

// Branch counts the branch an if took.
func (c *Coverage) Branch(loc syntax.Span, then bool) {
	if !loc.Start.IsValid() {
		return
	}
	arms, ok := c.ifs[keyOf(loc)]
	if !ok {
		// Code compiled without the hook: an if of its own.
		c.site(eval.BranchSite{Loc: loc, Arms: []eval.BranchArm{{If: loc, Then: true}, {If: loc, Then: false}}})
		arms = c.ifs[keyOf(loc)]
	}
	ref := arms.els
	if then {
		ref = arms.then
	}
	if ref != nil {
		ref.site.arms[ref.arm]++
	}
}

// Lines returns file's line counts: every line on which an expression of
// the code compiled (or of a top-level form that never ran) starts, with
// how often an expression starting there was evaluated.
func (c *Coverage) Lines(file string) map[int]int {
	f, ok := c.recs[file]
	if !ok {
		return map[int]int{}
	}
	c.addUnreached(file, f)
	return maps.Clone(f.lines)
}

// WriteLCOV writes the report in the LCOV tracefile format, per file in
// the order of upstream's report (pact-5's Pact.Core.Coverage): TN, SF,
// FN and FNDA per function with FNF and FNH, BRDA per branch with BRF and
// BRH, DA per line with LF and LH, end_of_record. Files are in the order
// first seen; files in which no code was compiled are left out.
//
// A branch's BRDA is line,block,branch,count: block numbers the ifs and
// conds starting on the line, in column order (upstream uses the line
// number, which merges two ifs on one line); branch is 0 for then and 1
// for else, or the clause's index in a cond, its default last; the count
// is "-" when the if or cond never chose a branch. The top-level forms of
// a file that never ran are read from it first (addUnreached).
func (c *Coverage) WriteLCOV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, file := range c.files {
		f := c.recs[file]
		c.addUnreached(file, f)
		if len(f.lines) == 0 && len(f.fns) == 0 && len(f.sites) == 0 {
			continue
		}
		fmt.Fprintf(bw, "TN:\nSF:%s\n", file)

		fns := slices.Collect(maps.Values(f.fns))
		slices.SortFunc(fns, func(a, b *fnCov) int {
			return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.name, b.name))
		})
		for _, fn := range fns {
			fmt.Fprintf(bw, "FN:%d,%s\n", fn.line, fn.name)
		}
		fnHit := 0
		for _, fn := range fns {
			fmt.Fprintf(bw, "FNDA:%d,%s\n", fn.hits, fn.name)
			if fn.hits > 0 {
				fnHit++
			}
		}
		fmt.Fprintf(bw, "FNF:%d\nFNH:%d\n", len(fns), fnHit)

		sites := slices.Collect(maps.Values(f.sites))
		slices.SortFunc(sites, func(a, b *siteCov) int {
			return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
		})
		brFound, brHit, block := 0, 0, 0
		for i, s := range sites {
			if i > 0 && sites[i-1].line == s.line {
				block++
			} else {
				block = 0
			}
			ran := 0
			for _, n := range s.arms {
				ran += n
			}
			for arm, n := range s.arms {
				count := "-"
				if ran > 0 {
					count = strconv.Itoa(n)
				}
				fmt.Fprintf(bw, "BRDA:%d,%d,%d,%s\n", s.line, block, arm, count)
				brFound++
				if n > 0 {
					brHit++
				}
			}
		}
		fmt.Fprintf(bw, "BRF:%d\nBRH:%d\n", brFound, brHit)

		nums := slices.Sorted(maps.Keys(f.lines))
		hit := 0
		for _, n := range nums {
			fmt.Fprintf(bw, "DA:%d,%d\n", n, f.lines[n])
			if f.lines[n] > 0 {
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

// Hooks are the command line's additions to a Runner's interpreter. They
// are reinstalled when (load FILE true) replaces the interpreter.
type Hooks struct {
	// Coverage, when set, collects coverage (it becomes the interpreter's
	// coverage hook).
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
			r.In.Coverage = h.Coverage
		}
		if h.TracePrint {
			r.In.Register(native("print", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
				loc := c.Loc()
				fmt.Fprintf(r.Out, "%s:%d:%d:Print: %s\n", loc.File, loc.Start.Line, loc.Start.Col, value.Pretty(a[0]))
				return value.UnitValue, nil
			}))
		}
		r.In.Register(load)
	}
	load = native("load", 1, 2, func(c eval.Call, a []value.Value) (value.Value, error) {
		s, ok := a[0].(value.String)
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
			if b, ok := a[1].(value.Bool); ok && bool(b) {
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
