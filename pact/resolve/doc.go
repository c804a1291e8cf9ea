// Package resolve is the desugaring pass of the Pact 5 language
// (Pact.Core.IR.Desugar's desugarLispTerm): the one pass over an
// expression's syntax that both the evaluator's compiler and its module
// hasher read, so the two cannot drift apart on what the source means.
//
// It recognises special forms by their head (if, and, or, enforce, try,
// with-capability, ...), makes let and binding forms their binders, lambdas
// their arguments, cond its clauses and default, and eta-expands map's
// partial first argument; in P5 mode, as the module hash wants, it also
// picks out natives and desugars constantly and the charset constants. Its
// terms point at the syntax nodes rather than copying them. It does not
// turn names into slots or definitions, nor literals into values: those
// are the evaluator's (package eval), which knows the modules and values.
//
// What it needs of its consumer comes in as plain data: whether a bare
// name is a native (Desugarer.Builtin), the locals in scope
// (Desugarer.Locals). Its errors are *Error, a span and a message whose
// text the evaluator reports unchanged.
//
// Its files:
//
//   - term.go: the terms, Error, ArgNames;
//   - forms.go: the special forms and the arity P5's desugarer checks;
//   - desugar.go: the Desugarer, and map's eta-expansion.
//
// It imports pact/syntax only.
package resolve
