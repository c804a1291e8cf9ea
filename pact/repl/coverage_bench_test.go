package repl_test

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/repl"
)

// branchyLoop evaluates many small nodes per element (a lambda, an if, a
// comparison, locals, constants): the evaluator paths coverage hooks into.
const branchyLoop = "(fold (+) 0 (map (lambda (x) (if (> x 5000) (+ x 1) (let ((y (- x 1))) (* y 2)))) (enumerate 1 10000)))"

// BenchmarkEvalCoverageOff is the evaluator without coverage: the cost the
// hooks add when they are off.
func BenchmarkEvalCoverageOff(b *testing.B) {
	r := newRunner(b, "")
	forms := parseForms(b, branchyLoop)
	b.ReportAllocs()
	for b.Loop() {
		evalForms(b, r, forms)
	}
	perOp(b, foldElems, "ns/elem")
}

// BenchmarkEvalCoverageOn is the same with coverage on, as `pact -c` runs.
func BenchmarkEvalCoverageOn(b *testing.B) {
	r := newRunner(b, "")
	r.Install(repl.Hooks{Coverage: repl.NewCoverage()})
	forms := parseForms(b, branchyLoop)
	b.ReportAllocs()
	for b.Loop() {
		evalForms(b, r, forms)
	}
	perOp(b, foldElems, "ns/elem")
}
