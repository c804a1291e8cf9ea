package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// The published devnet miner key: node_scenario.js checks that the gas of its transfers is paid
// to k:<this key>.
const devMinerKey = "f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f"

// serviceLine is how the node announces its address on standard output; with --service-port 0
// it is the only way to learn the port.
var serviceLine = regexp.MustCompile(`service API on (http://[^/\s]+)/chainweb/0\.0/development/`)

// devNode is a ledger-node binary running as a child process.
type devNode struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncbuf.Buffer
	exited chan struct{} // closed once cmd.Wait returned
}

// buildNode builds cmd/ledger-node into a temporary directory. It builds the tree as it is,
// so the test runs the node the rest of the repository is at.
func buildNode(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the ledger-node binary with")
	}
	bin := filepath.Join(t.TempDir(), "ledger-node")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/ledger-node")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ledger-node: %v\n%s", err, out)
	}
	return bin
}

// startDevNode runs bin and waits until it prints its service address. The process is killed
// in a cleanup, so a failing test does not leave it mining.
func startDevNode(t *testing.T, bin string, args ...string) *devNode {
	t.Helper()
	n := &devNode{cmd: exec.Command(bin, args...), stderr: new(syncbuf.Buffer), exited: make(chan struct{})}
	n.cmd.Stderr = n.stderr
	out, err := n.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := serviceLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		// Keep draining, so that a node writing more than a pipe holds never blocks.
		io.Copy(io.Discard, out)
	}()
	go func() {
		n.cmd.Wait()
		close(n.exited)
	}()
	t.Cleanup(func() {
		n.cmd.Process.Kill()
		<-n.exited
	})
	select {
	case n.url = <-urls:
	case <-n.exited:
		t.Fatalf("node exited before serving: %v\n%s", n.cmd.ProcessState, n.stderr.String())
	case <-hangguard.After():
		t.Fatalf("node did not print its service address\n%s", n.stderr.String())
	}
	return n
}

// waitHeights polls the cut until all 20 chains are at height low or more: then coinbase and
// transactions have been executed on every chain, and each chain mines the next blocks.
func (n *devNode) waitHeights(t *testing.T, low uint64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		var cut struct {
			Hashes map[string]struct {
				Height uint64 `json:"height"`
			} `json:"hashes"`
		}
		resp, err := http.Get(n.url + "/chainweb/0.0/development/cut")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = fmt.Sprintf("%d %s", resp.StatusCode, body)
			if resp.StatusCode == http.StatusOK && json.Unmarshal(body, &cut) == nil && len(cut.Hashes) == 20 {
				ready := true
				for _, h := range cut.Hashes {
					ready = ready && h.Height >= low
				}
				if ready {
					return
				}
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v not all 20 chains are at height %d; last cut: %s\n%s", timeout, low, last, n.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and returns the exit code.
func (n *devNode) stop(t *testing.T) int {
	t.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.exited:
	case <-hangguard.After():
		t.Fatalf("%s\n%s", hangguard.Failure("the node's exit after SIGTERM"), n.stderr.String())
	}
	return n.cmd.ProcessState.ExitCode()
}

// TestKadenaClientAgainstNode runs node_scenario.js against a mining development node: balances
// read with local, a capability-scoped coin.transfer built and signed by @kadena/client,
// preflighted, submitted, listened for and polled, the balances after it (gas included), the
// rejection of a signature by the wrong key, and a transfer-create on another chain. Then
// xchain_scenario.js on the same node: a cross-chain transfer from chain 0 to chain 7 (step 0,
// pollCreateSpv, step 1, the balances on both chains, a replayed step 1 refused), and one
// finished unsigned through the kadena-xchain-gas gas station.
func TestKadenaClientAgainstNode(t *testing.T) {
	node := nodeReady(t)
	t0 := time.Now()
	bin := buildNode(t)
	t.Logf("built in %v", time.Since(t0))

	// 20 ms per block and chain: the scenario waits for each of its transactions to be mined.
	n := startDevNode(t, bin, "--data-dir", t.TempDir(), "--service-port", "0", "--p2p-port", "0",
		"--block-delay", "20ms", "--log-level", "warn", "--miner-key", devMinerKey)
	n.waitHeights(t, 2, 30*time.Second)
	t.Logf("node at %s mining in %v", n.url, time.Since(t0))

	// The scenarios run one after the other: both move sender00's coin on chain 0 and check its
	// balance exactly.
	for _, script := range []string{"node_scenario.js", "xchain_scenario.js"} {
		t1 := time.Now()
		r := runScript(t, node, script, n.url)
		t.Logf("%s: %d checks, %d transactions in %v", script, len(r.Checks), len(r.Transactions), time.Since(t1))
	}
	if t.Failed() {
		t.Logf("node stderr:\n%s", n.stderr.String())
	}

	if code := n.stop(t); code != 0 {
		t.Errorf("SIGTERM: exit code %d\n%s", code, n.stderr.String())
	}
	// At warn level a healthy run logs no errors; one here is a node fault the client did not see.
	if s := n.stderr.String(); strings.Contains(s, "level=ERROR") {
		t.Errorf("the node logged errors:\n%s", s)
	}
}
