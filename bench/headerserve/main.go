// Command headerserve measures GET .../chain/{c}/header/{hash} on the service API with wrk, as a
// ratio to a fasthttp handler that returns a constant body of the same size, both measured in
// the same run (the machines are noisy; only the ratio is meaningful).
//
// The store holds more headers than the header cache and the block cache can keep, and wrk asks
// for uniformly random existing hashes, so most requests miss the caches. The service runs as
// the node runs it: behind a GuardedListener with the node's connection limits and with its
// requests counted for the metrics (-guard=false and -metrics=false measure without either, to
// see what each costs). The servers run on one core (GOMAXPROCS=1, pinned to CPU 0 once the
// store is built) and wrk on the other (CPU 1).
//
// Each round also gives the server's CPU time per request (for both servers), which other jobs
// on the shared machine move less than the rate, the share of CPU 0 that other processes took
// meanwhile (a round they shared says little), and the node's page faults. -quiet waits before
// each round for CPU 0 to be free of them.
//
// Building the store seals the headers on every core. wrk reads its request paths from a file
// into a Lua table: for a store larger than -paths, the paths are a uniform sample of -paths
// headers, which still spreads the reads over the whole store.
//
//	go run ./bench/headerserve [-headers 300000] [-duration 10s] [-rounds 3] [-quiet 20]
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/bench/internal/proc"
	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport"
	"github.com/ledgernode/ledger-node/transport/connguard"
)

func main() {
	nHeaders := flag.Int("headers", 300000, "headers in the store (spread over 20 chains)")
	cacheSize := flag.Int("header-cache", 20000, "decoded headers the store keeps hot")
	duration := flag.Duration("duration", 10*time.Second, "wrk duration per measurement")
	rounds := flag.Int("rounds", 3, "alternating measurement rounds")
	conns := flag.Int("connections", 64, "wrk connections")
	maxPaths := flag.Int("paths", 1_000_000, "distinct hashes wrk asks for (a uniform sample when the store holds more)")
	guard := flag.Bool("guard", true, "serve through a GuardedListener with the node's connection limits, as the node does")
	metrics := flag.Bool("metrics", true, "count the requests for the metrics (ServiceConfig.Requests), as a node with --metrics-path does")
	quiet := flag.Float64("quiet", 0, "before each round, wait (up to -quiet-wait) until other processes use at most this percentage of CPU 0; 0: do not wait")
	quietWait := flag.Duration("quiet-wait", time.Minute, "the longest wait for a quiet CPU 0 before a round")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the first node measurement to this file (and of the constant body's to this name + .const)")
	flag.Parse()
	profilePath = *cpuProfile
	o := options{guard: *guard, metrics: *metrics, maxPaths: *maxPaths, quiet: *quiet / 100, quietWait: *quietWait}
	if err := run(*nHeaders, *cacheSize, *duration, *rounds, *conns, o); err != nil {
		fmt.Fprintln(os.Stderr, "headerserve:", err)
		os.Exit(1)
	}
}

type options struct {
	guard, metrics bool
	maxPaths       int
	quiet          float64 // the busy share of CPU 0 a round waits for (0: none)
	quietWait      time.Duration
}

func run(nHeaders, cacheSize int, duration time.Duration, rounds, conns int, o options) error {
	if _, err := exec.LookPath("wrk"); err != nil {
		return fmt.Errorf("wrk not found (apt-get install wrk): %w", err)
	}
	dir, err := os.MkdirTemp("", "headerserve")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(filepath.Join(dir, "db"), store.Options{HeaderCacheSize: cacheSize, BlockCacheMiB: 8})
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Printf("filling a store with %d headers (header cache %d entries, block cache 8 MiB)...\n", nHeaders, cacheSize)
	start := time.Now()
	paths, bodySize, err := fill(db, nHeaders, o.maxPaths)
	if err != nil {
		return err
	}
	filled := time.Since(start)
	// Measure reads, not the background compaction of the bulk load.
	if err := db.Compact(); err != nil {
		return err
	}
	fmt.Printf("filled in %.1fs, compacted in %.1fs; wrk asks for %d distinct hashes\n",
		filled.Seconds(), (time.Since(start) - filled).Seconds(), len(paths))
	// From here on the servers have one core, as the doc comment says.
	runtime.GOMAXPROCS(1)
	if err := pinToCPU(0); err != nil {
		fmt.Fprintln(os.Stderr, "headerserve: servers not pinned to CPU 0:", err)
	}
	pathFile := filepath.Join(dir, "paths.txt")
	if err := os.WriteFile(pathFile, []byte(joinLines(paths)), 0o644); err != nil {
		return err
	}
	script := filepath.Join(dir, "random.lua")
	if err := os.WriteFile(script, []byte(luaScript(pathFile)), 0o644); err != nil {
		return err
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	cfg := transport.ServiceConfig{Version: ledger.Mainnet01, Store: db, PackageVersion: "bench", Logger: logger}
	var requests *transport.RequestStats
	if o.metrics {
		requests = transport.NewRequestStats()
		cfg.Requests = requests
	}
	svc := transport.NewService(cfg)
	nodeLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var served net.Listener = nodeLn
	if o.guard {
		// The node's service limits when it runs no peer API (cmd/ledger-node/limits.go: 500
		// goleveldb files, 64 other files, 16 make-blocks connections reserved).
		limits := connguard.AutoConnLimits(connguard.DescriptorLimit(), 500+64+16, 1)[0]
		g := connguard.GuardListener(nodeLn, limits, "service", logger)
		g.SetHeaders(svc.AppendCommonHeaders)
		served = g
		fmt.Printf("connection limits: %d connections, %d per address\n", limits.Max, limits.PerAddress)
	}
	go svc.Serve(served)
	defer svc.Shutdown(context.Background())

	constant := make([]byte, bodySize)
	for i := range constant {
		constant[i] = 'A'
	}
	constant[0], constant[len(constant)-1] = '"', '"'
	constLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	constSrv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json;charset=utf-8")
		ctx.SetBody(constant)
	}, NoDefaultServerHeader: true}
	go constSrv.Serve(constLn)
	defer constSrv.Shutdown()

	// A correctness check first: the node answers with the header.
	status, body, err := fasthttp.Get(nil, "http://"+nodeLn.Addr().String()+paths[0])
	if err != nil || status != 200 || len(body) != bodySize {
		return fmt.Errorf("node check: status %d, %d bytes, %v", status, len(body), err)
	}

	var nodeRPS, constRPS, ratios, cpuRatios []float64
	for r := 0; r < rounds; r++ {
		if o.quiet > 0 {
			waitQuiet(o.quiet, o.quietWait)
		}
		load := proc.LoadAverage()
		stopProfile := startProfile(r, ".const")
		c, err := wrk(constLn.Addr().String(), script, duration, conns)
		stopProfile()
		if err != nil {
			return err
		}
		stopProfile = startProfile(r, "")
		n, err := wrk(nodeLn.Addr().String(), script, duration, conns)
		stopProfile()
		if err != nil {
			return err
		}
		constRPS, nodeRPS = append(constRPS, c.rps), append(nodeRPS, n.rps)
		ratios, cpuRatios = append(ratios, n.rps/c.rps), append(cpuRatios, c.cpuPerReq()/n.cpuPerReq())
		fmt.Printf("round %d: constant body %.0f req/s, GET header/{hash} %.0f req/s, ratio %.2f; "+
			"server CPU per request %.2f µs vs %.2f µs, ratio %.2f (load average %s; others' share of CPU 0: %.0f%%, %.0f%%; "+
			"node page faults per 1000 requests: %.0f minor, %.1f major)\n",
			r+1, c.rps, n.rps, n.rps/c.rps, c.cpuPerReq()*1e6, n.cpuPerReq()*1e6, cpuRatios[r], load,
			100*c.othersCPU0, 100*n.othersCPU0, 1000*n.minorFaults/n.requests, 1000*n.majorFaults/n.requests)
	}
	mc, mn := stats.Median(constRPS), stats.Median(nodeRPS)
	fmt.Printf("median: constant body %.0f req/s, GET header/{hash} %.0f req/s, ratio %.2f; median of the rounds' ratios %.2f (goal >= 0.95); "+
		"median CPU-per-request ratio %.2f\n", mc, mn, mn/mc, stats.Median(ratios), stats.Median(cpuRatios))
	fmt.Printf("body %d bytes, %d headers, guard %v, metrics %v, GOMAXPROCS=1 servers on CPU 0, wrk -t1 -c%d on CPU 1, %s per run\n",
		bodySize, nHeaders, o.guard, o.metrics, conns, duration)
	if requests != nil {
		// The counting is part of what is measured: show that it counted.
		for _, rc := range requests.Snapshot() {
			if rc.Route == "chain/{chain}/header/{blockHash}" {
				for _, st := range rc.Statuses {
					fmt.Printf("metrics: %s %s: %d answers with status %d\n", rc.Method, rc.Route, st.Count, st.Status)
				}
			}
		}
	}
	return nil
}

// fill stores n synthetic headers on 20 chains and returns the request paths of at most
// maxPaths of them (all, or a uniform sample) and the size of one plain-JSON response body.
// Sealing (the merkle hash) is most of the cost, so batches are sealed on every core, the next
// while the last is stored.
func fill(db *store.DB, n, maxPaths int) ([]string, int, error) {
	const batchSize = 4096
	sealed := make(chan []*ledger.Header, 1)
	go func() {
		defer close(sealed)
		for first := 0; first < n; first += batchSize {
			sealed <- sealBatch(first, min(batchSize, n-first))
		}
	}()
	type pick struct {
		c ledger.ChainID
		h ledger.Hash
	}
	picks := make([]pick, 0, min(n, maxPaths))
	rng := rand.New(rand.NewPCG(42, 42))
	var bodySize, i int
	var err error
	for batch := range sealed {
		if err != nil {
			continue // drain, so the sealer ends
		}
		if bodySize == 0 {
			bodySize = len(batch[0].B64()) + 2 // every header has three adjacents: one size
		}
		for _, h := range batch {
			// Reservoir sampling: every header ends up among the picks with the same chance.
			p := pick{h.ChainID, h.Hash}
			if len(picks) < maxPaths {
				picks = append(picks, p)
			} else if j := rng.IntN(i + 1); j < maxPaths {
				picks[j] = p
			}
			i++
		}
		err = db.PutHeaders(batch...)
	}
	if err != nil {
		return nil, 0, err
	}
	paths := make([]string, len(picks))
	for i, p := range picks {
		paths[i] = fmt.Sprintf("/chainweb/0.0/mainnet01/chain/%d/header/%s", p.c, p.h)
	}
	return paths, bodySize, nil
}

// sealBatch makes and seals headers first..first+m-1 on every core.
func sealBatch(first, m int) []*ledger.Header {
	batch := make([]*ledger.Header, m)
	workers := runtime.NumCPU()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := w; k < m; k += workers {
				i := first + k
				c := ledger.ChainID(i % 20)
				h := &ledger.Header{
					CreationTime: 1_700_000_000_000_000 + int64(i), ChainID: c, Height: uint64(i / 20),
					Version: ledger.Mainnet01.Code, Nonce: uint64(i), Target: ledger.MaxU256,
				}
				for _, a := range ledger.TwentyChainGraph.Neighbors(c) {
					h.Adjacents = append(h.Adjacents, ledger.Adjacent{Chain: a, Hash: ledger.Hash{byte(a), byte(i)}})
				}
				h.Seal()
				batch[k] = h
			}
		})
	}
	wg.Wait()
	return batch
}

func luaScript(pathFile string) string {
	return `local paths = {}
for line in io.lines("` + pathFile + `") do paths[#paths + 1] = line end
math.randomseed(42)
request = function()
  return wrk.format("GET", paths[math.random(#paths)])
end
`
}

var (
	rpsLine   = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	totalLine = regexp.MustCompile(`([0-9]+) requests in `)
	wrkErrors = regexp.MustCompile(`(Non-2xx or 3xx responses|Socket errors):.*`)
)

// wrkRun is one wrk measurement: the rate, the requests, and the CPU time this process (the
// server measured; the other one idles meanwhile) used for them.
type wrkRun struct {
	rps      float64
	requests float64
	cpu      time.Duration
	// othersCPU0 is the share of CPU 0's time that went to other processes (busy time less
	// this process's, which runs there alone): a round that others shared says little.
	othersCPU0 float64
	// majorFaults are this process's page faults that read from disk (the store's mapped files
	// evicted from the page cache: this VM's DAMON reclaims pages it sees as cold); minorFaults
	// those that only map a cached page (the first touch of each page of the mapped store).
	majorFaults, minorFaults float64
}

// cpuPerReq is the server's CPU seconds per request. On a shared machine it moves less than
// the rate: other jobs take the server's core away, not CPU time from its requests.
func (w wrkRun) cpuPerReq() float64 { return w.cpu.Seconds() / w.requests }

// wrk runs wrk pinned to CPU 1 and returns what it measured.
func wrk(addr, script string, d time.Duration, conns int) (wrkRun, error) {
	args := []string{"-c", "1", "wrk", "-t1", "-c" + strconv.Itoa(conns), "-d" + d.String(), "-s", script, "http://" + addr}
	busy0, total0 := cpuTimes(0)
	cpu0, min0, maj0 := proc.Self(), pageFaults(7), pageFaults(9)
	out, err := exec.Command("taskset", args...).CombinedOutput()
	cpu, minor, maj := proc.Self()-cpu0, pageFaults(7)-min0, pageFaults(9)-maj0
	busy1, total1 := cpuTimes(0)
	if err != nil {
		return wrkRun{}, fmt.Errorf("wrk: %v: %s", err, out)
	}
	m, t := rpsLine.FindSubmatch(out), totalLine.FindSubmatch(out)
	if m == nil || t == nil {
		return wrkRun{}, fmt.Errorf("wrk output has no Requests/sec: %s", out)
	}
	if bad := wrkErrors.Find(out); bad != nil {
		return wrkRun{}, fmt.Errorf("wrk saw failed requests: %s", bad)
	}
	rps, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return wrkRun{}, err
	}
	n, err := strconv.ParseFloat(string(t[1]), 64)
	if err != nil {
		return wrkRun{}, err
	}
	others := 0.0
	if total1 > total0 {
		others = max(0, (busy1-busy0)-cpu.Seconds()) / (total1 - total0)
	}
	return wrkRun{rps: rps, requests: n, cpu: cpu, othersCPU0: others, majorFaults: maj, minorFaults: minor}, nil
}

// pageFaults is one of this process's page fault counts so far (/proc/self/stat): field 7
// after the command name is minflt, 9 majflt.
func pageFaults(field int) float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) <= field {
		return 0
	}
	n, _ := strconv.ParseFloat(f[field], 64)
	return n
}

// waitQuiet waits until CPU 0, where the servers run, was busy at most share of a second (the
// servers idle meanwhile, so all of that is other processes'), or until limit has passed.
func waitQuiet(share float64, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		b0, t0 := cpuTimes(0)
		time.Sleep(time.Second)
		b1, t1 := cpuTimes(0)
		busy := 0.0
		if t1 > t0 {
			busy = (b1 - b0) / (t1 - t0)
		}
		if busy <= share {
			return
		}
		if time.Now().After(deadline) {
			fmt.Printf("(CPU 0 still %.0f%% busy after waiting %s: measuring anyway)\n", 100*busy, limit)
			return
		}
	}
}

// cpuTimes returns the busy and total seconds of one CPU from /proc/stat (zeros if unreadable).
func cpuTimes(cpu int) (busy, total float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	prefix := "cpu" + strconv.Itoa(cpu) + " "
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		f := strings.Fields(line)[1:]
		for i, v := range f {
			x, _ := strconv.ParseFloat(v, 64)
			total += x
			if i != 3 && i != 4 { // idle, iowait
				busy += x
			}
		}
		return busy / 100, total / 100 // USER_HZ
	}
	return 0, 0
}

func joinLines(xs []string) string {
	n := 0
	for _, x := range xs {
		n += len(x) + 1
	}
	b := make([]byte, 0, n)
	for _, x := range xs {
		b = append(b, x...)
		b = append(b, '\n')
	}
	return string(b)
}

var profilePath string

// startProfile profiles the first round's measurements when -cpuprofile is set: the node's
// into the file named, the constant body's into that name with suffix ".const".
func startProfile(round int, suffix string) (stop func()) {
	if profilePath == "" || round > 0 {
		return func() {}
	}
	f, err := os.Create(profilePath + suffix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cpuprofile:", err)
		return func() {}
	}
	pprof.StartCPUProfile(f)
	return func() { pprof.StopCPUProfile(); f.Close() }
}
