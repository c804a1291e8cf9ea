package resolve

import (
	"math/big"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Term is a desugared expression.
type Term interface{ Span() syntax.Span }

type (
	// Lit is a literal; Src is what was written: an IntLit, DecimalLit,
	// StringLit, BoolLit or UnitLit, or for a constant written by name
	// (CHARSET_ASCII, Named) the Var.
	Lit struct {
		Src syntax.Expr
		// Int is an integer's value, a decimal's unscaled mantissa, a
		// named constant's value, parsed once, here, when it does not fit
		// an int64; Small holds it when it does (Int is then nil): the
		// literals of commands are short, and a big.Int is an allocation.
		Int   *big.Int
		Small int64
		Named bool
	}
	// Var is the syntax's own variable, not a copy: variables are the
	// commonest terms.
	Var syntax.Var
	// Builtin is a native (P5 only: the compiler resolves natives with
	// the other names), the syntax's variable that names it.
	Builtin syntax.Var
	List    struct {
		Elems []Term
		Src   *syntax.List
	}
	// Object is an object literal, its keys as written.
	Object struct {
		Keys []string
		Vals []Term
		Loc  syntax.Span
	}
	Lam struct {
		Args []syntax.Arg
		Body []Term
		Loc  syntax.Span
	}
	// Let binds its values in order, each seeing those before it.
	Let struct {
		Binders []Binder
		Body    []Term
		Loc     syntax.Span
	}
	// Binding is {"k" := v ...} body: a function of one object.
	Binding struct {
		Keys []string
		Vars []syntax.Arg
		Body []Term
		Loc  syntax.Span
	}
	// App's Src is the application as written (or as eta-expanded).
	App struct {
		Fn   Term
		Args []Term
		Src  *syntax.App
	}
	// Special is a special form applied to its arguments, as written (the
	// consumer checks the arity its evaluator wants); Src is the
	// application.
	Special struct {
		Form Form
		Args []Term
		Src  *syntax.App
	}
	// Cond is (cond (test branch) ... default).
	Cond struct {
		Clauses []Clause
		Default Term
		Loc     syntax.Span
		FnLoc   syntax.Span
	}
	// Invalid is a desugaring error the compiler reports when it reaches
	// it.
	Invalid struct{ Err *Error }
)

type Binder struct {
	Arg syntax.Arg
	Val Term
}

// Clause is one (test branch) of a cond; Err, when set, says it is not
// one.
type Clause struct {
	Test, Branch Term
	Loc          syntax.Span
	Err          *Error
}

func (t *Lit) Span() syntax.Span     { return t.Src.Span() }
func (t *Var) Span() syntax.Span     { return t.Loc }
func (t *Builtin) Span() syntax.Span { return t.Loc }
func (t *List) Span() syntax.Span    { return t.Src.Loc }
func (t *Object) Span() syntax.Span  { return t.Loc }
func (t *Lam) Span() syntax.Span     { return t.Loc }
func (t *Let) Span() syntax.Span     { return t.Loc }
func (t *Binding) Span() syntax.Span { return t.Loc }
func (t *App) Span() syntax.Span     { return t.Src.Loc }
func (t *Special) Span() syntax.Span { return t.Src.Loc }
func (t *Cond) Span() syntax.Span    { return t.Loc }
func (t *Invalid) Span() syntax.Span { return t.Err.Loc }

// Error is a desugaring error: the source is not a form Pact accepts. Its
// text is the evaluator's, which reports it as a located evaluation error.
type Error struct {
	Loc syntax.Span
	Msg string
}

func (e *Error) Error() string { return e.Msg }

func errAt(loc syntax.Span, msg string) *Error { return &Error{Loc: loc, Msg: msg} }

// ArgNames are the names of as.
func ArgNames(as []syntax.Arg) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}
