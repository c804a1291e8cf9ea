package eval

import (
	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Native shadowing. P5's REPL (Pact.Core.Repl.Compile, with
// Pact.Core.NativeShadowing) refuses, before it runs a form, any name that
// would shadow one of its natives: a module's or interface's name, a
// definition's name or parameters, and the variables of a let or a lambda
// anywhere in the code. Chain execution does not check this (a let may
// bind `identity` in a transaction), so the interpreter checks it only as
// the REPL (ReplEvaluator). The names of binding forms ({"k" := x}) and
// schema fields are not checked, as P5 does not.

// checkShadowing reports the first name of item that shadows a native, in
// P5's order: a module's name, then each member's name, parameters and
// body in turn.
func (in *Interp) checkShadowing(item syntax.TopLevel) error {
	s := shadowCheck{in: in}
	s.top(item)
	return s.err
}

type shadowCheck struct {
	in  *Interp
	err error
}

// isNative says whether name is one of P5's natives (the REPL's
// included), as the REPL's environment has them under its execution
// flags.
func (in *Interp) isNative(name string) bool {
	if _, ok := p5.SourceBuiltin(name); !ok {
		return false
	}
	return !in.Flags["DisablePact51"] || !pact51Natives[name]
}

// pact51Natives are the natives Pact 5.1 added, which the DisablePact51
// flag takes away.
var pact51Natives = map[string]bool{"hash-keccak256": true, "hash-poseidon": true}

func (s *shadowCheck) name(name string, loc syntax.Span) {
	if s.err == nil && s.in.isNative(name) {
		s.err = compileErr(loc, "Variable "+name+" shadows native with the same name")
	}
}

func (s *shadowCheck) args(as []syntax.Arg) {
	for _, a := range as {
		s.name(a.Name, a.Loc)
	}
}

func (s *shadowCheck) top(item syntax.TopLevel) {
	switch x := item.(type) {
	case *syntax.Module:
		s.name(x.Name, x.Loc)
		s.decls(x.Body)
	case *syntax.Interface:
		s.name(x.Name, x.Loc)
		s.decls(x.Body)
	case syntax.Decl:
		s.decls([]syntax.Decl{x})
	case syntax.Expr:
		s.expr(x)
	}
}

func (s *shadowCheck) decls(ds []syntax.Decl) {
	for _, d := range ds {
		switch x := d.(type) {
		case *syntax.Defun:
			s.name(x.Name, x.NameLoc)
			s.args(x.Args)
			s.exprs(x.Body)
		case *syntax.DefCap:
			s.name(x.Name, x.NameLoc)
			s.args(x.Args)
			s.exprs(x.Body)
		case *syntax.DefConst:
			s.name(x.Name, x.NameLoc)
			s.expr(x.Value)
		case *syntax.DefSchema:
			s.name(x.Name, x.NameLoc)
		case *syntax.DefTable:
			s.name(x.Name, x.NameLoc)
		case *syntax.DefPact:
			s.name(x.Name, x.NameLoc)
			s.args(x.Args)
			for _, st := range x.Steps {
				s.expr(st.Entity)
				s.expr(st.Expr)
				s.expr(st.Rollback)
			}
		}
	}
}

func (s *shadowCheck) exprs(xs []syntax.Expr) {
	for _, x := range xs {
		s.expr(x)
	}
}

func (s *shadowCheck) expr(x syntax.Expr) {
	if s.err != nil {
		return
	}
	// P5 walks an expression bottom up (transformM): a form's own
	// variables come after those of the forms inside it.
	switch x := x.(type) {
	case *syntax.Let:
		for _, b := range x.Binders {
			s.expr(b.Value)
		}
		s.exprs(x.Body)
		for _, b := range x.Binders {
			s.name(b.Var.Name, b.Var.Loc)
		}
	case *syntax.Lambda:
		s.exprs(x.Body)
		s.args(x.Args)
	case *syntax.App:
		s.expr(x.Fn)
		s.exprs(x.Args)
	case *syntax.List:
		s.exprs(x.Elems)
	case *syntax.Object:
		for _, f := range x.Fields {
			s.expr(f.Value)
		}
	case *syntax.Binding:
		s.exprs(x.Body)
	}
}
