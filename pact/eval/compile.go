package eval

import (
	"slices"

	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// compiler turns syntax into the resolved tree of ir.go: the desugaring
// pass (package resolve), then its terms' names resolved by the renamer
// (rename.go) and made the evaluator's nodes.
type compiler struct {
	renamer
	scope *scope
	// ds is the desugaring pass, kept for the compiler's life.
	ds resolve.Desugarer
	// inDefcap says a defcap's body is being compiled.
	inDefcap bool
}

// checks says the compiler refuses what P5's desugarer refuses and the
// compiler once let through: not for a stored module compiled again,
// which was accepted when it was installed (a legacy one included).
func (c *compiler) checks() bool { return c.stored == nil }

func (c *compiler) push(names ...string) { c.scope = c.scope.bind(names...) }
func (c *compiler) pop()                 { c.scope = c.scope.up }

func compileErr(loc syntax.Span, msg string) *value.Error {
	return &value.Error{Kind: value.ErrDesugar, Msg: msg, Loc: loc, Located: true}
}

// execErrAt is an error the compiler finds where P5 finds it while
// executing the form (installing a module, evaluating a defpact), not
// desugaring it: P5's ExecutionError.
func execErrAt(loc syntax.Span, msg string) *value.Error {
	return &value.Error{Kind: value.ErrEval, Msg: msg, Loc: loc, Located: true}
}

// exprs compiles xs in the current scope: the desugaring pass
// (package resolve), then the resolution of its terms.
func (c *compiler) exprs(xs []syntax.Expr) ([]node, error) {
	ts, err := desugared(c.desugarer().Exprs(xs))
	if err != nil {
		return nil, err
	}
	return c.terms(ts)
}

func (c *compiler) expr(x syntax.Expr) (node, error) {
	t, err := desugared(c.desugarer().Expr(x))
	if err != nil {
		return nil, err
	}
	return c.term(t)
}

// desugarer is the desugaring pass in the current scope.
func (c *compiler) desugarer() *resolve.Desugarer {
	c.ds.Locals = c.ds.Locals[:0]
	for s := c.scope; s != nil; s = s.up {
		c.ds.Locals = append(c.ds.Locals, s.names...)
	}
	return &c.ds
}

func (c *compiler) terms(ts []resolve.Term) ([]node, error) {
	out := make([]node, len(ts))
	for i, t := range ts {
		n, err := c.term(t)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (c *compiler) term(t resolve.Term) (node, error) {
	switch t := t.(type) {
	case *resolve.Invalid:
		return nil, desugarErr(t.Err)
	case *resolve.Lit:
		if x, ok := t.Src.(*syntax.DecimalLit); ok {
			// A command's amounts recur: made a Value by the arena's table.
			d := value.NewDecimal(litInt(t), uint8(x.Places()))
			return &nConst{v: c.in.alloc.decimal(d), loc: t.Span()}, nil
		}
		return &nConst{v: litValue(t), loc: t.Span()}, nil
	case *resolve.List:
		elems, err := c.terms(t.Elems)
		if err != nil {
			return nil, err
		}
		if allConst(elems) {
			l := make(value.List, len(elems))
			lits := []int32{int32(len(elems))}
			for i, e := range elems {
				l[i] = e.(*nConst).v
				lits = append(lits, e.(*nConst).lits...)
			}
			return &nConst{v: l, loc: t.Src.Loc, lits: lits}, nil
		}
		return &nList{elems: elems, loc: t.Src.Loc}, nil
	case *resolve.Object:
		n := &nObject{loc: t.Loc}
		for _, v := range t.Vals {
			vn, err := c.term(v)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, vn)
		}
		n.keys = slices.Compact(slices.Sorted(slices.Values(t.Keys)))
		n.pos = make([]int, len(t.Keys))
		for i, k := range t.Keys {
			n.pos[i], _ = slices.BinarySearch(n.keys, k)
		}
		return n, nil
	case *resolve.Var:
		return c.name(t.Name, t.Loc)
	case *resolve.Let:
		return c.let(t)
	case *resolve.Lam:
		params, err := c.params(t.Args)
		if err != nil {
			return nil, err
		}
		c.push(resolve.ArgNames(t.Args)...)
		body, err := c.terms(t.Body)
		c.pop()
		if err != nil {
			return nil, err
		}
		return &nLambda{params: params, body: body, loc: t.Loc}, nil
	case *resolve.Binding:
		n := &nBinding{fields: t.Keys, loc: t.Loc}
		for _, v := range t.Vars {
			ty, err := c.typ(v.Type)
			if err != nil {
				return nil, err
			}
			n.params = append(n.params, Param{Name: v.Name, Type: ty})
		}
		c.push(resolve.ArgNames(t.Vars)...)
		body, err := c.terms(t.Body)
		c.pop()
		if err != nil {
			return nil, err
		}
		n.body = body
		n.frameFree = !keepsFrame(body...)
		return n, nil
	case *resolve.App:
		fn, err := c.term(t.Fn)
		if err != nil {
			return nil, err
		}
		args, err := c.terms(t.Args)
		if err != nil {
			return nil, err
		}
		return c.app(fn, args, t.Src.Loc), nil
	case *resolve.Special:
		return c.special(t)
	case *resolve.Cond:
		return c.cond(t)
	}
	return nil, compileErr(t.Span(), "unsupported expression")
}

// app is the application of fn to args, its plain native found. Nodes are
// allocated one by one, not cut from the arena (see arena).
func (c *compiler) app(fn node, args []node, loc syntax.Span) *nApp {
	a := &nApp{fn: fn, args: args, loc: loc}
	if f, ok := fn.(*nNative); ok {
		n := f.n
		if n.Special == nil && n.argsLent && !n.TopLevelOnly &&
			len(args) >= n.Min && (n.Max < 0 || len(args) <= n.Max) {
			a.plain = n
		}
	}
	return a
}

func allConst(ns []node) bool {
	for _, n := range ns {
		if _, ok := n.(*nConst); !ok {
			return false
		}
	}
	return true
}

func (c *compiler) let(t *resolve.Let) (node, error) {
	n := &nLet{loc: t.Loc}
	c.push()
	defer c.pop()
	for _, b := range t.Binders {
		v, err := c.term(b.Val)
		if err != nil {
			return nil, err
		}
		ty, err := c.typ(b.Arg.Type)
		if err != nil {
			return nil, err
		}
		n.params = append(n.params, Param{Name: b.Arg.Name, Type: ty})
		n.vals = append(n.vals, v)
		c.scope.names = append(c.scope.names, b.Arg.Name)
	}
	body, err := c.terms(t.Body)
	if err != nil {
		return nil, err
	}
	n.body = body
	n.frameFree = !keepsFrame(n.vals...) && !keepsFrame(body...)
	return n, nil
}

func (c *compiler) params(args []syntax.Arg) ([]Param, error) {
	out := make([]Param, len(args))
	for i, a := range args {
		t, err := c.typ(a.Type)
		if err != nil {
			return nil, err
		}
		out[i] = Param{Name: a.Name, Type: t, free: freeCheck(t)}
	}
	return out, nil
}

// special is a special form, its arity checked as the evaluator wants: a
// wrong one fails when evaluated (P5 reports these at run time).
func (c *compiler) special(t *resolve.Special) (node, error) {
	args, err := c.terms(t.Args)
	if err != nil {
		return nil, err
	}
	loc := t.Src.Loc
	bad := func(msg string) (node, error) {
		if c.checks() {
			// P5's desugarer refuses a special form with the wrong arguments before any of
			// the code runs.
			return nil, compileErr(loc, msg)
		}
		// Code stored before this check: it fails where it runs, as it always did.
		return &nSpecial{form: sfInvalid, args: []node{&nConst{v: value.String(msg)}}, loc: loc}, nil
	}
	switch t.Form {
	case resolve.FormIf:
		if len(args) != 3 {
			return bad("Invalid syntax, if expects 3 arguments")
		}
	case resolve.FormAnd, resolve.FormOr:
		if len(args) != 2 {
			// With another arity they are plain function values.
			fn := &nNative{n: boolFnNative(t.Form), loc: t.Src.Fn.Span()}
			return c.app(fn, args, loc), nil
		}
	case resolve.FormEnforce:
		if len(args) != 2 {
			// Unlike the other forms, P5 refuses this one only when it runs (its suite
			// catches (enforce x) with expect-failure).
			return &nSpecial{form: sfInvalid, args: []node{&nConst{v: value.String("Invalid syntax, enforce expects 2 arguments")}}, loc: loc}, nil
		}
	case resolve.FormEnforceOne:
		if len(args) != 2 {
			return bad("Invalid syntax, enforce-one expects 2 arguments")
		}
	case resolve.FormWithCapability:
		if len(args) < 2 {
			return bad("Invalid syntax, with-capability expects a capability and a body")
		}
		if c.inDefcap && c.checks() {
			// P5's renamer refuses it (NotAllowedWithinDefcap).
			return nil, compileErr(loc, "with-capability form not allowed within defcap")
		}
	case resolve.FormTry, resolve.FormCreateUserGuard, resolve.FormError, resolve.FormPure:
		want := map[resolve.Form]int{resolve.FormTry: 2, resolve.FormCreateUserGuard: 1, resolve.FormError: 1, resolve.FormPure: 1}[t.Form]
		if len(args) != want {
			return bad("Invalid syntax, wrong number of arguments")
		}
		if t.Form == resolve.FormCreateUserGuard {
			switch t.Args[0].(type) {
			case *resolve.Lit, *resolve.Var, *resolve.Builtin, *resolve.List, *resolve.Object:
				// P5's desugarer wants an application written there (InvalidSyntax).
				return bad("create-user-guard must take one argument, which must be an application")
			}
		}
	case resolve.FormDo:
		if len(args) == 0 {
			if c.checks() {
				// Refused before it runs, as P5's desugarer does.
				return nil, compileErr(loc, "Desugar syntax failure: do form must have at least 1 expression")
			}
			return &nConst{v: value.UnitValue, loc: loc}, nil
		}
	}
	return &nSpecial{form: t.Form, args: args, loc: loc}, nil
}

// cond is P5's cond native applied to a nullary lambda of nested ifs,
// resolved as the evaluator has always read it: the default first, then
// the clauses from the last.
func (c *compiler) cond(t *resolve.Cond) (node, error) {
	// The ifs run in the lambda's own (empty) frame.
	c.push()
	ifs, err := c.condIfs(t)
	c.pop()
	if err != nil {
		return nil, err
	}
	fn := &nNative{n: c.in.natives["cond"], loc: t.FnLoc}
	return &nApp{fn: fn, args: []node{&nLambda{body: []node{ifs}, loc: t.Loc}}, loc: t.Loc}, nil
}

func (c *compiler) condIfs(t *resolve.Cond) (node, error) {
	out, err := c.term(t.Default)
	if err != nil {
		return nil, err
	}
	for i := len(t.Clauses) - 1; i >= 0; i-- {
		cl := t.Clauses[i]
		if cl.Err != nil {
			return nil, desugarErr(cl.Err)
		}
		test, err := c.term(cl.Test)
		if err != nil {
			return nil, err
		}
		b, err := c.term(cl.Branch)
		if err != nil {
			return nil, err
		}
		out = &nSpecial{form: resolve.FormIf, condClause: true, args: []node{test, b, out}, loc: cl.Loc}
	}
	return out, nil
}

// name is the node of what the name resolves to.
func (c *compiler) name(n syntax.Name, loc syntax.Span) (node, error) {
	var res resolution
	if err := c.rename(n, c.scope, loc, &res); err != nil {
		return nil, err
	}
	var out node
	switch res.kind {
	case resLocal:
		name := n.Name
		if res.dynamic {
			name = n.Module
		}
		out = &nLocal{up: res.up, idx: res.idx, name: name, loc: loc}
	case resMember:
		if res.def.Kind == DefSchemaKind && c.checks() {
			// A schema is a type, never a value (P5's renamer:
			// InvalidDefInTermVariable).
			return nil, compileErr(loc, "Invalid definition in term variable position: "+n.String())
		}
		out = &nDef{def: res.def, loc: loc}
	case resModRef:
		out = &nModRef{mod: res.modName, loc: loc}
	case resNative:
		out = &nNative{n: res.native, loc: loc}
	case resConst:
		out = &nConst{v: res.value, loc: loc}
	case resConstantly:
		// P5's desugarer makes constantly a two-argument lambda returning
		// its first argument (applied, and charged, as any lambda).
		body := &nLocal{up: 0, idx: 0, name: resolve.ConstantlyArg1, loc: loc}
		out = &nLambda{params: []Param{{Name: resolve.ConstantlyArg1}, {Name: resolve.ConstantlyArg2}}, body: []node{body}, loc: loc}
	}
	if res.dynamic {
		return &nDyn{ref: out, member: n.Name, loc: loc}, nil
	}
	return out, nil
}

// typ resolves a type annotation.
func (c *compiler) typ(t syntax.Type) (*value.Type, error) { return c.renameType(t, nil) }

// schema resolves the schema a deftable names.
func (c *compiler) schema(n syntax.Name, loc syntax.Span) (*value.Schema, error) {
	return c.renameSchema(n, nil, loc)
}
