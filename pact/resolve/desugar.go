package resolve

import (
	"math/big"
	"slices"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Desugarer is one run of the pass (Pact.Core.IR.Desugar's
// desugarLispTerm): it walks the syntax of an expression once and gives
// its Term.
//
// The evaluator's compiler and its module hasher read the same source
// slightly differently, and each difference is a switch of this pass, made
// in the one place where it applies:
//
//   - P5 (the hasher): natives are chosen before anything else, locals
//     included, and the two charset constants and constantly are desugared
//     here; a special form is one whatever locals are in scope; a badly
//     applied form or an empty body is an error at once (P5's desugarer
//     throws before the renamer reads any module);
//   - otherwise (the compiler): a local shadows a special form, cond and
//     map; a special form's arity is the compiler's to check (P5 reports it
//     at run time); an error is left in the tree (Invalid) and reported
//     when the compiler reaches it, so that the names before it are
//     resolved, and the modules they read charged, in source order.
type Desugarer struct {
	// P5 desugars as P5 does for the module hash (see above); NoPact53
	// then makes error and pure plain names again, as P5 before 5.3.
	P5, NoPact53 bool
	// Builtin says whether a bare name is one of P5's natives (P5 only).
	Builtin func(string) bool
	// Locals are the names bound where the walk is (compiler only: it is
	// what lets a local shadow a special form). The walk restores them.
	Locals []string
	// The commonest terms and the term lists are carved from blocks: a
	// module's terms are many, short-lived, and read once.
	lits  block[Lit]
	apps  block[App]
	lists []Term
}

// block hands out elements of larger allocations.
type block[T any] struct{ buf []T }

func (b *block[T]) new() *T {
	if len(b.buf) == cap(b.buf) {
		// Small first: a transaction's code is a few terms, and every command is desugared
		// afresh; a module's hundreds of terms reach full blocks after a few doublings.
		b.buf = make([]T, 0, min(max(2*cap(b.buf), 4), 64))
	}
	b.buf = b.buf[:len(b.buf)+1]
	return &b.buf[len(b.buf)-1]
}

// recycle hands b's current block out again from its start, cleared (the
// earlier, smaller blocks are left to the collector). Past its length a
// block is still zero: it is cleared as far as it was handed out.
func (b *block[T]) recycle() {
	clear(b.buf)
	b.buf = b.buf[:0]
}

// Recycle lets d hand out again the memory of the terms it has made: for a
// caller that keeps one Desugarer for many short walks (a node's commands)
// and keeps no term of them, so that each walk need not allocate blocks
// afresh. A term made before Recycle must not be read after it.
func (d *Desugarer) Recycle() {
	d.lits.recycle()
	d.apps.recycle()
	clear(d.lists)
	d.lists = d.lists[:0]
}

// termList is a list of n terms (its capacity n: appending copies it).
func (d *Desugarer) termList(n int) []Term {
	if n > cap(d.lists)-len(d.lists) {
		d.lists = make([]Term, 0, max(min(2*cap(d.lists), 256), 8, n)) // grows as blocks do
	}
	l := len(d.lists)
	d.lists = d.lists[:l+n]
	return d.lists[l : l+n : l+n]
}

func (d *Desugarer) fail(err *Error) (Term, error) {
	if d.P5 {
		return nil, err
	}
	return &Invalid{Err: err}, nil
}

// Exprs desugars xs. Its error, only ever in P5 mode, is an *Error.
func (d *Desugarer) Exprs(xs []syntax.Expr) ([]Term, error) {
	out := d.termList(len(xs))
	for i, x := range xs {
		t, err := d.Expr(x)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// Block desugars a body: P5 wants at least one expression, and says empty
// when there is none.
func (d *Desugarer) Block(xs []syntax.Expr, loc syntax.Span, empty string) ([]Term, error) {
	if d.P5 && len(xs) == 0 {
		return nil, errAt(loc, empty)
	}
	return d.Exprs(xs)
}

// EmptyBody is P5's error for a lambda's, let's or definition's empty body.
const EmptyBody = "Invalid syntax: empty body"

// EmptyBindingBody is P5's error for a binding form ({"k" := v}) with
// nothing after it.
const EmptyBindingBody = "Bind expression lacks an accompanying body"

// scoped desugars xs with names bound.
func (d *Desugarer) scoped(names []string, xs []syntax.Expr, loc syntax.Span, empty string) ([]Term, error) {
	n := len(d.Locals)
	d.Locals = append(d.Locals, names...)
	body, err := d.Block(xs, loc, empty)
	d.Locals = d.Locals[:n]
	return body, err
}

// Expr desugars x. Its error, only ever in P5 mode, is an *Error.
func (d *Desugarer) Expr(x syntax.Expr) (Term, error) {
	switch x := x.(type) {
	case *syntax.IntLit, *syntax.DecimalLit, *syntax.StringLit, *syntax.BoolLit, *syntax.UnitLit:
		small, n, err := d.literal(x)
		if err != nil {
			return d.fail(err)
		}
		t := d.lits.new()
		t.Src, t.Int, t.Small = x, n, small
		return t, nil
	case *syntax.List:
		elems, err := d.Exprs(x.Elems)
		if err != nil {
			return nil, err
		}
		return &List{Elems: elems, Src: x}, nil
	case *syntax.Object:
		o := &Object{Keys: make([]string, len(x.Fields)), Vals: make([]Term, len(x.Fields)), Loc: x.Loc}
		for i, f := range x.Fields {
			v, err := d.Expr(f.Value)
			if err != nil {
				return nil, err
			}
			o.Keys[i], o.Vals[i] = f.Key.Name, v
		}
		return o, nil
	case *syntax.Var:
		return d.name(x), nil
	case *syntax.Let:
		n := len(d.Locals)
		t, err := d.let(x)
		d.Locals = d.Locals[:n]
		return t, err
	case *syntax.Lambda:
		body, err := d.scoped(ArgNames(x.Args), x.Body, x.Loc, EmptyBody)
		if err != nil {
			return nil, err
		}
		return &Lam{Args: x.Args, Body: body, Loc: x.Loc}, nil
	case *syntax.Binding:
		b := &Binding{Keys: make([]string, len(x.Binds)), Vars: make([]syntax.Arg, len(x.Binds)), Loc: x.Loc}
		for i, bd := range x.Binds {
			b.Keys[i], b.Vars[i] = bd.Key.Name, bd.Var
		}
		if len(x.Body) == 0 {
			// P5's EmptyBindingBody, whoever reads the code.
			return d.fail(errAt(x.Loc, EmptyBindingBody))
		}
		body, err := d.scoped(ArgNames(b.Vars), x.Body, x.Loc, EmptyBindingBody)
		if err != nil {
			return nil, err
		}
		b.Body = body
		return b, nil
	case *syntax.App:
		return d.app(x)
	}
	return d.fail(errAt(x.Span(), "unsupported expression"))
}

// let binds its values in order (in d.Locals, which the caller restores:
// a deferred restore would cost every expression).
func (d *Desugarer) let(x *syntax.Let) (Term, error) {
	l := &Let{Binders: make([]Binder, len(x.Binders)), Loc: x.Loc}
	for i, b := range x.Binders {
		v, err := d.Expr(b.Value)
		if err != nil {
			return nil, err
		}
		l.Binders[i] = Binder{Arg: b.Var, Val: v}
		d.Locals = append(d.Locals, b.Var.Name)
	}
	body, err := d.Block(x.Body, x.Loc, EmptyBody)
	if err != nil {
		return nil, err
	}
	l.Body = body
	return l, nil
}

// literal checks a literal and parses a number's digits: small when they
// fit an int64, else big (both zero for the others).
func (d *Desugarer) literal(x syntax.Expr) (small int64, large *big.Int, err *Error) {
	switch x := x.(type) {
	case *syntax.IntLit:
		if v, ok := smallLiteral(x.Text, ""); ok {
			return v, nil, nil
		}
		v, ok := x.Value()
		if !ok {
			return 0, nil, errAt(x.Loc, "invalid integer literal")
		}
		return 0, v, nil
	case *syntax.DecimalLit:
		// P5 keeps at most 255 places (the compiler's decimal wraps).
		if d.P5 && x.Places() > 255 {
			return 0, nil, errAt(x.Loc, "invalid decimal literal")
		}
		if m, ok := smallLiteral(x.Int, x.Frac); ok {
			return m, nil, nil
		}
		m, ok := x.Unscaled()
		if !ok {
			return 0, nil, errAt(x.Loc, "invalid decimal literal")
		}
		return 0, m, nil
	}
	return 0, nil, nil
}

// smallLiteral parses the digits of head followed by those of tail (head
// may start with a sign) when they are at most 18, so fit an int64: the
// literals of transactions are short, and big.Int's parser cost them four
// allocations (the joined text, its reader, the Int and its words) where
// this costs none. Anything else reports false, for big.Int to settle.
func smallLiteral(head, tail string) (int64, bool) {
	neg := false
	if head != "" && (head[0] == '-' || head[0] == '+') {
		neg, head = head[0] == '-', head[1:]
	}
	if n := len(head) + len(tail); n == 0 || n > 18 {
		return 0, false
	}
	var v int64
	for _, s := range [2]string{head, tail} {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// name is a variable. P5 desugars natives (before locals), the charset
// constants and constantly here; the compiler resolves every name itself.
func (d *Desugarer) name(x *syntax.Var) Term {
	n, loc := x.Name, x.Loc
	if !d.P5 || n.Kind != syntax.BareName {
		return (*Var)(x)
	}
	if d.Builtin(n.Name) {
		return (*Builtin)(x)
	}
	switch n.Name {
	case "constantly":
		// A two-argument lambda returning its first argument.
		a1 := syntax.Arg{Loc: loc, Name: ConstantlyArg1}
		a2 := syntax.Arg{Loc: loc, Name: ConstantlyArg2}
		ret := &Var{Name: syntax.Name{Kind: syntax.BareName, Name: ConstantlyArg1}, Loc: loc}
		return &Lam{Args: []syntax.Arg{a1, a2}, Body: []Term{ret}, Loc: loc}
	case "CHARSET_ASCII":
		return &Lit{Src: x, Small: 0, Named: true}
	case "CHARSET_LATIN1":
		return &Lit{Src: x, Small: 1, Named: true}
	}
	return (*Var)(x)
}

// The parameters of P5's constantly: not names Pact code can write.
const (
	ConstantlyArg1 = "#constantlyA1"
	ConstantlyArg2 = "#constantlyA2"
)

func (d *Desugarer) isLocal(name string) bool { return slices.Contains(d.Locals, name) }

func (d *Desugarer) app(x *syntax.App) (Term, error) {
	if v, ok := x.Fn.(*syntax.Var); ok && v.Name.Kind == syntax.BareName && (d.P5 || !d.isLocal(v.Name.Name)) {
		name := v.Name.Name
		if form, ok := forms[name]; ok && !(d.P5 && d.NoPact53 && (form == FormError || form == FormPure)) {
			return d.form(form, name, x)
		}
		switch {
		case name == "cond":
			return d.cond(x)
		case name == "map" && len(x.Args) > 0:
			x = etaExpandMap(x)
		case name == "suspend" && d.P5:
			if len(x.Args) != 1 {
				return nil, errAt(x.Loc, "Invalid syntax: suspend must take only 1 argument")
			}
			t, err := d.Expr(x.Args[0])
			if err != nil {
				return nil, err
			}
			return &Lam{Body: []Term{t}, Loc: x.Loc}, nil
		}
	}
	fn, err := d.Expr(x.Fn)
	if err != nil {
		return nil, err
	}
	args, err := d.Exprs(x.Args)
	if err != nil {
		return nil, err
	}
	t := d.apps.new()
	t.Fn, t.Args, t.Src = fn, args, x
	return t, nil
}

// form is a special form; P5 checks what P5's desugarer checks.
func (d *Desugarer) form(form Form, name string, x *syntax.App) (Term, error) {
	if d.P5 {
		if want, ok := p5FormArity[form]; ok && len(x.Args) != want {
			if form == FormCreateUserGuard {
				return nil, errAt(x.Loc, "Invalid syntax: create-user-guard must take one argument, which must be an application")
			}
			return nil, errAt(x.Loc, "Invalid syntax: "+name+" expects "+strconv.Itoa(want)+" arguments")
		}
		switch form {
		case FormDo:
			if len(x.Args) == 0 {
				return nil, errAt(x.Loc, "Invalid syntax: do form must have at least 1 expression")
			}
		case FormWithCapability:
			if len(x.Args) < 2 {
				return nil, errAt(x.Loc, "Invalid syntax: with-capability must take at least 2 expressions")
			}
		case FormCreateUserGuard:
			if _, ok := x.Args[0].(*syntax.App); !ok {
				return nil, errAt(x.Loc, "Invalid syntax: create-user-guard must take one argument, which must be an application")
			}
		}
	}
	args, err := d.Exprs(x.Args)
	if err != nil {
		return nil, err
	}
	return &Special{Form: form, Args: args, Src: x}, nil
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
func (d *Desugarer) cond(x *syntax.App) (Term, error) {
	if len(x.Args) == 0 {
		if d.P5 {
			return nil, errAt(x.Loc, "Invalid syntax: cond: expected list of conditions with a default case")
		}
		return d.fail(errAt(x.Loc, "Invalid syntax, cond expects a default branch"))
	}
	c := &Cond{Clauses: make([]Clause, len(x.Args)-1), Loc: x.Loc, FnLoc: x.Fn.Span()}
	dflt, err := d.Expr(x.Args[len(x.Args)-1])
	if err != nil {
		return nil, err
	}
	c.Default = dflt
	for i := len(c.Clauses) - 1; i >= 0; i-- {
		clause, ok := x.Args[i].(*syntax.App)
		if !ok || len(clause.Args) != 1 {
			if d.P5 {
				return nil, errAt(x.Loc, "Invalid syntax: cond: expected application of conditions")
			}
			// The compiler stops at the first (from the end) that is not.
			c.Clauses[i].Err = errAt(x.Args[i].Span(), "Invalid syntax, cond clauses are (test branch)")
			c.Clauses = c.Clauses[i:]
			return c, nil
		}
		t, err := d.Expr(clause.Fn)
		if err != nil {
			return nil, err
		}
		b, err := d.Expr(clause.Args[0])
		if err != nil {
			return nil, err
		}
		c.Clauses[i] = Clause{Test: t, Branch: b, Loc: clause.Loc}
	}
	return c, nil
}
