package chain

import (
	"encoding/json"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
)

// txJSON is a payload transaction (a command's JSON) whose cmd string is cmd.
func txJSON(t testing.TB, cmd string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"hash": api.RequestKey(cmd), "sigs": []any{}, "cmd": cmd})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestContinuationOf(t *testing.T) {
	pact := api.Hash{4, 5, 6}
	cont := `{"payload":{"cont":{"pactId":"` + pact.String() + `","step":1,"rollback":false,"data":{},"proof":"p"}},"nonce":"n"}`
	ok := []byte(`{"reqKey":"RK","result":{"status":"success","data":"Write succeeded"},"continuation":{"pactId":"` + pact.String() + `"}}`)
	got, c, isCont := continuationOf(txJSON(t, cont), ok)
	if !isCont || got != pact || c != (Continuation{RequestKey: "RK", Step: 1, OK: true}) {
		t.Fatalf("continuation: %v %s %+v", isCont, got, c)
	}
	// A failed one is listed as failed; a rollback says so.
	rollback := `{"payload":{"cont":{"pactId":"` + pact.String() + `","step":0,"rollback":true}}}`
	if _, c, isCont := continuationOf(txJSON(t, rollback), []byte(`{"reqKey":"RK2","result":{"status":"failure"}}`)); !isCont || c.OK || !c.Rollback || c.RequestKey != "RK2" {
		t.Fatalf("failed rollback: %v %+v", isCont, c)
	}
	// The key spelled with escapes in the cmd string is read too.
	escaped := []byte(`{"hash":"h","sigs":[],"cmd":"{\"payload\":{\"\u0063ont\":{\"pactId\":\"` + pact.String() + `\",\"step\":2}}}"}`)
	if got, c, isCont := continuationOf(escaped, ok); !isCont || got != pact || c.Step != 2 {
		t.Fatalf("escaped key: %v %s %+v", isCont, got, c)
	}
	// Not continuations: an exec, a pact id that is no hash, broken JSON.
	for _, tx := range [][]byte{
		txJSON(t, `{"payload":{"exec":{"code":"(contains 1 [1])","data":null}}}`),
		txJSON(t, `{"payload":{"cont":{"pactId":"not a hash","step":1}}}`),
		txJSON(t, `{"payload":{"cont":null}}`),
		[]byte(`{"cmd":1}`),
		[]byte(`cont`),
	} {
		if _, c, isCont := continuationOf(tx, ok); isCont {
			t.Errorf("%s: read as a continuation %+v", tx, c)
		}
	}
	if _, _, isCont := continuationOf(txJSON(t, cont), []byte(`not json`)); isCont {
		t.Error("an output that does not decode gave a continuation")
	}
}

// Both ends of a cross-chain transfer carry the pact id; the credit carries the source chain.
func TestTransfersOfCrossChainEnds(t *testing.T) {
	step0 := []byte(`{"reqKey":"PACT","result":{"status":"success"},"continuation":{"pactId":"PACT","step":0},"events":[` +
		`{"params":["a","",1.5],"name":"TRANSFER","module":{"namespace":null,"name":"coin"},"moduleHash":"h"},` +
		`{"params":["a","b",1.5,"7"],"name":"TRANSFER_XCHAIN","module":{"namespace":null,"name":"coin"},"moduleHash":"h"}]}`)
	ts := transfersOf(step0)
	if len(ts) != 2 || ts[1].TargetChain != "7" || ts[1].PactID != "PACT" || ts[0].PactID != "" || ts[0].SourceChain != "" {
		t.Fatalf("step 0: %+v", ts)
	}
	step1 := []byte(`{"reqKey":"RK1","result":{"status":"success"},"continuation":{"pactId":"PACT","step":1},"events":[` +
		`{"params":["gas","miner",0.1],"name":"TRANSFER","module":{"namespace":null,"name":"coin"},"moduleHash":"h"},` +
		`{"params":["","b",1.5],"name":"TRANSFER","module":{"namespace":null,"name":"coin"},"moduleHash":"h"},` +
		`{"params":["","b",1.5,"0"],"name":"TRANSFER_XCHAIN_RECD","module":{"namespace":null,"name":"coin"},"moduleHash":"h"},` +
		`{"params":["","b",1.5,"0"],"name":"TRANSFER_XCHAIN_RECD","module":{"namespace":null,"name":"fake"},"moduleHash":"h"}]}`)
	ts = transfersOf(step1)
	if len(ts) != 2 || ts[0].SourceChain != "" || ts[1].SourceChain != "0" || ts[1].PactID != "PACT" || ts[1].To != "b" || ts[1].RequestKey != "RK1" {
		t.Fatalf("step 1: %+v", ts)
	}
}

// The index's cost per transaction as a block is applied: a transfer (no continuation: the
// usual case, skipped without decoding) and a continuation (decoded).
func BenchmarkContinuationOf(b *testing.B) {
	pact := api.Hash{1}
	transfer := `{"networkId":"development","payload":{"exec":{"data":{},"code":"(coin.transfer \"sender00\" \"sender01\" 1.0)"}},` +
		`"signers":[{"pubKey":"368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca","clist":[{"name":"coin.GAS","args":[]},` +
		`{"name":"coin.TRANSFER","args":["sender00","sender01",1.0]}]}],"meta":{"creationTime":1,"ttl":600,"gasLimit":1000,` +
		`"chainId":"0","gasPrice":1e-8,"sender":"sender00"},"nonce":"n"}`
	cont := `{"networkId":"development","payload":{"cont":{"pactId":"` + pact.String() + `","step":1,"rollback":false,"data":{},` +
		`"proof":"eyJjaGFpbiI6NSwib2JqZWN0IjoiQUFBQUVBQUFBQUFBQUFBQUFFeE5lMUpSRldseDEzcWltbGF4ZnMifQ"}},` +
		`"signers":[],"meta":{"creationTime":1,"ttl":600,"gasLimit":1000,"chainId":"5","gasPrice":1e-8,"sender":"sender02"},"nonce":"n"}`
	out := []byte(`{"gas":248,"result":{"status":"success","data":"Write succeeded"},"reqKey":"RK","logs":"L","events":[],"metaData":null,"continuation":null,"txId":5}`)
	for _, c := range []struct {
		name string
		tx   []byte
	}{{"transfer", txJSON(b, transfer)}, {"continuation", txJSON(b, cont)}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				continuationOf(c.tx, out)
			}
		})
	}
}
