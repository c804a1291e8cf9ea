package eval

import (
	"strconv"

	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/value"
)

// The special forms: their arguments are evaluated as the form says, not
// up front.

func (in *Interp) evalSpecial(n *nSpecial, e *env) (value.Value, error) {
	switch n.form {
	case resolve.FormIf:
		c, err := in.evalBool(n.args[0], e)
		if err != nil {
			return nil, err
		}
		if in.Coverage != nil {
			in.Coverage.Branch(n.loc, c)
		}
		if c {
			return in.eval(n.args[1], e)
		}
		return in.eval(n.args[2], e)
	case resolve.FormAnd, resolve.FormOr:
		c, err := in.evalBool(n.args[0], e)
		if err != nil {
			return nil, err
		}
		if c == (n.form == resolve.FormOr) {
			return value.Bool(c), nil
		}
		c, err = in.evalBool(n.args[1], e)
		if err != nil {
			return nil, err
		}
		return value.Bool(c), nil
	case resolve.FormEnforce:
		return in.enforce(n, e)
	case resolve.FormEnforceOne:
		return in.enforceOne(n, e)
	case resolve.FormWithCapability:
		return in.withCapability(n, e)
	case resolve.FormTry:
		return in.try(n, e)
	case resolve.FormCreateUserGuard:
		return in.createUserGuard(n, e)
	case resolve.FormDo:
		return in.body(n.args, e)
	case resolve.FormError:
		v, err := in.eval(n.args[0], e)
		if err != nil {
			return nil, err
		}
		s, ok := v.(value.String)
		if !ok {
			return nil, value.EvalError("expected string value, got: " + value.Pretty(v))
		}
		// P5 raises a user-recoverable error: try and enforce-one catch it.
		return nil, value.UserError(string(s))
	case sfInvalid:
		return nil, value.EvalError(string(n.args[0].(*nConst).v.(value.String)))
	case resolve.FormPure:
		in.readOnly++
		v, err := in.eval(n.args[0], e)
		in.readOnly--
		return v, err
	}
	return nil, value.EvalError("unknown special form")
}

// try is P5's: one step, then the body read-only; the default is
// evaluated only if the body fails recoverably. (Apart from evalSpecial,
// whose frame would hold the saved state for every form.)
func (in *Interp) try(n *nSpecial, e *env) (value.Value, error) {
	if err := in.chargeUncons(); err != nil {
		return nil, err
	}
	saved := in.save()
	in.readOnly++
	v, err := in.eval(n.args[1], e)
	in.readOnly--
	if err != nil {
		if pe, ok := err.(*value.Error); ok && pe.Recoverable() {
			in.restore(saved)
			return in.eval(n.args[0], e)
		}
		return nil, err
	}
	return v, nil
}

func (in *Interp) evalBool(n node, e *env) (bool, error) {
	var v value.Value
	var err error
	if a, ok := n.(*nApp); ok && a.plain != nil && in.Coverage == nil {
		// Most conditions are plain native calls, (>= (length s) 3): eval's
		// nApp case repeated here, one call level less for every if, and,
		// or and enforce (a shared function would cost the level back).
		if err := in.step(); err != nil {
			return false, located(err, a.loc)
		}
		if in.Gas.Logging() {
			in.gasAt = a
		}
		if v, err = in.callPlain(a.plain, a, e); err != nil {
			return false, located(err, a.loc)
		}
	} else if v, err = in.eval(n, e); err != nil {
		return false, err
	}
	b, ok := v.(value.Bool)
	if !ok {
		return false, located(value.EvalError("expected bool value, got "+value.Pretty(v)), n.span())
	}
	return bool(b), nil
}

func (in *Interp) enforce(n *nSpecial, e *env) (value.Value, error) {
	// The condition runs read-only (P5).
	in.readOnly++
	c, err := in.evalBool(n.args[0], e)
	in.readOnly--
	if err != nil {
		return nil, err
	}
	if c {
		return value.True, nil
	}
	m, err := in.eval(n.args[1], e)
	if err != nil {
		return nil, err
	}
	s, ok := m.(value.String)
	if !ok {
		return nil, value.EvalError("expected string value, got: " + value.Pretty(m))
	}
	return nil, value.UserError(string(s))
}

// enforceOne is enforce-one: the first condition that holds wins;
// recoverable failures count as false. The message is evaluated only when
// every condition failed. P5's chainweb evaluator charges one step for the
// whole list; the REPL's direct evaluator one per condition tried.
func (in *Interp) enforceOne(n *nSpecial, e *env) (value.Value, error) {
	var conds []node
	switch l := n.args[1].(type) {
	case *nList:
		conds = l.elems
	case *nConst:
		lv, ok := l.v.(value.List)
		if !ok {
			return nil, value.EvalError("enforce-one: expected a list of conditions")
		}
		for _, v := range lv {
			conds = append(conds, &nConst{v: v, loc: l.loc})
		}
	default:
		return nil, value.EvalError("enforce-one: expected a list of conditions")
	}
	if len(conds) > 0 && !in.ReplEvaluator {
		if err := in.chargeUncons(); err != nil {
			return nil, err
		}
	}
	for _, c := range conds {
		saved := in.save()
		in.readOnly++
		v, err := in.eval(c, e)
		in.readOnly--
		if err != nil {
			if pe, ok := err.(*value.Error); ok && pe.Recoverable() {
				in.restore(saved)
				if in.ReplEvaluator {
					if err := in.chargeUncons(); err != nil {
						return nil, err
					}
				}
				continue
			}
			return nil, err
		}
		b, ok := v.(value.Bool)
		if !ok {
			return nil, value.EvalError("expected bool value, got " + value.Pretty(v))
		}
		if in.ReplEvaluator {
			if err := in.chargeUncons(); err != nil {
				return nil, err
			}
		}
		if b {
			return value.True, nil
		}
	}
	m, err := in.eval(n.args[0], e)
	if err != nil {
		return nil, err
	}
	msg, ok := m.(value.String)
	if !ok {
		return nil, value.ArgsError("enforce-one", m)
	}
	return nil, value.UserError(string(msg))
}

func (in *Interp) createUserGuard(n *nSpecial, e *env) (value.Value, error) {
	app, ok := n.args[0].(*nApp)
	if !ok {
		return nil, value.EvalError("create-user-guard: expected function application of a top-level function")
	}
	var d *Def
	switch f := app.fn.(type) {
	case *nDef:
		d = f.def
	case *nDyn:
		var err error
		if d, err = in.dynDef(f, e); err != nil {
			return nil, err
		}
	}
	if d == nil {
		return nil, value.EvalError("create-user-guard: expected function application of a top-level function")
	}
	if d.Kind != DefFun || d.Module == nil {
		return nil, value.EvalError("User guard closure " + d.qualText() + " must be defun, got" + d.Kind.String())
	}
	args, err := in.evalArgs(app.args, e)
	if err != nil {
		return nil, err
	}
	for _, a := range args {
		if err := pactValue(a); err != nil {
			return nil, err
		}
	}
	if len(args) != len(d.Args) {
		return nil, invalidNumArgs(d, len(args))
	}
	return &value.UserGuard{Fun: d.QualName(), Args: args}, nil
}

// savedState is what try and expect-failure restore after a caught error.
type savedState struct {
	caps     capState
	events   int
	stack    int
	readOnly int
	sysOnly  int
	inDefcap int
	defpact  *PactExec
	pactStep *PactStep
	compose  int
}

func (in *Interp) save() savedState {
	return savedState{caps: in.tx.caps.clone(), events: len(in.tx.events), stack: len(in.stack),
		readOnly: in.readOnly, sysOnly: in.sysOnly, inDefcap: in.inDefcap, defpact: in.tx.defpact, pactStep: in.tx.pactStep, compose: in.composing}
}

func (in *Interp) restore(s savedState) {
	in.tx.caps = s.caps
	if len(in.tx.events) > s.events {
		in.tx.events = in.tx.events[:s.events]
	}
	in.stack = in.stack[:s.stack]
	in.readOnly, in.sysOnly = s.readOnly, s.sysOnly
	in.inDefcap = s.inDefcap
	in.tx.defpact, in.tx.pactStep = s.defpact, s.pactStep
	in.composing = s.compose
}

// Save and Restore expose the same to the REPL's expect-failure, with the current namespace:
// P5's expect-failure puts back the whole evaluation state, so a namespace entered by the
// failed code (a failed load of a file that entered one) is left again.
type State struct {
	s         savedState
	namespace string
}

func (in *Interp) Save() State { return State{in.save(), in.namespace} }
func (in *Interp) Restore(s State) {
	in.restore(s.s)
	in.namespace = s.namespace
}
func partialError(p *Partial) *value.Error { return partialErr(p.fn, len(p.args)) }

func partialErr(fn value.Value, got int) *value.Error {
	switch f := fn.(type) {
	case *NativeFn:
		return value.EvalError("Incorrect number of arguments (" + strconv.Itoa(got) + ") for native function " +
			f.n.Name + " supplied; expected (" + strconv.Itoa(f.n.Min) + ")")
	case *Closure:
		if f.def != nil {
			return value.EvalError("Incorrect number of arguments (" + strconv.Itoa(got) + ") for function " +
				f.def.fqn().String() + " supplied; expected (" + strconv.Itoa(len(f.params)) + ")")
		}
		return value.EvalError("Incorrect number of arguments (" + strconv.Itoa(got) + ") for lambda supplied; expected (" +
			strconv.Itoa(len(f.params)) + ")")
	case *Partial:
		return partialErr(f.fn, got+len(f.args))
	}
	return value.EvalError("Attempted to apply a closure outside of native callsite")
}
