package eval

import "github.com/ledgernode/ledger-node/pact/syntax"

// StackFrame is one application of a defun, defcap or defpact that an
// error came out of: P5's StackFrame, which its REPL prints under the
// error ("  at(m.f.{hash} 1 2):file:span"). Lambdas have none, as in P5.
type StackFrame struct {
	Def *Def
	// Args are the values the function was applied to.
	Args []Value
	// Site is the application's span (for a defun, the call; for a
	// defcap, the form that brought the capability in); Sited says it
	// is known.
	Site  syntax.Span
	Sited bool
}

// Name renders the frame's function as P5's FullyQualifiedName prints:
// "ns.module.name.{hash}" (a definition outside any module has its bare name).
func (f StackFrame) Name() string {
	d := f.Def
	if d == nil {
		return ""
	}
	if d.Module == nil {
		return d.Name
	}
	return d.Module.Name.String() + "." + d.Name + ".{" + d.Module.Hash + "}"
}

// unwound records that err came out of the body of d applied to args, so
// that the error carries P5's call stack (the stack as it was where the
// error was raised, innermost first). It runs on the error path only: the
// frames the evaluator keeps cost nothing more when all goes well. The
// frame's call site is the next span the error is located at on its way
// out (see located), which is the application of d.
func unwound(err error, d *Def, args []Value) error {
	e, ok := err.(*Error)
	if !ok || e.Kind == ErrDesugar {
		return err
	}
	e.Stack = append(e.Stack, StackFrame{Def: d, Args: append([]Value(nil), args...)})
	return err
}

// siteFrame gives the innermost frame still without a call site the span
// the error is being located at, once that frame's body is left.
func (e *Error) siteFrame(loc syntax.Span) {
	if n := len(e.Stack); n > 0 && !e.Stack[n-1].Sited && loc.Start.IsValid() {
		e.Stack[n-1].Site, e.Stack[n-1].Sited = loc, true
	}
}

// partialFrame drops the arguments of the frame err just got for d, a
// defun completed from a partial application: P5's frame for one has none.
func partialFrame(err error, d *Def) {
	e, ok := err.(*Error)
	if !ok {
		return
	}
	if n := len(e.Stack); n > 0 && e.Stack[n-1].Def == d && !e.Stack[n-1].Sited {
		e.Stack[n-1].Args = nil
	}
}
