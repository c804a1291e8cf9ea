package eval

import (
	"slices"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

// The one desugaring pass (Pact.Core.IR.Desugar's desugarLispTerm): it
// walks the syntax of an expression once and gives the term tree below,
// which both consumers read:
//
//   - the compiler (compile.go) resolves it into the evaluator's nodes
//     (ir.go);
//   - the module hasher (modhash.go) renames and encodes it as its
//     lowering into P5's IR shape would be, lowering only the rarer terms.
//
// What is desugared here, for both: literals to values, special forms
// recognised by their head (forms), let and binding forms with their
// binders, lambdas, cond as its clauses and default, map's partial first
// argument eta-expanded. Name resolution is each consumer's.
//
// The two read the same source slightly differently, and each difference
// is a switch of this pass, made in the one place where it applies:
//
//   - p5 (the hasher): natives are chosen before anything else, locals
//     included, and the two charset constants and constantly are desugared
//     here; a special form is one whatever locals are in scope; a badly
//     applied form or an empty body is an error at once (P5's desugarer
//     throws before the renamer reads any module);
//   - otherwise (the compiler): a local shadows a special form, cond and
//     map; a special form's arity is the compiler's to check (P5 reports it
//     at run time); an error is left in the tree (tErr) and reported when
//     the compiler reaches it, so that the names before it are resolved,
//     and the modules they read charged, in source order.

// term is a desugared expression.
type term interface{ span() syntax.Span }

type (
	// tLit is a literal's value; src is what was written (its span).
	tLit struct {
		v   Value
		src syntax.Expr
		// named is set for a constant written by name (CHARSET_ASCII):
		// not a literal.
		named bool
	}
	// tVar is the syntax's own variable, not a copy: variables are the
	// commonest terms.
	tVar syntax.Var
	// tBuiltin is a native (p5 only: the compiler resolves natives with
	// the other names), the syntax's variable that names it.
	tBuiltin syntax.Var
	tList    struct {
		elems []term
		src   *syntax.List
	}
	// tObject is an object literal, its keys as written.
	tObject struct {
		keys []string
		vals []term
		loc  syntax.Span
	}
	tLam struct {
		args []syntax.Arg
		body []term
		loc  syntax.Span
	}
	// tLet binds its values in order, each seeing those before it.
	tLet struct {
		binders []tBinder
		body    []term
		loc     syntax.Span
	}
	// tBinding is {"k" := v ...} body: a function of one object.
	tBinding struct {
		keys []string
		vars []syntax.Arg
		body []term
		loc  syntax.Span
	}
	// tApp's src is the application as written (or as eta-expanded).
	tApp struct {
		fn   term
		args []term
		src  *syntax.App
	}
	// tForm is a special form applied to its arguments, as written (the
	// consumer checks the arity the evaluator wants); src is the
	// application.
	tForm struct {
		form specialForm
		args []term
		src  *syntax.App
	}
	// tCond is (cond (test branch) ... default).
	tCond struct {
		clauses []tClause
		dflt    term
		loc     syntax.Span
		fnLoc   syntax.Span
	}
	// tErr is a desugaring error the compiler reports when it reaches it.
	tErr struct{ err *Error }
)

type tBinder struct {
	arg syntax.Arg
	val term
}

// tClause is one (test branch) of a cond; err, when set, says it is not
// one.
type tClause struct {
	test, branch term
	loc          syntax.Span
	err          *Error
}

func (t *tLit) span() syntax.Span     { return t.src.Span() }
func (t *tVar) span() syntax.Span     { return t.Loc }
func (t *tBuiltin) span() syntax.Span { return t.Loc }
func (t *tList) span() syntax.Span    { return t.src.Loc }
func (t *tObject) span() syntax.Span  { return t.loc }
func (t *tLam) span() syntax.Span     { return t.loc }
func (t *tLet) span() syntax.Span     { return t.loc }
func (t *tBinding) span() syntax.Span { return t.loc }
func (t *tApp) span() syntax.Span     { return t.src.Loc }
func (t *tForm) span() syntax.Span    { return t.src.Loc }
func (t *tCond) span() syntax.Span    { return t.loc }
func (t *tErr) span() syntax.Span     { return t.err.Loc }

// desugarer is one run of the pass.
type desugarer struct {
	// p5 desugars as P5 does for the module hash (see above); noPact53
	// then makes error and pure plain names again, as P5 before 5.3.
	p5, noPact53 bool
	// builtin says whether a bare name is one of P5's natives (p5 only).
	builtin func(string) bool
	// locals are the names bound where the walk is (compiler only: it is
	// what lets a local shadow a special form).
	locals []string
	// The commonest terms and the term lists are carved from blocks: a
	// module's terms are many, short-lived, and read once.
	lits  block[tLit]
	apps  block[tApp]
	lists []term
}

// block hands out elements of larger allocations.
type block[T any] struct{ buf []T }

func (b *block[T]) new() *T {
	if len(b.buf) == cap(b.buf) {
		b.buf = make([]T, 0, 64)
	}
	b.buf = b.buf[:len(b.buf)+1]
	return &b.buf[len(b.buf)-1]
}

// termList is a list of n terms (its capacity n: appending copies it).
func (d *desugarer) termList(n int) []term {
	if n > cap(d.lists)-len(d.lists) {
		d.lists = make([]term, 0, max(256, n))
	}
	l := len(d.lists)
	d.lists = d.lists[:l+n]
	return d.lists[l : l+n : l+n]
}

func (d *desugarer) fail(err *Error) (term, error) {
	if d.p5 {
		return nil, err
	}
	return &tErr{err: err}, nil
}

func (d *desugarer) exprs(xs []syntax.Expr) ([]term, error) {
	out := d.termList(len(xs))
	for i, x := range xs {
		t, err := d.expr(x)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// block is a body: P5 wants at least one expression.
func (d *desugarer) block(xs []syntax.Expr, loc syntax.Span, empty string) ([]term, error) {
	if d.p5 && len(xs) == 0 {
		return nil, compileErr(loc, empty)
	}
	return d.exprs(xs)
}

const emptyBody = "Invalid syntax: empty body"

// scoped desugars xs with names bound.
func (d *desugarer) scoped(names []string, xs []syntax.Expr, loc syntax.Span, empty string) ([]term, error) {
	n := len(d.locals)
	d.locals = append(d.locals, names...)
	body, err := d.block(xs, loc, empty)
	d.locals = d.locals[:n]
	return body, err
}

func argNamesOf(as []syntax.Arg) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

func (d *desugarer) expr(x syntax.Expr) (term, error) {
	switch x := x.(type) {
	case *syntax.IntLit, *syntax.DecimalLit, *syntax.StringLit, *syntax.BoolLit, *syntax.UnitLit:
		v, err := d.literal(x)
		if err != nil {
			return d.fail(err)
		}
		t := d.lits.new()
		t.v, t.src = v, x
		return t, nil
	case *syntax.List:
		elems, err := d.exprs(x.Elems)
		if err != nil {
			return nil, err
		}
		return &tList{elems: elems, src: x}, nil
	case *syntax.Object:
		o := &tObject{keys: make([]string, len(x.Fields)), vals: make([]term, len(x.Fields)), loc: x.Loc}
		for i, f := range x.Fields {
			v, err := d.expr(f.Value)
			if err != nil {
				return nil, err
			}
			o.keys[i], o.vals[i] = f.Key.Name, v
		}
		return o, nil
	case *syntax.Var:
		return d.name(x), nil
	case *syntax.Let:
		n := len(d.locals)
		t, err := d.let(x)
		d.locals = d.locals[:n]
		return t, err
	case *syntax.Lambda:
		body, err := d.scoped(argNamesOf(x.Args), x.Body, x.Loc, emptyBody)
		if err != nil {
			return nil, err
		}
		return &tLam{args: x.Args, body: body, loc: x.Loc}, nil
	case *syntax.Binding:
		b := &tBinding{keys: make([]string, len(x.Binds)), vars: make([]syntax.Arg, len(x.Binds)), loc: x.Loc}
		for i, bd := range x.Binds {
			b.keys[i], b.vars[i] = bd.Key.Name, bd.Var
		}
		body, err := d.scoped(argNamesOf(b.vars), x.Body, x.Loc, "Invalid syntax: empty binding body")
		if err != nil {
			return nil, err
		}
		b.body = body
		return b, nil
	case *syntax.App:
		return d.app(x)
	}
	return d.fail(compileErr(x.Span(), "unsupported expression"))
}

// let binds its values in order (in d.locals, which the caller restores:
// a deferred restore would cost every expression).
func (d *desugarer) let(x *syntax.Let) (term, error) {
	l := &tLet{binders: make([]tBinder, len(x.Binders)), loc: x.Loc}
	for i, b := range x.Binders {
		v, err := d.expr(b.Value)
		if err != nil {
			return nil, err
		}
		l.binders[i] = tBinder{arg: b.Var, val: v}
		d.locals = append(d.locals, b.Var.Name)
	}
	body, err := d.block(x.Body, x.Loc, emptyBody)
	if err != nil {
		return nil, err
	}
	l.body = body
	return l, nil
}

// literal is a literal's value.
func (d *desugarer) literal(x syntax.Expr) (Value, *Error) {
	switch x := x.(type) {
	case *syntax.IntLit:
		v, ok := x.Value()
		if !ok {
			return nil, compileErr(x.Loc, "invalid integer literal")
		}
		return NewIntBig(v), nil
	case *syntax.DecimalLit:
		m, ok := x.Unscaled()
		// P5 keeps at most 255 places (the compiler's decimal wraps).
		if !ok || d.p5 && x.Places() > 255 {
			return nil, compileErr(x.Loc, "invalid decimal literal")
		}
		return NewDecimal(NewIntBig(m), uint8(x.Places())), nil
	case *syntax.StringLit:
		return String(x.Value), nil
	case *syntax.BoolLit:
		return Bool(x.Value), nil
	}
	return UnitValue, nil
}

// name is a variable. P5 desugars natives (before locals), the charset
// constants and constantly here; the compiler resolves every name itself.
func (d *desugarer) name(x *syntax.Var) term {
	n, loc := x.Name, x.Loc
	if !d.p5 || n.Kind != syntax.BareName {
		return (*tVar)(x)
	}
	if d.builtin(n.Name) {
		return (*tBuiltin)(x)
	}
	switch n.Name {
	case "constantly":
		// A two-argument lambda returning its first argument.
		a1 := syntax.Arg{Loc: loc, Name: constantlyA1}
		a2 := syntax.Arg{Loc: loc, Name: "#constantlyA2"}
		return &tLam{args: []syntax.Arg{a1, a2}, body: []term{&tVar{Name: bareName(constantlyA1), Loc: loc}}, loc: loc}
	case "CHARSET_ASCII":
		return &tLit{v: NewInt(0), src: x, named: true}
	case "CHARSET_LATIN1":
		return &tLit{v: NewInt(1), src: x, named: true}
	}
	return (*tVar)(x)
}

const constantlyA1 = "#constantlyA1"

func (d *desugarer) isLocal(name string) bool { return slices.Contains(d.locals, name) }

func (d *desugarer) app(x *syntax.App) (term, error) {
	if v, ok := x.Fn.(*syntax.Var); ok && v.Name.Kind == syntax.BareName && (d.p5 || !d.isLocal(v.Name.Name)) {
		name := v.Name.Name
		if form, ok := specialForms[name]; ok && !(d.p5 && d.noPact53 && (form == sfError || form == sfPure)) {
			return d.form(form, name, x)
		}
		switch {
		case name == "cond":
			return d.cond(x)
		case name == "map" && len(x.Args) > 0:
			x = etaExpandMap(x)
		case name == "suspend" && d.p5:
			if len(x.Args) != 1 {
				return nil, compileErr(x.Loc, "Invalid syntax: suspend must take only 1 argument")
			}
			t, err := d.expr(x.Args[0])
			if err != nil {
				return nil, err
			}
			return &tLam{body: []term{t}, loc: x.Loc}, nil
		}
	}
	fn, err := d.expr(x.Fn)
	if err != nil {
		return nil, err
	}
	args, err := d.exprs(x.Args)
	if err != nil {
		return nil, err
	}
	t := d.apps.new()
	t.fn, t.args, t.src = fn, args, x
	return t, nil
}

// p5FormArity is what P5's desugarer accepts of a form; and, or and enforce
// take any arity (at another than two they are functions).
var p5FormArity = map[specialForm]int{sfIf: 3, sfEnforceOne: 2, sfTry: 2, sfError: 1, sfPure: 1, sfCreateUserGuard: 1}

// form is a special form; p5 checks what P5's desugarer checks.
func (d *desugarer) form(form specialForm, name string, x *syntax.App) (term, error) {
	if d.p5 {
		if want, ok := p5FormArity[form]; ok && len(x.Args) != want {
			if form == sfCreateUserGuard {
				return nil, compileErr(x.Loc, "Invalid syntax: create-user-guard must take one argument, which must be an application")
			}
			return nil, compileErr(x.Loc, "Invalid syntax: "+name+" expects "+itoa(want)+" arguments")
		}
		switch form {
		case sfDo:
			if len(x.Args) == 0 {
				return nil, compileErr(x.Loc, "Invalid syntax: do form must have at least 1 expression")
			}
		case sfWithCapability:
			if len(x.Args) < 2 {
				return nil, compileErr(x.Loc, "Invalid syntax: with-capability must take at least 2 expressions")
			}
		case sfCreateUserGuard:
			if _, ok := x.Args[0].(*syntax.App); !ok {
				return nil, compileErr(x.Loc, "Invalid syntax: create-user-guard must take one argument, which must be an application")
			}
		}
	}
	args, err := d.exprs(x.Args)
	if err != nil {
		return nil, err
	}
	return &tForm{form: form, args: args, src: x}, nil
}

// etaExpandMap is P5's desugar1ArgHOF: (map (f a ...) xs) becomes
// (map (lambda (x) (f a ... x)) xs), so f's other arguments are evaluated,
// and the lambda applied (and charged), once per element.
func etaExpandMap(x *syntax.App) *syntax.App {
	a0, ok := x.Args[0].(*syntax.App)
	if !ok {
		return x
	}
	v := &syntax.Var{Loc: x.Loc, Name: syntax.Name{Kind: syntax.BareName, Name: etaArg}}
	lam := &syntax.Lambda{
		Loc:  a0.Loc,
		Args: []syntax.Arg{{Loc: a0.Loc, Name: etaArg}},
		Body: []syntax.Expr{&syntax.App{Loc: a0.Loc, Fn: a0.Fn, Args: append(slices.Clip(a0.Args), v)}},
	}
	return &syntax.App{Loc: x.Loc, Fn: x.Fn, Args: append([]syntax.Expr{lam}, x.Args[1:]...)}
}

// etaArg is the eta-expanded lambda's parameter: not a name Pact code can
// write.
const etaArg = ":ijHO1"

// cond: (cond (t1 e1) ... default), which both consumers make P5's cond
// native applied to a nullary lambda of nested ifs.
func (d *desugarer) cond(x *syntax.App) (term, error) {
	if len(x.Args) == 0 {
		if d.p5 {
			return nil, compileErr(x.Loc, "Invalid syntax: cond: expected list of conditions with a default case")
		}
		return d.fail(compileErr(x.Loc, "Invalid syntax, cond expects a default branch"))
	}
	c := &tCond{clauses: make([]tClause, len(x.Args)-1), loc: x.Loc, fnLoc: x.Fn.Span()}
	dflt, err := d.expr(x.Args[len(x.Args)-1])
	if err != nil {
		return nil, err
	}
	c.dflt = dflt
	for i := len(c.clauses) - 1; i >= 0; i-- {
		clause, ok := x.Args[i].(*syntax.App)
		if !ok || len(clause.Args) != 1 {
			if d.p5 {
				return nil, compileErr(x.Loc, "Invalid syntax: cond: expected application of conditions")
			}
			// The compiler stops at the first (from the end) that is not.
			c.clauses[i].err = compileErr(x.Args[i].Span(), "Invalid syntax, cond clauses are (test branch)")
			c.clauses = c.clauses[i:]
			return c, nil
		}
		t, err := d.expr(clause.Fn)
		if err != nil {
			return nil, err
		}
		b, err := d.expr(clause.Args[0])
		if err != nil {
			return nil, err
		}
		c.clauses[i] = tClause{test: t, branch: b, loc: clause.Loc}
	}
	return c, nil
}

// termValue is the value of a term made of literals only.
func termValue(t term) (Value, bool) {
	switch t := t.(type) {
	case *tLit:
		return t.v, !t.named
	case *tList:
		l := make(List, len(t.elems))
		for i, e := range t.elems {
			v, ok := termValue(e)
			if !ok {
				return nil, false
			}
			l[i] = v
		}
		return l, true
	case *tObject:
		fs := make([]Field, len(t.keys))
		for i, k := range t.keys {
			v, ok := termValue(t.vals[i])
			if !ok {
				return nil, false
			}
			fs[i] = Field{Key: k, Val: v}
		}
		return NewObject(fs...), true
	}
	return nil, false
}
