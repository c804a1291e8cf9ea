package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

func TestCodeLines(t *testing.T) {
	src := `(module m g
  (defcap g () true)
  (defconst C (+ 1 2))
  (defun f (x:integer)
    "doc"
    (let ((y (* x 2)))
      (map (lambda (z) (+ z y))
        [(+ 1 1) 3])))
  (defun c (x)
    (cond
      ((= x 1) "one")
      "other"))
  (defun empty () (do))
  (defpact p ()
    (step (+ 1 1))
    (step-with-rollback
      (+ 2 2)
      (+ 3 3)))
  (defun b (o:object)
    (bind o {"a" := a}
      (+ a 1))))
(interface i
  (defconst K (+ 0 1)))
{"k": (+ 4 4)}
`
	f, err := syntax.ParseProgram("t.pact", src)
	if err != nil {
		t.Fatal(err)
	}
	// Line 10 holds only "(cond", which the evaluator does not report (its
	// clauses it does); line 13 the empty (do), a constant.
	want := []int{3, 6, 7, 8, 11, 15, 17, 18, 20, 21, 23, 24}
	if got := CodeLines(f); !reflect.DeepEqual(got, want) {
		t.Errorf("CodeLines = %v, want %v", got, want)
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCoverageReport(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.repl": "(load \"lib.repl\")\n(defun unused ()\n  (+ 1 1))\n(inc\n  (inc 1))\n",
		"lib.repl":  "(defun inc (x)\n  (+ x 1))\n(defun dec (x)\n  (- x 1))\n",
		"idle.repl": "(+ 1 2)\n",
	})
	main, lib := filepath.Join(dir, "main.repl"), filepath.Join(dir, "lib.repl")
	cov := NewCoverage()
	cov.AddFile(main)
	r := New(&bytes.Buffer{})
	r.Install(Hooks{Coverage: cov})
	if err := r.LoadFile(main); err != nil {
		t.Fatal(err)
	}
	cov.AddFile(filepath.Join(dir, "idle.repl"))
	cov.AddFile("not-a-file.repl")
	cov.Hit(syntax.Span{File: "not-a-file.repl", Start: syntax.Pos{Line: 3, Col: 1}})

	if got, want := cov.Files(), []string{main, lib, filepath.Join(dir, "idle.repl"), "not-a-file.repl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
	path := ReportPath(main)
	if path != filepath.Join(dir, "coverage", "lcov.info") {
		t.Errorf("ReportPath = %s", path)
	}
	if err := cov.WriteReport(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "SF:" + main + "\nDA:1,1\nDA:3,0\nDA:4,1\nDA:5,1\nLF:4\nLH:3\nend_of_record\n" +
		"SF:" + lib + "\nDA:2,2\nDA:4,0\nLF:2\nLH:1\nend_of_record\n" +
		"SF:" + filepath.Join(dir, "idle.repl") + "\nDA:1,0\nLF:1\nLH:0\nend_of_record\n" +
		// A file that cannot be read lists only its hit lines.
		"SF:not-a-file.repl\nDA:3,1\nLF:1\nLH:1\nend_of_record\n"
	if string(got) != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}

func TestCoverageUnparsableFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"bad.repl": "(+ 1 1)\n(+ 2\n"})
	bad := filepath.Join(dir, "bad.repl")
	cov := NewCoverage()
	cov.Hit(syntax.Span{File: bad, Start: syntax.Pos{Line: 1, Col: 1}})
	if got := cov.Lines(bad); !reflect.DeepEqual(got, map[int]int{1: 1}) {
		t.Errorf("Lines = %v", got)
	}
}

func TestInstallTracePrint(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.repl": "(print 1)\n(load \"b.repl\" true)\n",
		"b.repl": "(defun p (x) (print x))\n(p \"in b\")\n",
	})
	var out bytes.Buffer
	r := New(&out)
	r.Install(Hooks{TracePrint: true})
	if err := r.LoadFile(filepath.Join(dir, "a.repl")); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.repl"), filepath.Join(dir, "b.repl")
	// The hook survives (load FILE true).
	want := a + ":1:1:Print: 1\n" + b + ":1:14:Print: \"in b\"\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestInstallKeepsLoadErrors(t *testing.T) {
	r := New(&bytes.Buffer{})
	r.Install(Hooks{Coverage: NewCoverage()})
	_, err := r.EvalSource("t.repl", "(load 1)", true)
	if err == nil || !strings.Contains(FormatError(err), "load") {
		t.Errorf("(load 1): %v", err)
	}
	_, err = r.EvalSource("t.repl", `(load "no-such-file.repl" true)`, true)
	if err == nil || !strings.Contains(err.Error(), "no-such-file.repl") {
		t.Errorf("missing file: %v", err)
	}
}
