package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// buildBinary builds the ledger-node binary once per test run (race-instrumented under -race).
func buildBinary(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary with")
	}
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "ledger-node-bin"); binErr != nil {
			return
		}
		build := []string{"build", "-o", filepath.Join(binDir, "ledger-node")}
		if raceEnabled {
			build = append(build, "-race")
		}
		if out, err := exec.Command(goBin, append(build, ".")...).CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "ledger-node")
}

// process is a ledger-node binary running in a child process.
type process struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncbuf.Buffer
	exited chan error
}

var serviceLine = regexp.MustCompile(`service API on (http://[^/]+)/`)

// startProcess runs bin with args and waits until it prints its service address.
func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), stderr: new(syncbuf.Buffer), exited: make(chan error, 1)}
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
	case <-hangguard.After():
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
	case <-hangguard.After():
		t.Fatalf("node did not exit after %v\n%s", sig, p.stderr.String())
	}
	p.exited <- nil // for the cleanup
	return p.cmd.ProcessState.ExitCode()
}

// checkCutServed checks that every head of the served cut is a stored, served header and that
// the heads are braided.
func checkCutServed(t *testing.T, base string, cut *ledger.Cut) {
	t.Helper()
	heads := make(pow.Heads, 20)
	for _, e := range cut.Entries {
		raw := get(t, fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/header/%s", base, e.Chain, e.Hash), "application/octet-stream")
		h, err := ledger.DecodeHeader(raw)
		if err != nil || h.Hash != e.Hash || h.Height != e.Height {
			t.Fatalf("head of chain %d: %v", e.Chain, err)
		}
		heads[e.Chain] = h
	}
	if err := pow.CheckBraided(heads); err != nil {
		t.Fatal(err)
	}
}

// TestKillDuringMining builds the binary, lets it mine, kills it with SIGKILL, and checks that
// the store opens again with a valid cut holding everything the node had served, that mining
// continues, and that SIGTERM stops it gracefully with its heads written.
func TestKillDuringMining(t *testing.T) {
	t.Parallel() // mostly waits on other processes and peers: it overlaps with the other slow ones
	t0 := time.Now()
	bin := buildBinary(t)
	dir := t.TempDir()
	// 20 ms per block and chain: the derived genesis target (16 k hashes per block) gives a block
	// every few milliseconds even from a race-instrumented binary.
	args := []string{"--data-dir", dir, "--service-port", "0", "--p2p-port", "0", "--block-delay", "20ms", "--log-level", "warn"}

	t.Logf("built in %v", time.Since(t0))
	p := startProcess(t, bin, args...)
	seen := waitCut(t, p.url, 3)
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
	grown := waitCut(t, p.url, low+2)
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
	heads := make(pow.Heads, 20)
	for c, hash := range stored {
		if heads[c], err = db.Header(hash); err != nil {
			t.Fatalf("head of chain %d: %v", c, err)
		}
	}
	if err := pow.CheckBraided(heads); err != nil {
		t.Fatal(err)
	}
	if heads.Height() < grown.Height {
		t.Fatalf("stored heads at cut height %d, below the %d served before the stop", heads.Height(), grown.Height)
	}
}

// A SIGKILL while blocks are being mined and transactions sent, and a restart: every result
// poll returned before the kill is returned after it, byte for byte.
func TestKillKeepsResults(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--service-port", "0", "--p2p-port", "0", "--block-delay", "20ms", "--log-level", "warn",
		"--miner-key", devMinerKey}
	p := startProcess(t, bin, args...)
	waitCut(t, p.url, 2)

	// Transfers on five chains, three on chain 0.
	var cmds []*api.Command
	byChain := map[*api.Command]int{}
	for i, c := range []int{0, 1, 2, 3, 4, 0, 0} {
		spec := devtx.Transfer("sender00", "sender01", fmt.Sprintf("%d.5", i+1), fmt.Sprint(c))
		cmd := spec.Build()
		send(t, p.url, c, cmd)
		cmds = append(cmds, cmd)
		byChain[cmd] = c
	}
	before := map[string][]byte{}
	deadline := time.Now().Add(60 * time.Second)
	for len(before) < len(cmds) {
		for _, cmd := range cmds {
			if r, ok := pollOne(t, p.url, byChain[cmd], cmd); ok {
				before[cmd.Hash.String()] = r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d transactions were mined", len(before), len(cmds))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// More in flight at the kill: they may or may not survive, but must not break the restart.
	for c := range 5 {
		send(t, p.url, c, devtx.Transfer("sender02", "sender03", "0.5", fmt.Sprint(c)).Build())
	}
	if code := p.signal(t, syscall.SIGKILL); code != -1 {
		t.Fatalf("SIGKILL: exit code %d", code)
	}

	p = startProcess(t, bin, append(args, "--mining", "off")...)
	for _, cmd := range cmds {
		r, ok := pollOne(t, p.url, byChain[cmd], cmd)
		if !ok {
			t.Errorf("%s: result lost in the restart", cmd.Hash)
			continue
		}
		if want := before[cmd.Hash.String()]; string(r) != string(want) {
			t.Errorf("%s: result changed in the restart\n got %s\nwant %s", cmd.Hash, r, want)
		}
	}
	if code := p.signal(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("SIGTERM: exit code %d\n%s", code, p.stderr.String())
	}
}

// pollOne polls one request key on chain c and returns its result, false when not found.
func pollOne(t *testing.T, base string, c int, cmd *api.Command) ([]byte, bool) {
	t.Helper()
	status, body := post(t, pactURL(base, c, "poll"), []byte(`{"requestKeys":["`+cmd.Hash.String()+`"]}`))
	if status != 200 {
		t.Fatalf("poll: %d %s", status, body)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	r, ok := m[cmd.Hash.String()]
	return r, ok
}

// TestMain removes the binary buildBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
