package eval

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
)

// TestFramesGivenBack calls functions whose frames are given back
// (Def.frameFree) around closures over the frames of functions whose are
// not: a closure must keep seeing its own frame.
func TestFramesGivenBack(t *testing.T) {
	in := New(db.NewMemDB())
	run(t, in, `
(module frames G (defcap G () true)
  (defun twice (x) (+ x x))
  (defun adder (x) (lambda (y) (+ x y)))
  (defun adder-in-let (x) (let ((z (+ x 1))) (lambda (y) (+ z y))))
  (defun pair-with (a b) (let ((f (adder a))) [(twice b) (f b)]))
  (defun sum (xs) (fold (+) 0 xs)))`)
	m := in.lookupModule(ModuleName{Name: "frames"})
	for name, free := range map[string]bool{"twice": true, "adder": false, "adder-in-let": false, "pair-with": true, "sum": true} {
		if got := m.Defs[name].frameFree; got != free {
			t.Errorf("%s: frameFree %v, want %v", name, got, free)
		}
	}
	for src, want := range map[string]string{
		`(let ((f (frames.adder 10))) (frames.twice 1) (frames.twice 2) (f 5))`:        "15",
		`(let ((f (frames.adder-in-let 10))) (frames.twice 1) (frames.twice 2) (f 5))`: "16",
		`(frames.pair-with 3 4)`: "[8, 7]",
		`(let ((f (frames.adder 1))) (map f [(frames.twice 1) (frames.sum [1 2 3]) (frames.twice 4)]))`: "[3, 7, 9]",
	} {
		p := prepare(t, src)
		if got, _ := evalBoth(t, in, p); got != want {
			t.Errorf("%s = %s, want %s", src, got, want)
		}
	}
}
