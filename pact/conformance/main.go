// Command conformance runs a directory of upstream Pact .repl files through
// our interpreter and counts, per file, whether it loads and how many
// expect* assertions pass. It prints the table pact/CONFORMANCE.md holds.
//
// The upstream files are never part of this repository: fetch
// kadena-io/pact-5 and point -dir at pact-tests/pact-tests. With
// -static-errors it instead reads upstream's list of programs Pact must
// refuse (StaticErrorTests.hs) and counts the ones we refuse.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/repl"
)

func main() {
	dir := flag.String("dir", "", "directory of upstream .repl files (pact-tests/pact-tests of kadena-io/pact-5)")
	verbose := flag.Bool("v", false, "print each failure")
	only := flag.String("only", "", "run only files whose name contains this")
	goldens := flag.String("gas-goldens", "", "directory of upstream gas goldens (pact-tests/gas-goldens): compare each file's total milligas")
	static := flag.String("static-errors", "", "upstream's pact-tests/Pact/Core/Test/StaticErrorTests.hs: count the programs it lists that we refuse")
	tc := flag.String("typecheck", "", "a directory of .repl files (searched recursively): typecheck every module they install")
	flag.Parse()
	if *tc != "" {
		os.Exit(runTypecheck(*tc, *only, *verbose))
	}
	if *static != "" {
		os.Exit(runStaticErrors(*static, *only, *verbose))
	}
	if *goldens != "" {
		os.Exit(runGasGoldens(*goldens, *only, *verbose))
	}
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: conformance -dir PATH/pact-tests/pact-tests")
		os.Exit(2)
	}
	files, err := filepath.Glob(filepath.Join(*dir, "*.repl"))
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "no .repl files in %s\n", *dir)
		os.Exit(2)
	}
	sort.Strings(files)
	expectCall := regexp.MustCompile(`\(expect(-failure|-that)?[\s)]`)
	var totPass, totFail, totWritten, loaded int
	fmt.Println("| file | loads | expects passed | expects failed | expects written |")
	fmt.Println("|---|---|---|---|---|")
	for _, f := range files {
		if *only != "" && !strings.Contains(f, *only) {
			continue
		}
		written := countWritten(f, expectCall, map[string]bool{})
		pass, fails, err := run(f)
		status := "yes"
		if err != nil {
			status = "no"
		} else if fails > 0 {
			status = "yes, with failures"
		}
		if err == nil {
			loaded++
		}
		totPass += pass
		totFail += fails
		totWritten += written
		fmt.Printf("| `%s` | %s | %d | %d | %d |\n", filepath.Base(f), status, pass, fails, written)
		if *verbose && err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s\n", filepath.Base(f), repl.FormatError(err))
		}
	}
	fmt.Printf("| **total** | %d of %d | %d | %d | %d |\n", loaded, len(files), totPass, totFail, totWritten)
	fmt.Printf("\n%d of %d assertions run passed (%.1f%%); %d assertions are written.\n",
		totPass, totPass+totFail, 100*float64(totPass)/float64(max(totPass+totFail, 1)), totWritten)
}

// bounded runs f with a time bound of a minute, turning a panic into an error: one program
// that hangs or crashes the interpreter is counted, not the end of the count.
func bounded(f func() error) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- f()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		return errTimeout
	}
}

var errTimeout = errors.New("timeout")

// run loads one file with a fresh interpreter and a time bound.
func run(path string) (pass, fail int, err error) {
	r := repl.New(io.Discard)
	err = bounded(func() error { return r.LoadFile(path) })
	if errors.Is(err, errTimeout) {
		return 0, 0, err
	}
	for _, t := range r.Results {
		if t.Passed {
			pass++
		} else {
			fail++
			if os.Getenv("CONFORMANCE_FAILS") != "" {
				fmt.Fprintf(os.Stderr, "%s:%d: %s\n", filepath.Base(path), t.Loc.Start.Line, t.Msg)
			}
		}
	}
	return pass, fail, err
}

// runGasGoldens runs each per-native gas test of upstream's gas goldens as
// upstream's GasGolden.hs does: a fresh REPL with the table model and the
// largest limit, the whole file, and its total milligas, compared with
// goldens/builtinGas.golden. It returns the exit status.
func runGasGoldens(dir, only string, verbose bool) int {
	want, err := readGolden(filepath.Join(dir, "goldens", "builtinGas.golden"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// Upstream runs them from the repository root as
	// pact-tests/gas-goldens/NAME.repl; the file name is part of what a
	// module's stored infos measure, so run them the same way.
	abs, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := os.Chdir(filepath.Dir(filepath.Dir(abs))); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rel := filepath.Join(filepath.Base(filepath.Dir(abs)), filepath.Base(abs))
	files, _ := filepath.Glob(filepath.Join(rel, "*.repl"))
	sort.Strings(files)
	match, total := 0, 0
	fmt.Println("| native | upstream mg | ours mg | |")
	fmt.Println("|---|---|---|---|")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".repl")
		if op, ok := goldenOps[name]; ok {
			name = op
		}
		if only != "" && !strings.Contains(name, only) {
			continue
		}
		up, ok := want[name]
		if !ok {
			continue // a native the latest flags do not have
		}
		total++
		r := repl.New(io.Discard)
		r.In.Gas = gas.NewMeter(gas.Table, gas.MaxMilliGas)
		got := "error"
		if err := r.LoadFile(f); err != nil {
			if verbose {
				fmt.Fprintf(os.Stderr, "%s: %s\n", name, repl.FormatError(err))
			}
		} else {
			got = strconv.FormatUint(uint64(r.In.Gas.Used()), 10)
		}
		mark := ""
		if got == up {
			match++
			mark = "ok"
		}
		fmt.Printf("| `%s` | %s | %s | %s |\n", name, up, got, mark)
	}
	fmt.Printf("\n%d of %d natives cost exactly upstream's milligas.\n", match, total)
	if match != total {
		return 1
	}
	return 0
}

// goldenOps are the natives whose test file is named otherwise
// (upstream's opToFileName).
var goldenOps = map[string]string{
	"eq": "=", "neq": "!=", "and": "&", "mult": "*", "add": "+", "sub": "-", "div": "/", "lt": "<",
	"leq": "<=", "gt": ">", "geq": ">=", "pow": "^", "and-p": "and?", "not-p": "not?", "or-p": "or?",
	"binary-or": "|", "binary-inverse": "~",
}

func readGolden(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		name, mg, ok := strings.Cut(line, ": ")
		if ok {
			out[name] = strings.TrimSpace(mg)
		}
	}
	return out, nil
}

// countWritten counts the expect calls written in a file and, following
// its (load "...") calls, in the files it loads.
func countWritten(path string, expectCall *regexp.Regexp, seen map[string]bool) int {
	if seen[path] {
		return 0
	}
	seen[path] = true
	src, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	code := stripComments(src)
	n := len(expectCall.FindAll(code, -1))
	for _, m := range loadCall.FindAllSubmatch(code, -1) {
		n += countWritten(filepath.Join(filepath.Dir(path), string(m[1])), expectCall, seen)
	}
	return n
}

var loadCall = regexp.MustCompile(`\(load\s+"([^"]+)"`)

func stripComments(src []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inStr && c == '\\' && i+1 < len(src):
			out = append(out, c, src[i+1])
			i++
			continue
		case c == '"':
			inStr = !inStr
		case !inStr && c == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			out = append(out, '\n')
			continue
		}
		out = append(out, c)
	}
	return out
}
