package main

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
)

// Issue 35's security bug on the node: sender00 deployed a module governed by "" through
// /send, and sender01 then replaced its code. The deploy now fails in its block, as Pact 5's
// does (InvalidKeysetNameFormat), so there is no module to replace.
func TestEmptyGovernanceRefusedOnTheNode(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 2)
	deploy := devtx.Cmd{Code: `(namespace "free") (module govempty "" (defun f () 1))`, GasLimit: 100_000,
		Signers: []*api.KeyPair{devtx.Key("sender00")}, Nonce: "govempty-deploy"}.Build()
	send(t, n.url, 0, deploy)
	r := waitMined(t, n.url, 0, deploy)
	if r.Result.Status != "failure" || !strings.Contains(r.Result.Error.Message, "Invalid keyset name format") {
		t.Fatalf(`deploy governed by "": %s %s %s`, r.Result.Status, r.Result.Data, r.Result.Error.Message)
	}
	call := devtx.Cmd{Code: `(free.govempty.f)`, Sender: "sender01", Signers: []*api.KeyPair{devtx.Key("sender01")},
		Nonce: "govempty-call"}.Build()
	send(t, n.url, 0, call)
	if r := waitMined(t, n.url, 0, call); r.Result.Status != "failure" {
		t.Fatalf("the module governed by \"\" was installed: %s", r.Result.Data)
	}
}
