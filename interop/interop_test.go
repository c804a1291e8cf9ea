package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/pactsrvtest"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
)

type check struct {
	Name   string          `json:"name"`
	OK     bool            `json:"ok"`
	Detail json.RawMessage `json:"detail"`
}

type report struct {
	OK           bool              `json:"ok"`
	Checks       []check           `json:"checks"`
	Transactions []json.RawMessage `json:"transactions"`
}

var installOnce sync.Once
var installErr error

// nodeReady finds node and the installed packages (installing them with
// npm ci when node_modules is missing); without node the test skips.
func nodeReady(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the @kadena/client interoperability checks need Node.js (and npm ci in interop/)")
	}
	installOnce.Do(func() {
		// Every package the scripts require must be there: a node_modules installed before
		// package.json gained one (client-utils) is stale too.
		installed := true
		for _, pkg := range []string{"client", "client-utils", "cryptography-utils"} {
			if _, err := os.Stat(filepath.Join("node_modules", "@kadena", pkg, "package.json")); err != nil {
				installed = false
			}
		}
		if installed {
			return
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			installErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund").CombinedOutput()
		if err != nil {
			installErr = &installError{err, out}
		}
	})
	if installErr != nil {
		// make test sets LEDGER_NODE_REQUIRE_INTEROP when its npm ci succeeded: then a missing
		// package is a failure; otherwise the install was impossible here.
		if os.Getenv("LEDGER_NODE_REQUIRE_INTEROP") != "" {
			t.Fatalf("interop/node_modules is missing and npm ci failed (run `make interop-deps`): %v", installErr)
		}
		t.Skipf("skipping the @kadena/client interoperability checks: interop/node_modules is missing and npm ci failed (no npm registry?): %v", installErr)
	}
	return node
}

type installError struct {
	err error
	out []byte
}

func (e *installError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// runNode runs client.js with args and decodes its report.
func runNode(t *testing.T, node string, args ...string) report {
	t.Helper()
	return runScript(t, node, "client.js", args...)
}

// runScript runs a report-printing script (client.js, node_scenario.js) with args, reports
// each failed check as a test error, and decodes its report.
func runScript(t *testing.T, node, script string, args ...string) report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var r report
	if jerr := json.Unmarshal(stdout.Bytes(), &r); jerr != nil {
		t.Fatalf("node %s %v: %v (%v)\nstdout: %s\nstderr: %s", script, args, err, jerr, stdout.Bytes(), stderr.Bytes())
	}
	for _, c := range r.Checks {
		if !c.OK {
			t.Errorf("%s: %s", c.Name, c.Detail)
		}
	}
	if !r.OK || err != nil {
		t.Errorf("node %s %v: exit %v, stderr: %s", script, args, err, stderr.Bytes())
	}
	if len(r.Checks) == 0 {
		t.Error("no checks ran")
	}
	return r
}

// startServer runs the pact -s server (engine and HTTP) on a free port.
func startServer(t *testing.T) (string, *contracthttp.ContractServer) { return pactsrvtest.Start(t) }

// Commands built and signed by @kadena/client: the server accepts them,
// runs them, and computes the request keys the client computed; Go's
// verifier agrees with both.
func TestKadenaClient(t *testing.T) {
	node := nodeReady(t)
	base, srv := startServer(t)
	r := runNode(t, node, "server", base)
	if len(r.Transactions) < 5 {
		t.Fatalf("only %d transactions", len(r.Transactions))
	}
	for _, raw := range r.Transactions {
		c, err := api.DecodeCommand(raw)
		if err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		pc, err := api.VerifyCommand(c)
		if err != nil {
			t.Errorf("%v: %s", err, raw)
			continue
		}
		if pc.HashAlg != api.BLAKE2b256 || pc.RequestKey.String() != api.RequestKey(c.Cmd) {
			t.Errorf("request key %s (%v) for %s", pc.RequestKey, pc.HashAlg, c.Cmd)
		}
	}
	if n := srv.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}

// A command built and signed by pact -a verifies with
// @kadena/cryptography-utils.
func TestCryptographyUtilsVerifiesOurSignatures(t *testing.T) {
	node := nodeReady(t)
	c, err := api.BuildRequestFile(filepath.Join("..", "cmd", "pact", "testdata", "request", "signed.yaml"), false, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sigs) != 2 {
		t.Fatalf("want two signatures, got %d", len(c.Sigs))
	}
	f := filepath.Join(t.TempDir(), "cmd.json")
	if err := os.WriteFile(f, c.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	runNode(t, node, "verify", f)
}
