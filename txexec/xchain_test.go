package txexec_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/txexec"
)

// genesisOn runs chain c's development genesis on a fresh MemDB.
func genesisOn(t *testing.T, r *txexec.Runner, c int, chain string) *db.MemDB {
	t.Helper()
	st := db.NewMemDB()
	cmds, err := txexec.GenesisCommands(contracts.DevelopmentGenesis(c), chain, "development")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range cmds {
		b := block(0)
		b.ChainID = chain
		if _, err := r.Genesis(st, b, cmd); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// A cross-chain transfer from chain 0 to chain 3, with the proof checked by a stand-in
// verifier: step 1 credits the receiver once; a second continuation, a proof for another
// chain and a failed verification are each refused.
func TestCrossChainContinuation(t *testing.T) {
	r := txexec.New(txexec.Config{})
	src, dst := genesisOn(t, r, 0, "0"), genesisOn(t, r, 3, "3")
	receiver := devtx.Key("sender01").PublicHex()

	step0 := func(target string) (output []byte, pactID string) {
		c := devtx.CrossChainTransfer("sender00", "sender01", receiver, "5.0", "0", target).Build()
		return startDefpact(t, r, src, block(1), c)
	}
	out, pactID := step0("3")
	if pactID == "" {
		t.Fatalf("step 0 started no defpact: %s", out)
	}

	dstBlock := block(1)
	dstBlock.ChainID = "3"
	dstBlock.SPV = func(proof string) ([]byte, error) {
		if proof != "good" {
			return nil, errors.New("the proof does not verify")
		}
		return out, nil
	}
	before := mustDec(t, balanceOn(t, r, dst, "3", "sender01"))
	cont := func(proof string) (string, string) {
		a, err := r.Apply(dst, dstBlock, parsed(t, devtx.Continuation(pactID, 1, proof, "3", "sender02").Build()))
		if err != nil {
			t.Fatal(err)
		}
		res := decode(t, a.Result)
		return res.Result.Status, res.Result.Error.Message
	}
	if st, msg := cont("forged"); st != "failure" || !strings.Contains(msg, "SPV verification failed") {
		t.Errorf("a proof that fails verification: %s %s", st, msg)
	}
	if st, msg := cont("good"); st != "success" {
		t.Fatalf("step 1: %s %s", st, msg)
	}
	if got, want := mustDec(t, balanceOn(t, r, dst, "3", "sender01")), before.Add(mustDec(t, "5.0")); !got.Equal(want) {
		t.Errorf("receiver on chain 3: %s, want %s", got, want)
	}
	if st, msg := cont("good"); st != "failure" || !strings.Contains(msg, "Requested defpact already completed") {
		t.Errorf("a replayed continuation: %s %s", st, msg)
	}

	// A transfer meant for chain 5 does not complete on chain 3.
	out, pactID = step0("5")
	if st, msg := cont("good"); st != "failure" || !strings.Contains(msg, "provenance") {
		t.Errorf("a continuation on the wrong chain: %s %s", st, msg)
	}
}

// startDefpact applies c, the first step of a defpact, on st and returns its output (what a
// proof of it carries) and the defpact's id.
func startDefpact(t *testing.T, r *txexec.Runner, st db.DB, b *txexec.Block, c *api.Command) (output []byte, pactID string) {
	t.Helper()
	a, err := r.Apply(st, b, parsed(t, c))
	if err != nil || a.Failed {
		t.Fatalf("step 0: %v %s", err, a.Result)
	}
	var res struct {
		Continuation struct {
			PactID string `json:"pactId"`
		} `json:"continuation"`
	}
	json.Unmarshal(a.Result, &res)
	return a.Result, res.Continuation.PactID
}

// balanceOn reads a balance on the chain of st.
func balanceOn(t *testing.T, r *txexec.Runner, st db.DB, chain, account string) string {
	t.Helper()
	c := devtx.Cmd{Chain: chain, Code: `(format "{}" [(coin.get-balance "` + account + `")])`}.Build()
	b := block(9)
	b.ChainID = chain
	out, err := r.Local(st, b, parsed(t, c), false)
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, out)
	var text string
	if err := json.Unmarshal(res.Result.Data, &text); err != nil {
		t.Fatalf("%s", out)
	}
	return text
}

// A defpact nested in another yields to chain 3 (as a wallet's defpact runs coin's transfer):
// on chain 3 the parent's next step, continued from the proof, resumes the nested defpact's
// yield. The nested yield must carry its provenance (issue 35: it had no module hash, and
// "Yield provenance does not match"), and the proof's nested states must be read back.
func TestNestedCrossChainContinuation(t *testing.T) {
	r := txexec.New(txexec.Config{})
	src, dst := genesisOn(t, r, 0, "0"), genesisOn(t, r, 3, "3")
	const modules = `(namespace "free")
(module inner g
  (defcap g () true)
  (defpact xfer (n:integer)
    (step (yield {"n": n} "3"))
    (step (resume {"n" := m} (+ m 1)))))
(module outer g
  (defcap g () true)
  (defpact run (n:integer)
    (step (inner.xfer n))
    (step (inner.xfer n))))`
	for _, st := range []struct {
		db    *db.MemDB
		chain string
	}{{src, "0"}, {dst, "3"}} {
		b := block(1)
		b.ChainID = st.chain
		c := devtx.Cmd{Chain: st.chain, Code: modules, GasLimit: 100_000, Nonce: "deploy-nested-" + st.chain,
			Signers: []*api.KeyPair{devtx.Key("sender00")}}.Build()
		if a, err := r.Apply(st.db, b, parsed(t, c)); err != nil || a.Failed {
			t.Fatalf("deploy on chain %s: %v %s", st.chain, err, a.Result)
		}
	}
	start := devtx.Cmd{Code: `(free.outer.run 41)`, GasLimit: 10_000, Nonce: "run-nested",
		Signers: []*api.KeyPair{devtx.Key("sender00")}}.Build()
	out, pactID := startDefpact(t, r, src, block(2), start)

	dstBlock := block(2)
	dstBlock.ChainID = "3"
	dstBlock.SPV = func(string) ([]byte, error) { return out, nil }
	cont, err := r.Apply(dst, dstBlock, parsed(t, devtx.Continuation(pactID, 1, "good", "3", "sender02").Build()))
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(t, cont.Result); got.Result.Status != "success" || string(got.Result.Data) != `{"int":42}` {
		t.Fatalf("step 1 on chain 3: %s %s %s", got.Result.Status, got.Result.Data, got.Result.Error.Message)
	}
}
