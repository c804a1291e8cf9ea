package contracts_test

import (
	"io"
	"testing"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// BenchmarkTransferWithGas times what a node does for one coin transfer
// in a block, on the interpreter alone: a transaction that buys gas, runs
// (coin.transfer "alice" "bob" 0.1) under a signed TRANSFER capability and
// redeems the gas to the miner. DESIGN.md's goal for it is <= 20 µs.
// Signature checks, the database and HTTP are not in the figure.
//
// The sub-benchmarks run the same transaction under each way the
// interpreter can meter, side by side in one run, so that the price of
// exact metering is a ratio taken on one machine at one moment:
//
//   - unmetered: no limit and no budget, every charge returns at once (the
//     baseline: what the transfer costs with metering switched off);
//   - budget: no limit, the table model's charges counted against the
//     evaluation budget (`pact -s` with gasLimit 0, the REPL);
//   - constant: the constant-rate model of `pact -s` with a gasRate;
//   - table: Pact 5's table model with a limit, as a node charges.
func BenchmarkTransferWithGas(b *testing.B) {
	for _, mode := range []struct {
		name  string
		meter func() gas.Meter
	}{
		{"unmetered", func() gas.Meter { return gas.Meter{} }},
		{"budget", func() gas.Meter { var m gas.Meter; m.SetBudget(eval.DefaultBudget); return m }},
		{"constant", func() gas.Meter { return gas.NewMeter(gas.ConstantRate(1), gas.FromGas(150_000)) }},
		{"table", func() gas.Meter { return gas.NewMeter(gas.Table, gas.FromGas(150_000)) }},
	} {
		b.Run(mode.name, func(b *testing.B) { benchmarkTransfer(b, mode.meter) })
	}
}

// benchmarkTransfer runs the transfer transaction b.N times, each with a
// fresh meter from meter (as each transaction of a block gets one).
func benchmarkTransfer(b *testing.B, meter func() gas.Meter) {
	r := repl.New(io.Discard)
	setup := `
(load "testdata/install.repl")
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
		b.Fatal(repl.FormatError(err))
	}
	tx, err := syntax.ParseRepl("tx.repl", `
(begin-tx)
(test-capability (coin.GAS))
(coin.buy-gas "alice" 0.000025)
(coin.transfer "alice" "bob" 0.1)
(coin.redeem-gas "miner" (read-keyset "miner") "alice" 0.000025)
(commit-tx)`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var used gas.MilliGas
	for i := 0; i < b.N; i++ {
		r.In.Gas = meter()
		for _, item := range tx.Items {
			if _, err := r.In.EvalTopLevel(item, true); err != nil {
				b.Fatal(repl.FormatError(err))
			}
		}
		used = r.In.Gas.Used()
	}
	b.StopTimer()
	if n := len(r.Failures()); n > 0 {
		b.Fatalf("%d failed expectations", n)
	}
	b.ReportMetric(float64(used.Gas()), "gas/tx")
}
