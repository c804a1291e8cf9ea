package repl

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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

// copyCoverageFixtures copies testdata/coverage/<names> into a new
// directory.
func copyCoverageFixtures(t *testing.T, names ...string) string {
	t.Helper()
	files := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", "coverage", n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = string(b)
	}
	return writeFiles(t, files)
}

// runCovered runs script as `pact -c` does and returns the runner and
// the LCOV report.
func runCovered(t *testing.T, script string) (*Runner, string) {
	t.Helper()
	cov := NewCoverage()
	cov.AddFile(script)
	r := New(&bytes.Buffer{})
	r.Install(Hooks{Coverage: cov})
	loadErr := r.LoadFile(script)
	var b bytes.Buffer
	if err := cov.WriteLCOV(&b); err != nil {
		t.Fatal(err)
	}
	if loadErr != nil {
		t.Logf("load: %v", loadErr)
	}
	return r, b.String()
}

// record is the part of an LCOV report about file, from its SF line to
// its end_of_record (included), or "" when file has no record.
func record(report, file string) string {
	i := strings.Index(report, "SF:"+file+"\n")
	if i < 0 {
		return ""
	}
	j := strings.Index(report[i:], "end_of_record\n")
	if j < 0 {
		return report[i:]
	}
	return report[i : i+j+len("end_of_record\n")]
}

// total is the value of a summary line (LF, LH, FNF...) of a record.
func total(t *testing.T, rec, key string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + key + `:(\d+)$`).FindStringSubmatch(rec)
	if m == nil {
		t.Fatalf("no %s line in:\n%s", key, rec)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// moduleHash matches the hash in upstream's function names, mod.f.{hash}.
var moduleHash = regexp.MustCompile(`\.\{[A-Za-z0-9_-]{43}\}`)

func TestCoverageUnrunFunctionAndUntakenBranch(t *testing.T) {
	dir := copyCoverageFixtures(t, "partial.pact", "partial.repl")
	script := filepath.Join(dir, "partial.repl")
	r, report := runCovered(t, script)
	if f := r.Failures(); len(f) > 0 {
		t.Fatalf("failures: %v", f)
	}
	module := filepath.Join(dir, "partial.pact")
	rec := record(report, module)
	if n := len(moduleHash.FindAllString(rec, -1)); n != 8 {
		t.Errorf("%d function names with a module hash, want 8 (4 FN, 4 FNDA):\n%s", n, rec)
	}
	// Counted by hand from partial.pact and partial.repl. A line counts
	// every expression evaluated that starts on it: line 4, (if (< x 0),
	// is the if, the <, x and 0 of the one call of sign.
	want := "SF:" + module + `
FN:2,partial.GOV.{H}
FN:3,partial.sign.{H}
FN:7,partial.size.{H}
FN:12,partial.never-called.{H}
FNDA:0,partial.GOV.{H}
FNDA:1,partial.sign.{H}
FNDA:2,partial.size.{H}
FNDA:0,partial.never-called.{H}
FNF:4
FNH:2
BRDA:4,0,0,0
BRDA:4,0,1,1
BRDA:8,0,0,1
BRDA:8,0,1,0
BRDA:8,0,2,1
BRDA:14,0,0,-
BRDA:14,0,1,-
BRF:7
BRH:3
DA:2,0
DA:4,4
DA:5,0
DA:6,1
DA:8,4
DA:9,9
DA:10,4
DA:11,1
DA:13,0
DA:14,0
DA:15,0
DA:16,0
LF:12
LH:6
end_of_record
`
	if got := moduleHash.ReplaceAllString(rec, ".{H}"); got != want {
		t.Errorf("partial.pact record:\n%s\nwant:\n%s", got, want)
	}
	if total(t, rec, "LH") >= total(t, rec, "LF") || total(t, rec, "BRH") >= total(t, rec, "BRF") ||
		total(t, rec, "FNH") >= total(t, rec, "FNF") {
		t.Errorf("untested code reported as covered:\n%s", rec)
	}
	// The script itself ran from top to bottom.
	want = "TN:\nSF:" + script + "\nFNF:0\nFNH:0\nBRF:0\nBRH:0\n" +
		"DA:1,1\nDA:2,2\nDA:3,1\nDA:4,5\nDA:5,5\nDA:6,5\nLF:6\nLH:6\nend_of_record\n"
	if !strings.HasPrefix(report, want) {
		t.Errorf("report:\n%s\nwant it to start with:\n%s", report, want)
	}
}

// TestCoverageFullyExercised runs a module whose every line, function and
// branch the script exercises, with the parts of each form on lines of
// their own: a line the report holds that the evaluator can never report
// (or the other way round) shows as LH < LF.
func TestCoverageFullyExercised(t *testing.T) {
	dir := copyCoverageFixtures(t, "full.pact", "full.repl")
	r, report := runCovered(t, filepath.Join(dir, "full.repl"))
	if f := r.Failures(); len(f) > 0 {
		t.Fatalf("failures: %v", f)
	}
	rec := record(report, filepath.Join(dir, "full.pact"))
	if strings.Contains(rec, ",0\n") || strings.Contains(rec, ",-\n") {
		t.Errorf("a zero count in a fully exercised module:\n%s", rec)
	}
	for _, k := range [][2]string{{"LH", "LF"}, {"FNH", "FNF"}, {"BRH", "BRF"}} {
		if hit, found := total(t, rec, k[0]), total(t, rec, k[1]); hit != found {
			t.Errorf("%s %d != %s %d", k[0], hit, k[1], found)
		}
	}
	// What the module holds: 16 functions (defcaps and the defpact
	// included), 2 ifs and a cond of 3 branches, and the lines of code.
	if f, b, l := total(t, rec, "FNF"), total(t, rec, "BRF"), total(t, rec, "LF"); f != 16 || b != 7 || l < 70 {
		t.Errorf("FNF %d BRF %d LF %d, want 16, 7 and at least 70", f, b, l)
	}
}

// TestCoverageUnreachedForms: the forms after the one that stopped the
// script were never compiled; their lines, functions and branches are
// reported all the same, never run.
func TestCoverageUnreachedForms(t *testing.T) {
	dir := writeFiles(t, map[string]string{"stop.repl": `(defun used (x) (+ x 1))
(used 1)
(enforce false "stop")
(defun later (x)
  (if (> x 0)
    x
    (- x)))
(later 1)
`})
	script := filepath.Join(dir, "stop.repl")
	_, report := runCovered(t, script)
	want := "TN:\nSF:" + script + `
FN:1,used
FN:4,later
FNDA:1,used
FNDA:0,later
FNF:2
FNH:1
BRDA:5,0,0,-
BRDA:5,0,1,-
BRF:2
BRH:0
DA:1,3
DA:2,2
DA:3,3
DA:5,0
DA:6,0
DA:7,0
DA:8,0
LF:7
LH:3
end_of_record
`
	if report != want {
		t.Errorf("report:\n%s\nwant:\n%s", report, want)
	}
}

// TestCoverageBranchBlocks: two ifs on one line are two blocks.
func TestCoverageBranchBlocks(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ifs.repl": `(defun f (a b) (if a (if b 1 2) 3))
(f true true)
(f false true)
`})
	_, report := runCovered(t, filepath.Join(dir, "ifs.repl"))
	want := "BRDA:1,0,0,1\nBRDA:1,0,1,1\nBRDA:1,1,0,1\nBRDA:1,1,1,0\nBRF:4\nBRH:3\n"
	if !strings.Contains(report, want) {
		t.Errorf("report:\n%s\nwant it to hold:\n%s", report, want)
	}
}

func TestCoverageReport(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.repl": "(load \"lib.repl\")\n(defun unused ()\n  (+ 1 1))\n(inc\n  (inc 1))\n",
		"lib.repl":  "(defun inc (x)\n  (+ x 1))\n(defun decr (x)\n  (- x 1))\n",
		"idle.repl": "(+ 1 2)\n",
	})
	main, lib, idle := filepath.Join(dir, "main.repl"), filepath.Join(dir, "lib.repl"), filepath.Join(dir, "idle.repl")
	cov := NewCoverage()
	cov.AddFile(main)
	r := New(&bytes.Buffer{})
	r.Install(Hooks{Coverage: cov})
	if err := r.LoadFile(main); err != nil {
		t.Fatal(err)
	}
	// A file never loaded is read for its lines; one that cannot be read
	// has no record. Line 4 of main.repl counts the application alone: a
	// function named in call position is called, not evaluated.
	cov.AddFile(idle)
	cov.AddFile(filepath.Join(dir, "not-a-file.repl"))

	if got := cov.Files(); len(got) != 4 || got[0] != main || got[1] != lib || got[2] != idle {
		t.Errorf("Files = %q", got)
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
	none := "FNF:0\nFNH:0\nBRF:0\nBRH:0\n"
	want := "TN:\nSF:" + main + "\nFN:2,unused\nFNDA:0,unused\nFNF:1\nFNH:0\nBRF:0\nBRH:0\n" +
		"DA:1,2\nDA:3,0\nDA:4,1\nDA:5,2\nLF:4\nLH:3\nend_of_record\n" +
		"TN:\nSF:" + lib + "\nFN:1,inc\nFN:3,decr\nFNDA:2,inc\nFNDA:0,decr\nFNF:2\nFNH:1\nBRF:0\nBRH:0\n" +
		"DA:2,6\nDA:4,0\nLF:2\nLH:1\nend_of_record\n" +
		"TN:\nSF:" + idle + "\n" + none + "DA:1,0\nLF:1\nLH:0\nend_of_record\n"
	if string(got) != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	if l := cov.Lines(lib); len(l) != 2 || l[2] != 6 || l[4] != 0 {
		t.Errorf("Lines(lib) = %v", l)
	}
}

// TestCoverageGenhtml checks the reports with genhtml (Debian's lcov),
// which `make test` installs where it can: no warning, exit 0.
func TestCoverageGenhtml(t *testing.T) {
	genhtml, err := exec.LookPath("genhtml")
	if err != nil {
		t.Skip("genhtml not installed (Debian package lcov): skipping the check of the LCOV output with genhtml")
	}
	dir := copyCoverageFixtures(t, "partial.pact", "partial.repl", "full.pact", "full.repl")
	for _, script := range []string{"partial.repl", "full.repl"} {
		_, report := runCovered(t, filepath.Join(dir, script))
		info := filepath.Join(dir, script+".info")
		if err := os.WriteFile(info, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(genhtml, "--branch-coverage", "--function-coverage",
			"-o", filepath.Join(dir, script+"-html"), info)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("genhtml %s: %v\n%s", script, err, out)
		}
		if strings.Contains(strings.ToLower(string(out)), "warning") {
			t.Errorf("genhtml %s warned:\n%s", script, out)
		}
		// genhtml read the counts: partial.pact has 6 of 12 lines hit.
		if script == "partial.repl" && !strings.Contains(string(out), "(12 of 18 lines)") {
			t.Errorf("genhtml %s summary:\n%s", script, out)
		}
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

// FuzzCoverageUnreached feeds arbitrary files to the reading of forms that
// never ran: no panic, and a report whose totals agree with its lines.
func FuzzCoverageUnreached(f *testing.F) {
	for _, name := range []string{"partial.pact", "partial.repl", "full.pact", "full.repl"} {
		b, err := os.ReadFile(filepath.Join("testdata", "coverage", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("(cond)\n(cond 1)\n(if)\n(if a b c d)\n(defun f () (cond ((a) b) c))")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		file := filepath.Join(dir, "fuzz.repl")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cov := NewCoverage()
		cov.AddFile(file)
		var b bytes.Buffer
		if err := cov.WriteLCOV(&b); err != nil {
			t.Fatal(err)
		}
		rec := b.String()
		if rec == "" {
			return
		}
		das := strings.Count(rec, "\nDA:")
		if total(t, rec, "LF") != das || total(t, rec, "LH") != 0 || total(t, rec, "BRH") != 0 ||
			total(t, rec, "BRF") != strings.Count(rec, "\nBRDA:") {
			t.Errorf("report:\n%s", rec)
		}
	})
}
