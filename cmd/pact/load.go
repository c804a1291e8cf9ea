package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/ledgernode/ledger-node/pact/repl"
)

// historyEnv names the environment variable that overrides where the
// interactive REPL keeps its history (repl.HistoryFile in the working
// directory); set to the empty string, no history is written.
const historyEnv = "PACT_HISTORY"

// runInteractive is the REPL on standard input: with line editing when
// standard input and output are the process's terminal (and that is what
// the invocation reads and writes), as a pipe when standard input is not
// a terminal, and otherwise (a dumb terminal, output redirected) the
// plain loop with prompts.
func runInteractive(inv *invocation) int {
	r := repl.New(inv.stdout)
	stdinFile, _ := inv.stdin.(*os.File)
	stdoutFile, _ := inv.stdout.(*os.File)
	interactive := stdinFile != nil && repl.IsTerminal(stdinFile)
	switch {
	case !interactive:
		ok, err := r.Pipe(inv.stdin, inv.stdout, inv.stderr)
		if err != nil {
			fmt.Fprintf(inv.stderr, "pact: %v\n", err)
			return exitFail
		}
		if !ok {
			// As P4 ends its pipe mode and P5 a failed script.
			fmt.Fprintln(inv.stderr, "Load failed")
			return exitFail
		}
		return exitOK
	case stdinFile == os.Stdin && stdoutFile == os.Stdout && repl.IsTerminal(stdoutFile) && termSupported():
		return runTerminal(r, inv)
	}
	if err := r.Interactive(inv.stdin, inv.stdout); err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitFail
	}
	return exitOK
}

// termSupported reports whether the terminal understands the VT100
// sequences line editing writes.
func termSupported() bool {
	switch strings.ToLower(os.Getenv("TERM")) {
	case "", "dumb", "cons25":
		return false
	}
	return true
}

// runTerminal is the REPL with line editing on the process's terminal.
func runTerminal(r *repl.Runner, inv *invocation) int {
	path, set := os.LookupEnv(historyEnv)
	if !set {
		path = repl.HistoryFile
	}
	t := repl.OpenTerminal(r, path)
	// Ctrl-C at the prompt cancels the form (the editor reads it as a
	// key). While a form is evaluated the terminal sends SIGINT: it stops
	// the evaluation at its next gas charge, and the prompt comes back
	// with the session as any failed form leaves it. A SIGINT at the
	// prompt (from outside), or a second one before the evaluation
	// stopped, leaves as the signal would, with the terminal's mode given
	// back, not left without echo.
	var interrupt atomic.Bool
	r.SetInterrupt(&interrupt)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	done := make(chan struct{})
	defer func() {
		signal.Stop(sigs)
		close(done)
	}()
	go func() {
		for {
			select {
			case <-sigs:
				if r.Evaluating() && !interrupt.Load() {
					interrupt.Store(true)
					continue
				}
				_ = t.Close()
				fmt.Fprintln(inv.stdout)
				os.Exit(130)
			case <-done:
				return
			}
		}
	}()
	err := r.Edit(t, inv.stdout)
	_ = t.Close()
	if err != nil {
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
	if err != nil {
		// P5's runScript: the rendered error, then "\nLoad failed"; the
		// failed tests are not listed.
		b.WriteString(r.RenderError(err) + "\n")
	} else {
		for _, f := range failures {
			fmt.Fprintf(&b, "%s:%d:%d: %s\n", f.Loc.File, f.Loc.Start.Line, f.Loc.Start.Col, f.Msg)
		}
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
