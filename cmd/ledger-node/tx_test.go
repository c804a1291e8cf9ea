package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/server"
)

// End to end on a mining development node: transactions sent, mined, found, and the documented
// rejections (issue "Transactions on the node").

// devMinerKey is the published devnet miner key; the node mines for k:<it>.
var devMinerKey = contracts.Key("devnet-miner")

// startMiningNode runs a development node that mines fast (testTarget) for the devnet miner.
func startMiningNode(t *testing.T, dir string) scopedNode {
	t.Helper()
	return startNodeOpts(t, nodeOptions{genesisTarget: testTarget(t), workers: 1},
		"--data-dir", dir, "--miner-key", devMinerKey)
}

// post sends a JSON body and returns the status and body.
func post(t *testing.T, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func pactURL(base string, chain int, op string) string {
	return fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/pact/api/v1/%s", base, chain, op)
}

// send posts one command to /send and expects 200.
func send(t *testing.T, base string, chain int, cmds ...*api.Command) {
	t.Helper()
	status, body := post(t, pactURL(base, chain, "send"), (&api.SubmitBatch{Cmds: cmds}).AppendJSON(nil))
	if status != 200 {
		t.Fatalf("send: %d %s", status, body)
	}
}

type nodeResult struct {
	Gas    int64  `json:"gas"`
	ReqKey string `json:"reqKey"`
	Result struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"result"`
	Events []struct {
		Name   string            `json:"name"`
		Params []json.RawMessage `json:"params"`
	} `json:"events"`
	MetaData *struct {
		BlockHeight   uint64 `json:"blockHeight"`
		BlockHash     string `json:"blockHash"`
		BlockTime     int64  `json:"blockTime"`
		PrevBlockHash string `json:"prevBlockHash"`
	} `json:"metaData"`
	TxID *int64 `json:"txId"`
}

func decodeResult(t *testing.T, b []byte) nodeResult {
	t.Helper()
	var r nodeResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return r
}

// balanceAt reads an account's balance on chain 0 through local, rewindDepth blocks back.
func balanceAt(t *testing.T, base, account string, rewindDepth int) eval.Decimal {
	t.Helper()
	c := devtx.Cmd{Code: `(format "{}" [(coin.get-balance "` + account + `")])`}.Build()
	url := pactURL(base, 0, "local")
	if rewindDepth > 0 {
		url += fmt.Sprintf("?rewindDepth=%d", rewindDepth)
	}
	status, body := post(t, url, c.JSON())
	if status != 200 {
		t.Fatalf("local: %d %s", status, body)
	}
	r := decodeResult(t, body)
	var text string
	if err := json.Unmarshal(r.Result.Data, &text); err != nil || r.Result.Status != "success" {
		t.Fatalf("get-balance %s: %s", account, body)
	}
	if !strings.Contains(text, ".") {
		text += ".0"
	}
	d, err := eval.ParseDecimal(text)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestTransferEndToEnd(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 2)
	before0 := balanceAt(t, n.url, "sender00", 0)
	before1 := balanceAt(t, n.url, "sender01", 0)

	// The header stream, opened before the transfer is sent, must announce its block with
	// txCount 1.
	stream, err := http.Get(n.url + "/chainweb/0.0/development/header/updates")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	txCounts := make(chan map[string]int, 1)
	go func() {
		counts := map[string]int{}
		sc := bufio.NewScanner(stream.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			var ev struct {
				Header  struct{ Hash string } `json:"header"`
				TxCount int                   `json:"txCount"`
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.TxCount > 0 {
				counts[ev.Header.Hash] = ev.TxCount
				select {
				case txCounts <- counts:
				default:
				}
				return
			}
		}
	}()

	spec := devtx.Transfer("sender00", "sender01", "12.5", "0")
	spec.GasPrice = "0.0001"
	cmd := spec.Build()
	send(t, n.url, 0, cmd)

	status, body := post(t, pactURL(n.url, 0, "listen"), []byte(`{"listen":"`+cmd.Hash.String()+`"}`))
	if status != 200 {
		t.Fatalf("listen: %d %s", status, body)
	}
	res := decodeResult(t, body)
	if res.Result.Status != "success" || res.ReqKey != cmd.Hash.String() || res.MetaData == nil || res.TxID == nil {
		t.Fatalf("listen result: %s", body)
	}
	// The transfer's event, then the gas paid to the miner.
	fee := eval.NewDecimal(eval.NewInt(res.Gas), 4) // gas × 0.0001
	if len(res.Events) != 2 || res.Events[0].Name != "TRANSFER" || res.Events[1].Name != "TRANSFER" ||
		string(res.Events[1].Params[1]) != `"k:`+devMinerKey+`"` {
		t.Fatalf("events: %s", body)
	}

	select {
	case counts := <-txCounts:
		if counts[res.MetaData.BlockHash] != 1 {
			t.Errorf("the stream announced %v, want block %s with txCount 1", counts, res.MetaData.BlockHash)
		}
	case <-hangguard.After():
		t.Error("the header stream announced no block with transactions")
	}

	// poll finds the same result, with the block's metadata.
	status, body = post(t, pactURL(n.url, 0, "poll"), []byte(`{"requestKeys":["`+cmd.Hash.String()+`"]}`))
	var polled map[string]json.RawMessage
	if status != 200 || json.Unmarshal(body, &polled) != nil || len(polled) != 1 {
		t.Fatalf("poll: %d %s", status, body)
	}
	pr := decodeResult(t, polled[cmd.Hash.String()])
	if pr.MetaData == nil || pr.MetaData.BlockHash != res.MetaData.BlockHash || pr.Gas != res.Gas {
		t.Fatalf("poll result differs from listen's: %s", body)
	}
	// The block it names is chain 0's block at that height, and holds the transaction.
	var block struct {
		Items []struct {
			PayloadWithOutputs struct {
				Transactions [][2]string `json:"transactions"`
			} `json:"payloadWithOutputs"`
		} `json:"items"`
	}
	getJSON(t, fmt.Sprintf("%s/chainweb/0.0/development/chain/0/block?minheight=%d&maxheight=%d",
		n.url, pr.MetaData.BlockHeight, pr.MetaData.BlockHeight), "", &block)
	found := false
	for _, it := range block.Items {
		found = found || len(it.PayloadWithOutputs.Transactions) == 1
	}
	if !found {
		t.Errorf("no block at height %d holds one transaction: %+v", pr.MetaData.BlockHeight, block)
	}

	// Balances moved by the amount and the gas; the miner got the fee.
	want0 := before0.Sub(mustDecimal(t, "12.5")).Sub(fee)
	if got := balanceAt(t, n.url, "sender00", 0); !got.Equal(want0) {
		t.Errorf("sender00: %s, want %s", got, want0)
	}
	if got, want := balanceAt(t, n.url, "sender01", 0), before1.Add(mustDecimal(t, "12.5")); !got.Equal(want) {
		t.Errorf("sender01: %s, want %s", got, want)
	}
	var paid float64
	if wantPaid, _ := strconv.ParseFloat(fee.String(), 64); json.Unmarshal(res.Events[1].Params[2], &paid) != nil || paid != wantPaid {
		t.Errorf("gas event amount %s, fee %s", res.Events[1].Params[2], fee)
	}
	if got := balanceAt(t, n.url, "k:"+devMinerKey, 0); got.Cmp(fee) <= 0 {
		t.Errorf("miner balance %s: rewards and fee not paid", got)
	}

	// rewindDepth reads older state: far enough back (clamped at genesis) the transfer has
	// not happened.
	if got := balanceAt(t, n.url, "sender01", 1_000_000); !got.Equal(before1) {
		t.Errorf("sender01 at genesis: %s", got)
	}
	// confirmationDepth hides a result that is not deep enough.
	status, body = post(t, pactURL(n.url, 0, "poll")+"?confirmationDepth=1000000",
		[]byte(`{"requestKeys":["`+cmd.Hash.String()+`"]}`))
	if status != 200 || string(body) != "{}" {
		t.Errorf("poll with a deep confirmationDepth: %d %s", status, body)
	}
	// Sending it again is refused: it is on chain.
	status, body = post(t, pactURL(n.url, 0, "send"), (&api.SubmitBatch{Cmds: []*api.Command{cmd}}).AppendJSON(nil))
	if status != 400 || !strings.Contains(string(body), "Transaction already exists on chain") {
		t.Errorf("resend: %d %s", status, body)
	}
	if n := n.node.svc.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}

func mustDecimal(t *testing.T, s string) eval.Decimal {
	t.Helper()
	d, err := eval.ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLocalPreflight(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 1)
	cmd := devtx.Transfer("sender00", "sender01", "1.0", "0").Build()
	status, body := post(t, pactURL(n.url, 0, "local")+"?preflight=true", cmd.JSON())
	var pf struct {
		PreflightResult   json.RawMessage `json:"preflightResult"`
		PreflightWarnings []string        `json:"preflightWarnings"`
	}
	if status != 200 || json.Unmarshal(body, &pf) != nil || pf.PreflightWarnings == nil {
		t.Fatalf("preflight: %d %s", status, body)
	}
	r := decodeResult(t, pf.PreflightResult)
	if r.Result.Status != "success" || r.Gas <= 0 {
		t.Errorf("preflight result: %s", body)
	}
	// Preflight runs the metadata checks: a wrong chain id is a 400 with the list.
	wrong := devtx.Transfer("sender00", "sender01", "1.0", "3").Build()
	status, body = post(t, pactURL(n.url, 0, "local")+"?preflight=true", wrong.JSON())
	if status != 400 || !strings.Contains(string(body), `Metadata validation failed: ["Chain id mismatch"]`) {
		t.Errorf("preflight on the wrong chain: %d %s", status, body)
	}
}

// Each rejection of /send gets chainweb's text (chainweb-api.md §6.2).
func TestSendRejections(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 1)
	base := func() devtx.Cmd { return devtx.Transfer("sender00", "sender01", "1.0", "0") }

	badSig := base().Build()
	badSig.Sigs[0] = devtx.Key("sender01").SignHash(badSig.Hash)

	expired := base()
	expired.CreationTime, expired.TTL = time.Now().Add(-2*time.Hour).Unix(), 60

	wrongChain := base()
	wrongChain.Chain = "5" // sent to chain 0

	wrongNet := base()
	wrongNet.Network = "mainnet01"

	// A gas payer without an account: signed by a fresh key for an account that does not exist.
	unfunded := devtx.Cmd{Code: "(+ 1 2)", Sender: "k:" + devtx.Key("sender05").PublicHex() + "x",
		Signers: []*api.KeyPair{devtx.Key("sender05")}}

	for _, tc := range []struct {
		name string
		cmd  *api.Command
		want string
	}{
		{"invalid signature", badSig, "Invalid transaction sigs: The signature at position 0 is invalid"},
		{"expired ttl", expired.Build(), "Transaction time-to-live is expired"},
		{"wrong chain", wrongChain.Build(), "Transaction metadata (chain id, chainweb version) conflicts with this endpoint"},
		{"wrong network", wrongNet.Build(), "Transaction metadata (chain id, chainweb version) conflicts with this endpoint"},
		{"unfunded gas payer", unfunded.Build(), "Attempt to buy gas failed with: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, pactURL(n.url, 0, "send"), (&api.SubmitBatch{Cmds: []*api.Command{tc.cmd}}).AppendJSON(nil))
			prefix := `One or more transactions were invalid: Transaction "` + tc.cmd.Hash.String() + `" at index 0 failed with: `
			if status != 400 || !strings.HasPrefix(string(body), prefix) || !strings.Contains(string(body), tc.want) {
				t.Errorf("got %d %s\nwant 400 %s…%s", status, body, prefix, tc.want)
			}
		})
	}
	if n := n.node.svc.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}

// Private commands between two nodes (DECISIONS.md, "private"): alice's node runs a command
// addressed to bob and delivers it sealed to bob's node, which runs it too; a third entity's
// node, not addressed, never sees it.
func TestPrivateBetweenNodes(t *testing.T) {
	secret := func(b byte) string { return strings.Repeat(fmt.Sprintf("%02x", b), 32) }
	pub := func(s string) string {
		k, err := server.ParseBoxKey(s)
		if err != nil {
			t.Fatal(err)
		}
		p := server.PublicBoxKey(k)
		return hex.EncodeToString(p[:])
	}
	aliceSecret, bobSecret := secret(7), secret(9)
	writeConfig := func(name, doc string) string {
		path := filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bob := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off", "--config-file", writeConfig("bob",
		"private:\n  entity: bob\n  entitySecret: "+bobSecret+"\n  entities:\n    alice:\n      publicKey: "+pub(aliceSecret)+"\n"))
	alice := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off", "--config-file", writeConfig("alice",
		"private:\n  entity: alice\n  entitySecret: "+aliceSecret+"\n  entities:\n    bob:\n      publicKey: "+pub(bobSecret)+
			"\n      url: "+bob.url+"\n"))

	k := devtx.Key("sender00")
	p := &api.Payload{Exec: &api.ExecMsg{Code: `(+ 40 2)`, Data: eval.EmptyObject},
		Signers: []api.Signer{{PubKey: k.PublicHex()}},
		Meta:    api.Meta{Private: &api.PrivateMeta{Address: &api.Address{From: "alice", To: []string{"bob"}}}},
		Nonce:   "private-1"}
	cmdJSON, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	h := api.HashBytes(cmdJSON)
	cmd := &api.Command{Hash: h, Cmd: string(cmdJSON), Sigs: []api.UserSig{k.SignHash(h)}}

	// Bob's node refuses a command from alice sent by a client: only alice's node takes it.
	if status, body := post(t, pactURL(bob.url, 3, "private"), cmd.JSON()); status != 400 {
		t.Errorf("bob's node took alice's command: %d %s", status, body)
	}
	status, body := post(t, pactURL(alice.url, 3, "private"), cmd.JSON())
	if status != 200 || !strings.Contains(string(body), h.String()) {
		t.Fatalf("private: %d %s", status, body)
	}
	for name, n := range map[string]scopedNode{"alice": alice, "bob": bob} {
		r, ok := pollOne(t, n.url, 3, cmd)
		if !ok {
			t.Errorf("%s's node has no result", name)
			continue
		}
		if res := decodeResult(t, r); res.Result.Status != "success" || string(res.Result.Data) != `{"int":42}` {
			t.Errorf("%s's result: %s", name, r)
		}
	}
	// Chain 4 of alice's node knows nothing of it.
	if _, ok := pollOne(t, alice.url, 4, cmd); ok {
		t.Error("the result shows on another chain")
	}
}
