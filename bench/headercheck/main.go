// Command headercheck measures how fast a node can check headers it receives, against the bare
// cost of the block hash that any check must pay.
//
// Both loops run over the 360 real mainnet chain-5 headers of testdata/vectors:
//
//   - merkle: ComputeHash of an already decoded header (the baseline);
//   - check:  decode the wire bytes, ComputeHash, compare with the stored hash, PoW hash of the
//     received work bytes, compare with the target.
//
// The machines we share are noisy, so the two are measured alternately in the same process for
// several rounds, and the ratio is taken per round; the median round is the result. DESIGN.md
// sets the goal check/merkle >= 0.8. Results go to bench/RESULTS.md with the command line.
//
// Usage (from the repository root): go run ./bench/headercheck [-rounds 7] [-vectors path]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

const goal = 0.8

func main() {
	vectors := flag.String("vectors", "testdata/vectors/mainnet01-chain5-headers.json", "chain-5 header vectors (JSON)")
	rounds := flag.Int("rounds", 7, "alternating measurement rounds")
	flag.Parse()

	raw, decoded, err := load(*vectors)
	if err != nil {
		fmt.Fprintln(os.Stderr, "headercheck:", err)
		os.Exit(1)
	}

	merkle := func(b *testing.B) {
		b.ReportAllocs()
		var sink ledger.Hash
		for i := 0; i < b.N; i++ {
			sink = decoded[i%len(decoded)].ComputeHash()
		}
		_ = sink
	}
	check := func(b *testing.B) {
		b.ReportAllocs()
		var h ledger.Header
		for i := 0; i < b.N; i++ {
			wire := raw[i%len(raw)]
			if err := h.UnmarshalBinary(wire); err != nil {
				b.Fatal(err)
			}
			if h.ComputeHash() != h.Hash {
				b.Fatal("block hash mismatch")
			}
			if !pow.CheckTarget(h.Target, pow.PowHashWork(wire[:len(wire)-ledger.HashSize])) {
				b.Fatal("PoW above target")
			}
		}
	}

	fmt.Printf("headercheck: %d real mainnet headers, %s/%s, GOMAXPROCS=%d, %s\n",
		len(raw), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Printf("%-6s %14s %14s %7s %18s\n", "round", "merkle hdr/s", "check hdr/s", "ratio", "allocs/op (m, c)")
	var ms, cs, ratios []float64
	for r := 1; r <= *rounds; r++ {
		rm := testing.Benchmark(merkle)
		rc := testing.Benchmark(check)
		m, c := perSecond(rm), perSecond(rc)
		ms, cs, ratios = append(ms, m), append(cs, c), append(ratios, c/m)
		fmt.Printf("%-6d %14.0f %14.0f %7.3f %9d, %d\n", r, m, c, c/m, rm.AllocsPerOp(), rc.AllocsPerOp())
	}
	verdict := "met"
	if stats.Median(ratios) < goal {
		verdict = "NOT met"
	}
	fmt.Printf("median %14.0f %14.0f %7.3f   goal >= %.2f: %s\n", stats.Median(ms), stats.Median(cs), stats.Median(ratios), goal, verdict)
}

func perSecond(r testing.BenchmarkResult) float64 {
	return float64(r.N) / r.T.Seconds()
}

// load reads the vector file and returns the wire bytes and decoded headers, checking that every
// header decodes and carries its recorded hash (so the loops time only valid work).
func load(path string) ([][]byte, []*ledger.Header, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (run from the repository root, or pass -vectors)", err)
	}
	var f struct {
		Headers []struct {
			Binary    string `json:"binary_b64url"`
			BlockHash string `json:"blockHash_b64url"`
		} `json:"headers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Headers) == 0 {
		return nil, nil, fmt.Errorf("%s: no headers", path)
	}
	var raw [][]byte
	var decoded []*ledger.Header
	for i, r := range f.Headers {
		w, err := ledger.DecodeB64(r.Binary)
		if err != nil {
			return nil, nil, fmt.Errorf("header %d: %w", i, err)
		}
		h, err := ledger.DecodeHeader(w)
		if err != nil {
			return nil, nil, fmt.Errorf("header %d: %w", i, err)
		}
		if h.Hash.String() != r.BlockHash || h.ComputeHash() != h.Hash || !pow.CheckPow(h) {
			return nil, nil, fmt.Errorf("header %d does not verify", i)
		}
		raw = append(raw, w)
		decoded = append(decoded, h)
	}
	return raw, decoded, nil
}
