// Command nodetx measures signed coin transfers through a development node (cmd/ledger-node) run
// as a separate process, as ratios to bare Ed25519 verifications per second measured in the
// same run (the machines are shared and noisy; only the ratios are meaningful):
//
//   - verify: crypto/ed25519.Verify of a transfer's signature over its 32-byte hash on
//     GOMAXPROCS goroutines, in this process, while the node runs with mining off and receives
//     no request (idle). The baseline.
//   - send: transfers accepted (200) by POST …/chain/{c}/pact/api/v1/send per second, on a node
//     started with --mining off on a data directory that has recent blocks, so that the figure
//     is the node's admission path (payload decoding, hash, signature, the Pact-side gas payer
//     check against the chain's state, mempool insert) with no proof of work competing for the
//     cores. -clients goroutines send pre-signed batches spread over the 20 chains and ten
//     senders, for -duration, once per batch size of -batches.
//   - e2e: -n pre-signed transfers sent (batches of 10, -clients goroutines) over all 20 chains
//     as fast as a mining node accepts them, polled with …/poll until every one has a result;
//     the figure is n divided by the time from the first /send to the poll answer that held the
//     last result. Every result must be a success. The default block delay (100 ms, a genesis
//     difficulty of a few hundred thousand hashes) keeps proof of work from being what limits
//     the figure: it measures admission, building and executing blocks, and answering polls.
//
// The phases alternate in rounds and each ratio is taken against its own round's baseline.
// Each phase is also reported per CPU-second of the process doing the work (this one for verify,
// the node's utime+stime from /proc/PID/stat for send and e2e) with the cores it used and the
// cores' worth of time it waited, runnable, for a CPU (/proc/PID/task/*/schedstat): on a shared
// machine the wall-clock ratio moves with what the other jobs take from each phase, the
// per-CPU-second ratio much less.
// Every round runs on one data directory: the node is started with mining off (baseline, send),
// stopped with SIGTERM, started with mining on (e2e), stopped, and so on. The mempool is not
// persisted, so each start begins with an empty one: the send phase's transfers, which are
// never mined, do not leak into the e2e phase, and the same pre-signed send commands serve every
// round.
//
// Usage (from the repository root):
//
//	go run ./bench/nodetx [-rounds 3] [-duration 3s] [-clients 8] [-batches 10,1] [-n 15000]
//	    [-delay 100ms] [-bin PATH] [-data DIR] [-node-log FILE] [-perf DIR]
package main

import (
	"github.com/ledgernode/ledger-node/bench/internal/nodeproc"
	"github.com/ledgernode/ledger-node/bench/internal/proc"

	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
)

const (
	chains  = 20
	senders = 10
	// minerKey is the published development miner key (pact/contracts "devnet-miner").
	minerKey = "f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f"
	// gasLimit: a transfer uses about 230 gas (Pact 5's table model, buying gas and the size
	// charge included, as chainweb charges). A block (gas limit 150,000) takes 375 at first,
	// and then, as chainweb fills blocks, more with the gas they did not use: about 650.
	gasLimit = 400
	// pollKeys is how many of a chain's oldest outstanding request keys one /poll asks for once
	// the oldest has a result: a little more than a full block, so that one poll usually finds a
	// whole block and the keys still waiting cost few lookups.
	pollKeys = 700
)

func main() {
	rounds := flag.Int("rounds", 3, "alternating measurement rounds")
	duration := flag.Duration("duration", 3*time.Second, "length of the baseline and of each send measurement")
	clients := flag.Int("clients", 8, "concurrent HTTP clients")
	batchList := flag.String("batches", "10,1", "transfers per /send, one send measurement each")
	n := flag.Int("n", 15000, "transfers sent and confirmed in each e2e measurement")
	presign := flag.Int("presign", 20000, "transfers signed for each send measurement (at most 90% of the 20 chains' pending bound)")
	delay := flag.Duration("delay", 100*time.Millisecond, "block delay of the node (its genesis difficulty follows it)")
	pollEvery := flag.Duration("poll-every", 50*time.Millisecond, "pause between e2e poll sweeps")
	bin := flag.String("bin", "", "ledger-node binary (default: built from ./cmd/ledger-node)")
	data := flag.String("data", "", "data directory (default: a new temporary one)")
	nodeLog := flag.String("node-log", "", "run the node at --log-level info and append its log to this file (for diagnosis)")
	perfDir := flag.String("perf", "", "record the node with `perf record -g` during round 1's phases into this directory")
	flag.Parse()
	var batches []int
	for _, s := range strings.Split(*batchList, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || b < 1 {
			fmt.Fprintf(os.Stderr, "nodetx: bad -batches %q\n", *batchList)
			os.Exit(2)
		}
		batches = append(batches, b)
	}
	cfg := config{rounds: *rounds, duration: *duration, clients: *clients, batches: batches, n: *n,
		delay: *delay, pollEvery: *pollEvery, bin: *bin, data: *data, presign: *presign, perf: *perfDir, nodeLog: *nodeLog}
	if cfg.perf != "" {
		if err := os.MkdirAll(cfg.perf, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "nodetx: -perf:", err)
			os.Exit(1)
		}
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "nodetx:", err)
		os.Exit(1)
	}
}

type config struct {
	rounds    int
	duration  time.Duration
	clients   int
	batches   []int
	n         int
	presign   int
	delay     time.Duration
	pollEvery time.Duration
	bin, data string
	perf      string
	nodeLog   string
}

// sendResult is one send measurement.
type sendResult struct {
	rate, cpuRate, ratio, cpuRatio float64
}

func run(cfg config) error {
	tmp, err := os.MkdirTemp("", "nodetx")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if cfg.data == "" {
		cfg.data = filepath.Join(tmp, "data")
	}
	if cfg.bin == "" {
		cfg.bin = filepath.Join(tmp, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", cfg.bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	l := &launcher{bin: cfg.bin, dir: cfg.data, delay: cfg.delay, level: "warn"}
	if cfg.nodeLog != "" {
		f, err := os.OpenFile(cfg.nodeLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		l.level, l.log = "info", f
	}
	fmt.Printf("nodetx: %s/%s, %d CPUs, GOMAXPROCS=%d, %s, load average %s\n", runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), proc.LoadAverage())
	fmt.Printf("nodetx: block delay %v, %d clients, batches %v, %v per send measurement, %d transfers per e2e\n",
		cfg.delay, cfg.clients, cfg.batches, cfg.duration, cfg.n)

	// Blocks first: a fresh data directory has only genesis blocks, whose old creation time
	// puts every transfer created now out of the mempool's parent-time slack (95 s).
	t0 := time.Now()
	nd, err := l.start(true)
	if err != nil {
		return err
	}
	if err := nd.WaitHeights(nd.hc, chains, 1, 60*time.Second); err != nil {
		nd.stop()
		return err
	}
	if err := nd.stop(); err != nil {
		return err
	}
	fmt.Printf("nodetx: every chain past height 1 after %v\n", time.Since(t0).Round(time.Millisecond))

	// The send phase's commands are signed once and sent again in every round: each round's node
	// starts with an empty mempool and never mines them. The pool holds at most
	// mempool.DefaultMaxPending per chain and drops (silently, with a 200) what comes after, so
	// the set is bounded to stay under it; a measurement that runs out of commands ends early
	// and its rate is taken over the time it ran.
	perSend := min(cfg.presign, mempool.DefaultMaxPending*chains*9/10/len(cfg.batches))
	created := time.Now().Add(-5 * time.Second).Unix()
	t0 = time.Now()
	sendCmds := sign(0, perSend*len(cfg.batches), created)
	sendWork := make([][]prepared, len(cfg.batches))
	for i, b := range cfg.batches {
		sendWork[i] = prepare(sendCmds[i*perSend:(i+1)*perSend], b)
	}
	fmt.Printf("nodetx: signed %d transfers for the send phase in %v\n", len(sendCmds), time.Since(t0).Round(time.Millisecond))
	fmt.Printf("transfer: %s\n", sendCmds[0].Cmd)
	vc := sendCmds[0]
	sig, err := hexBytes(vc.Sigs[0].Sig)
	if err != nil {
		return err
	}
	pub := devtx.Key("sender00").Public()

	var verifyRates, verifyCPURates []float64
	sendRes := make([][]sendResult, len(cfg.batches))
	var e2eRates, e2eRatios, e2eCPURates, e2eCPURatios []float64
	next := 1 << 30 // sequence numbers of the e2e transfers, apart from the send phase's
	for r := 1; r <= cfg.rounds; r++ {
		nd, err := l.start(false)
		if err != nil {
			return err
		}
		// Baseline, node idle (mining off, no requests).
		runtime.GC()
		nc0, c0, w0, t0 := proc.CPU(nd.Cmd.Process.Pid), proc.Self(), runWait(os.Getpid()), time.Now()
		v, vn := verifyRate(pub, vc.Hash[:], sig, cfg.duration)
		vcpu, ncpu, vwait, el := proc.Self()-c0, proc.CPU(nd.Cmd.Process.Pid)-nc0, runWait(os.Getpid())-w0, time.Since(t0)
		vr := float64(vn) / vcpu.Seconds()
		verifyRates, verifyCPURates = append(verifyRates, v), append(verifyCPURates, vr)
		fmt.Printf("%d  verify       %8.0f/s                      per bench CPU-s %8.0f                  bench %.2f cores (waited %.2f), idle node %.2f CPU-s\n",
			r, v, vr, vcpu.Seconds()/el.Seconds(), vwait.Seconds()/el.Seconds(), ncpu.Seconds())

		for i, b := range cfg.batches {
			runtime.GC()
			stopPerf := startPerf(cfg.perf, r, fmt.Sprintf("send-b%d", b), nd)
			nc0, c0, w0 := proc.CPU(nd.Cmd.Process.Pid), proc.Self(), runWait(nd.Cmd.Process.Pid)
			s, err := sendRate(nd, sendWork[i], cfg.duration, cfg.clients)
			stopPerf()
			if err != nil {
				nd.stop()
				return err
			}
			ncpu, ccpu, nwait := proc.CPU(nd.Cmd.Process.Pid)-nc0, proc.Self()-c0, runWait(nd.Cmd.Process.Pid)-w0
			res := sendResult{rate: s.rate, cpuRate: float64(s.n) / ncpu.Seconds()}
			res.ratio, res.cpuRatio = res.rate/v, res.cpuRate/vr
			sendRes[i] = append(sendRes[i], res)
			note := ""
			if s.ranOut {
				note = " (ran out of commands)"
			}
			fmt.Printf("%d  send b=%-4d %8.0f/s  ratio %6.3f   per node CPU-s %8.0f  ratio %6.3f   node %.2f cores (waited %.2f), client %.2f cores, %d accepted in %v%s\n",
				r, b, res.rate, res.ratio, res.cpuRate, res.cpuRatio, ncpu.Seconds()/s.elapsed.Seconds(),
				nwait.Seconds()/s.elapsed.Seconds(), ccpu.Seconds()/s.elapsed.Seconds(), s.n, s.elapsed.Round(time.Millisecond), note)
		}
		if err := nd.stop(); err != nil {
			return err
		}

		// End to end on a mining node. Its transfers are signed now (creation time 5 s ago),
		// before the node starts, so that signing is not timed.
		cmds := sign(next, cfg.n, time.Now().Add(-5*time.Second).Unix())
		next += cfg.n
		work := prepare(cmds, 10)
		nd, err = l.start(true)
		if err != nil {
			return err
		}
		stopPerf := startPerf(cfg.perf, r, "e2e", nd)
		e, err := endToEnd(nd, work, cfg.n, cfg.clients, cfg.pollEvery, 120*time.Second)
		stopPerf()
		if err != nil {
			nd.stop()
			return err
		}
		if err := nd.stop(); err != nil {
			return err
		}
		// Per node CPU-second as for send: the miner hashes on whatever CPU the node's other work
		// leaves, but with blocks this easy it spends most of its time waiting for payloads
		// (a few percent of the node's CPU in a profile), so this is mostly the transfers' cost.
		ecpu := float64(cfg.n) / e.nodeCPU.Seconds()
		e2eRates, e2eRatios = append(e2eRates, e.rate), append(e2eRatios, e.rate/v)
		e2eCPURates, e2eCPURatios = append(e2eCPURates, ecpu), append(e2eCPURatios, ecpu/vr)
		fmt.Printf("%d  e2e          %8.0f/s  ratio %6.3f   per node CPU-s %8.0f  ratio %6.3f   node %.2f cores (waited %.2f); %d transfers: all sent after %v, all confirmed after %v; %d blocks (%.0f transfers per block)\n",
			r, e.rate, e.rate/v, ecpu, ecpu/vr, e.nodeCPU.Seconds()/e.confirmed.Seconds(), e.nodeWait.Seconds()/e.confirmed.Seconds(),
			cfg.n, e.sent.Round(time.Millisecond), e.confirmed.Round(time.Millisecond), e.blocks, float64(cfg.n)/float64(max(e.blocks, 1)))
	}

	fmt.Printf("median verify       %8.0f/s                      per bench CPU-s %8.0f\n",
		stats.Median(verifyRates), stats.Median(verifyCPURates))
	for i, b := range cfg.batches {
		var rate, ratio, cpuRate, cpuRatio []float64
		for _, s := range sendRes[i] {
			rate, ratio = append(rate, s.rate), append(ratio, s.ratio)
			cpuRate, cpuRatio = append(cpuRate, s.cpuRate), append(cpuRatio, s.cpuRatio)
		}
		fmt.Printf("median send b=%-4d %8.0f/s  ratio %6.3f   per node CPU-s %8.0f  ratio %6.3f\n",
			b, stats.Median(rate), stats.Median(ratio), stats.Median(cpuRate), stats.Median(cpuRatio))
	}
	fmt.Printf("median e2e          %8.0f/s  ratio %6.3f   per node CPU-s %8.0f  ratio %6.3f\n", stats.Median(e2eRates),
		stats.Median(e2eRatios), stats.Median(e2eCPURates), stats.Median(e2eCPURatios))
	fmt.Printf("nodetx: load average %s\n", proc.LoadAverage())
	return nil
}

// startPerf records the node with perf in round 1 when dir is set (the node has no profiling
// endpoint; its Go frame pointers give perf the call graphs) and returns what stops it.
func startPerf(dir string, round int, name string, nd *node) func() {
	if dir == "" || round != 1 {
		return func() {}
	}
	cmd := exec.Command("perf", "record", "-q", "-F", "499", "-g", "-p", strconv.Itoa(nd.Cmd.Process.Pid),
		"-o", filepath.Join(dir, name+".data"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "nodetx: perf:", err)
		return func() {}
	}
	time.Sleep(200 * time.Millisecond) // perf attaches
	return func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
}

// sign builds n signed transfers numbered from seq, on every core. Transfer i of the slice is on
// chain i mod 20 (prepare relies on it), from sender (i/20) mod 10 to the next sender, so that
// consecutive commands of a chain come from different senders; its nonce (seq + i) makes its
// request key unique in the run.
func sign(seq, n int, created int64) []*api.Command {
	out := make([]*api.Command, n)
	prefix := "nodetx-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				k := seq + i
				from, to := (i/chains)%senders, (i/chains+1)%senders
				c := devtx.Transfer(fmt.Sprintf("sender%02d", from), fmt.Sprintf("sender%02d", to), "0.1",
					strconv.Itoa(i%chains))
				c.GasLimit, c.GasPrice = gasLimit, "0.00000001"
				c.CreationTime, c.TTL = created, 3600
				c.Nonce = prefix + strconv.Itoa(k)
				out[i] = c.Build()
			}
		}()
	}
	wg.Wait()
	return out
}

// prepared is one /send: its chain, its body, the answer it must get and its request keys.
type prepared struct {
	chain int
	body  []byte
	want  []byte
	keys  []string
}

// prepare groups cmds (as sign numbers them) into /send batches of one chain each, ordered
// round-robin over the chains so that concurrent clients spread over them.
func prepare(cmds []*api.Command, batch int) []prepared {
	byChain := make([][]*api.Command, chains)
	for i, c := range cmds {
		byChain[i%chains] = append(byChain[i%chains], c)
	}
	var out []prepared
	for off := 0; ; off += batch {
		added := false
		for c := range chains {
			cs := byChain[c]
			if off >= len(cs) {
				continue
			}
			added = true
			b := cs[off:min(off+batch, len(cs))]
			p := prepared{chain: c, body: (&api.SubmitBatch{Cmds: b}).AppendJSON(nil)}
			p.want = append(p.want, `{"requestKeys":[`...)
			for j, cmd := range b {
				k := cmd.Hash.String()
				if j > 0 {
					p.want = append(p.want, ',')
				}
				p.want = strconv.AppendQuote(p.want, k)
				p.keys = append(p.keys, k)
			}
			p.want = append(p.want, "]}"...)
			out = append(out, p)
		}
		if !added {
			return out
		}
	}
}

// hexBytes decodes a signature's hex text.
func hexBytes(s string) ([]byte, error) {
	b := make([]byte, len(s)/2)
	for i := range b {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, fmt.Errorf("signature %q: %w", s, err)
		}
		b[i] = byte(v)
	}
	return b, nil
}

// verifyRate is the baseline: Ed25519 verifications of a transfer's signature per second on
// GOMAXPROCS goroutines, and how many were done.
func verifyRate(pub ed25519.PublicKey, hash, sig []byte, d time.Duration) (float64, int64) {
	var total atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	start := time.Now()
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(0)
			for time.Now().Before(deadline) {
				for range 64 {
					if !ed25519.Verify(pub, hash, sig) {
						panic("signature does not verify")
					}
				}
				n += 64
			}
			total.Add(n)
		}()
	}
	wg.Wait()
	return float64(total.Load()) / time.Since(start).Seconds(), total.Load()
}

// runWait is how long process pid's threads have waited, runnable, for a CPU (the second field
// of /proc/PID/task/*/schedstat). Next to the CPU time it tells a process limited by its own
// work from one starved by the other jobs on the machine.
func runWait(pid int) time.Duration {
	dirs, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue // the thread ended
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
}

// sendStats is what a send measurement did.
type sendStats struct {
	rate    float64
	n       int64
	elapsed time.Duration
	ranOut  bool
}

// sendRate runs the clients over work for d (or until it runs out) and returns the commands
// accepted per second. Any answer but 200 with the expected request keys is an error: every
// command is valid, so a rejection is a bug (of this harness or of the node).
func sendRate(nd *node, work []prepared, d time.Duration, clients int) (sendStats, error) {
	var total, next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	var ranOut atomic.Bool
	deadline := time.Now().Add(d)
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for time.Now().Before(deadline) {
				i := int(next.Add(1) - 1)
				if i >= len(work) {
					ranOut.Store(true)
					return
				}
				if err := nd.send(req, resp, &work[i]); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				total.Add(int64(len(work[i].keys)))
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	return sendStats{rate: float64(total.Load()) / el.Seconds(), n: total.Load(), elapsed: el, ranOut: ranOut.Load()}, firstErr
}

// e2eStats is what an end-to-end measurement did.
type e2eStats struct {
	rate            float64
	sent, confirmed time.Duration // from the first /send
	blocks          uint64
	nodeCPU         time.Duration
	nodeWait        time.Duration
}

// endToEnd sends work (n transfers) with the clients as fast as the node takes them while one
// goroutine polls each chain's oldest outstanding request keys; it returns when every transfer
// has a successful result. A failed result, or transfers that do not confirm within timeout,
// is an error: both would be node bugs.
func endToEnd(nd *node, work []prepared, n, clients int, pollEvery, timeout time.Duration) (e2eStats, error) {
	h0, err := nd.Heights(nd.hc, chains)
	if err != nil {
		return e2eStats{}, err
	}
	var mu sync.Mutex
	outstanding := make([][]string, chains) // per chain, in the order /send answered
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	var sentAt atomic.Int64
	nc0, w0 := proc.CPU(nd.Cmd.Process.Pid), runWait(nd.Cmd.Process.Pid)
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(work) {
					return
				}
				w := &work[i]
				if err := nd.send(req, resp, w); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				mu.Lock()
				outstanding[w.chain] = append(outstanding[w.chain], w.keys...)
				mu.Unlock()
			}
		}()
	}
	sendDone := make(chan struct{})
	go func() {
		wg.Wait()
		sentAt.Store(int64(time.Since(start)))
		close(sendDone)
	}()

	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	found := 0
	var last time.Time
	for found < n {
		select {
		case <-sendDone:
			if firstErr != nil {
				return e2eStats{}, firstErr
			}
		default:
		}
		if time.Since(start) > timeout {
			return e2eStats{}, stuckError(nd, outstanding, &mu, found, n, timeout)
		}
		for c := range chains {
			for {
				// A chain's pending transfers all pay the same gas price, so blocks take them in
				// arrival order: while the oldest has no result, none has. Asking for it alone
				// keeps the poll's own lookups (a state read per key) from loading the node.
				mu.Lock()
				keys := slices.Clone(outstanding[c][:min(pollKeys, len(outstanding[c]))])
				mu.Unlock()
				if len(keys) == 0 {
					break
				}
				results, err := nd.poll(req, resp, c, keys[:1])
				if err != nil {
					return e2eStats{}, err
				}
				if len(results) == 0 {
					break
				}
				if len(keys) > 1 {
					if results, err = nd.poll(req, resp, c, keys); err != nil {
						return e2eStats{}, err
					}
				}
				last = time.Now()
				for k, res := range results {
					if res.Result.Status != "success" {
						return e2eStats{}, fmt.Errorf("chain %d: transfer %s did not succeed: %s", c, k, res.raw)
					}
				}
				found += len(results)
				mu.Lock()
				outstanding[c] = slices.DeleteFunc(outstanding[c], func(k string) bool { _, ok := results[k]; return ok })
				mu.Unlock()
				if len(results) < len(keys) {
					break
				}
			}
		}
		if found < n {
			time.Sleep(pollEvery)
		}
	}
	<-sendDone
	nodeCPU, nodeWait := proc.CPU(nd.Cmd.Process.Pid)-nc0, runWait(nd.Cmd.Process.Pid)-w0
	h1, err := nd.Heights(nd.hc, chains)
	if err != nil {
		return e2eStats{}, err
	}
	var blocks uint64
	for c := range chains {
		blocks += h1[c] - h0[c]
	}
	confirmed := last.Sub(start)
	return e2eStats{rate: float64(n) / confirmed.Seconds(), sent: time.Duration(sentAt.Load()), confirmed: confirmed,
		blocks: blocks, nodeCPU: nodeCPU, nodeWait: nodeWait}, nil
}

// stuckError describes transfers that did not confirm: a node bug, reported with what the node
// says about them.
func stuckError(nd *node, outstanding [][]string, mu *sync.Mutex, found, n int, timeout time.Duration) error {
	mu.Lock()
	defer mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "only %d of %d transfers confirmed after %v;", found, n, timeout)
	for c, ks := range outstanding {
		if len(ks) > 0 {
			fmt.Fprintf(&b, " chain %d: %d outstanding (first %s);", c, len(ks), ks[0])
		}
	}
	if hs, err := nd.Heights(nd.hc, chains); err == nil {
		fmt.Fprintf(&b, " heights %v", hs)
	}
	fmt.Fprintf(&b, "\nnode stderr:\n%s", nd.stderr.String())
	return errors.New(b.String())
}

// pollResult is the part of a /poll result the measurement checks.
type pollResult struct {
	Result struct {
		Status string `json:"status"`
	} `json:"result"`
	raw json.RawMessage
}

// node is a ledger-node process.
type node struct {
	*nodeproc.Node
	prefix string // /chainweb/0.0/development/chain/
	hc     *fasthttp.HostClient
	stderr *tailBuffer
}

// launcher starts the node: always the same binary, data directory and block delay (the
// genesis difficulty, hence the genesis blocks, follow the delay).
type launcher struct {
	bin, dir string
	delay    time.Duration
	level    string    // the node's --log-level
	log      io.Writer // also gets the node's log when set
}

// start runs the node, mining or not, and waits until it prints its service address.
func (l *launcher) start(mining bool) (*node, error) {
	args := []string{"--data-dir", l.dir, "--service-port", "0", "--p2p-port", "0", "--block-delay", l.delay.String(),
		"--miner-key", minerKey, "--log-level", l.level}
	if !mining {
		args = append(args, "--mining", "off")
	}
	nd := &node{prefix: "/chainweb/0.0/development/chain/", stderr: &tailBuffer{max: 64 << 10}}
	var stderr io.Writer = nd.stderr
	if l.log != nil {
		fmt.Fprintf(l.log, "=== %s %s\n", time.Now().Format(time.RFC3339Nano), strings.Join(args, " "))
		stderr, nd.stderr.quiet = io.MultiWriter(nd.stderr, l.log), true
	}
	p, err := nodeproc.Start(l.bin, args, stderr)
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, nd.stderr.String())
	}
	nd.Node = p
	nd.hc = &fasthttp.HostClient{Addr: p.Addr, MaxConns: 64, ReadTimeout: 60 * time.Second,
		WriteTimeout: 60 * time.Second, MaxResponseBodySize: 64 << 20}
	return nd, nil
}

// stop sends SIGTERM and waits for a clean exit. Anything the node logged (at warn or above) is
// shown: a healthy run logs nothing.
func (nd *node) stop() error {
	err := nd.Stop()
	if s := nd.stderr.String(); s != "" && !nd.stderr.quiet {
		fmt.Printf("  node stderr:\n%s", s)
	}
	if err != nil {
		return fmt.Errorf("node: %w", err)
	}
	return nil
}

// post sends body to the chain's pact endpoint op and returns the 200 answer's body (valid until
// resp is reused).
func (nd *node) post(req *fasthttp.Request, resp *fasthttp.Response, chain int, op string, body []byte) ([]byte, error) {
	req.Reset()
	req.SetRequestURI(nd.Base + nd.prefix + strconv.Itoa(chain) + "/pact/api/v1/" + op)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	req.SetBodyRaw(body)
	if err := nd.hc.Do(req, resp); err != nil {
		return nil, fmt.Errorf("chain %d %s: %w", chain, op, err)
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		return nil, fmt.Errorf("chain %d %s: status %d: %s", chain, op, resp.StatusCode(), resp.Body())
	}
	return resp.Body(), nil
}

// send posts one prepared batch and checks that every command was accepted.
func (nd *node) send(req *fasthttp.Request, resp *fasthttp.Response, w *prepared) error {
	body, err := nd.post(req, resp, w.chain, "send", w.body)
	if err != nil {
		return err
	}
	if !bytes.Equal(body, w.want) {
		return fmt.Errorf("chain %d send: answer %s, want %s", w.chain, body, w.want)
	}
	return nil
}

// poll asks for keys' results and returns those the node has.
func (nd *node) poll(req *fasthttp.Request, resp *fasthttp.Response, chain int, keys []string) (map[string]*pollResult, error) {
	b := []byte(`{"requestKeys":[`)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, k)
	}
	b = append(b, "]}"...)
	body, err := nd.post(req, resp, chain, "poll", b)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("chain %d poll: %v: %s", chain, err, body)
	}
	out := make(map[string]*pollResult, len(raw))
	for k, r := range raw {
		if !slices.Contains(keys, k) {
			return nil, fmt.Errorf("chain %d poll: result for %s, which was not asked for", chain, k)
		}
		var pr pollResult
		if err := json.Unmarshal(r, &pr); err != nil {
			return nil, fmt.Errorf("chain %d poll: %v: %s", chain, err, r)
		}
		pr.raw = r
		out[k] = &pr
	}
	return out, nil
}

// tailBuffer keeps the last max bytes written to it; it takes the node's stderr.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	b     []byte
	quiet bool // the log goes to a file; stop does not print it
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
