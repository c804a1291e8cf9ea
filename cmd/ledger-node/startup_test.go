package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
)

// A node whose service or peer port is taken exits with an error naming the port before it
// creates the data directory: nothing is written, no block is mined, and the directory is not
// bound to this run's block delay.
func TestPortTakenLeavesNoDataDir(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := fmt.Sprint(taken.Addr().(*net.TCPAddr).Port)

	for _, tc := range []struct{ name, flag, other, want string }{
		{"service", "--service-port", "--p2p-port", "service API"},
		{"peer", "--p2p-port", "--service-port", "peer API"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			var stderr bytes.Buffer
			code := run([]string{"--data-dir", dir, "--service-interface", "127.0.0.1", "--p2p-interface", "127.0.0.1",
				tc.flag, port, tc.other, "0", "--block-delay", "2s"}, io.Discard, &stderr)
			msg := stderr.String()
			if code != 1 || !strings.Contains(msg, tc.want) || !strings.Contains(msg, ":"+port) ||
				!strings.Contains(msg, tc.flag) || !strings.Contains(msg, "address already in use") {
				t.Fatalf("exit %d, stderr %q: want exit 1 naming the %s port %s and %s", code, msg, tc.want, port, tc.flag)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("the data directory was created (stat: %v)", err)
			}
		})
	}
}

// A fresh development node mines the first blocks of every chain before it answers, so a
// transfer created and sent the moment /health-check answers is accepted (not refused as
// created too far ahead of the 2019 genesis blocks) and mined. The node runs on the genesis
// target derived from its block delay, as `make run` does, not on a test target; the delay is
// short so that the race detector's slow hashing keeps the test quick.
func TestDevTransferRightAfterHealthCheck(t *testing.T) {
	start := time.Now()
	n := startNodeOpts(t, nodeOptions{workers: 2}, "--data-dir", t.TempDir(), "--block-delay", "100ms",
		"--miner-key", devMinerKey)
	client := &http.Client{Timeout: 60 * time.Second}
	for {
		resp, err := client.Get(n.url + "/health-check")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("/health-check: %d after a minute", resp.StatusCode)
		}
	}
	ready := time.Since(start)
	if low, _ := cutRange(n.node.rt.Cut()); low < devStartHeight {
		t.Fatalf("/health-check answered with a chain at height %d", low)
	}
	spec := devtx.Transfer("sender00", "sender01", "1.5", "7")
	spec.CreationTime = time.Now().Unix() // what a client sets: now, not a little before
	cmd := spec.Build()
	status, body := post(t, pactURL(n.url, 7, "send"), (&api.SubmitBatch{Cmds: []*api.Command{cmd}}).AppendJSON(nil))
	if status != 200 {
		t.Fatalf("send right after /health-check answered: %d %s", status, body)
	}
	status, body = post(t, pactURL(n.url, 7, "listen"), []byte(`{"listen":"`+cmd.Hash.String()+`"}`))
	if res := decodeResult(t, body); status != 200 || res.Result.Status != "success" || res.MetaData == nil {
		t.Fatalf("listen: %d %s", status, body)
	}
	t.Logf("/health-check answered %v after start; the transfer was mined %v after start",
		ready.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if s := n.out.String(); !strings.Contains(s, "every chain is at height 2 after") {
		t.Fatalf("the node did not report the first blocks:\n%s", s)
	}
}

// A data directory made by an earlier build, whose development genesis target had no first-epoch
// speed-up, is refused with a message that says so and names the delay it was made with.
func TestEarlierBuildsDataDirRefused(t *testing.T) {
	dir := t.TempDir()
	old := pow.LegacyDevGenesisTarget(30 * time.Second)
	n := startNodeOpts(t, nodeOptions{genesisTarget: &old}, "--data-dir", dir, "--mining", "off")
	n.stop()
	var stderr bytes.Buffer
	code := run([]string{"--data-dir", dir, "--service-port", "0", "--p2p-port", "0"}, io.Discard, &stderr)
	if msg := stderr.String(); code != 1 || !strings.Contains(msg, "another block delay") ||
		!strings.Contains(msg, "before the development network's first blocks got cheap made it (--block-delay 30s then)") {
		t.Fatalf("exit %d: %s", code, msg)
	}
}
