package contracts_test

import (
	"testing"

	"github.com/ledgernode/ledger-node/internal/pactbench"
	"github.com/ledgernode/ledger-node/pact/gas"
)

// BenchmarkTransferWithGas times what a node does for one coin transfer
// in a block, on the interpreter alone (pactbench.Transfer). DESIGN.md's
// goal for it is <= 20 µs.
//
// The sub-benchmarks run the same transaction under each way the
// interpreter can meter (pactbench.Meterings), side by side in one run, so
// that the price of exact metering is a ratio taken on one machine at one
// moment; bench/transfergas alternates them over rounds.
func BenchmarkTransferWithGas(b *testing.B) {
	for _, m := range pactbench.Meterings {
		b.Run(m.Name, func(b *testing.B) {
			t, err := pactbench.NewTransfer("testdata/install.repl")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var used gas.MilliGas
			for i := 0; i < b.N; i++ {
				if used, err = t.Run(m.Meter()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(used.Gas()), "gas/tx")
		})
	}
}

// The benchmarked transfer succeeds under every metering, again and
// again, charging nothing without a limit and something with one.
func TestTransferWithGasRuns(t *testing.T) {
	for _, m := range pactbench.Meterings {
		tr, err := pactbench.NewTransfer("testdata/install.repl")
		if err != nil {
			t.Fatal(err)
		}
		limited := m.Name == "constant" || m.Name == "table"
		for range 3 {
			used, err := tr.Run(m.Meter())
			if err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
			if (used > 0) != limited {
				t.Errorf("%s: used %d", m.Name, used)
			}
		}
	}
}
