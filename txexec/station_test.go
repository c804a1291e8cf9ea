package txexec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/txexec"
)

// A gas station (gas-payer-v1): its account pays for other users' commands when a signer
// scopes a signature to its GAS_PAYER capability, which checks the transaction data the node
// adds and composes what the account's guard requires.
const station = `
(module station GOV
  (defcap GOV () true)
  (implements gas-payer-v1)
  (defcap GAS_PAYER:bool (user:string limit:integer price:decimal)
    (enforce (= "exec" (read-msg "tx-type")) "only exec commands")
    (enforce (= 1 (length (read-msg "exec-code"))) "one expression only")
    (enforce (<= limit 500) "gas limit too high")
    (compose-capability (ALLOW_GAS)))
  (defcap ALLOW_GAS () true)
  (defun gas-payer-guard ()
    (require-capability (coin.GAS))
    (require-capability (ALLOW_GAS)))
  (defun create-gas-payer-guard:guard ()
    (create-user-guard (gas-payer-guard))))
(coin.coinbase "station-account" (station.create-gas-payer-guard) 100.0)
`

func TestGasStation(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	cmds, err := txexec.GenesisCommands([]contracts.Source{{Name: "station", Code: station}}, "0", "development")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Genesis(st, block(0), cmds[0]); err != nil {
		t.Fatal(err)
	}
	user := devtx.Key("sender05")
	paid := func(code string, limit uint64) devtx.Cmd {
		return devtx.Cmd{Code: code, Sender: "station-account", GasLimit: limit, Signers: []*api.KeyPair{user},
			Caps: [][]api.SigCapability{{{Name: "station.GAS_PAYER", Args: []eval.Value{
				eval.String("sender05"), eval.NewInt(int64(limit)), eval.NewDecimal(eval.NewInt(1), 8)}}}}}
	}
	before := mustDec(t, balance(t, r, st, "station-account"))
	a, err := r.Apply(st, block(1), parsed(t, paid("(+ 1 2)", 400).Build()))
	if err != nil || a.Failed {
		t.Fatalf("a command paid by the station: %v %s", err, a.Result)
	}
	want := before.Sub(eval.NewDecimal(eval.NewInt(a.Gas), 8))
	if got := mustDec(t, balance(t, r, st, "station-account")); !got.Equal(want) {
		t.Errorf("station balance %s, want %s", got, want)
	}
	// The station's own checks refuse, and then the command cannot buy gas at all.
	for _, tc := range []struct {
		cmd  devtx.Cmd
		want string
	}{
		{paid("(+ 1 2)", 600), "gas limit too high"},
		{paid("(+ 1 2) (+ 3 4)", 400), "one expression only"},
	} {
		_, err := r.Apply(st, block(1), parsed(t, tc.cmd.Build()))
		var be *txexec.BuyGasError
		if !errors.As(err, &be) || !strings.Contains(be.Error(), tc.want) {
			t.Errorf("%s: %v", tc.want, err)
		}
	}
	// Without the GAS_PAYER signature the station's account does not pay.
	unsigned := paid("(+ 1 2)", 400)
	unsigned.Caps = [][]api.SigCapability{{{Name: "coin.GAS"}}}
	if _, err := r.Apply(st, block(1), parsed(t, unsigned.Build())); err == nil {
		t.Error("the station paid without its capability")
	}
}
