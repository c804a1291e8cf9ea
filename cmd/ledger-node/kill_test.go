package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// process is a ledger-node binary running in a child process.
type process struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	exited chan error
}

var serviceLine = regexp.MustCompile(`service API on (http://[^/]+)/`)

// startProcess runs bin with args and waits until it prints its service address.
func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), stderr: new(syncBuffer), exited: make(chan error, 1)}
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := serviceLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	select {
	case p.url = <-urls:
	case err := <-p.exited:
		p.exited <- err
		t.Fatalf("node exited before serving: %v\n%s", err, p.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("node did not print its service address\n%s", p.stderr.String())
	}
	return p
}

// signal sends sig and waits for the process to exit; it returns the exit code.
func (p *process) signal(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("node did not exit after %v\n%s", sig, p.stderr.String())
	}
	p.exited <- nil // for the cleanup
	return p.cmd.ProcessState.ExitCode()
}

// checkCutServed checks that every head of the served cut is a stored, served header and that
// the heads are braided.
func checkCutServed(t *testing.T, base string, cut *ledger.Cut) {
	t.Helper()
	heads := make(actors.Heads, 20)
	for _, e := range cut.Entries {
		raw := get(t, fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/header/%s", base, e.Chain, e.Hash), "application/octet-stream")
		h, err := ledger.DecodeHeader(raw)
		if err != nil || h.Hash != e.Hash || h.Height != e.Height {
			t.Fatalf("head of chain %d: %v", e.Chain, err)
		}
		heads[e.Chain] = h
	}
	if err := actors.CheckBraided(heads); err != nil {
		t.Fatal(err)
	}
}

// TestKillDuringMining builds the binary, lets it mine, kills it with SIGKILL, and checks that
// the store opens again with a valid cut holding everything the node had served, that mining
// continues, and that SIGTERM stops it gracefully with its heads written.
func TestKillDuringMining(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary with")
	}
	t0 := time.Now()
	bin := filepath.Join(t.TempDir(), "ledger-node")
	build := []string{"build", "-o", bin}
	if raceEnabled {
		build = append(build, "-race")
	}
	if out, err := exec.Command(goBin, append(build, ".")...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	// 20 ms per block and chain: the derived genesis target (16 k hashes per block) gives a block
	// every few milliseconds even from a race-instrumented binary.
	args := []string{"--data-dir", dir, "--service-port", "0", "--block-delay", "20ms", "--log-level", "warn"}

	t.Logf("built in %v", time.Since(t0))
	p := startProcess(t, bin, args...)
	seen := waitCut(t, p.url, 3, 60*time.Second)
	t.Logf("mined to %d in %v", seen.Height, time.Since(t0))
	if code := p.signal(t, syscall.SIGKILL); code != -1 {
		t.Fatalf("SIGKILL: exit code %d", code)
	}

	// The store opens and resumes a braided cut of served headers that weighs at least as much
	// as the last cut served before the kill: blocks in a served cut were stored first.
	p = startProcess(t, bin, append(args, "--mining", "off")...)
	resumed := fetchCut(t, p.url)
	checkCutServed(t, p.url, resumed)
	if resumed.Weight.Cmp(seen.Weight) < 0 || resumed.Height < seen.Height {
		t.Fatalf("resumed at cut height %d, the killed node had served %d", resumed.Height, seen.Height)
	}
	if code := p.signal(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("SIGTERM: exit code %d\n%s", code, p.stderr.String())
	}

	// Mining continues from there.
	p = startProcess(t, bin, args...)
	low, _ := cutRange(resumed)
	grown := waitCut(t, p.url, low+2, 60*time.Second)
	t.Logf("grew to %d in %v", grown.Height, time.Since(t0))
	checkCutServed(t, p.url, grown)
	if code := p.signal(t, syscall.SIGINT); code != 0 {
		t.Fatalf("SIGINT: exit code %d\n%s", code, p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), "level=ERROR") {
		t.Fatalf("errors logged:\n%s", p.stderr.String())
	}

	// After a graceful stop the stored heads are a braided cut of stored headers.
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stored, err := db.Heads()
	if err != nil || len(stored) != 20 {
		t.Fatalf("stored heads: %d, %v", len(stored), err)
	}
	heads := make(actors.Heads, 20)
	for c, hash := range stored {
		if heads[c], err = db.Header(hash); err != nil {
			t.Fatalf("head of chain %d: %v", c, err)
		}
	}
	if err := actors.CheckBraided(heads); err != nil {
		t.Fatal(err)
	}
	if heads.Height() < grown.Height {
		t.Fatalf("stored heads at cut height %d, below the %d served before the stop", heads.Height(), grown.Height)
	}
}
