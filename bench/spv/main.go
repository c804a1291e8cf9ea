// Command spv measures SPV output proofs (actors/spv.go): proofs generated per second by the
// source chain's executor (Executor.OutputProof) and verified per second by the target chain's
// (Executor.VerifyOutputProof), for targets one, two and three hops from the source in the chain
// graph, as ratios to SHA-512/256 hashes of 65-byte inputs (one merkle node) per second measured
// in the same run on the same number of goroutines (the machines are noisy; only the ratio is
// meaningful).
//
// Everything runs in process, without HTTP: a development-network store in a temporary
// directory, a mining runtime that mines every chain past height 2 and carries one cross-chain
// transfer from chain 0 to each target, then, once every chain has grown past the proofs' roots,
// the runtime is stopped and started again without the miner on the same store, so that the
// measurements run on a quiet node with a fixed cut. Phases alternate within each round:
// generation and verification for each target, each bracketed by baseline measurements, on one
// goroutine and then on GOMAXPROCS goroutines.
//
//	go run ./bench/spv [-duration 1s] [-rounds 5] [-grow 8] [-cpuprofile file]
package main

import (
	"github.com/ledgernode/ledger-node/actors/mining"
	"github.com/ledgernode/ledger-node/bench/internal/proc"
	"github.com/ledgernode/ledger-node/chain"

	"bytes"
	"context"
	"crypto/sha512"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/contractapi"
	"github.com/ledgernode/ledger-node/txexec"
)

// The devnet miner key (interop/node_test.go): the blocks pay k:<key>.
const minerKey = "f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f"

// source is the transfers' chain; targets are one, two and three hops from it (the graph's
// diameter is 3): the proof of a d-hop target carries d header-to-header segments.
const source ledger.ChainID = 0

var targets = []ledger.ChainID{5, 7, 1}

func main() {
	duration := flag.Duration("duration", time.Second, "length of each measurement")
	rounds := flag.Int("rounds", 5, "alternating measurement rounds")
	grow := flag.Uint64("grow", 8, "blocks every chain is mined past the highest proof root before the measurements")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the measurements to this file")
	flag.Parse()
	if err := run(*duration, *rounds, *grow, *cpuProfile); err != nil {
		fmt.Fprintln(os.Stderr, "spv:", err)
		os.Exit(1)
	}
}

// transfer is one cross-chain transfer and the proof of its output for its target.
type transfer struct {
	target   ledger.ChainID
	distance int
	cmd      *api.Command
	height   uint64 // of the block holding the transaction on the source chain
	proof    string
	steps    int
	output   int // bytes of the proven output
}

func run(duration time.Duration, rounds int, grow uint64, cpuProfile string) error {
	dir, err := os.MkdirTemp("", "bench-spv-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(dir, store.Options{Logger: discard})
	if err != nil {
		return err
	}
	defer db.Close()
	// About 4 hashes per block: the chains advance as fast as blocks can be executed, so the
	// setup waits on the braid, not on the proof-of-work.
	tg, err := pow.TargetFromDifficulty(ledger.U256{4})
	if err != nil {
		return err
	}
	v := ledger.Development.WithGenesisTarget(tg)
	genesis, err := writeGenesis(db, v)
	if err != nil {
		return err
	}

	fmt.Printf("spv: %s/%s, GOMAXPROCS=%d, %s, %v per measurement, %d rounds\n",
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version(), duration, rounds)
	t0 := time.Now()
	miner := ledger.MinerData("k:"+minerKey, minerKey)
	start := func(mine bool) (*actors.Runtime, error) {
		cfg := actors.Config{Version: v, Store: db, Genesis: genesis, Logger: discard,
			Execution: &actors.ExecutionConfig{Runner: txexec.New(txexec.Config{}), MinerData: miner,
				Mempool: actors.MempoolConfig{Logger: discard}}}
		rt, err := actors.Start(cfg)
		if err == nil && mine {
			mining.Start(rt, mining.Config{MinerData: miner, Workers: 1})
		}
		return rt, err
	}
	rt, err := start(true)
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			rt.Stop()
		}
	}()
	if err := waitHeights(rt, 2, time.Minute); err != nil {
		return err
	}
	xs, err := sendTransfers(rt, v)
	if err != nil {
		return err
	}
	var top uint64
	for _, x := range xs {
		top = max(top, x.height+uint64(x.distance))
	}
	if err := waitHeights(rt, top+grow, time.Minute); err != nil {
		return err
	}
	rt.Stop()
	stopped = true
	fmt.Printf("setup: %d cross-chain transfers from chain %d mined, every chain at height >= %d, in %v\n", len(xs), source, top+grow, time.Since(t0).Round(time.Millisecond))

	// The quiet node: the same store, no miner; the executors resume at the stored heads.
	t1 := time.Now()
	if rt, err = start(false); err != nil {
		return err
	}
	stopped = false
	cut := rt.Cut()
	src, _ := rt.Executor(source)
	execs := map[ledger.ChainID]*actors.Executor{}
	for _, x := range xs {
		execs[x.target], _ = rt.Executor(x.target)
		if err := firstProof(src, execs[x.target], x, 10*time.Second); err != nil {
			return err
		}
	}
	low, high := uint64(1<<63-1), uint64(0)
	for _, e := range cut.Entries {
		low, high = min(low, e.Height), max(high, e.Height)
	}
	fmt.Printf("quiet runtime (no miner) resumed and proofs checked in %v; heads at heights %d-%d\n",
		time.Since(t1).Round(time.Millisecond), low, high)
	fmt.Println("target  hops  tx height  target head  proof bytes  steps  output bytes")
	for _, x := range xs {
		e, _ := cut.Entry(x.target)
		fmt.Printf("%-7d %4d %10d %12d %12d %6d %13d\n", x.target, x.distance, x.height, e.Height, len(x.proof), x.steps, x.output)
	}

	// The phases of a round, in the order they alternate.
	type phase struct {
		name string
		op   func() error
	}
	phases := []phase{}
	for _, x := range xs {
		phases = append(phases, phase{fmt.Sprintf("gen %d", x.distance), func() error {
			_, err := src.OutputProof(x.cmd.Hash, x.target)
			return err
		}})
	}
	for _, x := range xs {
		xt := execs[x.target]
		phases = append(phases, phase{fmt.Sprintf("verify %d", x.distance), func() error {
			_, err := xt.VerifyOutputProof(x.proof)
			return err
		}})
	}
	levels := []int{1}
	if runtime.GOMAXPROCS(0) > 1 {
		levels = append(levels, runtime.GOMAXPROCS(0))
	}
	// Each phase is bracketed by baseline measurements half as long, and its ratio is taken to
	// the mean of the two around it: on a machine other jobs share, the load changes within a
	// round, and the hash rate right before and after a phase is the fairest yardstick for it.
	// Rates are also taken per CPU-second of this process, which other jobs do not move.
	type sample struct{ wall, cpu float64 }
	type series struct{ rates, ratios []sample }
	results := make([][]series, len(levels)) // [level][phase]
	hashes := make([][]float64, len(levels)) // every baseline bracket, wall-clock
	for l := range levels {
		results[l] = make([]series, len(phases))
	}
	measure := func(g int, d time.Duration, batch int, newOp func() func() error) (sample, error) {
		runtime.GC()
		w, c, err := rate(g, d, batch, newOp)
		return sample{w, c}, err
	}
	fmt.Printf("\nops/s (sha512/256 65B: the median of the round's %d baseline brackets); gen d / verify d: a proof for a target d hops away\n", len(phases)+1)
	fmt.Printf("round  goroutines  sha512/256 65B")
	for _, p := range phases {
		fmt.Printf(" %9s", p.name)
	}
	fmt.Println()
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for r := 1; r <= rounds; r++ {
		for l, g := range levels {
			before, err := measure(g, duration/2, 256, hashOp)
			if err != nil {
				return err
			}
			brackets := []float64{before.wall}
			row := make([]float64, len(phases))
			for i, p := range phases {
				op := p.op
				got, err := measure(g, duration, 1, func() func() error { return op })
				if err != nil {
					return fmt.Errorf("%s: %w", p.name, err)
				}
				after, err := measure(g, duration/2, 256, hashOp)
				if err != nil {
					return err
				}
				res := &results[l][i]
				res.rates = append(res.rates, got)
				res.ratios = append(res.ratios, sample{got.wall / ((before.wall + after.wall) / 2),
					got.cpu / ((before.cpu + after.cpu) / 2)})
				row[i], before = got.wall, after
				brackets = append(brackets, after.wall)
			}
			hashes[l] = append(hashes[l], brackets...)
			fmt.Printf("%-6d %10d %15.0f", r, g, stats.Median(brackets))
			for _, w := range row {
				fmt.Printf(" %9.0f", w)
			}
			fmt.Println()
		}
	}

	fmt.Println("\nmedians over the rounds: proofs/s, ratio to the bracketing sha512/256 65B rate on as many goroutines,")
	fmt.Println("and its inverse (the proof's cost in merkle-node hashes); wall-clock, then per CPU-second")
	for l, g := range levels {
		fmt.Printf("goroutines %d: sha512/256 65B %.0f/s\n", g, stats.Median(hashes[l]))
		for i, p := range phases {
			res := results[l][i]
			pick := func(xs []sample, cpu bool) float64 {
				v := make([]float64, len(xs))
				for j, x := range xs {
					v[j] = x.wall
					if cpu {
						v[j] = x.cpu
					}
				}
				return stats.Median(v)
			}
			wr, cr := pick(res.ratios, false), pick(res.ratios, true)
			fmt.Printf("  %-9s %8.0f/s  ratio %.5f (%4.0f hashes)   per CPU-s: %8.0f/s  ratio %.5f (%4.0f hashes)\n",
				p.name, pick(res.rates, false), wr, 1/wr, pick(res.rates, true), cr, 1/cr)
		}
	}
	return nil
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// writeGenesis stores every chain's genesis block and makes them the heads, as ledger-node does
// for a new data directory (cmd/ledger-node/node.go), and returns the headers by chain.
func writeGenesis(db *store.DB, v *ledger.Version) ([]*ledger.Header, error) {
	if err := db.CheckVersion(v.Name); err != nil {
		return nil, err
	}
	runner := txexec.New(txexec.Config{})
	chains := v.Chains()
	genesis := make([]*ledger.Header, slices.Max(chains)+1)
	heads := map[ledger.ChainID]ledger.Hash{}
	for _, c := range chains {
		p, err := chain.GenesisPayload(runner, c, v.Name)
		if err != nil {
			return nil, fmt.Errorf("genesis payload of chain %d: %w", c, err)
		}
		if err := db.PutPayload(p); err != nil {
			return nil, err
		}
		genesis[c] = ledger.GenesisHeader(v, c, p.PayloadHash)
		heads[c] = genesis[c].Hash
	}
	if err := db.PutHeaders(genesis...); err != nil {
		return nil, err
	}
	return genesis, db.SetHeads(heads)
}

// waitHeights waits until every chain of the cut is at height low or more.
func waitHeights(rt *actors.Runtime, low uint64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		cut := rt.Cut()
		lowest := uint64(1<<63 - 1)
		for _, e := range cut.Entries {
			lowest = min(lowest, e.Height)
		}
		if lowest >= low {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v the lowest chain is at height %d, want %d", timeout, lowest, low)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sendTransfers sends a cross-chain transfer (step 0) from the source chain to each target and
// waits until all are mined and succeeded.
func sendTransfers(rt *actors.Runtime, v *ledger.Version) ([]*transfer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cc, _ := rt.Contract(source)
	receiver := devtx.Key("sender01").PublicHex()
	var xs []*transfer
	var cmds []*api.Command
	for i, t := range targets {
		c := devtx.CrossChainTransfer("sender00", "sender01", receiver, "1.0", fmt.Sprint(source), fmt.Sprint(t))
		c.Nonce = fmt.Sprintf("bench-spv-%d-%d", i, time.Now().UnixNano())
		cmd := c.Build()
		cmds = append(cmds, cmd)
		xs = append(xs, &transfer{target: t, distance: v.GraphAt(0).Distance(source, t), cmd: cmd})
	}
	if _, err := cc.Send(ctx, cmds); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	keys := make([]api.Hash, len(cmds))
	for i, c := range cmds {
		keys[i] = c.Hash
	}
	for {
		polled, err := cc.Poll(ctx, keys, contractapi.PollOptions{})
		if err != nil {
			return nil, fmt.Errorf("poll: %w", err)
		}
		if len(polled) == len(keys) {
			for _, p := range polled {
				var r struct {
					Result   struct{ Status string }
					MetaData struct{ BlockHeight uint64 }
				}
				if err := json.Unmarshal(p.Result, &r); err != nil || r.Result.Status != "success" {
					return nil, fmt.Errorf("transfer %s: %s", p.Key, p.Result)
				}
				for _, x := range xs {
					if x.cmd.Hash == p.Key {
						x.height = r.MetaData.BlockHeight
					}
				}
			}
			return xs, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the transfers were not mined: %d of %d results", len(polled), len(keys))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// firstProof makes x's proof once the resumed executors have their heads, and checks it before
// anything is measured: it decodes, is for the target, has d header segments' worth of steps,
// and the target's executor verifies it to the transaction's output; the source chain's
// executor, which is not the target, refuses it.
func firstProof(src, dst *actors.Executor, x *transfer, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var err error
		if x.proof, err = src.OutputProof(x.cmd.Hash, x.target); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("proof of %s for chain %d: %w", x.cmd.Hash, x.target, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p, err := ledger.DecodeOutputProof(x.proof)
	if err != nil {
		return err
	}
	if p.Chain != x.target {
		return fmt.Errorf("proof for chain %d, want %d", p.Chain, x.target)
	}
	x.steps, x.output = len(p.Proof.Steps), len(p.Output)
	for dst.Head() == nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("chain %d's executor has no head", x.target)
		}
		time.Sleep(10 * time.Millisecond)
	}
	out, err := dst.VerifyOutputProof(x.proof)
	if err != nil {
		return fmt.Errorf("chain %d does not verify the proof: %w", x.target, err)
	}
	if !bytes.Equal(out, p.Output) || !bytes.Contains(out, []byte(x.cmd.Hash.String())) {
		return fmt.Errorf("chain %d verified another output: %s", x.target, out)
	}
	if _, err := src.VerifyOutputProof(x.proof); err == nil {
		return errors.New("the source chain accepted a proof for another chain")
	}
	return nil
}

// hashOp is the baseline operation: one merkle node hash, SHA-512/256 of 0x01 || left || right
// (ledger.NodeHash), each input made from the previous output so none can be skipped.
func hashOp() func() error {
	var buf [1 + 2*32]byte
	buf[0] = 0x01
	return func() error {
		h := sha512.Sum512_256(buf[:])
		copy(buf[1:], h[:])
		return nil
	}
}

// rate runs an operation on g goroutines for d, checking the clock every batch operations, and
// returns the operations per second of wall-clock time and per second of this process's CPU
// time. Each goroutine takes its operation from newOp: hashOp keeps state per goroutine, the
// proof operations are shared (the executors' reads are safe for concurrent use).
func rate(g int, d time.Duration, batch int, newOp func() func() error) (float64, float64, error) {
	var total atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	c0 := proc.Self()
	start := time.Now()
	deadline := start.Add(d)
	for range g {
		f := newOp()
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(0)
			for time.Now().Before(deadline) {
				for range batch {
					if err := f(); err != nil {
						errOnce.Do(func() { firstErr = err })
						return
					}
				}
				n += int64(batch)
			}
			total.Add(n)
		}()
	}
	wg.Wait()
	wall, used := time.Since(start), proc.Self()-c0
	return float64(total.Load()) / wall.Seconds(), float64(total.Load()) / used.Seconds(), firstErr
}
