package mempool

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
)

// FuzzSend runs what /send does with an untrusted body: decode the batch and the payloads,
// run every check against a pool, build the answer, insert what passed, and run the preflight
// checks. Nothing may panic, every transaction gets one verdict, and the answer agrees with
// the verdicts.
func FuzzSend(f *testing.F) {
	good := okSpec().command()
	f.Add(string((&api.SubmitBatch{Cmds: []*api.Command{good}}).AppendJSON(nil)))
	for _, mod := range []func(*spec){
		func(s *spec) { s.gasPrice = `"0.00000000000001"` },
		func(s *spec) { s.chain = " (0x3) " },
		func(s *spec) { s.ct, s.ttl = 1<<62, 1<<62 },
		func(s *spec) { s.code = "(defun" },
		func(s *spec) { s.sigs = []*api.KeyPair{key1}; s.extraSigs = 2 },
		func(s *spec) { s.gasLimit = "1e30" },
	} {
		s := okSpec()
		mod(&s)
		f.Add(string((&api.SubmitBatch{Cmds: []*api.Command{s.command(), good}}).AppendJSON(nil)))
	}
	f.Add(`{"cmds":[{"hash":"x","sigs":[],"cmd":"{}"}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		batch, err := api.DecodeSubmitBatch([]byte(body))
		if err != nil {
			return
		}
		txs, err := Decode(batch.Cmds)
		if err != nil {
			if msg, ok := IsRejection(err); !ok || !strings.HasPrefix(msg, "reading JSON for transaction failed: ") {
				t.Fatalf("decode error %v", err)
			}
			return
		}
		pool := NewPool(DefaultConfig())
		pool.Included([]api.Hash{good.Hash}, now)
		env := testEnv()
		vs := Check(env, pool, txs)
		if len(vs) != len(txs) {
			t.Fatalf("%d verdicts for %d transactions", len(vs), len(txs))
		}
		failed := false
		for _, v := range vs {
			if v.OK() != (v.Reason == "") || (!v.OK() && (v.Step < StepGasLimit || v.Step > StepPact)) {
				t.Fatalf("verdict %+v", v)
			}
			failed = failed || !v.OK()
		}
		err = Reject(txs, vs)
		if (err != nil) != failed {
			t.Fatalf("Reject %v with failures %v", err, failed)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "One or more transactions were invalid: Transaction \"") {
			t.Fatalf("aggregate %q", err)
		}
		for i, tx := range txs {
			if vs[i].OK() {
				pool.Insert(tx)
			}
			Preflight(env, &tx.ParsedCommand, true)
		}
		pool.Take(0, nil)
		pool.Evict(now.Add(1 << 50))
		if pool.Len() != 0 {
			t.Fatalf("%d pending after the end of time", pool.Len())
		}
	})
}
