// Package repl is the Pact REPL: everything `pact` does with Pact code
// beyond evaluating it.
//
//	repl.go        the Runner: one interpreter over an in-memory database, the
//	               script runner behind `pact FILE.repl` and `pact FILE.pact`.
//	natives.go     the REPL-only natives: the test harness (expect, env-data,
//	               begin-tx, env-gas…) of Pact 5's REPL.
//	interactive.go the interactive loop on a terminal (line editing with
//	               github.com/peterh/liner, history, Ctrl-C drops the form) and
//	               the pipe mode for input that is not a terminal (no prompts,
//	               the first error stops it).
//	terminal.go    the line editor behind the interactive loop, kept behind an
//	               interface so tests can script it.
//	complete.go    Tab completion: natives, special forms, modules and the
//	               members of loaded modules, file names inside strings.
//	coverage.go    what `pact -c` reports: the interpreter describes the code it
//	               compiles before running it, so code that never runs is
//	               counted as 0; written as LCOV (lines, functions, branches).
//	coverage_unreached.go  the forms of a file that never compiled (after the
//	               form that stopped a script), read from the source.
package repl
