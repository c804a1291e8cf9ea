package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledgernode/ledger-node/pact/repl"
)

// runInteractive is the REPL on standard input.
func runInteractive(inv *invocation) int {
	r := repl.New(inv.stdout)
	if err := r.Interactive(inv.stdin, inv.stdout); err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitFail
	}
	return exitOK
}

// runLoad runs FILE (or, with -r, the script found for it).
func runLoad(inv *invocation) int {
	file := inv.args[0]
	if inv.flags["findscript"] && isPactFile(file) {
		if s, ok := findScript(file); ok {
			file = s
		}
	}
	r := repl.New(inv.stdout)
	r.Trace = inv.flags["trace"]
	hooks := repl.Hooks{TracePrint: r.Trace}
	if inv.flags["coverage"] {
		hooks.Coverage = repl.NewCoverage()
		hooks.Coverage.AddFile(file)
	}
	r.Install(hooks)

	err := r.LoadFile(file)
	failures := r.Failures()

	code := exitOK
	if hooks.Coverage != nil {
		path := repl.ReportPath(file)
		if werr := hooks.Coverage.WriteReport(path); werr != nil {
			fmt.Fprintf(inv.stderr, "pact: coverage report: %v\n", werr)
			code = exitFail
		}
	}
	if err == nil && len(failures) == 0 {
		if code != exitOK {
			return code
		}
		fmt.Fprintln(inv.stdout, "Load successful")
		return exitOK
	}
	var b strings.Builder
	for _, f := range failures {
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", f.Loc.File, f.Loc.Start.Line, f.Loc.Start.Col, f.Msg)
	}
	if err != nil {
		b.WriteString(repl.FormatError(err) + "\n")
	}
	b.WriteString("Load failed\n")
	fmt.Fprint(inv.stderr, b.String())
	return exitFail
}

func isPactFile(path string) bool { return filepath.Ext(path) == ".pact" }

// findScript finds the REPL script for a .pact file: <name>.repl beside it,
// else the only .repl file of its directory.
func findScript(pactFile string) (string, bool) {
	beside := strings.TrimSuffix(pactFile, ".pact") + ".repl"
	if st, err := os.Stat(beside); err == nil && !st.IsDir() {
		return beside, true
	}
	dir := filepath.Dir(pactFile)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	var found []string
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".repl" && !e.IsDir() {
			found = append(found, e.Name())
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return filepath.Join(dir, found[0]), true
}
