package server

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// rawCommand wraps a cmd string the way a client does: its BLAKE2b-256 hash and no signatures.
func rawCommand(cmd string) *api.Command {
	return &api.Command{Hash: api.HashBytes([]byte(cmd)), Cmd: cmd}
}

// runPactCmd is what @kadena/client's runPact("(+ 1 2)") sends to local (its own unit test
// shows the shape): no meta, no networkId, no signers, with preflight and signature
// verification off.
const runPactCmd = `{"payload":{"exec":{"code":"(+ 1 2)","data":{}}},"nonce":"kjs:nonce:1690761600000","signers":[]}`

// local's rejections, with the texts of chainweb 2.32's local handler. A command without meta
// is rejected as upstream rejects it: meta is a required field of the payload in Pact 4's and
// Pact 5's decoding alike.
func TestValidateLocalRejections(t *testing.T) {
	e := open(t, Config{})
	good := build(t, cmdSpec{code: "(+ 1 2)", nonce: "vl", signers: []*api.KeyPair{alice}})
	wrongHash := *good
	wrongHash.Hash = api.HashBytes([]byte("something else"))
	wrongSig := *good
	wrongSig.Sigs = []api.UserSig{bob.SignHash(good.Hash)}
	noSig := *good
	noSig.Sigs = nil
	for _, tc := range []struct {
		name string
		cmd  *api.Command
		sigs bool
		want string
	}{
		{"runPact, no signature verification", rawCommand(runPactCmd), false, "Validation failed: meta: missing"},
		{"runPact, signature verification", rawCommand(runPactCmd), true, "Validation failed: meta: missing"},
		{"meta null", rawCommand(`{"payload":{"exec":{"code":"1","data":null}},"nonce":"","signers":[],"meta":null}`), false,
			"Validation failed: meta: expected an object, got null"},
		{"not JSON", rawCommand("(+ 1 2)"), false, "Validation failed: "},
		{"wrong hash, no signature verification", &wrongHash, false,
			"Validation failed: Hash Mismatch, received " + wrongHash.Hash.String() + " but our hashing resulted in " + good.Hash.String()},
		{"wrong hash", &wrongHash, true, `Metadata validation failed: ["The hash of the payload was invalid."]`},
		{"signature by another key", &wrongSig, true, `Metadata validation failed: ["Invalid command: Invalid sig(s) found: {\"` + alice.PublicHex() + `\":\"invalid ed25519 signature\"}"]`},
		{"no signature", &noSig, true, `Metadata validation failed: ["Invalid command: Number of sig(s) does not match number of signer(s)"]`},
	} {
		_, err := contractapi.ValidateLocal(tc.cmd, tc.sigs)
		re, ok := contractapi.IsRequestError(err)
		if !ok || !strings.HasPrefix(re.Msg, tc.want) || (!strings.HasSuffix(tc.want, ": ") && re.Msg != tc.want) {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
		// pact -s's local answers with the same error.
		_, lerr := e.Local(context.Background(), tc.cmd, contractapi.LocalOptions{SignatureVerification: tc.sigs})
		if lre, ok := contractapi.IsRequestError(lerr); !ok || re == nil || lre.Msg != re.Msg {
			t.Errorf("%s: engine's local says %v, contractapi.ValidateLocal %v", tc.name, lerr, err)
		}
	}

	// What passes: a signed command, the same with its signatures unchecked, and code that does
	// not parse, which is a failure result rather than a rejection, even unsigned.
	if c, err := contractapi.ValidateLocal(good, true); err != nil || c.SyntaxErr != nil || c.Command.Code == nil || c.Command.HashAlg != api.BLAKE2b256 {
		t.Errorf("good command: %+v %v", c, err)
	}
	if _, err := contractapi.ValidateLocal(&wrongSig, false); err != nil {
		t.Errorf("unchecked signatures: %v", err)
	}
	bad := build(t, cmdSpec{code: "(+ 1", nonce: "vl", signers: []*api.KeyPair{alice}})
	bad.Sigs = nil
	if c, err := contractapi.ValidateLocal(bad, true); err != nil || c.SyntaxErr == nil {
		t.Errorf("code that does not parse: %+v %v", c, err)
	}
	r, err := e.Local(context.Background(), bad, contractapi.DefaultLocalOptions)
	if err != nil || decode(t, r.Result).Result.Status != "failure" {
		t.Errorf("engine's local of code that does not parse: %s %v", r.Result, err)
	}
}

// Whatever the body of a local, ValidateLocal never panics, and a rejection is always a
// RequestError (a 400 with its text), never another error (a 500).
func FuzzValidateLocal(f *testing.F) {
	f.Add(runPactCmd, "", false)
	f.Add(`{"payload":{"exec":{"code":"1","data":null}},"nonce":"","signers":[],"meta":null}`, "", true)
	f.Add(`{"payload":{"cont":{"pactId":"x","step":0,"rollback":false,"data":null,"proof":null}},"nonce":"","signers":[{"pubKey":"ab"}],"meta":{"chainId":"0","sender":"s","gasLimit":1,"gasPrice":1e-7,"ttl":1,"creationTime":0}}`, "", true)
	f.Fuzz(func(t *testing.T, cmd, hash string, sigs bool) {
		c := rawCommand(cmd)
		if hash != "" {
			c.Hash = api.HashBytes([]byte(hash))
		}
		lc, err := contractapi.ValidateLocal(c, sigs)
		if err != nil {
			if _, ok := contractapi.IsRequestError(err); !ok {
				t.Fatalf("%q: not a contractapi.RequestError: %v", cmd, err)
			}
			return
		}
		if lc == nil || lc.Command == nil || lc.Command.Payload == nil {
			t.Fatalf("%q: passed without a parsed command", cmd)
		}
	})
}
