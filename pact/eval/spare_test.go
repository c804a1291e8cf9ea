package eval

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// evalAll evaluates each form of src in turn and renders each result (or error).
func evalAll(t *testing.T, in *Interp, src string) []string {
	t.Helper()
	f, err := syntax.ParseProgram("spare", src)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, item := range f.Items {
		v, err := in.EvalTopLevel(item, false)
		if err != nil {
			out = append(out, "error: "+err.Error())
			continue
		}
		out = append(out, value.Pretty(v))
	}
	return out
}

// The memory one interpreter passes to the next (Spare) holds no state of
// its evaluations: what the first interpreter returned is untouched by
// what the next one cuts from the same chunks and frames, and the next one
// evaluates exactly as a fresh interpreter does, errors included.
func TestSpareCarriesNoState(t *testing.T) {
	first := `
(map (lambda (x) {"k": x, "l": [x (* x x)], "s": (format "n{}" [x])}) (enumerate 1 60))
(let ((a 1) (b [1 2 3])) (+ a (length b)))
(fold (+) 0 (map (lambda (x) (let ((y (* x 2))) (+ y 1))) (enumerate 1 40)))
`
	next := `
(let ((a 10) (b 20)) (* a b))
(map (lambda (x) [x x x]) (enumerate 1 80))
(fold (lambda (acc x) (+ acc (at 'k x))) 0 (map (lambda (x) {'k: x}) (enumerate 1 30)))
(enforce (= 1 2) "one is not two")
(at 5 [1 2 3])
(let ((x {"a": 1.5, "b": "text"})) (+ (at 'a x) 0.5))
(concat ["a" "b" (int-to-str 10 123)])
`
	a := New(db.NewMemDB())
	kept := evalAll(t, a, first)
	keptValue, err := a.EvalTopLevel(mustParseOne(t, `(map (lambda (x) {"k": x, "l": [x (* x x)]}) (enumerate 1 60))`), false)
	if err != nil {
		t.Fatal(err)
	}
	keptText := value.Pretty(keptValue)
	sp := a.Release()
	if a.alloc.vals != nil || a.spare != nil {
		t.Fatal("Release left memory with the interpreter")
	}

	want := evalAll(t, New(db.NewMemDB()), next)
	b := NewWith(db.NewMemDB(), sp)
	if b.alloc.vals == nil && b.alloc.frames == nil && b.alloc.pairs == nil {
		t.Fatal("NewWith did not take the spare's chunks")
	}
	for round := range 3 {
		got := evalAll(t, b, next)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d, form %d: %q with the spare, %q fresh", round, i, got[i], want[i])
			}
		}
		sp = b.Release()
		b = NewWith(db.NewMemDB(), sp)
	}
	if value.Pretty(keptValue) != keptText {
		t.Fatalf("a value of the first interpreter changed under the next ones:\n%s\nnow\n%s", keptText, value.Pretty(keptValue))
	}
	if len(kept) != 3 || kept[2] != "1680" {
		t.Fatalf("first interpreter's results: %v", kept)
	}
}

func mustParseOne(t *testing.T, src string) syntax.TopLevel {
	t.Helper()
	f, err := syntax.ParseProgram("spare", src)
	if err != nil || len(f.Items) != 1 {
		t.Fatalf("parse %q: %v", src, err)
	}
	return f.Items[0]
}
