package eval

import (
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// FrameName renders d as a stack frame names it, P5's FullyQualifiedName:
// "ns.module.name.{hash}" (a definition outside any module has its bare
// name; no definition, the empty string).
func (d *Def) FrameName() string {
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
func unwound(err error, d *Def, args []value.Value) error {
	e, ok := err.(*value.Error)
	if !ok || e.Kind == value.ErrDesugar {
		return err
	}
	e.Stack = append(e.Stack, value.StackFrame{Def: d, Args: append([]value.Value(nil), args...)})
	return err
}

// siteFrame gives the innermost frame still without a call site the span
// the error is being located at, once that frame's body is left.
func siteFrame(e *value.Error, loc syntax.Span) {
	if n := len(e.Stack); n > 0 && !e.Stack[n-1].Sited && loc.Start.IsValid() {
		e.Stack[n-1].Site, e.Stack[n-1].Sited = loc, true
	}
}

// partialFrame drops the arguments of the frame err just got for d, a
// defun completed from a partial application: P5's frame for one has none.
func partialFrame(err error, d *Def) {
	e, ok := err.(*value.Error)
	if !ok {
		return
	}
	if n := len(e.Stack); n > 0 && e.Stack[n-1].Def == d && !e.Stack[n-1].Sited {
		e.Stack[n-1].Args = nil
	}
}
