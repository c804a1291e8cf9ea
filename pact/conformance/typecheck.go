package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/typecheck"
)

// runTypecheck loads every .repl file under dir (each in a fresh REPL),
// typechecks every module and interface each installs, and counts what
// the checker says: the no-false-positive measure of issue 35 (on pact-5's
// pact-tests, marmalade, the coin contract). It returns the exit status:
// 1 if any module has a type error.
func runTypecheck(dir, only string, verbose bool) int {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".repl") && (only == "" || strings.Contains(p, only)) {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "no .repl files under %s\n", dir)
		return 2
	}
	sort.Strings(files)
	var modules, failed, errs, undecided, checks int
	for _, f := range files {
		r := repl.New(io.Discard)
		// Each version is checked as it is installed, against the modules
		// installed then (a later upgrade of a dependency is not its).
		r.In.Installed = func(m *eval.Module) {
			rep, err := typecheck.Check(r.In, m)
			if err != nil {
				fmt.Printf("%s: %s: %v\n", f, m.Name, err)
				return
			}
			modules++
			checks += rep.Checks
			undecided += len(rep.Undecided)
			if rep.Failed() {
				failed++
				errs += len(rep.Errors)
				fmt.Printf("%s: %s\n", f, rep.ErrorText())
			}
		}
		if err := bounded(func() error { return r.LoadFile(f) }); err != nil && verbose {
			fmt.Fprintf(os.Stderr, "%s: %s\n", f, repl.FormatError(err))
		}
	}
	fmt.Printf("\n%d files, %d module versions typechecked: %d with type errors (%d errors); %d of %d checks undecided\n",
		len(files), modules, failed, errs, undecided, checks)
	if failed > 0 {
		return 1
	}
	return 0
}
