// Command conformance runs a directory of upstream Pact .repl files through
// our interpreter and counts, per file, whether it loads and how many
// expect* assertions pass. It prints the table pact/CONFORMANCE.md holds.
//
// The upstream files are never part of this repository: fetch
// kadena-io/pact-5 and point -dir at pact-tests/pact-tests.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/pact/repl"
)

func main() {
	dir := flag.String("dir", "", "directory of upstream .repl files (pact-tests/pact-tests of kadena-io/pact-5)")
	verbose := flag.Bool("v", false, "print each failure")
	only := flag.String("only", "", "run only files whose name contains this")
	flag.Parse()
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

// run loads one file with a fresh interpreter and a time bound.
func run(path string) (pass, fail int, err error) {
	r := repl.New(io.Discard)
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- r.LoadFile(path)
	}()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		return 0, 0, fmt.Errorf("timeout")
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
