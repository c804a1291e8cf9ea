package main

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/pactsrvtest"
	"github.com/ledgernode/ledger-node/pact/api"
)

// startPactServer runs pact -s (its engine behind its HTTP server) in-process on a free port
// and returns its base URL.
func startPactServer(t *testing.T) string {
	url, _ := pactsrvtest.Start(t)
	return url
}

// The node and pact -s reject the same bad command sent to local with the same 400, byte for
// byte: both validate it with contractapi.ValidateLocal. Among them the command @kadena/client's
// runPact sends (no meta, no networkId), which upstream rejects too, meta being required.
func TestLocalRejectionsSameOnNodeAndPactServer(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 1)
	pactS := startPactServer(t)

	raw := func(cmd string) *api.Command { return &api.Command{Hash: api.HashBytes([]byte(cmd)), Cmd: cmd} }
	runPact := raw(`{"payload":{"exec":{"code":"(+ 1 2)","data":{}}},"nonce":"kjs:nonce:1690761600000","signers":[]}`)
	good := devtx.Transfer("sender00", "sender01", "1.0", "0").Build()
	wrongHash := *good
	wrongHash.Hash = api.HashBytes([]byte("another payload"))
	otherKey := *good
	otherKey.Sigs = []api.UserSig{devtx.Key("sender01").SignHash(good.Hash)}
	unsigned := *good
	unsigned.Sigs = nil

	for _, tc := range []struct {
		name, query string
		body        []byte
		want        string // "" when only the sameness is checked
	}{
		{"runPact", "?preflight=false&signatureVerification=false", runPact.JSON(), "Validation failed: meta: missing"},
		{"runPact, signatures verified", "", runPact.JSON(), "Validation failed: meta: missing"},
		{"runPact, preflight", "?preflight=true", runPact.JSON(), "Validation failed: meta: missing"},
		{"meta null", "?signatureVerification=false",
			raw(`{"payload":{"exec":{"code":"1","data":null}},"nonce":"","signers":[],"meta":null}`).JSON(), ""},
		{"no payload", "", raw(`{"nonce":"","signers":[],"meta":{}}`).JSON(), ""},
		{"cmd not JSON", "?signatureVerification=false", raw("(+ 1 2)").JSON(), ""},
		{"wrong hash, signatures unchecked", "?signatureVerification=false", wrongHash.JSON(),
			"Validation failed: Hash Mismatch, received " + wrongHash.Hash.String() + " but our hashing resulted in " + good.Hash.String()},
		{"wrong hash", "", wrongHash.JSON(), `Metadata validation failed: ["The hash of the payload was invalid."]`},
		{"signature by another key", "", otherKey.JSON(), ""},
		{"no signature", "?preflight=true", unsigned.JSON(), ""},
		{"not a command", "", []byte(`{"hash":1}`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns, nb := post(t, pactURL(n.url, 0, "local")+tc.query, tc.body)
			ps, pb := post(t, pactS+"/api/v1/local"+tc.query, tc.body)
			if ns != 400 || ps != 400 || string(nb) != string(pb) {
				t.Errorf("node %d %s\npact -s %d %s", ns, nb, ps, pb)
			}
			if tc.want != "" && string(nb) != tc.want {
				t.Errorf("node %s\nwant %s", nb, tc.want)
			}
			if strings.Contains(string(nb), "Validation failed for hash") {
				t.Errorf("pact -s's send wording on local: %s", nb)
			}
		})
	}
	if n := n.node.svc.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}

// The same for /send: the rejections both make (a payload that does not decode or carries
// private metadata, a wrong hash, wrong or missing signatures) read the same, byte for byte,
// with the texts of the node's mempool (chainweb's), shared through pact/api.
func TestSendRejectionsSameOnNodeAndPactServer(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 1)
	pactS := startPactServer(t)

	build := func(nonce string) *api.Command {
		c := devtx.Transfer("sender00", "sender01", "1.0", "0")
		c.Nonce = nonce
		return c.Build()
	}
	noMeta := &api.Command{Cmd: `{"payload":{"exec":{"code":"(+ 1 2)","data":{}}},"nonce":"send-nometa","signers":[]}`}
	noMeta.Hash = api.HashBytes([]byte(noMeta.Cmd))
	private := &api.Command{Cmd: `{"payload":{"exec":{"code":"1","data":null}},"nonce":"p","signers":[],"meta":{"address":{"from":"alice","to":["bob"]}}}`}
	private.Hash = api.HashBytes([]byte(private.Cmd))
	wrongHash := build("send-wrong-hash")
	wrongHash.Hash = api.HashBytes([]byte("another payload"))
	otherKey := build("send-other-key")
	otherKey.Sigs = []api.UserSig{devtx.Key("sender01").SignHash(otherKey.Hash)}
	unsigned := build("send-unsigned")
	unsigned.Sigs = nil

	for _, tc := range []struct {
		name string
		cmds []*api.Command
		want string // "" when only the sameness is checked
	}{
		{"no meta", []*api.Command{build("send-ok-1"), noMeta}, "reading JSON for transaction failed: meta: missing"},
		{"private metadata", []*api.Command{private}, "reading JSON for transaction failed: meta: the command has private metadata; submit it to /private"},
		{"wrong hash", []*api.Command{wrongHash},
			`One or more transactions were invalid: Transaction "` + wrongHash.Hash.String() + `" at index 0 failed with: Invalid transaction hash`},
		{"signature by another key", []*api.Command{otherKey}, ""},
		{"no signature", []*api.Command{unsigned},
			`One or more transactions were invalid: Transaction "` + unsigned.Hash.String() + `" at index 0 failed with: ` +
				"Invalid transaction sigs: The number of signers and signatures do not match. Number of signers: 1. Number of signatures: 0."},
		{"two bad of three", []*api.Command{otherKey, build("send-ok-2"), wrongHash}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := (&api.SubmitBatch{Cmds: tc.cmds}).AppendJSON(nil)
			ns, nb := post(t, pactURL(n.url, 0, "send"), body)
			ps, pb := post(t, pactS+"/api/v1/send", body)
			if ns != 400 || ps != 400 || string(nb) != string(pb) {
				t.Errorf("node %d %s\npact -s %d %s", ns, nb, ps, pb)
			}
			if tc.want != "" && string(nb) != tc.want {
				t.Errorf("node %s\nwant %s", nb, tc.want)
			}
		})
	}
	if n := n.node.svc.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}
