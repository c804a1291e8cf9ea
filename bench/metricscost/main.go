// Command metricscost measures the node's Prometheus metrics (GET /metrics) on a development
// node run as a separate process:
//
//   - scrape: how long GET /metrics takes on a node mining all 20 chains (so every family has
//     its 20 chains' series, and the miner competes for the cores as it would in production):
//     -scrapes sequential scrapes, after a few requests of each kind so that the HTTP families
//     have series; the latency's median, 99th percentile and maximum, and the body's size. Then
//     the same on the node restarted with --mining off: what the scrape costs without the
//     miner's goroutines holding every core.
//   - cost when nobody scrapes: GET …/chain/{c}/header/{hash} of random stored headers, -clients
//     connections for -duration, on the node started with --mining off and metrics on (the
//     default; every request is counted by route class and status and timed) or off
//     (--metrics-path ""; nothing is counted), alternating, on the same data directory. Each
//     round reports both rates and the node's requests per CPU-second (utime+stime from
//     /proc/PID/stat), and the ratio on/off of each. The machines are shared and noisy: the
//     ratios of a round are what counts, and their median over the rounds.
//
// Usage (from the repository root):
//
//	go run ./bench/metricscost [-rounds 5] [-duration 3s] [-clients 16] [-scrapes 200] [-delay 200ms] [-bin PATH]
//
// With -compare OLD,NEW it measures only the scrape of the mining node, for two binaries in turn
// (-rounds rounds, each on a fresh data directory): each round's scrape and GET cut latencies,
// and the ratio of the scrape's p99 to the GET cut's p99 of the same node, the baseline that
// takes the machine's load out.
//
//	go run ./bench/metricscost -compare /tmp/before,/tmp/after [-rounds 3] [-scrapes 200]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/bench/internal/nodeproc"
	"github.com/ledgernode/ledger-node/bench/internal/proc"
	"github.com/ledgernode/ledger-node/bench/internal/stats"
)

const chains = 20

type config struct {
	rounds, clients, scrapes int
	duration, delay          time.Duration
	bin                      string
	compare                  string
}

func main() {
	var cfg config
	flag.IntVar(&cfg.rounds, "rounds", 5, "rounds of the on/off header GET measurement")
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "length of one header GET measurement")
	flag.IntVar(&cfg.clients, "clients", 16, "concurrent connections of the header GET load")
	flag.IntVar(&cfg.scrapes, "scrapes", 200, "sequential scrapes of /metrics timed on the mining node")
	flag.DurationVar(&cfg.delay, "delay", 200*time.Millisecond, "the mining node's --block-delay")
	flag.StringVar(&cfg.bin, "bin", "", "ledger-node binary (default: built from ./cmd/ledger-node)")
	flag.StringVar(&cfg.compare, "compare", "", "OLD,NEW: compare the scrape of two ledger-node binaries on a mining node, and nothing else")
	flag.Parse()
	run := run
	if cfg.compare != "" {
		run = compare
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "metricscost:", err)
		os.Exit(1)
	}
}

func run(cfg config) error {
	tmp, err := os.MkdirTemp("", "metricscost")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if cfg.bin == "" {
		cfg.bin = filepath.Join(tmp, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", cfg.bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	data := filepath.Join(tmp, "data")
	fmt.Printf("metricscost: %s/%s, %d CPUs, %s, load average %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		runtime.Version(), proc.LoadAverage())

	// Scrapes on a mining node.
	nd, err := start(cfg.bin, data, cfg.delay, true, "/metrics")
	if err != nil {
		return err
	}
	if err := nd.WaitHeights(nd.hc, chains, 10, 120*time.Second); err != nil {
		nd.stop()
		return err
	}
	for _, path := range []string{"/info", "/health-check", "/chainweb/0.0/development/cut", "/nowhere",
		"/chainweb/0.0/development/chain/0/header?limit=5"} {
		nd.hc.Get(nil, nd.Base+path)
	}
	lat, cutLat, size, lines, err := scrapes(nd, cfg.scrapes)
	hs, _ := nd.Heights(nd.hc, chains)
	if serr := nd.stop(); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	fmt.Printf("scrape: %d sequential GET /metrics on a node mining 20 chains (heights %d–%d, block delay %v): "+
		"%s; %d bytes, %d samples\n", len(lat), slices.Min(hs), slices.Max(hs), cfg.delay, latencies(lat), size, lines)
	fmt.Printf("  GET cut after each, for comparison: %s\n", latencies(cutLat))

	// Header GETs with metrics on and off.
	nd, err = start(cfg.bin, data, cfg.delay, false, "/metrics")
	if err != nil {
		return err
	}
	targets, err := nd.headerTargets()
	if err == nil {
		lat, cutLat, size, lines, err = scrapes(nd, cfg.scrapes)
	}
	nd.stop()
	if err != nil {
		return err
	}
	fmt.Printf("scrape: %d sequential GET /metrics on the same node restarted with --mining off: %s; %d bytes, %d samples\n",
		len(lat), latencies(lat), size, lines)
	fmt.Printf("  GET cut after each, for comparison: %s\n", latencies(cutLat))
	fmt.Printf("header GET: %d stored headers, %d clients, %v per measurement, node with --mining off\n",
		len(targets), cfg.clients, cfg.duration)
	fmt.Printf("%-6s %12s %12s %7s %14s %14s %7s\n", "round", "off req/s", "on req/s", "ratio", "off req/cpu-s", "on req/cpu-s", "ratio")
	var rateRatios, cpuRatios []float64
	for round := 1; round <= cfg.rounds; round++ {
		res := map[bool]load{}
		order := []bool{false, true}
		if round%2 == 0 {
			order = []bool{true, false} // neither side always goes first
		}
		for _, on := range order {
			path := ""
			if on {
				path = "/metrics"
			}
			nd, err := start(cfg.bin, data, cfg.delay, false, path)
			if err != nil {
				return err
			}
			// The metrics must be where they are said to be, and only there.
			status, _, _ := nd.hc.Get(nil, nd.Base+"/metrics")
			if (status == 200) != on {
				nd.stop()
				return fmt.Errorf("GET /metrics answered %d with metrics on=%v", status, on)
			}
			nd.load(targets, cfg.clients, 500*time.Millisecond) // warm-up
			l, err := nd.load(targets, cfg.clients, cfg.duration)
			if serr := nd.stop(); err == nil {
				err = serr
			}
			if err != nil {
				return err
			}
			res[on] = l
		}
		off, on := res[false], res[true]
		rateRatios = append(rateRatios, on.rate/off.rate)
		cpuRatios = append(cpuRatios, on.perCPU/off.perCPU)
		fmt.Printf("%-6d %12.0f %12.0f %7.3f %14.0f %14.0f %7.3f\n", round, off.rate, on.rate, on.rate/off.rate,
			off.perCPU, on.perCPU, on.perCPU/off.perCPU)
	}
	fmt.Printf("median ratio on/off: %.3f req/s, %.3f req/cpu-s\n", stats.Median(rateRatios), stats.Median(cpuRatios))
	return nil
}

// pct is the p-quantile of sorted xs (nearest rank).
func pct(xs []float64, p float64) float64 {
	return xs[min(len(xs)-1, int(p*float64(len(xs))))]
}

// scrapes GETs /metrics n times in a row and returns each latency in ms, and the last body's
// size and sample lines. Each scrape is followed by a GET cut, whose latencies go to cutLat: the
// baseline of what any request waits on that node (the miner's goroutines hold the cores, and so
// do the machine's other jobs).
func scrapes(nd *node, n int) (lat, cutLat []float64, size, samples int, err error) {
	for range n {
		t0 := time.Now()
		status, body, err := nd.hc.Get(nil, nd.Base+"/metrics")
		if err != nil || status != 200 {
			return nil, nil, 0, 0, fmt.Errorf("GET /metrics: %d %v", status, err)
		}
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		t1 := time.Now()
		if status, _, err := nd.hc.Get(nil, nd.Base+"/chainweb/0.0/development/cut"); err != nil || status != 200 {
			return nil, nil, 0, 0, fmt.Errorf("GET cut: %d %v", status, err)
		}
		cutLat = append(cutLat, float64(time.Since(t1).Microseconds())/1000)
		size, samples = len(body), 0
		for _, l := range strings.Split(string(body), "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				samples++
			}
		}
	}
	return lat, cutLat, size, samples, nil
}

// latencies describes sorted latencies in ms.
func latencies(xs []float64) string {
	slices.Sort(xs)
	return fmt.Sprintf("median %.2f ms, p99 %.2f ms, max %.2f ms", pct(xs, 0.5), pct(xs, 0.99), xs[len(xs)-1])
}

type load struct {
	rate, perCPU float64 // requests per second, per CPU-second of the node
}

// load GETs random headers on clients connections for d and returns the rates.
func (nd *node) load(targets []string, clients int, d time.Duration) (load, error) {
	var ok, failed atomic.Int64
	cpu0, t0 := proc.CPU(nd.Cmd.Process.Pid), time.Now()
	deadline := t0.Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), uint64(t0.UnixNano())))
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for time.Now().Before(deadline) {
				req.SetRequestURI(targets[rng.IntN(len(targets))])
				if err := nd.hc.Do(req, resp); err != nil || resp.StatusCode() != 200 {
					failed.Add(1)
					continue
				}
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	el, cpu := time.Since(t0), proc.CPU(nd.Cmd.Process.Pid)-cpu0
	if f := failed.Load(); f > 0 {
		return load{}, fmt.Errorf("%d header GETs failed", f)
	}
	return load{rate: float64(ok.Load()) / el.Seconds(), perCPU: float64(ok.Load()) / max(cpu.Seconds(), 0.01)}, nil
}

type node struct {
	*nodeproc.Node
	hc *fasthttp.HostClient
}

// start runs the node on dir and waits until it prints its service address.
func start(bin, dir string, delay time.Duration, mining bool, metricsPath string) (*node, error) {
	args := []string{"--data-dir", dir, "--service-port", "0", "--p2p-port", "0", "--block-delay", delay.String(),
		"--log-level", "warn", "--metrics-path", metricsPath}
	if !mining {
		args = append(args, "--mining", "off")
	}
	p, err := nodeproc.Start(bin, args, nil)
	if err != nil {
		return nil, err
	}
	return &node{Node: p, hc: &fasthttp.HostClient{Addr: p.Addr, MaxConns: 256, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, MaxResponseBodySize: 64 << 20}}, nil
}

// stop sends SIGTERM and waits for a clean exit; anything the node logged at warn or above is
// shown.
func (nd *node) stop() error {
	err := nd.Stop()
	if s := nd.Stderr(); s != "" {
		fmt.Printf("  node stderr:\n%s", s)
	}
	if err != nil {
		return fmt.Errorf("node: %w", err)
	}
	return nil
}

// headerTargets lists the URLs of every stored header (GET chain/{c}/hash pages).
func (nd *node) headerTargets() ([]string, error) {
	var out []string
	for c := range chains {
		prefix := fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/", nd.Base, c)
		status, body, err := nd.hc.Get(nil, prefix+"hash?limit=4096")
		if err != nil || status != 200 {
			return nil, fmt.Errorf("GET hash list: %d %v", status, err)
		}
		var page struct {
			Items []string `json:"items"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, err
		}
		for _, h := range page.Items {
			out = append(out, prefix+"header/"+h)
		}
	}
	return out, nil
}

// compare measures the scrape of a mining node for each binary of cfg.compare in turn.
func compare(cfg config) error {
	bins := strings.Split(cfg.compare, ",")
	tmp, err := os.MkdirTemp("", "metricscost")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("metricscost -compare: %s/%s, %d CPUs, %s, load average %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		runtime.Version(), proc.LoadAverage())
	ratios := make([][]float64, len(bins))
	p99s := make([][]float64, len(bins))
	for round := 1; round <= cfg.rounds; round++ {
		for i, bin := range bins {
			nd, err := start(bin, filepath.Join(tmp, fmt.Sprintf("data-%d-%d", round, i)), cfg.delay, true, "/metrics")
			if err != nil {
				return err
			}
			if err := nd.WaitHeights(nd.hc, chains, 10, 120*time.Second); err != nil {
				nd.stop()
				return err
			}
			lat, cutLat, size, samples, err := scrapes(nd, cfg.scrapes)
			if serr := nd.stop(); err == nil {
				err = serr
			}
			if err != nil {
				return err
			}
			slices.Sort(lat)
			slices.Sort(cutLat)
			ratio := pct(lat, 0.99) / pct(cutLat, 0.99)
			ratios[i] = append(ratios[i], ratio)
			p99s[i] = append(p99s[i], pct(lat, 0.99))
			fmt.Printf("round %d %s: scrape %s; GET cut %s; p99 scrape/cut %.2f; %d bytes, %d samples\n", round, bin,
				latencies(lat), latencies(cutLat), ratio, size, samples)
		}
	}
	for i, bin := range bins {
		fmt.Printf("%s: median over rounds of the scrape p99 %.2f ms, of p99 scrape/cut %.2f\n", bin, stats.Median(p99s[i]), stats.Median(ratios[i]))
	}
	return nil
}
