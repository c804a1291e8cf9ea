package contracts_test

import (
	"runtime"
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

// Transfers evaluated one after another in one interpreter (the REPL's
// case, and the benchmark's) keep no memory of each other: the heap stays
// near the collector's smallest goal (4 MiB) however many run. The arena
// once cut compiled nodes from chunks, and the dead nodes of each chunk
// in use held older chunks, and those older ones: the heap grew past 30
// MiB over 30,000 transfers, and every collection marked all of it.
func TestTransfersKeepNoMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("twenty thousand transfers")
	}
	tr, err := pactbench.NewTransfer("testdata/install.repl")
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	peak := uint64(0)
	for i := range 20000 {
		if _, err := tr.Run(gas.NewMeter(gas.Table, gas.FromGas(150_000))); err != nil {
			t.Fatal(err)
		}
		if i%500 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	t.Logf("peak heap %.1f MiB", float64(peak)/(1<<20))
	if peak > 16<<20 {
		t.Errorf("the heap reached %.1f MiB over 20,000 transfers", float64(peak)/(1<<20))
	}
}
