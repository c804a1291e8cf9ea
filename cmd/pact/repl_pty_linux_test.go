package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// echoes reports whether the terminal echoes what is typed, as a shell
// needs it to after pact.
func echoes(t *testing.T, tty *os.File) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}

func TestREPLInterruptOutsideThePromptRestoresTheTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startREPL(t, dir, filepath.Join(dir, "history"))
	if echoes(t, s.tty) {
		t.Fatal("the terminal echoes while pact edits the line")
	}
	// What the terminal sends on Ctrl-C during an evaluation; at the
	// prompt the key is read as a key, so this is a signal from outside.
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := s.cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("pact ended with %v, want exit status 130", err)
	}
	if !echoes(t, s.tty) {
		t.Fatal("pact left the terminal without echo")
	}
}

// Ctrl-C during a long evaluation (the terminal's SIGINT) stops it and brings the prompt back
// with the session intact; the terminal still echoes nothing while pact edits the line.
func TestREPLInterruptStopsTheEvaluation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startREPL(t, dir, filepath.Join(dir, "history"))
	s.send(`(defun sq (x) (* x x))` + keyEnter)
	s.expect("Loaded repl defun sq")
	// Tens of seconds of work that prints first, so that the signal comes during it. The text
	// printed is built, so that the terminal's echo of the line (which has "star" and "ted"
	// apart) cannot be taken for it: a signal sent on the echo came before the evaluation.
	s.send(`(do (print (+ "star" "ted")) (fold (lambda (a x) (+ a (length (int-to-str 10 (^ 7 3000))))) 0 (enumerate 1 1000000)))` + keyEnter)
	s.expect("started")
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	s.expect("Execution interrupted: Ctrl-C")
	s.expect("pact> ")
	s.send(`(sq 7)` + keyEnter)
	s.expect("49")
	if echoes(t, s.tty) {
		t.Fatal("the terminal echoes while pact edits the line again")
	}
	s.quit()
}
