package repl

import (
	"os"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Code the interpreter never compiled: the top-level forms after the one
// that stopped a script, and a module that failed to load. The interpreter
// describes only what it compiles, so their lines would be missing from the
// report and the coverage of the file overstated. addUnreached reads such
// forms from the file instead and records, with no hits, the lines on
// which their expressions start, their ifs and conds (never run, so "-")
// and top-level defuns. Functions of a module that never loaded have no
// record: upstream names them with the module hash, which only loading
// computes.

// addUnreached adds the forms of file that left no line in f.
func (c *Coverage) addUnreached(file string, f *fileCov) {
	src, err := os.ReadFile(file)
	if err != nil {
		return
	}
	pf, err := syntax.ParseFile(file, string(src))
	if err != nil {
		return
	}
	for _, item := range pf.Items {
		if c.touched(f, item.Span()) {
			continue
		}
		w := syntaxWalker{c: c, f: f}
		w.top(item)
	}
}

// touched reports whether a line of sp holds code the interpreter
// compiled or ran.
func (c *Coverage) touched(f *fileCov, sp syntax.Span) bool {
	for l := sp.Start.Line; l <= sp.End.Line; l++ {
		if _, ok := f.lines[int(l)]; ok {
			return true
		}
	}
	return false
}

type syntaxWalker struct {
	c *Coverage
	f *fileCov
}

func (w *syntaxWalker) line(sp syntax.Span) {
	if sp.Start.IsValid() {
		if _, ok := w.f.lines[int(sp.Start.Line)]; !ok {
			w.f.lines[int(sp.Start.Line)] = 0
		}
	}
}

func (w *syntaxWalker) top(item syntax.TopLevel) {
	switch x := item.(type) {
	case *syntax.Module:
		for _, d := range x.Body {
			w.decl(d)
		}
	case *syntax.Interface:
		for _, d := range x.Body {
			w.decl(d)
		}
	case *syntax.Defun:
		// A REPL defun: named as the interpreter names it.
		if _, ok := w.f.fns[x.Name]; !ok {
			w.f.fns[x.Name] = &fnCov{name: x.Name, line: int(x.Loc.Start.Line)}
		}
		w.exprs(x.Body)
	case *syntax.DefConst:
		w.expr(x.Value)
	case syntax.Expr:
		w.expr(x)
	}
}

func (w *syntaxWalker) decl(d syntax.Decl) {
	switch x := d.(type) {
	case *syntax.Defun:
		w.exprs(x.Body)
	case *syntax.DefCap:
		w.exprs(x.Body)
	case *syntax.DefConst:
		w.expr(x.Value)
	case *syntax.DefPact:
		for _, s := range x.Steps {
			for _, e := range []syntax.Expr{s.Expr, s.Rollback} {
				if e != nil {
					w.expr(e)
				}
			}
		}
	}
}

func (w *syntaxWalker) exprs(es []syntax.Expr) {
	for _, e := range es {
		w.expr(e)
	}
}

func (w *syntaxWalker) expr(e syntax.Expr) {
	w.line(e.Span())
	switch x := e.(type) {
	case *syntax.App:
		name := ""
		if v, ok := x.Fn.(*syntax.Var); ok && v.Name.Kind == syntax.BareName {
			name = v.Name.Name
		}
		switch {
		case name == "if" && len(x.Args) == 3:
			w.c.site(eval.BranchSite{Loc: x.Loc, Arms: []eval.BranchArm{{If: x.Loc, Then: true}, {If: x.Loc, Then: false}}})
		case name == "cond" && len(x.Args) > 1:
			// As the compiler makes it: an if per clause, at the clause.
			site := eval.BranchSite{Loc: x.Loc}
			for _, cl := range x.Args[:len(x.Args)-1] {
				site.Arms = append(site.Arms, eval.BranchArm{If: cl.Span(), Then: true})
			}
			last := x.Args[len(x.Args)-2].Span()
			site.Arms = append(site.Arms, eval.BranchArm{If: last, Then: false})
			w.c.site(site)
			for _, cl := range x.Args[:len(x.Args)-1] {
				w.line(cl.Span())
				if a, ok := cl.(*syntax.App); ok {
					w.expr(a.Fn)
					w.exprs(a.Args)
				}
			}
			w.expr(x.Args[len(x.Args)-1])
			return
		}
		w.expr(x.Fn)
		w.exprs(x.Args)
	case *syntax.List:
		w.exprs(x.Elems)
	case *syntax.Object:
		for _, fl := range x.Fields {
			w.expr(fl.Value)
		}
	case *syntax.Binding:
		w.exprs(x.Body)
	case *syntax.Let:
		for _, b := range x.Binders {
			w.expr(b.Value)
		}
		w.exprs(x.Body)
	case *syntax.Lambda:
		w.exprs(x.Body)
	}
}
