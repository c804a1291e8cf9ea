package resolve

import (
	"math/big"
	"testing"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

func desugar(t *testing.T, d *Desugarer, src string) (Term, error) {
	t.Helper()
	x, err := syntax.ParseExpr("t", src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return d.Expr(x)
}

// A badly applied form is an error at once for the module hash, and left in
// the tree, for the compiler to report when it reaches it, otherwise.
func TestFormErrors(t *testing.T) {
	p5Errors := map[string]string{
		"(if a b)":              "Invalid syntax: if expects 3 arguments",
		"(do)":                  "Invalid syntax: do form must have at least 1 expression",
		"(create-user-guard g)": "Invalid syntax: create-user-guard must take one argument, which must be an application",
		"(cond)":                "Invalid syntax: cond: expected list of conditions with a default case",
		"(suspend a b)":         "Invalid syntax: suspend must take only 1 argument",
	}
	for src, want := range p5Errors {
		_, err := desugar(t, &Desugarer{P5: true, Builtin: func(string) bool { return false }}, src)
		if e, ok := err.(*Error); !ok || e.Msg != want || e.Loc.Start.Line != 1 {
			t.Errorf("P5 %s: got %v, want %q at line 1", src, err, want)
		}
	}
	term, err := desugar(t, &Desugarer{}, "(cond)")
	if inv, ok := term.(*Invalid); err != nil || !ok || inv.Err.Msg != "Invalid syntax, cond expects a default branch" {
		t.Errorf("compiler (cond): got %#v, %v", term, err)
	}
}

// For the compiler a local shadows a special form; for the hash it does not.
func TestLocalShadowsForm(t *testing.T) {
	term, _ := desugar(t, &Desugarer{Locals: []string{"if"}}, "(if a b c)")
	if _, ok := term.(*App); !ok {
		t.Errorf("local if: got %T, want *App", term)
	}
	term, _ = desugar(t, &Desugarer{P5: true, Locals: []string{"if"}, Builtin: func(string) bool { return false }}, "(if a b c)")
	if s, ok := term.(*Special); !ok || s.Form != FormIf {
		t.Errorf("P5 local if: got %T, want the if form", term)
	}
}

// map's partial first argument becomes a one-argument lambda applying it.
func TestMapEtaExpanded(t *testing.T) {
	term, err := desugar(t, &Desugarer{}, "(map (+ 1) xs)")
	if err != nil {
		t.Fatal(err)
	}
	lam, ok := term.(*App).Args[0].(*Lam)
	if !ok || len(lam.Args) != 1 {
		t.Fatalf("got %#v, want a one-argument lambda", term.(*App).Args[0])
	}
	body := lam.Body[0].(*App)
	last := body.Args[len(body.Args)-1].(*Var)
	if len(body.Args) != 2 || last.Name.Name != lam.Args[0].Name {
		t.Errorf("lambda body applies %d args, last %q; want (+ 1 %s)", len(body.Args), last.Name.Name, lam.Args[0].Name)
	}
}

// smallLiteral must agree with big.Int's parser wherever it answers, and
// leave to it what does not fit an int64 or is not a plain number.
func TestSmallLiteralAgreesWithSetString(t *testing.T) {
	cases := [][2]string{
		{"0", ""}, {"-0", ""}, {"+7", ""}, {"12", "50"}, {"-1", "50"}, {"-", "5"},
		{"", "25"}, {"999999999", "999999999"}, {"-999999999", "999999999"},
		{"1000000000", "000000000"}, {"1", "-5"}, {"1_0", ""}, {"", ""}, {"-", ""},
		{"12a", ""}, {"0x1", ""}, {"00012", "000"},
	}
	for _, c := range cases {
		want, wantOK := new(big.Int).SetString(c[0]+c[1], 10)
		got, ok := smallLiteral(c[0], c[1])
		if !ok {
			if n := len(c[0]) + len(c[1]); wantOK && n <= 18 && c[0] != "" && c[0][0] != '-' && c[0][0] != '+' {
				t.Errorf("%q+%q: left %v to big.Int", c[0], c[1], want)
			}
			continue
		}
		if !wantOK || big.NewInt(got).Cmp(want) != 0 {
			t.Errorf("%q+%q: got %v, big.Int says %v (ok %v)", c[0], c[1], got, want, wantOK)
		}
	}
}

// After Recycle a Desugarer makes its terms in the memory of the earlier
// ones, cleared: the second walk's terms are its own, whatever the first
// left there.
func TestRecycle(t *testing.T) {
	d := &Desugarer{}
	first, err := desugar(t, d, `(f 1 2 (g "x" 3))`)
	if err != nil {
		t.Fatal(err)
	}
	firstApp, firstLit := first.(*App), first.(*App).Args[0].(*Lit)
	innerApp := firstApp.Args[2].(*App) // made first, at its block's start
	d.Recycle()
	if firstApp.Fn != nil || firstApp.Args != nil || firstLit.Src != nil {
		t.Errorf("Recycle left the first walk's terms: %#v %#v", firstApp, firstLit)
	}
	second, err := desugar(t, d, `(h 7)`)
	if err != nil {
		t.Fatal(err)
	}
	app, ok := second.(*App)
	if !ok || app != innerApp {
		t.Fatalf("second walk's application %p, want the recycled %p", app, innerApp)
	}
	fn, _ := app.Fn.(*Var)
	lit, _ := app.Args[0].(*Lit)
	if fn == nil || fn.Name.Name != "h" || len(app.Args) != 1 || cap(app.Args) != 1 || lit == nil || lit.Int != nil || lit.Small != 7 {
		t.Errorf("second walk gave %#v, want (h 7)", app)
	}
}
