// Command hashrate measures the miner's hash rate on one core against a bare BLAKE2s-256 loop over
// the same 286 work bytes, the figure DESIGN.md asks for (goal: ratio >= 0.95).
//
// The loops, each on one goroutine over the work bytes of a real development header:
//
//   - bare:     set the nonce, then pow.PowHashWork (our BLAKE2s-256 of all 286 bytes: five
//     compressions). This is what a miner without a midstate pays per nonce.
//   - x/crypto: golang.org/x/crypto/blake2s.Sum256 of the same bytes, for reference.
//   - miner:    the miner's inner loop: pow.Work.Search over chunks of mining.DefaultChunkNonces
//     nonces with an atomic cancellation check between chunks. The first 256 bytes are
//     compressed once per work item, so each nonce costs one compression.
//
// The machines are noisy, so the loops alternate in one process for several rounds and the ratio
// miner/bare is taken per round; the median round is the result (bench/RESULTS.md).
//
// Usage (from the repository root): go run ./bench/hashrate [-rounds 7]
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/blake2s"

	"github.com/ledgernode/ledger-node/actors/mining"
	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

const goal = 0.95

func main() {
	rounds := flag.Int("rounds", 7, "alternating measurement rounds")
	flag.Parse()
	work, target, err := developmentWork()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hashrate:", err)
		os.Exit(1)
	}
	nonceAt := len(work) - 8

	bare := func(b *testing.B) {
		b.ReportAllocs()
		buf := slices.Clone(work)
		var sink ledger.U256
		for i := 0; i < b.N; i++ {
			binary.LittleEndian.PutUint64(buf[nonceAt:], uint64(i))
			sink = pow.PowHashWork(buf)
		}
		_ = sink
	}
	xcrypto := func(b *testing.B) {
		b.ReportAllocs()
		buf := slices.Clone(work)
		var sink [32]byte
		for i := 0; i < b.N; i++ {
			binary.LittleEndian.PutUint64(buf[nonceAt:], uint64(i))
			sink = blake2s.Sum256(buf)
		}
		_ = sink
	}
	var cancelled atomic.Bool
	miner := func(b *testing.B) {
		b.ReportAllocs()
		// Target 0: no nonce (almost surely) meets it, so every nonce of b.N is tried.
		w, err := pow.NewWork(work, ledger.U256{})
		if err != nil {
			b.Fatal(err)
		}
		for done := uint64(0); done < uint64(b.N) && !cancelled.Load(); {
			n := min(mining.DefaultChunkNonces, uint64(b.N)-done)
			w.Search(done, n)
			done += n
		}
	}

	fmt.Printf("hashrate: %d work bytes of a development header (target %s), %s/%s, GOMAXPROCS=%d, %s\n",
		len(work), target.BEHex()[:16]+"…", runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Printf("%-6s %14s %14s %14s %8s %18s\n", "round", "bare H/s", "x/crypto H/s", "miner H/s", "ratio", "allocs/op (b,x,m)")
	var bs, xs, ms, ratios []float64
	for r := 1; r <= *rounds; r++ {
		rb := testing.Benchmark(bare)
		rx := testing.Benchmark(xcrypto)
		rm := testing.Benchmark(miner)
		b, x, m := perSecond(rb), perSecond(rx), perSecond(rm)
		bs, xs, ms, ratios = append(bs, b), append(xs, x), append(ms, m), append(ratios, m/b)
		fmt.Printf("%-6d %14.0f %14.0f %14.0f %8.2f %10d, %d, %d\n", r, b, x, m, m/b,
			rb.AllocsPerOp(), rx.AllocsPerOp(), rm.AllocsPerOp())
	}
	verdict := "met"
	if stats.Median(ratios) < goal {
		verdict = "NOT met"
	}
	fmt.Printf("median %14.0f %14.0f %14.0f %8.2f   goal >= %.2f: %s\n", stats.Median(bs), stats.Median(xs), stats.Median(ms), stats.Median(ratios), goal, verdict)
}

// developmentWork returns the work bytes and target of a first block of chain 0 on the
// development network (the target does not change what a hash costs).
func developmentWork() ([]byte, ledger.U256, error) {
	v := ledger.Development
	payload := ledger.EmptyGenesisPayload().PayloadHash
	parent := ledger.GenesisHeader(v, 0, payload)
	var adj []*ledger.Header
	for _, c := range v.GraphAt(0).Neighbors(0) {
		adj = append(adj, ledger.GenesisHeader(v, c, payload))
	}
	h, err := pow.NewHeader(v, parent, adj, ledger.EmptyPayload(ledger.NoMinerData).PayloadHash, parent.CreationTime+1, 0, 0)
	if err != nil {
		return nil, ledger.U256{}, err
	}
	return h.WorkBytes(), h.Target, nil
}

func perSecond(r testing.BenchmarkResult) float64 { return float64(r.N) / r.T.Seconds() }
