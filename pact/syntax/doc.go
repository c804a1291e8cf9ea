// Package syntax is the lexer and parser of the Pact 5 smart-contract
// language. It turns source text into a syntax tree whose every node carries
// its source span, for the desugaring pass in pact/resolve, the compiler,
// evaluator and module hasher in pact/eval, and error messages of the form
// "file:line:col: message".
//
// The grammar is upstream's (kadena-io/pact-5, Pact.Core.Syntax.Lexer and
// Parser; spec §3.1–§3.3) and the tree mirrors its parse tree: special forms
// such as if, and, cond and with-capability are ordinary applications here,
// recognised by name later, as in starlark-go's split of syntax, resolve and
// eval.
//
// Entry points:
//   - ParseProgram: transaction code and .pact files;
//   - ParseRepl: .repl scripts, which may also hold top-level defun and
//     defconst;
//   - ParseFile: chooses between the two by file name, as the pact tool does;
//   - ParseExpr: exactly one expression;
//   - Lex: the token stream, for tools and tests;
//   - ParseDigits: the value of a run of decimal digits, in time close to
//     linear in its length (digits.go), for integer literals here and for
//     the evaluator's readers of digits (JSON, str-to-int, read-integer).
//
// Errors are *Error values with a Kind, a Span and a message worded like
// upstream's where upstream has one. No input makes the parser panic or
// recurse without bound: nesting beyond MaxDepth is an error.
//
// Format (and every node's String method) prints a tree back as Pact
// source; parsing that text gives the same tree, spans aside.
package syntax
