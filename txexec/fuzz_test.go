package txexec_test

import (
	"testing"

	"github.com/ledgernode/ledger-node/txexec"
)

// FuzzParseMiner: miner data comes from other nodes' payloads. Any bytes give a miner or an
// error, never a panic, and a parsed miner always has a guard.
func FuzzParseMiner(f *testing.F) {
	f.Add([]byte(`{"account":"k:f89e","predicate":"keys-all","public-keys":["f89e"]}`))
	f.Add([]byte(`{"account":"NoMiner","predicate":"<","public-keys":[]}`))
	f.Add([]byte(`{"account":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := txexec.ParseMiner(b)
		if err == nil && m.Guard == nil {
			t.Fatalf("%q: a miner without a guard", b)
		}
	})
}
