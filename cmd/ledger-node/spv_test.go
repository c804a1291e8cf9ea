package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// listenResult sends cmd to chain c and waits for its result.
func listenResult(t *testing.T, base string, c int, cmd *api.Command) (nodeResult, []byte) {
	t.Helper()
	send(t, base, c, cmd)
	status, body := post(t, pactURL(base, c, "listen"), []byte(`{"listen":"`+cmd.Hash.String()+`"}`))
	if status != 200 {
		t.Fatalf("listen on chain %d: %d %s", c, status, body)
	}
	return decodeResult(t, body), body
}

// balanceOn reads an account's balance on chain c through local.
func balanceOn(t *testing.T, base string, c int, account string) eval.Decimal {
	t.Helper()
	cmd := devtx.Cmd{Chain: fmt.Sprint(c), Code: `(format "{}" [(coin.get-balance "` + account + `")])`}.Build()
	status, body := post(t, pactURL(base, c, "local"), cmd.JSON())
	if status != 200 {
		t.Fatalf("local: %d %s", status, body)
	}
	var text string
	if r := decodeResult(t, body); json.Unmarshal(r.Result.Data, &text) != nil || r.Result.Status != "success" {
		t.Fatalf("get-balance %s on chain %d: %s", account, c, body)
	}
	if !strings.Contains(text, ".") {
		text += ".0"
	}
	return mustDecimal(t, text)
}

// fetchProof asks the source chain for the proof, retrying while the target is not reachable
// yet, as clients do.
func fetchProof(t *testing.T, base string, source int, rk api.Hash, target int) string {
	t.Helper()
	url := fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/pact/spv", base, source)
	body := []byte(fmt.Sprintf(`{"requestKey":%q,"targetChainId":"%d"}`, rk.String(), target))
	deadline := hangguard.Deadline()
	for {
		status, resp := post(t, url, body)
		if status == 200 {
			var proof string
			if err := json.Unmarshal(resp, &proof); err != nil {
				t.Fatalf("pact/spv answers a JSON string: %s", resp)
			}
			return proof
		}
		if status != 400 || !strings.HasPrefix(string(resp), "SPV target not reachable") || time.Now().After(deadline) {
			t.Fatalf("spv: %d %s", status, resp)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A cross-chain transfer from chain 0 to chain 7 (two hops in the chain graph): step 0 burns
// on chain 0, the proof comes from chain 0's spv endpoint, the continuation credits the
// receiver on chain 7; a replay and a tampered proof are refused.
func TestCrossChainTransferEndToEnd(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 2)
	const source, target = 0, 7
	if d := ledger.TwentyChainGraph.Distance(source, target); d < 2 {
		t.Fatalf("chains %d and %d are %d apart, want 2 or more", source, target, d)
	}
	receiverKey := devtx.Key("sender01").PublicHex()
	sender0 := balanceOn(t, n.url, source, "sender00")
	receiver7 := balanceOn(t, n.url, target, "sender01")

	step0 := devtx.CrossChainTransfer("sender00", "sender01", receiverKey, "3.0", fmt.Sprint(source), fmt.Sprint(target)).Build()
	r0, body := listenResult(t, n.url, source, step0)
	if r0.Result.Status != "success" {
		t.Fatalf("step 0: %s", body)
	}
	var cont struct {
		Continuation struct {
			PactID string `json:"pactId"`
			Step   int    `json:"step"`
		} `json:"continuation"`
	}
	if json.Unmarshal(body, &cont) != nil || cont.Continuation.PactID == "" {
		t.Fatalf("step 0 has no continuation: %s", body)
	}
	gas0 := eval.NewDecimal(eval.NewInt(r0.Gas), 8)
	if got, want := balanceOn(t, n.url, source, "sender00"), sender0.Sub(mustDecimal(t, "3.0")).Sub(gas0); !got.Equal(want) {
		t.Errorf("sender00 on chain %d: %s, want %s", source, got, want)
	}

	proof := fetchProof(t, n.url, source, step0.Hash, target)
	// The api/v1 paths answer {"spv": proof} (DECISIONS.md), with the same proof.
	for _, seg := range []string{"pact", "contract"} {
		url := fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/%s/api/v1/spv", n.url, source, seg)
		status, resp := post(t, url, []byte(fmt.Sprintf(`{"requestKey":%q,"targetChainId":"%d"}`, step0.Hash, target)))
		var wrapped struct{ SPV string }
		if status != 200 || json.Unmarshal(resp, &wrapped) != nil || wrapped.SPV == "" {
			t.Errorf("%s/api/v1/spv: %d %s", seg, status, resp)
		}
	}
	p, err := ledger.DecodeOutputProof(proof)
	if err != nil || p.Chain != target {
		t.Fatalf("proof: %v, chain %v", err, p)
	}

	// verify-spv on the target chain gives the proven output.
	check := devtx.Cmd{Chain: fmt.Sprint(target), Code: `(at "reqKey" (verify-spv "TXOUT" {"proof": "` + proof + `"}))`}.Build()
	if status, resp := post(t, pactURL(n.url, target, "local"), check.JSON()); status != 200 ||
		!strings.Contains(string(resp), `"data":"`+step0.Hash.String()+`"`) {
		t.Errorf("verify-spv: %d %s", status, resp)
	}

	// A tampered proof (the proven output changed) does not verify.
	forged := *p
	forged.Output = []byte(strings.Replace(string(p.Output), `"gas":`, `"gas":1`, 1))
	bad := devtx.Continuation(cont.Continuation.PactID, 1, forged.Encode(), fmt.Sprint(target), "sender02")
	bad.Nonce = "forged"
	r3, body := listenResult(t, n.url, target, bad.Build())
	if r3.Result.Status != "failure" || !strings.Contains(r3.Result.Error.Message, "SPV verification failed") {
		t.Errorf("tampered proof: %s", body)
	}

	step1 := devtx.Continuation(cont.Continuation.PactID, 1, proof, fmt.Sprint(target), "sender02")
	r1, body := listenResult(t, n.url, target, step1.Build())
	if r1.Result.Status != "success" {
		t.Fatalf("step 1: %s", body)
	}
	if got, want := balanceOn(t, n.url, target, "sender01"), receiver7.Add(mustDecimal(t, "3.0")); !got.Equal(want) {
		t.Errorf("sender01 on chain %d: %s, want %s", target, got, want)
	}

	// The same continuation again: the defpact is done.
	step1.Nonce = "replay"
	r2, body := listenResult(t, n.url, target, step1.Build())
	if r2.Result.Status != "failure" || !strings.Contains(r2.Result.Error.Message, "Requested defpact already completed") {
		t.Errorf("replayed continuation: %s", body)
	}
	// The spv endpoint's errors: an unknown transaction, a chain that does not exist.
	url := fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/pact/spv", n.url, source)
	if status, resp := post(t, url, []byte(`{"requestKey":"`+api.Hash{1}.String()+`","targetChainId":"7"}`)); status != 400 ||
		!strings.HasPrefix(string(resp), "Transaction hash not found") {
		t.Errorf("unknown transaction: %d %s", status, resp)
	}
	if status, resp := post(t, url, []byte(`{"requestKey":"`+step0.Hash.String()+`","targetChainId":"42"}`)); status != 400 {
		t.Errorf("unknown chain: %d %s", status, resp)
	}
	if n := n.node.svc.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}
