package txexec

import (
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
)

// TestGasFlowCompiledOnce applies the same command again and again, each in
// an interpreter of its own: buy-gas and redeem-gas are compiled for the
// first and used again by the others, which use the same gas.
func TestGasFlowCompiledOnce(t *testing.T) {
	r := New(Config{})
	b := devBlock()
	st := devGenesis(t, r, b)
	var gas []uint64
	for i := range 3 {
		c := devtx.Cmd{Code: "(+ 1 2)", Nonce: string(rune('a' + i)), Signers: []*api.KeyPair{devtx.Key("sender00")},
			Caps: [][]api.SigCapability{{{Name: "coin.GAS"}}}}.Build()
		pc, err := api.VerifyCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		a, err := r.Apply(st, b, pc)
		if err != nil || a.Failed {
			t.Fatalf("command %d: %v %s", i, err, a.Result)
		}
		gas = append(gas, uint64(a.Gas))
	}
	if gas[1] != gas[0] || gas[2] != gas[0] {
		t.Errorf("gas %v: the same command used different gas", gas)
	}
	if n, m := r.buyGas.Compiled(), r.redeemGas.Compiled(); n != 1 || m != 1 {
		t.Errorf("buy-gas compiled %d times, redeem-gas %d: want once each", n, m)
	}
}
