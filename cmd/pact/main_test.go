package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/repl"
)

// pact runs the command line with stdin and returns the exit code, stdout
// and stderr.
func pact(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestPassingScript(t *testing.T) {
	code, out, errOut := pact(t, "", "testdata/pass.repl")
	if code != 0 || out != "\"hello\"\nLoad successful\n" || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestFailingExpect(t *testing.T) {
	code, out, errOut := pact(t, "", "testdata/fail.repl")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if strings.Contains(out, "Load successful") {
		t.Errorf("stdout %q", out)
	}
	got := lines(errOut)
	if len(got) != 2 || got[1] != "Load failed" {
		t.Fatalf("stderr %q: want one failure line and Load failed", errOut)
	}
	if !strings.HasPrefix(got[0], "testdata/fail.repl:2:1: ") || !strings.Contains(got[0], "two is three") {
		t.Errorf("failure line %q: want testdata/fail.repl:2:1: ... two is three ...", got[0])
	}
}

func TestRuntimeError(t *testing.T) {
	code, out, errOut := pact(t, "", "testdata/error.repl")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if strings.Contains(out, "not reached") {
		t.Errorf("the script went on after the error: %q", out)
	}
	// P5's layout: the line with P5's 0-based column, the source line,
	// the carets, an empty stack's empty line, then "\nLoad failed".
	want := "testdata/error.repl:3:3: boom\n" +
		" 3 |    (enforce false \"boom\"))\n" +
		"   |    ^^^^^^^^^^^^^^^^^^^^^^\n" +
		"\n" +
		"\n" +
		"Load failed\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

func TestMissingFile(t *testing.T) {
	code, _, errOut := pact(t, "", "testdata/no-such-file.repl")
	if code != 1 || !strings.Contains(errOut, "no-such-file.repl") || !strings.HasSuffix(errOut, "Load failed\n") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestPactFileExecutes(t *testing.T) {
	// exec.pact defines a module, calls it, and fails on its last line:
	// only execution (not mere compilation) gets there.
	code, _, errOut := pact(t, "", "testdata/exec.pact")
	if want := "testdata/exec.pact:5:0: executed to the end\n 5 | (enforce false \"executed to the end\")\n   | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n\nLoad failed\n"; code != 1 || errOut != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
	code, out, errOut := pact(t, "", "testdata/noscript/alone.pact")
	if code != 0 || out != "Load successful\n" || errOut != "" {
		t.Errorf("alone.pact: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// REPL natives are for .repl files only.
	code, _, errOut = pact(t, "", "testdata/replnative.pact")
	if code != 1 || !strings.HasPrefix(errOut, "testdata/replnative.pact:1:") || !strings.Contains(errOut, "expect") {
		t.Errorf("replnative.pact: exit %d, stderr %q", code, errOut)
	}
}

func TestFindScript(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		code    int
		stdout  string
		inError string
	}{
		// NAME.repl beside NAME.pact wins over the other scripts.
		{[]string{"-r", "testdata/basename/mod.pact"}, 0, "\"mod.repl ran\"\nLoad successful\n", ""},
		{[]string{"--findscript", "testdata/basename/mod.pact"}, 0, "\"mod.repl ran\"\nLoad successful\n", ""},
		// Without -r the .pact file itself runs.
		{[]string{"testdata/basename/mod.pact"}, 1, "", "mod.pact ran instead"},
		// The directory's only .repl file.
		{[]string{"-r", "testdata/findscript/lib.pact"}, 0, "\"tests.repl ran\"\nLoad successful\n", ""},
		// No script: the .pact file runs.
		{[]string{"-r", "testdata/noscript/alone.pact"}, 0, "Load successful\n", ""},
		// -r is for .pact files only.
		{[]string{"-r", "testdata/basename/other.repl"}, 0, "\"other.repl ran\"\nLoad successful\n", ""},
	} {
		code, out, errOut := pact(t, "", tc.args...)
		if code != tc.code || out != tc.stdout || !strings.Contains(errOut, tc.inError) {
			t.Errorf("pact %s: exit %d, stdout %q, stderr %q", strings.Join(tc.args, " "), code, out, errOut)
		}
	}
}

func TestTrace(t *testing.T) {
	code, out, errOut := pact(t, "", "-t", "testdata/trace.repl")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	got := lines(out)
	for _, want := range []string{
		"testdata/trace.repl:1:1:Trace: 3",
		"testdata/trace.repl:2:1:Print: \"hi\"",
		"testdata/trace.repl:3:1:Trace: \"done\"",
		"Load successful",
	} {
		found := false
		for _, l := range got {
			found = found || l == want
		}
		if !found {
			t.Errorf("stdout %q lacks %q", out, want)
		}
	}
	// The print line comes before the trace of the print form, and
	// without -t there is no echo at all.
	if i := strings.Index(out, ":Print: "); i < 0 || i > strings.Index(out, "trace.repl:2:1:Trace") {
		t.Errorf("print output should precede the trace of its form: %q", out)
	}
	_, out, _ = pact(t, "", "testdata/trace.repl")
	if out != "\"hi\"\nLoad successful\n" {
		t.Errorf("without -t: stdout %q", out)
	}
}

func copyFixtures(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCoverage(t *testing.T) {
	dir := copyFixtures(t, "cover.repl", "coverload.repl")
	script := filepath.Join(dir, "cover.repl")
	code, out, errOut := pact(t, "", "-c", script)
	if code != 0 || out != "Load successful\n" || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(dir, "coverage", "lcov.info"))
	if err != nil {
		t.Fatal(err)
	}
	// cover.repl: line 2 is the body of twice (3 calls of 3 expressions:
	// *, 2, x), line 4 the body of never (no call), lines 5-7 the calls
	// (the application and its literal argument).
	fns := func(calls string) string {
		return "FN:1,twice\nFN:3,never\nFNDA:" + calls + ",twice\nFNDA:0,never\nFNF:2\nFNH:1\nBRF:0\nBRH:0\n"
	}
	want := "TN:\nSF:" + script + "\n" + fns("3") + "DA:2,9\nDA:4,0\nDA:5,2\nDA:6,1\nDA:7,2\nLF:5\nLH:4\nend_of_record\n"
	if string(got) != want {
		t.Errorf("lcov.info:\n%s\nwant:\n%s", got, want)
	}

	// (load FILE true) makes a new interpreter; coverage goes on, and the
	// loaded file gets its own record.
	loader := filepath.Join(dir, "coverload.repl")
	if code, _, errOut := pact(t, "", "--coverage", loader); code != 0 {
		t.Fatalf("coverload.repl: exit %d, stderr %q", code, errOut)
	}
	got, err = os.ReadFile(filepath.Join(dir, "coverage", "lcov.info"))
	if err != nil {
		t.Fatal(err)
	}
	none := "FNF:0\nFNH:0\nBRF:0\nBRH:0\n"
	want = "TN:\nSF:" + loader + "\n" + none + "DA:1,3\nDA:2,2\nLF:2\nLH:2\nend_of_record\n" +
		"TN:\nSF:" + script + "\n" + fns("4") + "DA:2,12\nDA:4,0\nDA:5,2\nDA:6,1\nDA:7,2\nLF:5\nLH:4\nend_of_record\n"
	if string(got) != want {
		t.Errorf("lcov.info:\n%s\nwant:\n%s", got, want)
	}
}

func TestCoverageOfFailedLoad(t *testing.T) {
	dir := copyFixtures(t, "error.repl")
	code, _, _ := pact(t, "", "-c", filepath.Join(dir, "error.repl"))
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	got, err := os.ReadFile(filepath.Join(dir, "coverage", "lcov.info"))
	if err != nil {
		t.Fatal(err)
	}
	// Line 4 (print) never ran.
	want := "TN:\nSF:" + filepath.Join(dir, "error.repl") + "\nFNF:0\nFNH:0\nBRF:0\nBRH:0\n" +
		"DA:1,4\nDA:2,2\nDA:3,3\nDA:4,0\nLF:4\nLH:3\nend_of_record\n"
	if string(got) != want {
		t.Errorf("lcov.info:\n%s\nwant:\n%s", got, want)
	}
}

func TestBuiltins(t *testing.T) {
	for _, flag := range []string{"-b", "--builtins"} {
		code, out, errOut := pact(t, "", flag)
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", flag, code, errOut)
		}
		got := lines(out)
		if want := len(eval.CoreNativeNames) + len(repl.ReplNativeNames); len(got) != want {
			t.Errorf("%s: %d lines, want %d", flag, len(got), want)
		}
		if got[0] != `"+"` {
			t.Errorf("first line %q", got[0])
		}
		if last := `"` + repl.ReplNativeNames[len(repl.ReplNativeNames)-1] + `"`; got[len(got)-1] != last {
			t.Errorf("last line %q, want %q", got[len(got)-1], last)
		}
		for _, l := range got {
			if len(l) < 3 || l[0] != '"' || l[len(l)-1] != '"' {
				t.Errorf("line %q is not a quoted name", l)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	for _, flag := range []string{"-v", "--version"} {
		code, out, _ := pact(t, "", flag)
		if code != 0 || out != "pact version 5.4\n" {
			t.Errorf("%s: exit %d, stdout %q", flag, code, out)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, flag := range []string{"-h", "--help"} {
		code, out, _ := pact(t, "", flag)
		if code != 0 {
			t.Fatalf("%s: exit %d", flag, code)
		}
		for _, want := range []string{"--findscript", "--trace", "--coverage", "--builtins", "--version",
			"--apireq", "--local", "--unsigned", "--genkey", "add-sig", "combine-sigs", "pact sign",
			"--server", "--serve", "CONFIG", "REQ_YAML", "127.0.0.1",
			"gasRate: INT", "evalBudget: GAS", "maxElements: INT", "maxResultSize: BYTES"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: usage lacks %q", flag, want)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-x"}, "unknown option -x"},
		{[]string{"--frobnicate"}, "unknown option --frobnicate"},
		{[]string{"-v", "-b"}, "cannot be used together"},
		{[]string{"--version", "-a", "r.yaml"}, "cannot be used together"},
		{[]string{"-t"}, "-t, --trace cannot be used without FILE"},
		// -l modifies the request tools only, as upstream's: given with a
		// FILE it says how to format that file's request for /local.
		{[]string{"-l", "x.repl"}, "cannot be used with FILE: it modifies -a, add-sig and combine-sigs; to format a request for /local: pact -a x.repl -l"},
		{[]string{"req.yaml", "--local"}, "pact -a req.yaml -l"},
		{[]string{"-l"}, "-l, --local cannot be used on its own: it modifies -a, add-sig and combine-sigs"},
		{[]string{"-l", "sign", "k.yaml"}, "-l, --local cannot be used with sign"},
		{[]string{"-t", "-a", "r.yaml"}, "-t, --trace cannot be used with -a: it modifies FILE"},
		{[]string{"-u", "r.yaml", "-l"}, "-l, --local cannot be used with -u"},
		{[]string{"-c", "-v"}, "cannot be used with -v"},
		{[]string{"a.repl", "b.repl"}, "too many arguments"},
		{[]string{"-v", "x.repl"}, "takes no file argument"},
		{[]string{"--trace=yes", "x.repl"}, "takes no argument"},
		{[]string{"-s"}, "needs an argument CONFIG"},
		{[]string{"--apireq"}, "needs an argument REQ_YAML"},
		{[]string{"add-sig"}, "add-sig needs KEYFILE"},
	} {
		code, out, errOut := pact(t, "", tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.msg) || !strings.Contains(errOut, "pact --help") {
			t.Errorf("pact %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, out, errOut, tc.msg)
		}
	}
}

func TestServerConfigMissing(t *testing.T) {
	for _, args := range [][]string{
		{"-s", "no-such.yaml"}, {"--server", "no-such.yaml"}, {"--serve", "no-such.yaml"},
	} {
		code, out, errOut := pact(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "no-such.yaml") {
			t.Errorf("pact %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errOut)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		mode  string
		arg   string
		files []string
		flags []string
	}{
		{nil, "repl", "", nil, nil},
		{[]string{"-rtc", "x.pact"}, "load", "", []string{"x.pact"}, []string{"coverage", "findscript", "trace"}},
		{[]string{"x.pact", "--trace", "-c"}, "load", "", []string{"x.pact"}, []string{"coverage", "trace"}},
		{[]string{"--", "-odd.repl"}, "load", "", []string{"-odd.repl"}, nil},
		{[]string{"-a", "r.yaml", "-l"}, "apireq", "r.yaml", nil, []string{"local"}},
		{[]string{"-lar.yaml"}, "apireq", "r.yaml", nil, []string{"local"}},
		{[]string{"--apireq=r.yaml"}, "apireq", "r.yaml", nil, nil},
		{[]string{"--serve", "c.yaml"}, "server", "c.yaml", nil, nil},
		{[]string{"combine-sigs", "a", "b", "--local"}, "combine-sigs", "", []string{"a", "b"}, []string{"local"}},
		// -l is a modifier in any position: before or after the mode.
		{[]string{"-l", "-a", "r.yaml"}, "apireq", "r.yaml", nil, []string{"local"}},
		{[]string{"--local", "--apireq", "r.yaml"}, "apireq", "r.yaml", nil, []string{"local"}},
		{[]string{"-l", "combine-sigs", "a", "b"}, "combine-sigs", "", []string{"a", "b"}, []string{"local"}},
		{[]string{"add-sig", "-l", "k.yaml"}, "add-sig", "", []string{"k.yaml"}, []string{"local"}},
		// A modifier before a FILE is still a modifier of FILE.
		{[]string{"-t", "x.repl"}, "load", "", []string{"x.repl"}, []string{"trace"}},
	} {
		inv, err := parse(tc.args)
		if err != nil {
			t.Errorf("parse %q: %v", tc.args, err)
			continue
		}
		var flags []string
		for _, f := range []string{"coverage", "findscript", "local", "trace"} {
			if inv.flags[f] {
				flags = append(flags, f)
			}
		}
		if inv.mode.name != tc.mode || inv.arg != tc.arg || !reflect.DeepEqual(inv.args, tc.files) || !reflect.DeepEqual(flags, tc.flags) {
			t.Errorf("parse %q: mode %s, arg %q, files %q, flags %q", tc.args, inv.mode.name, inv.arg, inv.args, flags)
		}
	}
}

func TestInteractivePipe(t *testing.T) {
	// Piped input gets no prompts and no goodbye (P4's pipe mode).
	in := strings.Join([]string{
		"(+ 1 2)",
		"(+ 1",
		"  2 ; a comment with )",
		"  )",
		`"still running"`,
		`(print "p")`,
		"",
		`(defun f (x) x) (f "a(b")`,
	}, "\n") + "\n"
	code, out, errOut := pact(t, in)
	want := "3\n" +
		"3\n" +
		"\"still running\"\n" +
		"\"p\"\n" +
		"\"Loaded repl defun f\"\n\"a(b\"\n"
	if code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
	}

	// The first error stops it, and pact exits 1 (P4's pipe mode).
	code, out, errOut = pact(t, "(+ 1 2)\n(enforce false \"oops\")\n\"not reached\"\n")
	if code != 1 || out != "3\n" || errOut != "(interactive):1:0: oops\n 1 | (enforce false \"oops\")\n   | ^^^^^^^^^^^^^^^^^^^^^^\n\n\nAborting execution\nLoad failed\n" {
		t.Errorf("after an error: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// So does a failed expect, though the input goes on after it.
	code, out, errOut = pact(t, "(expect \"one\" 1 2)\n(+ 2 2)\n")
	if code != 1 || !strings.HasPrefix(out, "\"FAILURE: one") || !strings.HasSuffix(out, "\n4\n") || errOut != "Load failed\n" {
		t.Errorf("after a failed expect: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestRuntimeErrorStack(t *testing.T) {
	// stack.repl prints its module's hash, then fails two calls deep.
	// P5's runScript prints replError's text and "\nLoad failed": the
	// enforce's line and carets (columns 27 to 59 of line 4), then the
	// stack innermost first, each frame with its arguments abbreviated
	// and the 0-based span of its call.
	code, out, errOut := pact(t, "", "testdata/stack.repl")
	hash := strings.Trim(strings.TrimSpace(out), `"`)
	if code != 1 || hash == "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	want := "testdata/stack.repl:4:27: not negative\n" +
		" 4 |   (defun inner (n:integer) (enforce (< n 0) \"not negative\"))\n" +
		"   | " + strings.Repeat(" ", 27) + strings.Repeat("^", 32) + "\n" +
		"  at(m.inner.{" + hash + "} 12):testdata/stack.repl:4:30-4:49\n" +
		"  at(m.outer.{" + hash + "} [1 2 3 4 5 6 ...]):testdata/stack.repl:7:0-7:38\n" +
		"\n" +
		"Load failed\n"
	if errOut != want {
		t.Errorf("stderr\n%q\nwant\n%q", errOut, want)
	}
}
