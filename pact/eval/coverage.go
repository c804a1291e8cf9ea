package eval

import (
	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Coverage hooks (`pact -c`). A report that tells the truth needs, besides
// what ran, what could have run and did not: so the interpreter describes
// the code it compiles (Code, walking the compiled tree the way eval walks
// it) before it reports what runs (Expr, Enter, Branch). Every hook sits
// behind a nil test of Interp.Coverage, so coverage off costs the
// evaluator one comparison per node and allocates nothing.

// CoverageHook receives coverage events; set it as Interp.Coverage.
type CoverageHook interface {
	// Code describes compiled code: a module as it is installed, a REPL
	// top-level defun, defconst or expression before it runs.
	Code(CodeMap)
	// Expr is called each time the evaluator evaluates an expression
	// (literal, variable, application, special form...), with its span.
	Expr(loc syntax.Span)
	// Enter is called each time the body of a defun or defcap starts, and
	// each time a step (or rollback) of a defpact runs.
	Enter(d *Def)
	// Branch is called each time an if (or a cond clause, which compiles
	// to one) has evaluated its condition: then tells which way it went.
	Branch(loc syntax.Span, then bool)
}

// CodeMap describes compiled code for a coverage report.
type CodeMap struct {
	// Exprs are the spans of the expressions that Expr can report for
	// this code (in tree order; a span may repeat).
	Exprs []syntax.Span
	// Functions are the defuns, defcaps and defpacts with a body.
	Functions []*Def
	// Branches are the ifs and conds.
	Branches []BranchSite
}

// BranchSite is an if or a cond, with its branches in source order: an if
// has then and else; a cond one branch per clause and the default last.
type BranchSite struct {
	Loc  syntax.Span
	Arms []BranchArm
}

// BranchArm is a branch: taken when the if at If reports Branch(If, Then).
type BranchArm struct {
	If   syntax.Span
	Then bool
}

// coverDefs tells the coverage hook about compiled definitions.
func (in *Interp) coverDefs(defs ...*Def) {
	var w coverWalker
	for _, d := range defs {
		if d.Abstract || (len(d.Body) == 0 && len(d.Steps) == 0) {
			continue
		}
		switch d.Kind {
		case DefFun, DefCapability, DefPactKind:
			w.m.Functions = append(w.m.Functions, d)
		default:
			continue
		}
		for _, n := range d.Body {
			w.node(n)
		}
		for _, s := range d.Steps {
			w.node(s.Expr)
			if s.Rollback != nil {
				w.node(s.Rollback)
			}
		}
	}
	in.Coverage.Code(w.m)
}

// coverModule tells the coverage hook about an installed module.
func (in *Interp) coverModule(m *Module) {
	defs := make([]*Def, 0, len(m.Order))
	for _, name := range m.Order {
		defs = append(defs, m.Defs[name])
	}
	in.coverDefs(defs...)
}

// coverExpr tells the coverage hook about a compiled expression.
func (in *Interp) coverExpr(n node) {
	var w coverWalker
	w.node(n)
	in.Coverage.Code(w.m)
}

type coverWalker struct{ m CodeMap }

func (w *coverWalker) expr(loc syntax.Span) {
	if loc.Start.IsValid() {
		w.m.Exprs = append(w.m.Exprs, loc)
	}
}

func (w *coverWalker) nodes(ns []node) {
	for _, n := range ns {
		w.node(n)
	}
}

// node records n and what eval evaluates of it, and nothing eval never
// passes to itself (a function position called directly, the message of
// a malformed special form), since such a line could never be reported.
func (w *coverWalker) node(n node) {
	if n == nil {
		return
	}
	w.expr(n.span())
	switch n := n.(type) {
	case *nApp:
		switch f := n.fn.(type) {
		case *nNative:
			if f.n.Name == "cond" && len(n.args) == 1 {
				w.cond(n)
			}
		case *nDef:
		case *nDyn:
			w.node(f.ref)
		default:
			w.node(n.fn)
		}
		w.nodes(n.args)
	case *nDyn:
		w.node(n.ref)
	case *nList:
		w.nodes(n.elems)
	case *nObject:
		w.nodes(n.vals)
	case *nLambda:
		w.nodes(n.body)
	case *nBinding:
		w.nodes(n.body)
	case *nLet:
		w.nodes(n.vals)
		w.nodes(n.body)
	case *nSpecial:
		switch n.form {
		case sfInvalid:
			return
		case resolve.FormIf:
			if !n.condClause {
				w.m.Branches = append(w.m.Branches, BranchSite{Loc: n.loc,
					Arms: []BranchArm{{If: n.loc, Then: true}, {If: n.loc, Then: false}}})
			}
		case resolve.FormEnforceOne:
			// The conditions are evaluated one by one, never the list.
			if l, ok := n.args[1].(*nList); ok {
				w.node(n.args[0])
				w.nodes(l.elems)
				return
			}
		case resolve.FormCreateUserGuard:
			// The application is taken apart: its arguments are evaluated.
			if app, ok := n.args[0].(*nApp); ok {
				if d, ok := app.fn.(*nDyn); ok {
					w.node(d.ref)
				}
				w.nodes(app.args)
				return
			}
		}
		w.nodes(n.args)
	}
}

// cond records a cond (compiled to the cond native applied to a nullary
// lambda of nested ifs, one per clause) as one branch site.
func (w *coverWalker) cond(n *nApp) {
	lam, ok := n.args[0].(*nLambda)
	if !ok || len(lam.body) != 1 {
		return
	}
	site := BranchSite{Loc: n.loc}
	var last *nSpecial
	for x := lam.body[0]; ; {
		s, ok := x.(*nSpecial)
		if !ok || s.form != resolve.FormIf || !s.condClause {
			break
		}
		site.Arms = append(site.Arms, BranchArm{If: s.loc, Then: true})
		last, x = s, s.args[2]
	}
	if last == nil {
		return // only a default: nothing to choose
	}
	site.Arms = append(site.Arms, BranchArm{If: last.loc, Then: false})
	w.m.Branches = append(w.m.Branches, site)
}
