package repl

import (
	"io"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/value"
)

// The expected texts below are P5's replError worked out by hand: the
// first line "file:line:col: message" (line 1-based, column 0-based), the
// lines of the span but its last (at least one) numbered and padded to
// the width of the last line's number plus one, the carets under the
// span's columns, the stack a frame a line, all joined by T.unlines; the
// interactive loop adds outputStrLn's newline.

func TestRenderErrorTopLevel(t *testing.T) {
	// (enforce (= 1 2) "one is not two") spans columns 0 to 34.
	got := interactive(t, "(enforce (= 1 2) \"one is not two\")\n")
	want := "pact> (interactive):1:0: one is not two\n" +
		" 1 | (enforce (= 1 2) \"one is not two\")\n" +
		"   | " + strings.Repeat("^", 34) + "\n" +
		"\n" + // the empty stack
		"\n" + // outputStrLn
		"pact> goodbye\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestRenderErrorInDefun(t *testing.T) {
	// One line: the module, then the call. The enforce is at columns
	// 61-81, the call (m.f 3 "too small") at 84-103; the frame shows
	// the call's span 0-based, and the arguments as AbbrevPretty does.
	src := `(module m g (defcap g () true) (defun f (x:integer s:string) (enforce (> x 10) s))) (m.f 3 "too small")`
	r := New(io.Discard)
	var out strings.Builder
	if err := r.Interactive(strings.NewReader(src+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	hash := loadedModuleHash(t, r, "m")
	want := "\n(interactive):1:61: too small\n" +
		" 1 | " + src + "\n" +
		"   | " + strings.Repeat(" ", 61) + strings.Repeat("^", 20) + "\n" +
		"  at(m.f.{" + hash + "} 3 \"too small\"):(interactive):0:84-0:103\n" +
		"\n" + // outputStrLn
		"pact> goodbye\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("got\n%q\nwant it to end with\n%q", out.String(), want)
	}
}

func TestRenderErrorMultiLine(t *testing.T) {
	// The span runs from line 1 column 0 to line 3 column 10: P5 shows
	// the lines before the last, and max 1 (10-0) carets.
	got := interactive(t, "(enforce\n  (= 1 2)\n  \"multi\")\n")
	want := "pact> ....> ....> (interactive):1:0: multi\n" +
		" 1 | (enforce\n" +
		" 2 |   (= 1 2)\n" +
		"   | ^^^^^^^^^^\n" +
		"\n\n" +
		"pact> goodbye\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestRenderErrorPadding(t *testing.T) {
	// A span from line 9 column 2 to line 10 column 7: numbers are
	// padded to the width of "10" plus one, only line 9 is shown, and
	// the carets start at column 2 and number 7-2.
	src := strings.Repeat(";\n", 8) + "  (enforce false\n \"pad\")\n"
	r := New(io.Discard)
	_, err := r.EvalSource("pad.repl", src, true)
	if err == nil {
		t.Fatal("no error")
	}
	want := "pad.repl:9:2: pad\n" +
		"  9 |   (enforce false\n" +
		"    |   ^^^^^\n" +
		"\n"
	if got := r.RenderError(err); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestAbbrev(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{`"abcdefghijklmn"`, `"abcdefghijklmn"`},
		{`"abcdefghijklmno"`, `"abcdefghijkl..."`},
		{`1234567890123`, `123456789012...`},
		{`123456789012`, `123456789012`},
		{`1.5`, `1.5`},
		{`12345678.123456789`, `12345678.123...`},
		{`123456789012345.0`, `123456789012345.0`},
		{`[1 2 3]`, `[1 2 3]`},
		{`[1 2 3 4 5 6 7 8 9 10 11 12]`, `[1 2 3 4 5 6 ...]`},
		{`{"a": 1, "b": [1 2]}`, `{"a": 1,"b": ...}`},
		{`(time "2016-07-22T12:00:00Z")`, `2016-07-22 12:00:00 UTC`},
		{`true`, `true`},
	} {
		r := New(io.Discard)
		vals, err := r.EvalSource("abbrev.repl", tc.src, true)
		if err != nil || len(vals) != 1 {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := abbrev(vals[0]); got != tc.want {
			t.Errorf("abbrev(%s) = %s, want %s", tc.src, got, tc.want)
		}
	}
}

// loadedModuleHash is the hash of a loaded module, as describe-module gives it.
func loadedModuleHash(t *testing.T, r *Runner, name string) string {
	t.Helper()
	vals, err := r.EvalSource("hash.repl", `(at 'hash (describe-module "`+name+`"))`, true)
	if err != nil || len(vals) != 1 {
		t.Fatalf("describe-module: %v", err)
	}
	s, ok := vals[0].(value.String)
	if !ok {
		t.Fatalf("hash %v", vals[0])
	}
	return string(s)
}
