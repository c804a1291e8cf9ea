// Package pactbench holds what the interpreter's benchmarks share: the
// generated module of the load benchmark (pact/repl's go test -bench and
// bench/pacteval both time it), and the coin transfer with its ways of
// metering (pact/contracts' go test -bench and bench/transfergas).
package pactbench
