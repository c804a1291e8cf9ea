package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// childEnv, set in a child's environment, makes the test binary run the
// pact command line instead of the tests: the pseudo-terminal tests drive
// a real pact process without building one.
const childEnv = "PACT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Keys as a terminal sends them in raw mode.
const (
	keyEnter = "\r"
	keyUp    = "\x1b[A"
	keyLeft  = "\x1b[D"
	keyCtrlC = "\x03"
	keyCtrlD = "\x04"
	keyTab   = "\t"
)

// session is a pact REPL running on a pseudo-terminal.
type session struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File // our side
	tty  *os.File // pact's side
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // the output before this offset was matched already
	done chan struct{}
}

// startREPL starts pact with no arguments on a new pseudo-terminal, in
// dir, with its history in historyPath.
func startREPL(t *testing.T, dir, historyPath string) *session {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"=1", "TERM=xterm", historyEnv+"="+historyPath,
		// Under -race a child otherwise sleeps a second before exiting.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	// The terminal side stays open here too, so that a test can look at
	// the mode pact leaves it in.
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, cmd: cmd, ptmx: ptmx, tty: tty, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = ptmx.Close()
		_ = tty.Close()
	})
	s.expect("pact> ")
	return s
}

// send types keys.
func (s *session) send(keys string) {
	s.t.Helper()
	if _, err := s.ptmx.WriteString(keys); err != nil {
		s.t.Fatal(err)
	}
}

// expect waits for want to appear in the output after what was matched
// before, and moves past it.
func (s *session) expect(want string) {
	s.t.Helper()
	deadline := hangguard.Deadline()
	for {
		s.mu.Lock()
		out := s.out.String()
		s.mu.Unlock()
		if i := strings.Index(out[s.seen:], want); i >= 0 {
			s.seen += i + len(want)
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s; the output after %q:\n%q", hangguard.Failure(fmt.Sprintf("%q in the output", want)), out[:s.seen], out[s.seen:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rest is the output not matched yet.
func (s *session) rest() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()[s.seen:]
}

// quit ends the session with Ctrl-D and checks that pact exits 0.
func (s *session) quit() {
	s.t.Helper()
	s.send(keyCtrlD)
	s.expect("goodbye")
	if err := s.cmd.Wait(); err != nil {
		s.t.Fatalf("pact ended with %v", err)
	}
}

func TestREPLUpArrowRecallsTheLastForm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startREPL(t, dir, filepath.Join(dir, "history"))
	s.send("(+ 40 2)" + keyEnter)
	s.expect("42")
	s.expect("pact> ")
	s.send(keyUp)
	// The recalled form is drawn on the prompt line...
	s.expect("(+ 40 2)")
	s.send(keyEnter)
	// ...and evaluated again.
	s.expect("42")
	s.expect("pact> ")
	s.quit()
}

func TestREPLHistorySurvivesARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	history := filepath.Join(dir, "history")
	s := startREPL(t, dir, history)
	// A form typed on two lines comes back as one.
	s.send("(+ 1" + keyEnter)
	s.expect("....> ")
	s.send("1000)" + keyEnter)
	s.expect("1001")
	s.send("(* 6 7)" + keyEnter)
	s.expect("42")
	s.quit()

	data, err := os.ReadFile(history)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first, as haskeline (P5's REPL) writes its history.
	if string(data) != "(* 6 7)\n(+ 1 1000)\n" {
		t.Fatalf("history file %q", data)
	}

	s = startREPL(t, dir, history)
	s.send(keyUp + keyUp)
	s.expect("(+ 1 1000)")
	s.send(keyEnter)
	s.expect("1001")
	s.quit()
}

func TestREPLCtrlCDropsTheForm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startREPL(t, dir, filepath.Join(dir, "history"))
	s.send("(+ 1" + keyEnter)
	s.expect("....> ")
	s.send("(* 2" + keyCtrlC)
	// A fresh prompt, not a continuation: the half-typed form is gone.
	s.expect("^C")
	s.expect("pact> ")
	s.send("(+ 2 3)" + keyEnter)
	s.expect("5")
	s.expect("pact> ")
	if strings.Contains(s.rest(), "....>") {
		t.Fatalf("still continuing a form: %q", s.rest())
	}
	s.quit()
}

func TestREPLTabCompletesModuleMembers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startREPL(t, dir, filepath.Join(dir, "history"))
	s.send(`(module coin G (defcap G () true) (defun transfer (a:string) (+ a "!")) (defun transfer-create () 1))` + keyEnter)
	s.expect(`"Loaded module coin, hash `)
	s.expect("pact> ")
	// coin.tr completes to the common prefix of coin.transfer and
	// coin.transfer-create.
	s.send("(coin.tr" + keyTab)
	s.expect("coin.transfer")
	s.send(` "sent")` + keyEnter)
	// Only the completed name evaluates: (coin.tr "sent") would fail.
	s.expect(`"sent!"`)
	s.expect("pact> ")
	s.quit()
}

func TestREPLCtrlDInAFormSaysGoodbye(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startREPL(t, dir, "")
	s.send("(+ 1" + keyEnter)
	s.expect("....> ")
	s.quit()
	if _, err := os.Stat(filepath.Join(dir, ".pc-history")); !os.IsNotExist(err) {
		t.Fatalf("history written although %s was empty: %v", historyEnv, err)
	}
}

func TestREPLPastedLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startREPL(t, dir, filepath.Join(dir, "history"))
	// Lines that arrive at once, as a paste sends them, are read one by
	// one: none is lost between two prompts.
	s.send("(+ 1" + keyEnter + "  2)" + keyEnter + "(+ 3 4)" + keyEnter + `"x"` + keyEnter)
	s.expect("3")
	s.expect("7")
	s.expect(`"x"`)
	s.quit()
}

func TestREPLLeftArrowMovesTheCursor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startREPL(t, dir, filepath.Join(dir, "history"))
	// Typed at the cursor moved back before ")": (+ 1 1000), where a
	// terminal without line editing would read "\x1b[D" into the form
	// (the lexer's "unexpected character" and an open "[").
	s.send("(+ 1 )" + keyLeft + "1000" + keyEnter)
	s.expect("1001")
	s.expect("pact> ")
	s.send("(+ 1 1)" + keyEnter)
	s.expect("2")
	s.quit()
}
