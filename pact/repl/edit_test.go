package repl

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// scriptedEditor plays back lines (and errors) as a person would type
// them, and records the prompts and history.
type scriptedEditor struct {
	steps   []any // string or error
	prompts []string
	history []string
}

func (e *scriptedEditor) ReadLine(prompt string) (string, error) {
	e.prompts = append(e.prompts, prompt)
	if len(e.steps) == 0 {
		return "", io.EOF
	}
	s := e.steps[0]
	e.steps = e.steps[1:]
	if err, ok := s.(error); ok {
		return "", err
	}
	return s.(string), nil
}

func (e *scriptedEditor) AddHistory(entry string) { e.history = append(e.history, entry) }

func TestEdit(t *testing.T) {
	ed := &scriptedEditor{steps: []any{
		"(+ 1 2)",
		"(+ 1",
		ErrInterrupt, // drops "(+ 1"
		"(* 2",
		"   3)",
		"",
		"; a comment",
		`(enforce false "no")`,
		"(+ 5",
		// Ctrl-D here: goodbye, the form is dropped.
	}}
	var out bytes.Buffer
	if err := New(&out).Edit(ed, &out); err != nil {
		t.Fatal(err)
	}
	want := "3\n6\n(interactive):1:0: no\n 1 | (enforce false \"no\")\n   | ^^^^^^^^^^^^^^^^^^^^\n\n\ngoodbye\n"
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	wantPrompts := []string{Prompt, Prompt, ContinuationPrompt, Prompt, ContinuationPrompt, Prompt, Prompt, Prompt, Prompt, ContinuationPrompt}
	if !slices.Equal(ed.prompts, wantPrompts) {
		t.Errorf("prompts %q, want %q", ed.prompts, wantPrompts)
	}
	wantHistory := []string{"(+ 1 2)", "(* 2 3)", `(enforce false "no")`}
	if !slices.Equal(ed.history, wantHistory) {
		t.Errorf("history %q, want %q", ed.history, wantHistory)
	}
}

func TestEditEditorFails(t *testing.T) {
	ed := &scriptedEditor{steps: []any{"1", errors.New("broken")}}
	if err := New(&bytes.Buffer{}).Edit(ed, &bytes.Buffer{}); err == nil || err.Error() != "broken" {
		t.Fatalf("got %v", err)
	}
	ed = &scriptedEditor{steps: []any{"1", "2"}}
	if err := New(&bytes.Buffer{}).Edit(ed, &failWriter{n: 0}); err == nil {
		t.Fatal("a failing output went unnoticed")
	}
}

func TestHistoryEntry(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"(+ 1 2)"}, "(+ 1 2)"},
		{[]string{"(+ 1", "   2", "", "  )"}, "(+ 1 2 )"},
		// Joining would put the rest of the form in the comment.
		{[]string{"(+ 1 ; one", "2)"}, "(+ 1 ; one\n2)"},
		// Joining would change the string.
		{[]string{`(+ "a`, `b" "c")`}, "(+ \"a\nb\" \"c\")"},
		// A comment on the last line is harmless.
		{[]string{"(+ 1", "2) ; done"}, "(+ 1 2) ; done"},
	} {
		if got := HistoryEntry(tc.lines); got != tc.want {
			t.Errorf("HistoryEntry(%q) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}

func TestPipe(t *testing.T) {
	for _, tc := range []struct {
		name, in, out, errOut string
		ok                    bool
	}{
		{name: "empty", in: "", ok: true},
		{name: "results, no prompts", in: "(+ 1 2)\n(+ 1\n2)\n(print \"p\")\n", out: "3\n3\n\"p\"\n", ok: true},
		{name: "last line without newline", in: "(+ 2 3)", out: "5\n", ok: true},
		{name: "the first error stops it", in: "1 (enforce false \"no\") 3\n4\n", out: "1\n",
			errOut: "(interactive):1:2: no\n 1 | 1 (enforce false \"no\") 3\n   |   ^^^^^^^^^^^^^^^^^^^^\n\n\n" + PipeAborted + "\n"},
		{name: "unfinished input", in: "(+ 2\n", errOut: "(interactive):2:0: "},
		{name: "failed expect", in: "(expect \"e\" 1 2)\n5\n", out: "\"FAILURE: e expected: 1, received: 2\"\n5\n"},
	} {
		var out, errOut bytes.Buffer
		ok, err := New(&out).Pipe(strings.NewReader(tc.in), &out, &errOut)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if ok != tc.ok || out.String() != tc.out || !strings.HasPrefix(errOut.String(), tc.errOut) {
			t.Errorf("%s: ok %v, out %q, errOut %q; want %v, %q, %q...", tc.name, ok, out.String(), errOut.String(), tc.ok, tc.out, tc.errOut)
		}
		if !tc.ok && tc.errOut != "" && !strings.HasSuffix(errOut.String(), PipeAborted+"\n") {
			t.Errorf("%s: errOut %q does not end with %q", tc.name, errOut.String(), PipeAborted)
		}
	}
}

func TestCompleteWord(t *testing.T) {
	r := New(&bytes.Buffer{})
	if _, err := r.EvalSource("setup", `
(begin-tx)
(module coin G (defcap G () true) (defun transfer (a:string) a) (defun transfer-create () 1) (defconst MINIMUM 1))
(env-data {"ks": ["k"]}) (env-keys ["k"])
(define-namespace 'free (read-keyset "ks") (read-keyset "ks"))
(namespace 'free)
(module dex G (defcap G () true) (defun swap () 1))
(commit-tx)
(namespace 'free)
`, true); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		pos  int // -1: the end
		head string
		want []string
		tail string
	}{
		{"(coin.tr", -1, "(", []string{"coin.transfer", "coin.transfer-create"}, ""},
		{"(coin.M", -1, "(", []string{"coin.MINIMUM"}, ""},
		{"(co", -1, "(", []string{"coin", "coin.G", "coin.MINIMUM", "coin.transfer", "coin.transfer-create", "commit-tx", "compose", "compose-capability", "concat", "cond", "contains", "continue", "continue-pact"}, ""},
		// Namespaced: under its full name, and under the short one in
		// its namespace (the current one).
		{"(free.dex.s", -1, "(", []string{"free.dex.swap"}, ""},
		{"[dex.", -1, "[", []string{"dex.G", "dex.swap"}, ""},
		// The word ends at the cursor.
		{"(enfo 1 2)", 5, "(", []string{"enforce", "enforce-guard", "enforce-keyset", "enforce-one", "enforce-pact-version", "enforce-verifier"}, " 1 2)"},
		{"(map str-to-i", -1, "(map ", []string{"str-to-int"}, ""},
		// Not in comments, not on nothing.
		{"; coin.tr", -1, "; coin.tr", nil, ""},
		{"(", -1, "(", nil, ""},
		{"(nosuchname", -1, "(", nil, ""},
	} {
		pos := tc.pos
		if pos < 0 {
			pos = len(tc.line)
		}
		head, got, tail := r.CompleteWord(tc.line, pos)
		if tc.want == nil && len(got) > 0 || tc.want != nil && !reflect.DeepEqual(got, tc.want) || head != tc.head || tail != tc.tail {
			t.Errorf("CompleteWord(%q, %d) = %q, %q, %q; want %q, %q, %q", tc.line, pos, head, got, tail, tc.head, tc.want, tc.tail)
		}
	}
	names := r.Names()
	for _, n := range []string{"+", "expect", "begin-tx", "with-capability", "let*", "free.dex"} {
		if !slices.Contains(names, n) {
			t.Errorf("Names lacks %q", n)
		}
	}
}

func TestCompleteFileNames(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"coin.repl", "coin.pact", "sub/fungible.pact", ".hidden"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	r := New(&bytes.Buffer{})
	for _, tc := range []struct {
		line string
		pos  int
		head string
		want []string
	}{
		{`(load "co`, -1, `(load "`, []string{`coin.pact"`, `coin.repl"`}},
		{`(load "coin.r`, -1, `(load "`, []string{`coin.repl"`}},
		// The closing quote is there already.
		{`(load "coin.r")`, 13, `(load "`, []string{`coin.repl`}},
		{`(load "s`, -1, `(load "`, []string{"sub/"}},
		{`(load "sub/f`, -1, `(load "`, []string{`sub/fungible.pact"`}},
		{`(load "`, -1, `(load "`, []string{`coin.pact"`, `coin.repl"`, "sub/"}},
		{`(load ".h`, -1, `(load "`, []string{`.hidden"`}},
		// The string holds the second quoted part only.
		{`(+ "a" "co`, -1, `(+ "a" "`, []string{`coin.pact"`, `coin.repl"`}},
		{`(load "no`, -1, `(load "`, nil},
		{`(load "a\tco`, -1, `(load "`, nil},
		{`(load "nosuchdir/`, -1, `(load "`, nil},
	} {
		pos := tc.pos
		if pos < 0 {
			pos = len(tc.line)
		}
		head, got, tail := r.CompleteWord(tc.line, pos)
		if head != tc.head || tail != tc.line[pos:] || !slices.Equal(got, tc.want) {
			t.Errorf("CompleteWord(%q, %d) = %q, %q, %q; want %q, %q", tc.line, pos, head, got, tail, tc.head, tc.want)
		}
	}
}

func FuzzCompleteWord(f *testing.F) {
	r := New(&bytes.Buffer{})
	f.Add("(coin.tr", 8)
	f.Add(`(load "x`, 3)
	f.Add("(enfo 1 2)", 5)
	f.Add("\"a\\\n  \\b\" (+", 100)
	f.Fuzz(func(t *testing.T, line string, pos int) {
		head, got, tail := r.CompleteWord(line, pos)
		if pos < 0 || pos > len(line) {
			pos = len(line)
		}
		if tail != line[pos:] || !strings.HasPrefix(line[:pos], head) {
			t.Fatalf("CompleteWord(%q, %d) split it as %q | %q", line, pos, head, tail)
		}
		word := line[len(head):pos]
		for _, c := range got {
			if !strings.HasPrefix(c, word) {
				t.Fatalf("candidate %q does not complete %q", c, word)
			}
		}
	})
}

func FuzzHistoryEntry(f *testing.F) {
	f.Add("(+ 1\n2)")
	f.Add("(+ \"a\n b\")")
	f.Add("(x ; c\n)")
	f.Fuzz(func(t *testing.T, form string) {
		lines := strings.Split(form, "\n")
		entry := HistoryEntry(lines)
		if strings.Contains(entry, "\n") {
			if entry != form {
				t.Fatalf("kept lines %q as %q", form, entry)
			}
			return
		}
		// A joined entry is the same program for the balance: as
		// complete, as deep, as empty.
		var a, b Balance
		a.Feed(form + "\n")
		b.Feed(entry + "\n")
		if a.Complete() != b.Complete() || a.Depth() != b.Depth() || a.HasCode() != b.HasCode() || a.InString() != b.InString() {
			t.Fatalf("joining %q as %q changed its balance", form, entry)
		}
	})
}
