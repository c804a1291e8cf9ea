package repl

import (
	"bytes"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

func interactive(t *testing.T, in string) string {
	t.Helper()
	var out bytes.Buffer
	if err := New(&out).Interactive(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestInteractive(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		// want is the whole output; with cut set, only the text before
		// and after the first cut is compared (the parser's messages are
		// not ours to pin, their positions are).
		want, cut string
	}{
		{name: "empty", in: "", want: "pact> goodbye\n"},
		{name: "result", in: "(+ 1 2)\n", want: "pact> 3\npact> goodbye\n"},
		{name: "unit results print nothing", in: "(print 1)\n()\n", want: "pact> 1\npact> pact> goodbye\n"},
		{name: "several forms on a line", in: "1 2.0 \"x\"\n", want: "pact> 1\n2.0\n\"x\"\npact> goodbye\n"},
		{name: "continuation", in: "(+ 1\n2\n)\n", want: "pact> ....> ....> 3\npact> goodbye\n"},
		{name: "brackets and braces", in: "[1\n2]\n{'a:\n1}\n", want: "pact> ....> [1 2]\npact> ....> {\"a\": 1}\npact> goodbye\n"},
		{name: "delimiters in strings and comments", in: "(+ \"(\" ; ((\n\")\")\n", want: "pact> ....> \"()\"\npact> goodbye\n"},
		{name: "string gap", in: "(+ \"a\\\n  \\b\" \"\")\n", want: "pact> ....> \"ab\"\npact> goodbye\n"},
		{name: "blank and comment lines", in: "\n  \n; nothing\n", want: "pact> pact> pact> pact> goodbye\n"},
		{name: "error then more", in: "(enforce false \"no\")\n(+ 1 1)\n", want: "pact> (interactive):1:0: no\n 1 | (enforce false \"no\")\n   | ^^^^^^^^^^^^^^^^^^^^\n\n\npact> 2\npact> goodbye\n"},
		{name: "results before an error", in: "1 (enforce false \"no\") 3\n", want: "pact> 1\n(interactive):1:2: no\n 1 | 1 (enforce false \"no\") 3\n   |   ^^^^^^^^^^^^^^^^^^^^\n\n\npact> goodbye\n"},
		{name: "state persists", in: "(defun sq (x) (* x x))\n(sq 5)\n", want: "pact> \"Loaded repl defun sq\"\npact> 25\npact> goodbye\n"},
		{name: "last line without newline", in: "(+ 2 3)", want: "pact> 5\ngoodbye\n"},
		{name: "syntax error", in: ")\n(+ 2 2)\n", want: "pact> (interactive):1:0: <msg>\n 1 | )\n   | ^\n\n\npact> 4\npact> goodbye\n", cut: "<msg>"},
		{name: "unfinished input at the end", in: "(+ 2\n", want: "pact> ....> \n(interactive):2:0: <msg>\n   | ^\n\n\ngoodbye\n", cut: "<msg>"},
	} {
		got := interactive(t, tc.in)
		if tc.cut == "" {
			if got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
			continue
		}
		before, after, _ := strings.Cut(tc.want, tc.cut)
		if !strings.HasPrefix(got, before) || !strings.HasSuffix(got, after) || len(got) <= len(before)+len(after) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestInteractivePrintGoesToOut(t *testing.T) {
	var runnerOut, out bytes.Buffer
	r := New(&runnerOut)
	if err := r.Interactive(strings.NewReader("(print \"x\")\n"), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "pact> \"x\"\npact> goodbye\n" || runnerOut.Len() != 0 {
		t.Errorf("out %q, runner out %q", out.String(), runnerOut.String())
	}
	if r.Out != &runnerOut {
		t.Error("Interactive did not restore Runner.Out")
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("closed")
	}
	w.n--
	return len(p), nil
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("broken") }

func TestInteractiveIOErrors(t *testing.T) {
	if err := New(&bytes.Buffer{}).Interactive(strings.NewReader("1\n2\n3\n"), &failWriter{n: 2}); err == nil {
		t.Error("no error from a failing writer")
	}
	if err := New(&bytes.Buffer{}).Interactive(failReader{}, &bytes.Buffer{}); err == nil || err.Error() != "broken" {
		t.Errorf("error %v from a failing reader", err)
	}
}

func TestBalance(t *testing.T) {
	for _, tc := range []struct {
		in       string
		complete bool
		depth    int
		inString bool
		code     bool
	}{
		{"", true, 0, false, false},
		{"   \n\t", true, 0, false, false},
		{"; (((", true, 0, false, false},
		{"(", false, 1, false, true},
		{"([{", false, 3, false, true},
		{"([{}])", true, 0, false, true},
		{"(]", true, 0, false, true}, // kinds are not matched: the parser reports it
		{")", true, -1, false, true},
		{") (", true, 0, false, true},
		{")((", true, 1, false, true}, // a stray closer makes it complete
		{"(; )\n", false, 1, false, true},
		{"(; )\n)", true, 0, false, true},
		{`"(`, false, 0, true, true},
		{`"("`, true, 0, false, true},
		{`("\")`, false, 1, true, true},
		{`("\\")`, true, 0, false, true},
		{`("a;b")`, true, 0, false, true},
		{"\"a\\\n", false, 0, true, true},        // a gap runs over lines
		{"\"a\\\n  \\b\"", true, 0, false, true}, // and is closed by a backslash
		{"\"a\\ \\\"", true, 0, false, true},     // which escapes nothing
		{"\"a\\\u00a0\\\"", true, 0, false, true},
		{"\"a\\\u2003\\\"", true, 0, false, true},
		{"'sym", true, 0, false, true},
		{"'a\"", false, 0, true, true},
		{"(print \"é(\")", true, 0, false, true},
	} {
		var b Balance
		b.Feed(tc.in)
		if b.Complete() != tc.complete || b.Depth() != tc.depth || b.InString() != tc.inString || b.HasCode() != tc.code {
			t.Errorf("%q: complete %v depth %d in string %v code %v; want %v %d %v %v", tc.in,
				b.Complete(), b.Depth(), b.InString(), b.HasCode(), tc.complete, tc.depth, tc.inString, tc.code)
		}
	}
}

// FuzzBalance checks the balance scanner: it never panics; its verdict does
// not depend on how the input is cut into pieces; on input the lexer
// accepts it agrees with the lexer's tokens; and closing what it reports
// open makes the input complete.
func FuzzBalance(f *testing.F) {
	for _, s := range []string{
		"", "(+ 1 2)", "(+ 1\n 2)", "[1 2 {'a: 3}]", "; comment (\n(", `"a(\")"`, "\"a\\\n \\b\"",
		"\"a\\\u00a0\\\"", "(defun f (x) \"doc;(\" x)", ")(", "'sym \"", "\"\\\xc2\xa0\\\"", "\"\\\xc2",
		"(module m g (defcap g () true) (defun f () { \"a\": [1, 2] }))",
	} {
		f.Add(s, uint(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint) {
		var whole Balance
		whole.Feed(s)

		// Any split, including inside a UTF-8 sequence, gives the same.
		at := int(cut % uint(len(s)+1))
		var parts Balance
		parts.Feed(s[:at])
		parts.Feed(s[at:])
		if whole.Depth() != parts.Depth() || whole.InString() != parts.InString() ||
			whole.Complete() != parts.Complete() || whole.HasCode() != parts.HasCode() {
			t.Fatalf("%q cut at %d: whole %+v, parts %+v", s, at, whole, parts)
		}
		var bytewise Balance
		for i := 0; i < len(s); i++ {
			bytewise.Feed(s[i : i+1])
		}
		if whole.Depth() != bytewise.Depth() || whole.InString() != bytewise.InString() || whole.Complete() != bytewise.Complete() {
			t.Fatalf("%q fed byte by byte: whole %+v, bytewise %+v", s, whole, bytewise)
		}

		// Where the lexer succeeds, its tokens give the same depth.
		if toks, err := syntax.Lex("fuzz", s); err == nil {
			depth := 0
			for _, tok := range toks {
				switch tok.Kind {
				case syntax.LPAREN, syntax.LBRACK, syntax.LBRACE:
					depth++
				case syntax.RPAREN, syntax.RBRACK, syntax.RBRACE:
					depth--
				}
			}
			if whole.InString() || whole.Depth() != depth || whole.HasCode() != (len(toks) > 1) {
				t.Fatalf("%q: scanner %+v, lexer depth %d with %d tokens", s, whole, depth, len(toks))
			}
		}

		// Closing the open delimiters completes the input.
		if !whole.InString() && !whole.Complete() {
			closed := whole
			closed.Feed("\n" + strings.Repeat(")", whole.Depth()))
			if !closed.Complete() {
				t.Fatalf("%q closed: %+v", s, closed)
			}
		}
	})
}

// Ctrl-C during an evaluation (the interrupt set) stops it at its next gas charge, and the
// prompt comes back with the session intact: what was defined before is still there. An
// interrupt set between evaluations stops none.
func TestInterruptStopsTheEvaluationNotTheSession(t *testing.T) {
	var out bytes.Buffer
	r := New(&out)
	var flag atomic.Bool
	r.SetInterrupt(&flag)
	// A native that presses Ctrl-C when called, so the interrupt comes mid-evaluation at a
	// point the test chooses, not at a moment it races for.
	r.In.Register(&eval.Native{Name: "press-ctrl-c", Min: 0, Max: 0, Repl: true,
		Fn: func(eval.Call, []value.Value) (value.Value, error) {
			if !r.Evaluating() {
				t.Error("Evaluating is false during an evaluation")
			}
			flag.Store(true)
			return value.UnitValue, nil
		}})
	flag.Store(true) // a stray interrupt before the first form
	in := "(defun sq (x) (* x x))\n" +
		"(fold (+) 0 (map (lambda (x) (if (= x 5) (do (press-ctrl-c) x) x)) (enumerate 1 1000)))\n" +
		"(sq 7)\n"
	if err := r.Interactive(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, `"Loaded repl defun sq"`) {
		t.Fatalf("the first form was stopped by an interrupt set before it:\n%s", got)
	}
	if !strings.Contains(got, "Execution interrupted: Ctrl-C") || strings.Contains(got, "500500") {
		t.Fatalf("the fold was not interrupted:\n%s", got)
	}
	if !strings.Contains(got, "\npact> 49\n") {
		t.Fatalf("the session did not go on after the interrupt:\n%s", got)
	}
	if r.Evaluating() {
		t.Error("Evaluating is true between evaluations")
	}
}
