package pactbench

import (
	"errors"
	"io"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Transfer is what a node does for one coin transfer in a block, on the
// interpreter alone: a transaction that buys gas, runs (coin.transfer
// "alice" "bob" 0.1) under a signed TRANSFER capability and redeems the
// gas to the miner. Signature checks, the database and HTTP are not in
// it. pact/contracts' BenchmarkTransferWithGas and bench/transfergas time
// it under each way of metering.
//
// It evaluates its forms as a node does: buy-gas and redeem-gas, which a
// node parses once, as eval.Prepared forms (their compiled form kept from
// one transfer to the next, txexec), everything else compiled anew
// by EvalTopLevel each time, as a command's own code is. The transfer
// line is parsed once here, but EvalTopLevel keeps nothing of it, so it
// costs what a command's fresh text costs, its parse excepted.
type Transfer struct {
	r  *repl.Runner
	tx []txForm
}

// txForm is one form of the transaction: prepared, or evaluated anew.
type txForm struct {
	item     syntax.TopLevel
	prepared *eval.Prepared
}

// NewTransfer installs the contracts with the REPL script at install
// (pact/contracts/testdata/install.repl) and funds the accounts.
func NewTransfer(install string) (*Transfer, error) {
	r := repl.New(io.Discard)
	setup := `
(load "` + install + `")
(env-data
  { "alice": ["6be2f485a7af75fedb4b7f153a903f7e6000ca4aa501179c91a2450b777bd2a7"]
  , "bob": ["3a9dd532d73dace195dbb64d1dba6572fb783d0fdd324685e32fbda2f89f99a6"]
  , "miner": ["f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f"]
  , "fee": 0.00001 })
(begin-tx "setup")
(test-capability (coin.COINBASE))
(coin.coinbase "alice" (read-keyset "alice") 1000000.0)
(coin.coinbase "bob" (read-keyset "bob") 1.0)
(coin.coinbase "miner" (read-keyset "miner") 1.0)
(commit-tx)
(env-sigs [{"key": "6be2f485a7af75fedb4b7f153a903f7e6000ca4aa501179c91a2450b777bd2a7",
            "caps": [(coin.GAS), (coin.DEBIT "alice"), (coin.TRANSFER "alice" "bob" 1000000.0)]}])
`
	if _, err := r.EvalSource("setup.repl", setup, true); err != nil {
		return nil, errors.New(repl.FormatError(err))
	}
	tx, err := syntax.ParseRepl("tx.repl", `
(begin-tx)
(test-capability (coin.GAS))
(coin.buy-gas "alice" 0.000025)
(coin.transfer "alice" "bob" 0.1)
(coin.redeem-gas "miner" (read-keyset "miner") "alice" 0.000025)
(commit-tx)`)
	if err != nil {
		return nil, err
	}
	forms := make([]txForm, len(tx.Items))
	for i, item := range tx.Items {
		forms[i].item = item
		if i == gasBuy || i == gasRedeem {
			forms[i].prepared = eval.Prepare(item)
		}
	}
	return &Transfer{r: r, tx: forms}, nil
}

// The forms of the transaction a node evaluates as eval.Prepared forms:
// coin.buy-gas and coin.redeem-gas.
const gasBuy, gasRedeem = 2, 4

// Run runs one transfer on meter (each transaction of a block gets a
// fresh one) and returns the gas it used.
func (t *Transfer) Run(meter gas.Meter) (gas.MilliGas, error) {
	t.r.In.Gas = meter
	for _, f := range t.tx {
		var err error
		if f.prepared != nil {
			_, err = t.r.In.EvalPrepared(f.prepared, true)
		} else {
			_, err = t.r.In.EvalTopLevel(f.item, true)
		}
		if err != nil {
			return 0, errors.New(repl.FormatError(err))
		}
	}
	if n := len(t.r.Failures()); n > 0 {
		return 0, errors.New("a transfer failed its expectations")
	}
	return t.r.In.Gas.Used(), nil
}

// Metering is one way the interpreter can meter.
type Metering struct {
	Name  string
	Desc  string
	Meter func() gas.Meter
}

// Meterings are the ways of metering, the baseline (none) first.
var Meterings = []Metering{
	{"unmetered", "no limit, no budget: every charge returns at once (the baseline)",
		func() gas.Meter { return gas.Meter{} }},
	{"budget", "no limit; the table model's charges counted against the evaluation budget (pact -s, the REPL)",
		func() gas.Meter { var m gas.Meter; m.SetBudget(eval.DefaultBudget); return m }},
	{"constant", "pact -s's constant rate (1 per operation) against a limit, with the budget",
		func() gas.Meter {
			m := gas.NewMeter(gas.ConstantRate(1), gas.FromGas(150_000))
			m.SetBudget(eval.DefaultBudget)
			return m
		}},
	{"table", "Pact 5's table model with a limit of 150,000, as a node charges",
		func() gas.Meter { return gas.NewMeter(gas.Table, gas.FromGas(150_000)) }},
}
