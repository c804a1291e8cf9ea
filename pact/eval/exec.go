package eval

import (
	"strconv"

	"github.com/ledgernode/ledger-node/pact/gas"

	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Function values. All have Kind() == KindClosure.
type (
	// Closure is a lambda with its captured frame, or a defun.
	Closure struct {
		params []Param
		body   []node
		env    *env
		def    *Def // the defun, nil for a lambda
		loc    syntax.Span
	}
	// NativeFn is a native used as a value.
	NativeFn struct{ n *Native }
	// Partial is a function applied to some of its arguments.
	Partial struct {
		fn   value.Value
		args []value.Value
	}
	// bindFn is a binding form as a value.
	bindFn struct {
		b   *nBinding
		env *env
	}
	// capFn is a defcap used as a value (applied, it makes a token).
	capFn struct{ def *Def }
	// pactFn is a defpact used as a value.
	pactFn struct{ def *Def }
)

func (*Closure) Kind() value.Kind  { return value.KindClosure }
func (*NativeFn) Kind() value.Kind { return value.KindClosure }
func (*Partial) Kind() value.Kind  { return value.KindClosure }
func (*bindFn) Kind() value.Kind   { return value.KindClosure }
func (*capFn) Kind() value.Kind    { return value.KindClosure }
func (*pactFn) Kind() value.Kind   { return value.KindClosure }

func (c *Closure) String() string {
	if c.def != nil {
		return "<#defun " + c.def.qualText() + ">"
	}
	return "<#closure>"
}
func (n *NativeFn) String() string { return "<native " + n.n.Name + ">" }
func (p *Partial) String() string  { return "<#closure>" }
func (b *bindFn) String() string   { return "<#closure>" }
func (c *capFn) String() string    { return "<#defcap " + c.def.qualText() + ">" }
func (c *pactFn) String() string   { return "<#defpact " + c.def.qualText() + ">" }

// arity is the number of arguments a function value takes; -1 when
// variadic.
func arity(fn value.Value) int {
	switch f := fn.(type) {
	case *Closure:
		return len(f.params)
	case *NativeFn:
		if f.n.Max < 0 || f.n.Max != f.n.Min {
			return -1
		}
		return f.n.Max
	case *Partial:
		a := arity(f.fn)
		if a < 0 {
			return -1
		}
		return a - len(f.args)
	case *bindFn:
		return 1
	case *capFn:
		return len(f.def.Args)
	case *pactFn:
		return len(f.def.Args)
	}
	return -1
}

func located(err error, loc syntax.Span) error {
	if e, ok := err.(*value.Error); ok {
		if !e.Located && loc.Start.IsValid() {
			e.Loc, e.Located = loc, true
		}
		siteFrame(e, loc)
	}
	return err
}

// step counts one evaluation step against the step budget, which bounds
// evaluation whatever the gas model (a free evaluation included).
func (in *Interp) step() error {
	in.steps++
	if in.StepLimit > 0 && in.steps > in.StepLimit {
		return in.stepsExceeded()
	}
	return nil
}

// stepsExceeded is step's error, apart so that step is inlined.
//
//go:noinline
func (in *Interp) stepsExceeded() error { return value.BudgetError("evaluation steps", in.StepLimit) }

// arg evaluates an argument: a variable or a constant at once, without
// eval's dispatch (most arguments are one or the other), anything else by
// eval. Coverage sees every expression, so it takes eval's path.
func (in *Interp) arg(n node, e *env) (value.Value, error) {
	if in.Coverage == nil {
		switch n := n.(type) {
		case *nLocal:
			if n.up == 0 {
				return e.vals[n.idx], nil
			}
			return e.lookup(n.up, n.idx), nil
		case *nConst:
			if n.lits == nil {
				return n.v, nil
			}
		}
	}
	return in.eval(n, e)
}

// eval evaluates a compiled expression in a frame.
func (in *Interp) eval(n node, e *env) (value.Value, error) {
	// The common kinds are evaluated here, the others by methods of their
	// own: what those need would make every evaluation's frame larger.
	if in.Coverage != nil {
		in.Coverage.Expr(n.span())
	}
	switch n := n.(type) {
	case *nConst:
		if n.lits != nil && in.metered() {
			return in.chargedConst(n)
		}
		return n.v, nil
	case *nLocal:
		return e.lookup(n.up, n.idx), nil
	case *nApp:
		if err := in.step(); err != nil {
			return nil, located(err, n.loc)
		}
		if in.Gas.Logging() {
			in.gasAt = n
		}
		var v value.Value
		var err error
		if n.plain != nil {
			v, err = in.callPlain(n.plain, n, e)
		} else {
			v, err = in.evalApp(n, e)
		}
		if err != nil {
			return nil, located(err, n.loc)
		}
		return v, nil
	case *nSpecial:
		if err := in.step(); err != nil {
			return nil, located(err, n.loc)
		}
		v, err := in.evalSpecial(n, e)
		if err != nil {
			return nil, located(err, n.loc)
		}
		return v, nil
	case *nList:
		return in.evalList(n, e)
	case *nObject:
		return in.evalObject(n, e)
	case *nLet:
		return in.evalLet(n, e)
	case *nLambda:
		return &Closure{params: n.params, body: n.body, env: e, loc: n.loc}, nil
	case *nBinding:
		f := cut(&in.alloc.binds, smallChunk)
		f.b, f.env = n, e
		return f, nil
	case *nDef:
		return in.defValue(n.def)
	case *nNative:
		return &NativeFn{n: n.n}, nil
	case *nModRef:
		return in.evalModRef(n)
	case *nDyn:
		d, err := in.dynDef(n, e)
		if err != nil {
			return nil, err
		}
		return in.defValue(d)
	}
	return nil, value.EvalError("unknown node")
}

// chargedConst is a list literal folded at compile time: it still costs
// what P5's evaluation of it costs.
func (in *Interp) chargedConst(n *nConst) (value.Value, error) {
	for _, k := range n.lits {
		if err := in.chargeListLit(int(k)); err != nil {
			return nil, located(err, n.loc)
		}
	}
	return n.v, nil
}

func (in *Interp) evalList(n *nList, e *env) (value.Value, error) {
	if err := in.chargeListLit(len(n.elems)); err != nil {
		return nil, located(err, n.loc)
	}
	l := make(value.List, len(n.elems))
	for i, x := range n.elems {
		v, err := in.eval(x, e)
		if err != nil {
			return nil, err
		}
		if err := pactValue(v); err != nil {
			return nil, located(err, x.span())
		}
		l[i] = v
	}
	return l, nil
}

func (in *Interp) evalObject(n *nObject, e *env) (value.Value, error) {
	if err := in.chargeObjLit(len(n.vals)); err != nil {
		return nil, located(err, n.loc)
	}
	obj, vals := in.alloc.object(n.keys)
	for i, x := range n.vals {
		v, err := in.arg(x, e)
		if err != nil {
			return nil, err
		}
		if err := pactValue(v); err != nil {
			return nil, located(err, x.span())
		}
		vals[n.pos[i]] = v
	}
	return obj, nil
}

func (in *Interp) evalLet(n *nLet, e *env) (value.Value, error) {
	var fr *env
	if n.frameFree && len(n.vals) <= len(smallFrame{}.buf) {
		// Nothing keeps the frame: a given-back one, given back again.
		fr, cf := in.alloc.callFrame(len(n.vals))
		fr.vals, fr.up = fr.vals[:0], e
		v, err := in.letIn(n, fr)
		in.alloc.giveBack(cf)
		return v, err
	}
	if len(n.vals) <= len(smallFrame{}.buf) {
		// Most lets bind a few names: frame and values in one allocation.
		fr = in.alloc.frame(len(n.vals))
		fr.vals, fr.up = fr.vals[:0], e
	} else {
		fr = &env{vals: make([]value.Value, 0, len(n.vals)), up: e}
	}
	return in.letIn(n, fr)
}

func (in *Interp) evalModRef(n *nModRef) (value.Value, error) {
	m := in.lookupModule(n.mod)
	if m == nil {
		return nil, located(value.EvalError("Cannot find module: "+n.mod.String()), n.loc)
	}
	if m.Interface {
		return nil, located(value.EvalError("Expected module, found interface: "+n.mod.String()), n.loc)
	}
	return m.ModRefValue(), nil
}

func (in *Interp) body(ns []node, e *env) (value.Value, error) {
	var v value.Value = value.UnitValue
	for i, x := range ns {
		var err error
		if s, ok := x.(*nSpecial); ok && in.Coverage == nil {
			// Most statements are special forms (enforce, with-capability):
			// eval's case for them here, without eval's frame.
			if err := in.step(); err != nil {
				return nil, located(err, s.loc)
			}
			if v, err = in.evalSpecial(s, e); err != nil {
				return nil, located(err, s.loc)
			}
		} else if v, err = in.eval(x, e); err != nil {
			return nil, err
		}
		// A partial application may only be handed to a native; P5 fails
		// when one is dropped in a sequence.
		if p, ok := v.(*Partial); ok && i < len(ns)-1 {
			return nil, located(partialError(p), x.span())
		}
	}
	return v, nil
}

// pactValue rejects function values where a Pact value is needed (list
// and object elements).
func pactValue(v value.Value) error {
	if v.Kind() == value.KindClosure {
		return value.EvalError("Expected Pact Value, got closure or table reference")
	}
	return nil
}

// defValue is a module member used as a value.
func (in *Interp) defValue(d *Def) (value.Value, error) {
	switch d.Kind {
	case DefConstant:
		if d.Value == nil {
			return nil, value.EvalError("constant " + d.qualText() + " used before it is defined")
		}
		return d.Value, nil
	case DefFun:
		return &Closure{params: d.Args, body: d.Body, def: d, loc: d.Loc}, nil
	case DefCapability:
		return &capFn{def: d}, nil
	case DefPactKind:
		return &pactFn{def: d}, nil
	case DefTableKind:
		return d.Table, nil
	case DefSchemaKind:
		return nil, value.EvalError("schema " + d.qualText() + " is not a value")
	}
	return nil, value.EvalError("not a value")
}

// dynDef resolves ref::member.
func (in *Interp) dynDef(n *nDyn, e *env) (*Def, error) {
	rv, err := in.eval(n.ref, e)
	if err != nil {
		return nil, err
	}
	r, ok := rv.(*value.ModRef)
	if !ok {
		return nil, located(value.EvalError("Attempted to use "+n.member+" as dynamic name, but it is not a modref"), n.loc)
	}
	m, err := in.loadModule(r.Module)
	if err != nil {
		return nil, located(err, n.loc)
	}
	if m == nil {
		return nil, located(value.EvalError("Cannot find module: "+r.Module.String()), n.loc)
	}
	d, ok := m.Defs[n.member]
	if !ok {
		return nil, located(value.EvalError("Module member does not exist "+r.Module.String()+"."+n.member), n.loc)
	}
	return d, nil
}

func (in *Interp) evalArgs(ns []node, e *env) ([]value.Value, error) {
	args := in.alloc.values(len(ns))
	for i, x := range ns {
		v, err := in.arg(x, e)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return args, nil
}

func (in *Interp) evalApp(n *nApp, e *env) (value.Value, error) {
	switch f := n.fn.(type) {
	case *nNative:
		if f.n.Special != nil {
			return f.n.Special(Call{in: in, Native: f.n, loc: &n.loc}, thunks(in, n.args, e))
		}
		if f.n.argsLent && len(n.args) >= f.n.Min {
			return in.callNativeLent(f.n, n, e)
		}
		args, err := in.evalArgs(n.args, e)
		if err != nil {
			return nil, err
		}
		return in.callNative(f.n, args, &n.loc)
	case *nDef:
		if d := f.def; d.Kind == DefFun && !d.Abstract && len(n.args) == len(d.Args) && len(n.args) <= len(smallFrame{}.buf) {
			// The common call: evaluate the arguments straight into the
			// callee's frame (one allocation instead of two).
			fr, cf := in.alloc.callFrame(len(n.args))
			for i, x := range n.args {
				v, err := in.arg(x, e)
				if err != nil {
					return nil, err
				}
				fr.vals[i] = v
			}
			v, err := in.callFun(d, fr)
			if d.frameFree {
				in.alloc.giveBack(cf)
			}
			return v, err
		}
		args, err := in.evalArgs(n.args, e)
		if err != nil {
			return nil, err
		}
		return in.callDef(f.def, args, &n.loc)
	case *nDyn:
		d, err := in.dynDef(f, e)
		if err != nil {
			return nil, err
		}
		args, err := in.evalArgs(n.args, e)
		if err != nil {
			return nil, err
		}
		in.dynCalls = append(in.dynCalls, len(in.stack))
		v, err := in.callDef(d, args, &n.loc)
		in.dynCalls = in.dynCalls[:len(in.dynCalls)-1]
		return v, err
	}
	fn, err := in.eval(n.fn, e)
	if err != nil {
		return nil, err
	}
	args, err := in.evalArgs(n.args, e)
	if err != nil {
		return nil, err
	}
	if _, ok := fn.(*Partial); ok {
		// A partial application may only be completed by a native.
		return nil, value.EvalError("Attempted to apply a closure outside of native callsite")
	}
	return in.apply(fn, args, &n.loc)
}

// Apply applies a function value to arguments, charging what P5 charges
// for the application. Too few arguments make a partial application.
func (in *Interp) Apply(fn value.Value, args []value.Value, loc syntax.Span) (value.Value, error) {
	in.forgetModules()
	return in.apply(fn, args, &loc)
}

// apply is Apply, the span of the application given by reference (a
// native's Call has it so, and passing it on copies nothing).
func (in *Interp) apply(fn value.Value, args []value.Value, loc *syntax.Span) (value.Value, error) {
	if err := in.step(); err != nil {
		return nil, err
	}
	switch f := fn.(type) {
	case *Closure:
		if f.def != nil {
			return in.callDef(f.def, args, loc)
		}
		return in.callLambda(f, args)
	case *NativeFn:
		if f.n.Special != nil {
			ts := make([]Thunk, len(args))
			for i, a := range args {
				ts[i] = Thunk{v: a}
			}
			return f.n.Special(Call{in: in, Native: f.n, loc: loc}, ts)
		}
		return in.callNative(f.n, args, loc)
	case *Partial:
		return in.applyPartial(f, args, loc)
	case *bindFn:
		if len(args) != 1 {
			return nil, value.EvalError("binding applied to " + strconv.Itoa(len(args)) + " arguments")
		}
		obj, ok := args[0].(*value.Object)
		if !ok {
			return nil, value.EvalError("binding expects an object, got " + value.ArgTypeName(args[0]))
		}
		return in.applyBinding(f, obj)
	case *capFn:
		return in.callDef(f.def, args, loc)
	case *pactFn:
		return in.callDef(f.def, args, loc)
	}
	return nil, value.EvalError("Cannot apply value to non-closure")
}

// applyPartial completes (or extends) a partial application. A native's
// arguments are charged when it is saturated; a closure's were charged and
// checked as they were given (P5's PartialClosure), so only the new ones
// are, and the body runs without charging the application again.
func (in *Interp) applyPartial(p *Partial, args []value.Value, loc *syntax.Span) (value.Value, error) {
	all := make([]value.Value, 0, len(p.args)+len(args))
	all = append(append(all, p.args...), args...)
	c, ok := p.fn.(*Closure)
	if !ok {
		return in.apply(p.fn, all, loc)
	}
	if len(all) > len(c.params) {
		return nil, value.EvalError("Attempted to apply a closure to too many arguments")
	}
	if err := in.chargeApply(c.def, len(args)); err != nil {
		return nil, err
	}
	if err := in.checkArgs(c.def, c.params[len(p.args):], args); err != nil {
		return nil, err
	}
	if len(all) < len(c.params) {
		return &Partial{fn: c, args: all}, nil
	}
	if c.def != nil {
		v, err := in.runFun(c.def, &env{vals: all})
		if err != nil {
			partialFrame(err, c.def)
		}
		return v, err
	}
	return in.runLambda(c, all)
}

// letIn evaluates let n in its frame fr, empty: each value appended to
// fr in turn (a later binder sees the earlier ones), then the body.
func (in *Interp) letIn(n *nLet, fr *env) (value.Value, error) {
	for i, x := range n.vals {
		v, err := in.eval(x, fr)
		if err != nil {
			return nil, err
		}
		// P5 checks a typed binder's value (closures are not checked).
		if t := n.params[i].Type; t != nil && v.Kind() != value.KindClosure {
			if err := in.checkType(t, v); err != nil {
				return nil, located(err, x.span())
			}
		}
		fr.vals = append(fr.vals, v)
	}
	return in.body(n.body, fr)
}

// applyBinding applies a binding form {"k" := v ...}: P5 desugars it to a
// one-argument lambda whose body binds each field with (at "k" obj), in
// order, checking typed binders.
func (in *Interp) applyBinding(f *bindFn, obj *value.Object) (value.Value, error) {
	if err := in.chargeApply(nil, 1); err != nil {
		return nil, err
	}
	if f.b.frameFree && len(f.b.fields) <= len(smallFrame{}.buf) {
		// Nothing keeps the frame: a given-back one, given back again.
		fr, cf := in.alloc.callFrame(len(f.b.fields))
		fr.up = f.env
		v, err := in.bindIn(f, obj, fr)
		in.alloc.giveBack(cf)
		return v, err
	}
	return in.bindIn(f, obj, &env{vals: make([]value.Value, len(f.b.fields)), up: f.env})
}

// bindIn binds obj's fields into fr, a frame of their number, and
// evaluates the binding's body in it.
func (in *Interp) bindIn(f *bindFn, obj *value.Object, fr *env) (value.Value, error) {
	for i, k := range f.b.fields {
		if in.metered() {
			if err := in.chargeNative(atNative()); err != nil {
				return nil, err
			}
			if err := in.chargeObjLookup(k, obj.Len()); err != nil {
				return nil, err
			}
		}
		v, ok := obj.Get(k)
		if !ok {
			return nil, value.MissingFieldError(k, obj)
		}
		if t := f.b.params[i].Type; t != nil {
			if err := in.checkType(t, v); err != nil {
				return nil, err
			}
		}
		fr.vals[i] = v
	}
	return in.body(f.b.body, fr)
}

// atNative is the `at` native, whose flat cost a binding's field access
// pays (set when the core table is built).
var atNativeRef *Native

func atNative() *Native { return atNativeRef }

// callLambda applies a lambda. A full application costs the application
// (nothing for a nullary lambda) and, as in P5, does not check the
// arguments' types; a partial one is charged and checked now.
func (in *Interp) callLambda(f *Closure, args []value.Value) (value.Value, error) {
	switch {
	case len(args) < len(f.params):
		if len(args) == 0 {
			return f, nil
		}
		if err := in.chargeApply(nil, len(args)); err != nil {
			return nil, err
		}
		if err := in.checkArgs(nil, f.params, args); err != nil {
			return nil, err
		}
		return &Partial{fn: f, args: args}, nil
	case len(args) > len(f.params):
		return nil, value.EvalError("Attempted to apply a closure to too many arguments")
	}
	if len(args) > 0 {
		if err := in.chargeApply(nil, len(args)); err != nil {
			return nil, err
		}
	}
	return in.runLambda(f, args)
}

func (in *Interp) runLambda(f *Closure, args []value.Value) (value.Value, error) {
	if len(in.stack) >= in.maxDepth() {
		return nil, &value.Error{Kind: value.ErrGas, Msg: "Call depth limit exceeded"}
	}
	in.stack = append(in.stack, frame{name: "lambda"})
	v, err := in.body(f.body, &env{vals: args, up: f.env})
	in.stack = in.stack[:len(in.stack)-1]
	return v, err
}

// callNativeLent applies a native that keeps no argument list (short of
// none: a partial application would keep it) to n's arguments, evaluated
// onto the lent stack and taken off it when the native returns.
func (in *Interp) callNativeLent(nat *Native, n *nApp, e *env) (value.Value, error) {
	mark := len(in.lent)
	for _, x := range n.args {
		v, err := in.arg(x, e)
		if err != nil {
			in.unlend(mark)
			return nil, err
		}
		in.lent = append(in.lent, v)
	}
	top := len(in.lent)
	v, err := in.callNative(nat, in.lent[mark:top:top], &n.loc)
	in.unlend(mark)
	return v, err
}

// callPlain is callNativeLent then callNative for an nApp.plain native,
// in one frame and without the checks its compilation made: most calls
// are calls of such natives (+, =, at, enforce's conditions...).
func (in *Interp) callPlain(nat *Native, n *nApp, e *env) (value.Value, error) {
	// The list's slots are taken first and filled in place; an argument
	// that is itself an application lends its own list above them (and
	// may move the stack: slots is taken again after it).
	mark := len(in.lent)
	top := mark + len(n.args)
	if top > cap(in.lent) {
		in.lent = append(in.lent[:cap(in.lent)], make([]value.Value, top-cap(in.lent)+8)...)
	}
	in.lent = in.lent[:top]
	slots := in.lent[mark:top:top]
	covered := in.Coverage != nil
	for i, x := range n.args {
		// Variables and constants, most arguments, are read without a call.
		if l, ok := x.(*nLocal); ok && !covered {
			slots[i] = e.lookup(l.up, l.idx)
		} else if c, ok := x.(*nConst); ok && c.lits == nil && !covered {
			slots[i] = c.v
		} else if d, ok := x.(*nDef); ok && !covered && d.def.Kind == DefConstant && d.def.Value != nil {
			// A module's constant or table, (read coin-table k) or
			// (floor x MINIMUM_PRECISION): defValue's answer, read here.
			slots[i] = d.def.Value
		} else if ok && !covered && d.def.Kind == DefTableKind {
			slots[i] = d.def.Table
		} else {
			v, err := in.eval(x, e)
			if err != nil {
				in.unlend(mark)
				return nil, err
			}
			slots = in.lent[mark:top:top]
			slots[i] = v
		}
	}
	if !nat.Repl {
		if g := &in.Gas; g.Quiet() {
			// A node's meter: the flat cost is an inlined addition.
			c := gas.MilliGas(0)
			if g.Pricing().Natives {
				c = nat.flat
			}
			if !g.AddWithin(c) {
				in.unlend(mark)
				return nil, in.gasExceeded()
			}
		} else if g.Charging() {
			if err := in.chargeNative(nat); err != nil {
				in.unlend(mark)
				return nil, err
			}
		}
		if nat.gasHook != nil && in.metered() {
			if err := nat.gasHook(in, slots); err != nil {
				in.unlend(mark)
				return nil, err
			}
		}
	}
	if nat.elements != nil {
		if err := in.allocElements(nat.elements(slots)); err != nil {
			in.unlend(mark)
			return nil, err
		}
	}
	v, err := nat.Fn(Call{in: in, Native: nat, loc: &n.loc}, slots)
	in.unlend(mark)
	return v, err
}

// unlend takes the lists lent since mark off the stack. It does not clear
// them: clearing was two-fifths of a native call's own instructions (a
// write barrier per slot), and the values left above the top are at most
// the stack's capacity, overwritten by the next calls and cleared for good
// when a top-level expression's evaluation ends, a transaction ends and the
// stack is given back (clearLent, Release).
func (in *Interp) unlend(mark int) {
	in.lent = in.lent[:mark]
}

// clearLent clears the lent stack above its top, so that it keeps no
// value of a finished evaluation alive. The lists below the top belong to
// calls still running (a REPL native evaluating a file, commit-tx ending
// a transaction) and are left alone.
func (in *Interp) clearLent() {
	clear(in.lent[len(in.lent):cap(in.lent)])
}

func (in *Interp) callNative(n *Native, args []value.Value, loc *syntax.Span) (value.Value, error) {
	if len(args) < n.Min {
		// (map (+ 1) xs): a native short of arguments is a partial
		// application, completed by the native that receives it.
		return &Partial{fn: &NativeFn{n: n}, args: args}, nil
	}
	if n.Max >= 0 && len(args) > n.Max {
		return nil, value.ArgsError(n.Name, args...)
	}
	if n.TopLevelOnly && in.currentModule() != nil {
		return nil, value.EvalError("Top-level call used in module " + n.Name)
	}
	if !n.Repl && in.metered() {
		if err := in.chargeNative(n); err != nil {
			return nil, err
		}
		if n.gasHook != nil {
			if err := n.gasHook(in, args); err != nil {
				return nil, err
			}
		}
	}
	if n.elements != nil {
		if err := in.allocElements(n.elements(args)); err != nil {
			return nil, err
		}
	}
	return n.Fn(Call{in: in, Native: n, loc: loc}, args)
}

// callDef applies a module member.
func (in *Interp) callDef(d *Def, args []value.Value, loc *syntax.Span) (value.Value, error) {
	switch d.Kind {
	case DefFun:
	case DefCapability:
		return in.capToken(d, args)
	case DefPactKind:
		return in.initPact(d, args, *loc)
	case DefConstant, DefTableKind:
		v, err := in.defValue(d)
		if err != nil {
			return nil, err
		}
		return in.Apply(v, args, *loc)
	default:
		return nil, value.EvalError("Cannot apply value to non-closure")
	}
	if d.Abstract {
		return nil, value.EvalError("Cannot call interface member " + d.qualText())
	}
	if len(args) < len(d.Args) {
		c := &Closure{params: d.Args, body: d.Body, def: d}
		if len(args) == 0 {
			return c, nil
		}
		if err := in.chargeApply(d, len(args)); err != nil {
			return nil, err
		}
		if err := in.checkArgs(d, d.Args, args); err != nil {
			return nil, err
		}
		return &Partial{fn: c, args: args}, nil
	}
	if len(args) > len(d.Args) {
		return nil, invalidNumArgs(d, len(args))
	}
	return in.callFun(d, &env{vals: args})
}

// smallFrame is a frame with room for a few arguments, allocated with them.
type smallFrame struct {
	env
	buf [4]value.Value
}

// pairFrame is a frame with room for one or two values.
type pairFrame struct {
	env
	buf [2]value.Value
}

// callFun applies a defun to a frame holding exactly its arguments: the
// application is charged (a nullary defun's costs nothing) and the
// arguments checked, as P5's applyLam does.
func (in *Interp) callFun(d *Def, fr *env) (value.Value, error) {
	if len(d.Args) > 0 {
		if err := in.chargeApply(d, len(d.Args)); err != nil {
			return nil, err
		}
	}
	if err := in.checkArgs(d, d.Args, fr.vals); err != nil {
		return nil, err
	}
	return in.runFun(d, fr)
}

// runFun runs a defun whose arguments were charged and checked: the
// recursion check, the call, and the return type check that P5 makes
// unless DisableRuntimeRTC is set.
func (in *Interp) runFun(d *Def, fr *env) (value.Value, error) {
	for _, f := range in.stack {
		if f.def == d {
			return nil, value.EvalError("Recursion detected by the runtime. Recursing in function: " + d.qualText())
		}
	}
	if len(in.stack) >= in.maxDepth() {
		return nil, &value.Error{Kind: value.ErrGas, Msg: "Call depth limit exceeded"}
	}
	reentrant := in.reentrant(d)
	if reentrant {
		in.readOnly++
	}
	in.stack = append(in.stack, frame{def: d})
	if in.Coverage != nil {
		in.Coverage.Enter(d)
	}
	v, err := in.body(d.Body, fr)
	in.stack = in.stack[:len(in.stack)-1]
	if reentrant {
		in.readOnly--
	}
	if err != nil {
		return nil, unwound(err, d, fr.vals)
	}
	// A result that fits its type for free needs no look at the flags.
	if d.Ret != nil && !fitsCheck(d.retFree, d.Ret, v) && !in.Flags["DisableRuntimeRTC"] {
		if err := pactValue(v); err != nil {
			return nil, err
		}
		if err := in.checkType(d.Ret, v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func invalidNumArgs(d *Def, got int) *value.Error {
	kind := "closure"
	switch d.Kind {
	case DefFun:
		kind = "user function " + d.qualText()
	case DefCapability:
		kind = "defcap " + d.qualText()
	case DefPactKind:
		kind = "defpact " + d.qualText()
	}
	return value.EvalError("Incorrect number of arguments (" + strconv.Itoa(got) + ") for " + kind +
		" supplied; expected (" + strconv.Itoa(len(d.Args)) + ")")
}

// checkArgs checks arguments against parameters as P5 does: every argument
// must be a Pact value (a function is refused), then each typed parameter's
// value is type-checked, in order, at P5's cost.
func (in *Interp) checkArgs(d *Def, ps []Param, args []value.Value) error {
	// Most parameters are untyped or of a primitive type, which costs
	// nothing to check: one pass settles them. Anything else, and any
	// failure, takes P5's two passes below (which report the same error
	// whatever the fast pass saw).
	for i, a := range args {
		// fitsCheck, written out: it is too large to be inlined, and this
		// loop runs for every argument of every call.
		switch check := ps[i].free; check {
		case 0:
			if !fitsFree(ps[i].Type, a) {
				return in.checkArgsP5(ps, args)
			}
		case untypedCheck:
			if a.Kind() == value.KindClosure {
				return in.checkArgsP5(ps, args)
			}
		default:
			if a.Kind() != value.Kind(check-kindCheck) {
				return in.checkArgsP5(ps, args)
			}
		}
	}
	return nil
}

// The free checks compiling finds for a type (Param.free, Def.retFree): 0
// when it found none (the type's check is charged or complex, or the
// parameter was not compiled), untypedCheck for an untyped or `any`
// parameter, and kindCheck plus a Kind for a primitive type, whose values
// are exactly those of that kind.
const (
	untypedCheck = 1
	kindCheck    = 2
)

// freeCheck is the free check of t (nil: untyped).
func freeCheck(t *value.Type) uint8 {
	if t == nil || t.Kind == value.TyAny {
		return untypedCheck
	}
	if t.Kind == value.TyPrim {
		for k := value.KindInteger; k < value.KindClosure; k++ {
			if primIs(t.Prim, k) {
				return kindCheck + uint8(k)
			}
		}
	}
	return 0
}

// fitsCheck is fitsFree with the check compiling found for t, if any.
func fitsCheck(check uint8, t *value.Type, v value.Value) bool {
	switch check {
	case 0:
		return fitsFree(t, v)
	case untypedCheck:
		return v.Kind() != value.KindClosure
	}
	return v.Kind() == value.Kind(check-kindCheck)
}

// fitsFree says v is a Pact value of type t (nil: untyped) by a check that
// charges nothing: t is untyped, any or a primitive type. False is no
// verdict: typeCheck decides.
func fitsFree(t *value.Type, v value.Value) bool {
	k := v.Kind()
	if k == value.KindClosure {
		return false
	}
	if t == nil || t.Kind == value.TyAny {
		return true
	}
	return t.Kind == value.TyPrim && primIs(t.Prim, k)
}

// primIs says the values of kind k are of the primitive type prim.
func primIs(prim string, k value.Kind) bool {
	switch k {
	case value.KindInteger:
		return prim == "integer"
	case value.KindDecimal:
		return prim == "decimal"
	case value.KindString:
		return prim == "string"
	case value.KindBool:
		return prim == "bool"
	case value.KindTime:
		return prim == "time"
	case value.KindUnit:
		return prim == "unit"
	case value.KindGuard:
		return prim == "guard" || prim == "keyset"
	}
	return false
}

// checkArgsP5 is P5's check of arguments: every one a Pact value first,
// then each against its parameter's type, charged.
func (in *Interp) checkArgsP5(ps []Param, args []value.Value) error {
	for _, a := range args {
		if err := pactValue(a); err != nil {
			return err
		}
	}
	for i, a := range args {
		if t := ps[i].Type; t != nil {
			if err := in.checkType(t, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkType is P5's typecheckArgument: the charged runtime check, failing
// with P5's text.
func (in *Interp) checkType(t *value.Type, v value.Value) error {
	ok, err := in.typeCheck(t, v)
	if err != nil {
		return err
	}
	if !ok {
		return rtcFailure(v, t)
	}
	return nil
}

func rtcFailure(v value.Value, t *value.Type) *value.Error {
	return value.EvalError("Runtime typecheck failure, argument is " + value.TypeOf(v) + " , but expected type " + t.String())
}

// Thunk is an unevaluated argument of a lazy native.
type Thunk struct {
	in *Interp
	n  node
	e  *env
	v  value.Value
}

// keepsFrame says whether evaluating ns may keep a reference to the frame
// they are evaluated in once they are done: a lambda or a binding closes
// over it, the thunks of a special native hold it.
func keepsFrame(ns ...node) bool {
	for _, n := range ns {
		switch n := n.(type) {
		case *nLambda, *nBinding:
			return true
		case *nApp:
			if f, ok := n.fn.(*nNative); ok && f.n.Special != nil {
				return true
			}
			if keepsFrame(n.fn) || keepsFrame(n.args...) {
				return true
			}
		case *nDyn:
			if keepsFrame(n.ref) {
				return true
			}
		case *nList:
			if keepsFrame(n.elems...) {
				return true
			}
		case *nObject:
			if keepsFrame(n.vals...) {
				return true
			}
		case *nLet:
			if keepsFrame(n.vals...) || keepsFrame(n.body...) {
				return true
			}
		case *nSpecial:
			if keepsFrame(n.args...) {
				return true
			}
		case *nConst, *nLocal, *nDef, *nModRef, *nNative:
		default:
			// A node this walk does not know may keep it.
			return true
		}
	}
	return false
}

func thunks(in *Interp, ns []node, e *env) []Thunk {
	ts := make([]Thunk, len(ns))
	for i, n := range ns {
		ts[i] = Thunk{in: in, n: n, e: e}
	}
	return ts
}

// Eval evaluates the argument.
func (t Thunk) Eval() (value.Value, error) {
	if t.n == nil {
		return t.v, nil
	}
	return t.in.eval(t.n, t.e)
}

// Span is the argument's source position.
func (t Thunk) Span() syntax.Span {
	if t.n == nil {
		return syntax.Span{}
	}
	return t.n.span()
}

// reentrant reports whether calling d re-enters, through a module
// reference call, a module that is already running below that call. P5
// runs such calls with the database read-only.
func (in *Interp) reentrant(d *Def) bool {
	if d.Module == nil || len(in.dynCalls) == 0 || in.Flags["DisableReentrancyCheck"] {
		return false
	}
	for _, start := range in.dynCalls {
		for _, f := range in.stack[:min(start, len(in.stack))] {
			if f.def != nil && f.def.Module != nil && f.def.Module.Name == d.Module.Name {
				return true
			}
		}
	}
	return false
}
