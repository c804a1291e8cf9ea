package eval

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
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
	m := in.lookupModule(value.ModuleName{Name: "frames"})
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

// firstNode is the first node of the tree under n (n itself first) that
// is a T, found depth first.
func firstNode[T node](n node) (T, bool) {
	if t, ok := n.(T); ok {
		return t, true
	}
	var kids []node
	switch n := n.(type) {
	case *nApp:
		kids = append([]node{n.fn}, n.args...)
	case *nSpecial:
		kids = n.args
	case *nLet:
		kids = append(append([]node{}, n.vals...), n.body...)
	case *nLambda:
		kids = n.body
	case *nBinding:
		kids = n.body
	}
	for _, k := range kids {
		if t, ok := firstNode[T](k); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// TestLetAndBindingFramesGivenBack checks which lets and bindings may give
// their frames back (nothing in them keeps the frame), and runs those that
// do between the making and the calling of closures over the frames of
// those that do not.
func TestLetAndBindingFramesGivenBack(t *testing.T) {
	in := New(db.NewMemDB())
	compile := func(src string) node {
		t.Helper()
		f, err := syntax.ParseRepl("frames.repl", src)
		if err != nil {
			t.Fatal(err)
		}
		c := &compiler{renamer: renamer{in: in, allowRepl: true, charged: true}}
		n, err := c.expr(f.Items[0].(syntax.Expr))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for src, free := range map[string]bool{
		`(let ((x 1) (y 2)) (+ x y))`:                true,
		`(let ((x 1)) (lambda (y) (+ x y)))`:         false,
		`(let ((x 1)) (let ((f (lambda (y) y))) x))`: false,
		`(let ((x 1)) (enforce (= x 1) "one"))`:      true,
		`(let ((x {"a": 1})) (bind x {"a" := a} a))`: false,
	} {
		l, ok := firstNode[*nLet](compile(src))
		if !ok || l.frameFree != free {
			t.Errorf("%s: let found %v, frameFree %v, want %v", src, ok, l != nil && l.frameFree, free)
		}
	}
	for src, free := range map[string]bool{
		`(bind {"a": 1, "b": 2} {"a" := a, "b" := b} (+ a b))`:       true,
		`(bind {"a": 1} {"a" := a} (lambda (y) (+ a y)))`:            false,
		`(bind {"a": 1} {"a" := a} (let ((z a)) (enforce true "")))`: true,
	} {
		b, ok := firstNode[*nBinding](compile(src))
		if !ok || b.frameFree != free {
			t.Errorf("%s: binding found %v, frameFree %v, want %v", src, ok, b != nil && b.frameFree, free)
		}
	}
	for src, want := range map[string]string{
		`(let ((f (let ((x 10)) (lambda (y) (+ x y))))) (let ((a 1) (b 2)) (+ a b)) (let ((c 3)) c) (f 5))`: "15",
		`(let ((f (bind {"a": 20} {"a" := a} (lambda (y) (+ a y)))))
		   (bind {"a": 1, "b": 2} {"a" := a, "b" := b} (+ a b)) (let ((c 3)) c) (f 5))`: "25",
		`(let ((x 1)) (let ((y (let ((z 2)) (+ x z)))) (let ((w 4)) (+ x (+ y w)))))`: "8",
		`(bind {"a": 1} {"a" := a} (bind {"b": 2} {"b" := b} (let ((c 3)) [a b c])))`: "[1, 2, 3]",
	} {
		p := prepare(t, src)
		if got, fresh := evalBoth(t, in, p); got != want || fresh != want {
			t.Errorf("%s = %s and %s, want %s", src, got, fresh, want)
		}
	}
}

// TestCapFramesGivenBack runs defcaps whose frames are given back while
// another's is still in use (a cap composed from a cap's body), and one
// whose frame is kept by a closure.
func TestCapFramesGivenBack(t *testing.T) {
	in := New(db.NewMemDB())
	run(t, in, `
(module caps G (defcap G () true)
  (defcap INNER (b) (enforce (= b 2) "inner sees its own argument"))
  (defcap OUTER (a)
    (compose-capability (INNER (+ a 1)))
    (enforce (= a 1) "outer sees its own argument after composing"))
  (defcap KEPT (a) (let ((f (lambda (y) (+ a y)))) (enforce (= (f 1) 4) "kept")))
  (defun both () (with-capability (OUTER 1) (with-capability (KEPT 3) (with-capability (INNER 2) "ok")))))`)
	m := in.lookupModule(value.ModuleName{Name: "caps"})
	for name, free := range map[string]bool{"INNER": true, "OUTER": true, "KEPT": false} {
		if got := m.Defs[name].frameFree; got != free {
			t.Errorf("%s: frameFree %v, want %v", name, got, free)
		}
	}
	for range 3 {
		p := prepare(t, `(caps.both)`)
		if got, fresh := evalBoth(t, in, p); got != `"ok"` || fresh != `"ok"` {
			t.Errorf("(caps.both) = %s and %s", got, fresh)
		}
	}
}
