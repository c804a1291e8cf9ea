package value

import (
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

// ErrorKind classifies a Pact runtime error. The classes follow Pact 5's
// EvalError and UserRecoverableError constructors that the value layer can
// raise; the evaluator adds its own kinds on top.
type ErrorKind int

const (
	// ErrArithmetic is P5 ArithmeticException ("Arithmetic exception: ...").
	ErrArithmetic ErrorKind = iota
	// ErrFloatingPoint is P5 FloatingPointError ("Floating point error: ...").
	ErrFloatingPoint
	// ErrArgs is P5 NativeArgumentsError: a native applied to values of the
	// wrong types.
	ErrArgs
	// ErrNativeExecution is P5 NativeExecutionError: a native rejected its
	// arguments for a reason other than their types.
	ErrNativeExecution
	// ErrDecode is P5 DecodeError ("Decoding error: ...").
	ErrDecode
	// ErrEnumeration is P5 EnumerationError.
	ErrEnumeration
	// ErrArrayOutOfBounds is P5 ArrayOutOfBoundsException. Not recoverable
	// by `try`.
	ErrArrayOutOfBounds
	// ErrObjectMissingField is P5 ObjectIsMissingField. Not recoverable by
	// `try`.
	ErrObjectMissingField
	// ErrJSON is a malformed JSON document handed to DecodeJSON. Pact reports
	// these through whichever native read the data; the text here is ours.
	ErrJSON
	// ErrEval is a generic evaluation error with a free text.
	ErrEval
	// ErrDesugar is P5's DesugarError: the program is not one Pact accepts
	// (a native shadowed, a name that does not resolve, a form misused),
	// found when a top-level form is compiled, before any of it runs.
	ErrDesugar
	// ErrUser is P5's UserRecoverableError: enforce failures, keyset and
	// guard failures, capabilities not granted, missing rows, read-*
	// failures. Only these are caught by try and enforce-one.
	ErrUser
	// ErrGas is GasExceeded. Never recoverable.
	ErrGas
	// ErrDB is a DbOpFailure.
	ErrDB
	// ErrInterrupted is an evaluation stopped by eval.Interp.Interrupt: the
	// node's, not Pact's, so never recoverable, and never a result.
	ErrInterrupted
)

// Error is the typed error of the value layer. Msg is the complete rendered
// message as the Pact 5 REPL prints it (the text `expect-failure` matches
// substrings against); the evaluator attaches source spans around it.
type Error struct {
	Kind ErrorKind
	// Native names the native function for ErrArgs and ErrNativeExecution.
	Native string
	Msg    string
	// Loc is where evaluation failed (the innermost application that has a
	// source position); Located says it is set.
	Loc     syntax.Span
	Located bool
	// Stack is the call stack where the error was raised, innermost
	// first (see eval's unwound): what P5's REPL prints under the message.
	Stack []StackFrame
}

func (e *Error) Error() string { return e.Msg }

// Recoverable reports whether `try` and `enforce-one` may catch the error:
// only P5's user-recoverable errors are. Argument errors, arithmetic
// errors, out of bounds list access and missing object keys are fatal.
func (e *Error) Recoverable() bool { return e.Kind == ErrUser }

// UserError is a user-recoverable error with the given text.
func UserError(msg string) *Error { return &Error{Kind: ErrUser, Msg: msg} }

func arithErr(msg string) *Error {
	return &Error{Kind: ErrArithmetic, Msg: "Arithmetic exception: " + msg}
}

func floatErr(msg string) *Error {
	return &Error{Kind: ErrFloatingPoint, Msg: "Floating point error: " + msg}
}

func decodeErr(msg string) *Error {
	return &Error{Kind: ErrDecode, Msg: "Decoding error: " + msg}
}

func enumErr(msg string) *Error {
	return &Error{Kind: ErrEnumeration, Msg: "Enumeration error: " + msg}
}

// NativeError builds P5's NativeExecutionError text:
// "native execution failure, NAME failed with message: MSG".
func NativeError(native, msg string) *Error {
	return &Error{Kind: ErrNativeExecution, Native: native,
		Msg: "native execution failure, " + native + " failed with message: " + msg}
}

// ArgsError builds P5's NativeArgumentsError text, naming the argument
// types the way P5 abbreviates them (see ArgTypeName):
// "Type error: failed to call native function + with argument(s) of type(s): integer, string".
func ArgsError(native string, args ...Value) *Error {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = ArgTypeName(a)
	}
	return &Error{Kind: ErrArgs, Native: native,
		Msg: "Type error: failed to call native function " + native +
			" with argument(s) of type(s): " + strings.Join(names, ", ")}
}

// OutOfBoundsError is P5's ArrayOutOfBoundsException text.
func OutOfBoundsError(length int, index int64) *Error {
	return &Error{Kind: ErrArrayOutOfBounds,
		Msg: "Array index out of bounds. Length (" + strconv.Itoa(length) + "), Index (" +
			strconv.FormatInt(index, 10) + ")"}
}

// MissingFieldError is P5's ObjectIsMissingField text; the object is shown
// with the REPL pretty printer, as P5 does.
func MissingFieldError(field string, obj *Object) *Error {
	return &Error{Kind: ErrObjectMissingField,
		Msg: "Key \"" + field + "\" not found in object: " + Pretty(obj)}
}

// EvalError is a free-text error, used where P5 raises a bare EvalError.
func EvalError(msg string) *Error {
	return &Error{Kind: ErrEval, Msg: msg}
}

// BudgetError is the failure of an evaluation that used up one of the
// bounds every evaluation runs under whatever its gas: steps, call depth,
// allocation. Like running out of gas it cannot be caught by try.
func BudgetError(what string, limit int64) *Error {
	return &Error{Kind: ErrGas, Msg: "Evaluation budget exceeded: more than " + strconv.FormatInt(limit, 10) + " " + what}
}

// StackFrame is one application of a defun, defcap or defpact that an
// error came out of: P5's StackFrame, which its REPL prints under the
// error ("  at(m.f.{hash} 1 2):file:span"). Lambdas have none, as in P5.
type StackFrame struct {
	// Def is the function applied: the evaluator's definition.
	Def FrameFunction
	// Args are the values the function was applied to.
	Args []Value
	// Site is the application's span (for a defun, the call; for a
	// defcap, the form that brought the capability in); Sited says it
	// is known.
	Site  syntax.Span
	Sited bool
}

// FrameFunction is the function a stack frame was applied: the values
// cannot know the evaluator's definitions, which implement it.
type FrameFunction interface {
	// FrameName renders the function as P5's FullyQualifiedName prints:
	// "ns.module.name.{hash}" (a definition outside any module has its
	// bare name).
	FrameName() string
}

// Name renders the frame's function as P5's FullyQualifiedName prints:
// "ns.module.name.{hash}" (a definition outside any module has its bare name).
func (f StackFrame) Name() string {
	if f.Def == nil {
		return ""
	}
	return f.Def.FrameName()
}
