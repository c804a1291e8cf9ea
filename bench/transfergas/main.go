// Command transfergas measures what exact metering costs a coin transfer on our interpreter:
// pactbench.Transfer (buy gas, coin.transfer, redeem gas, in one Pact transaction) under each
// way the interpreter meters (pactbench.Meterings), against the same transfer unmetered.
//
// In every round the meterings run one after the other (testing.Benchmark, 1 s each), the
// ratio of each to the unmetered run of the same round is taken, and the median round is the
// result: these machines are noisy, and absolute times drift from minute to minute while the
// ratio holds. pact/contracts' BenchmarkTransferWithGas is the same as a go test benchmark.
//
// Usage (from the repository root): go run ./bench/transfergas [-rounds 7]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/internal/pactbench"
	"github.com/ledgernode/ledger-node/pact/gas"
)

func main() {
	rounds := flag.Int("rounds", 7, "alternating measurement rounds")
	install := flag.String("install", "pact/contracts/testdata/install.repl", "the REPL script installing the contracts")
	flag.Parse()

	ms := pactbench.Meterings
	fmt.Printf("transfergas: %s/%s, GOMAXPROCS=%d, %s; ratio = ns/op ÷ unmetered ns/op, same round\n",
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())
	for _, m := range ms {
		fmt.Printf("  %-9s %s\n", m.Name, m.Desc)
	}
	fmt.Printf("%-6s %-9s %10s %8s %10s %8s\n", "round", "metering", "ns/op", "ratio", "allocs/op", "gas/tx")
	ns := make([][]float64, len(ms))
	ratios := make([][]float64, len(ms))
	for r := 1; r <= *rounds; r++ {
		var base float64
		for i, m := range ms {
			t, err := pactbench.NewTransfer(*install)
			if err != nil {
				fmt.Fprintln(os.Stderr, "transfergas:", err)
				os.Exit(1)
			}
			var used gas.MilliGas
			var runErr error
			res := testing.Benchmark(func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if used, runErr = t.Run(m.Meter()); runErr != nil {
						b.Fatal(runErr)
					}
				}
			})
			if runErr != nil || res.N == 0 {
				fmt.Fprintf(os.Stderr, "transfergas: %s: %v\n", m.Name, runErr)
				os.Exit(1)
			}
			per := float64(res.T.Nanoseconds()) / float64(res.N)
			if i == 0 {
				base = per
			}
			ns[i], ratios[i] = append(ns[i], per), append(ratios[i], per/base)
			fmt.Printf("%-6d %-9s %10.0f %8.3f %10d %8d\n", r, m.Name, per, per/base, res.AllocsPerOp(), used.Gas())
		}
	}
	for i, m := range ms {
		fmt.Printf("%-6s %-9s %10.0f %8.3f\n", "median", m.Name, stats.Median(ns[i]), stats.Median(ratios[i]))
	}
}
