package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
)

// The request tools (spec §1.1-§1.4): -a, -u, -g, add-sig, combine-sigs
// and sign. Failures print "pact: " and the reason on standard error and
// exit 1; a command that does not verify prints "Command verification
// failed!" and the reason instead.

// now is the clock of the default nonce and creationTime (tests set it).
var now = time.Now

// runAPIReq is -a REQ_YAML [-l]: the signed command as one line of JSON,
// {"cmds":[CMD]} for /send or, with -l, CMD for /local.
func runAPIReq(inv *invocation) int {
	c, ok := buildRequest(inv, false)
	if !ok {
		return exitFail
	}
	inv.stdout.Write(append(commandOutput(c, inv.flags["local"]), '\n'))
	return exitOK
}

// runUnsigned is -u REQ_YAML: the unsigned command as SigData, printed as
// JSON (DECISIONS.md: the interface says JSON; P5 prints YAML). JSON is
// YAML, so add-sig and combine-sigs read it unchanged.
func runUnsigned(inv *invocation) int {
	c, ok := buildRequest(inv, true)
	if !ok {
		return exitFail
	}
	sd, err := api.CommandToSigData(c)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: Error decoding command: %v\n", err)
		return exitFail
	}
	inv.stdout.Write(append(sd.JSON(), '\n'))
	return exitOK
}

func buildRequest(inv *invocation, unsigned bool) (*api.Command, bool) {
	data, err := os.ReadFile(inv.arg)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return nil, false
	}
	r, err := api.ParseRequest(data)
	var c *api.Command
	if err == nil {
		c, err = r.Build(unsigned, api.BuildOptions{Dir: filepath.Dir(inv.arg), Now: now()})
	}
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %s: %v\n\nFailure reading request yaml. %s\n", inv.arg, err, api.RequestHelp)
		return nil, false
	}
	return c, true
}

// commandOutput is a command as JSON, for /local or wrapped for /send.
func commandOutput(c *api.Command, local bool) []byte {
	if local {
		return c.JSON()
	}
	return (&api.SubmitBatch{Cmds: []*api.Command{c}}).AppendJSON(nil)
}

// writeYAML writes a YAML document followed by a blank line, as P5's
// putStrLn of an encoded document does.
func writeYAML(w io.Writer, doc []byte) {
	w.Write(append(doc, '\n'))
}

// runGenKey is -g: a fresh Ed25519 key pair, "public: <hex>" and
// "secret: <hex>" (the 32-byte seed).
func runGenKey(inv *invocation) int {
	k, err := api.GenerateKeyPair(nil)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitFail
	}
	inv.stdout.Write(k.KeyFileYAML())
	return exitOK
}

func readKeyFiles(inv *invocation) ([]*api.KeyPair, bool) {
	var keys []*api.KeyPair
	for _, f := range inv.args {
		data, err := os.ReadFile(f)
		if err == nil {
			var k *api.KeyPair
			if k, err = api.ParseKeyFile(data); err == nil {
				keys = append(keys, k)
				continue
			}
		}
		fmt.Fprintf(inv.stderr, "pact: Could not parse key file %s: %v\n", f, err)
		return nil, false
	}
	return keys, true
}

// runAddSig is add-sig KEYFILE... [-l]: sign the SigData on standard input
// with each key, then print the SigData (signatures still missing) or the
// verified command (all present).
func runAddSig(inv *invocation) int {
	data, err := io.ReadAll(inv.stdin)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitFail
	}
	sd, err := api.ParseSigData(data)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: add-sig: standard input is not SigData: %v\n", err)
		return exitFail
	}
	keys, ok := readKeyFiles(inv)
	if !ok {
		return exitFail
	}
	for i, k := range keys {
		if !sd.AddSig(k) {
			fmt.Fprintf(inv.stderr, "pact: add-sig: warning: the key of %s (%s) is not a signer of this command\n", inv.args[i], k.PublicHex())
		}
	}
	return finishSigData(inv, sd)
}

// runCombineSigs is combine-sigs SIGFILE... [-l]: merge the signatures of
// SigData files for the same command, then print as add-sig does.
func runCombineSigs(inv *invocation) int {
	var sds []*api.SigData
	for _, f := range inv.args {
		data, err := os.ReadFile(f)
		if err == nil {
			var sd *api.SigData
			if sd, err = api.ParseSigData(data); err == nil {
				sds = append(sds, sd)
				continue
			}
		}
		fmt.Fprintf(inv.stderr, "pact: Error loading SigData file %s: %v\n", f, err)
		return exitFail
	}
	sd, err := api.CombineSigData(sds)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: combine-sigs: %v\n", err)
		return exitFail
	}
	return finishSigData(inv, sd)
}

func finishSigData(inv *invocation, sd *api.SigData) int {
	partial, c, err := api.FinishSigData(sd)
	switch {
	case err != nil:
		fmt.Fprintln(inv.stderr, err)
		return exitFail
	case c != nil:
		inv.stdout.Write(append(commandOutput(c, inv.flags["local"]), '\n'))
	default:
		writeYAML(inv.stdout, partial.YAML())
	}
	return exitOK
}

// runSign is sign KEYFILE...: standard input is unpadded base64url (a
// request key); print a YAML map from each public key to its signature.
func runSign(inv *invocation) int {
	data, err := io.ReadAll(inv.stdin)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitFail
	}
	keys, ok := readKeyFiles(inv)
	if !ok {
		return exitFail
	}
	es, err := api.SignBase64URL(string(data), keys)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: sign: %v\n", err)
		return exitFail
	}
	writeYAML(inv.stdout, api.SigMapYAML(es))
	return exitOK
}
