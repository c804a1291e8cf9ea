// Command headerserve measures GET .../chain/{c}/header/{hash} on the service API with wrk, as a
// ratio to a fasthttp handler that returns a constant body of the same size, both measured in
// the same run (the machines are noisy; only the ratio is meaningful).
//
// The store holds more headers than the header cache and the block cache can keep, and wrk asks
// for uniformly random existing hashes, so most requests miss the caches. The servers run on one
// core (GOMAXPROCS=1, CPU 0) and wrk on the other (CPU 1).
//
//	go run ./bench/headerserve [-headers 300000] [-duration 10s] [-rounds 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport"
)

func main() {
	nHeaders := flag.Int("headers", 300000, "headers in the store (spread over 20 chains)")
	cacheSize := flag.Int("header-cache", 20000, "decoded headers the store keeps hot")
	duration := flag.Duration("duration", 10*time.Second, "wrk duration per measurement")
	rounds := flag.Int("rounds", 3, "alternating measurement rounds")
	conns := flag.Int("connections", 64, "wrk connections")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the node measurements to this file")
	flag.Parse()
	profilePath = *cpuProfile
	runtime.GOMAXPROCS(1)
	if err := run(*nHeaders, *cacheSize, *duration, *rounds, *conns); err != nil {
		fmt.Fprintln(os.Stderr, "headerserve:", err)
		os.Exit(1)
	}
}

func run(nHeaders, cacheSize int, duration time.Duration, rounds, conns int) error {
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
	paths, bodySize, err := fill(db, nHeaders)
	if err != nil {
		return err
	}
	// Measure reads, not the background compaction of the bulk load.
	if err := db.Compact(); err != nil {
		return err
	}
	pathFile := filepath.Join(dir, "paths.txt")
	if err := os.WriteFile(pathFile, []byte(joinLines(paths)), 0o644); err != nil {
		return err
	}
	script := filepath.Join(dir, "random.lua")
	if err := os.WriteFile(script, []byte(luaScript(pathFile)), 0o644); err != nil {
		return err
	}

	svc := transport.NewService(transport.ServiceConfig{
		Version: ledger.Mainnet01, Store: db, PackageVersion: "bench",
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	})
	nodeLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go svc.Serve(nodeLn)
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

	var nodeRPS, constRPS []float64
	for r := 0; r < rounds; r++ {
		c, err := wrk(constLn.Addr().String(), script, duration, conns)
		if err != nil {
			return err
		}
		stopProfile := startProfile(r)
		n, err := wrk(nodeLn.Addr().String(), script, duration, conns)
		stopProfile()
		if err != nil {
			return err
		}
		constRPS, nodeRPS = append(constRPS, c), append(nodeRPS, n)
		fmt.Printf("round %d: constant body %.0f req/s, GET header/{hash} %.0f req/s, ratio %.2f\n", r+1, c, n, n/c)
	}
	mc, mn := stats.Median(constRPS), stats.Median(nodeRPS)
	fmt.Printf("median: constant body %.0f req/s, GET header/{hash} %.0f req/s, ratio %.2f (goal >= 0.7)\n", mc, mn, mn/mc)
	fmt.Printf("body %d bytes, %d headers, GOMAXPROCS=1 server on CPU 0, wrk -t1 -c%d on CPU 1, %s per run\n",
		bodySize, nHeaders, conns, duration)
	return nil
}

// fill stores n synthetic headers on 20 chains and returns the request paths of all of them and
// the size of one plain-JSON response body.
func fill(db *store.DB, n int) ([]string, int, error) {
	paths := make([]string, 0, n)
	batch := make([]*ledger.Header, 0, 1000)
	var bodySize int
	for i := 0; i < n; i++ {
		c := ledger.ChainID(i % 20)
		h := &ledger.Header{
			CreationTime: 1_700_000_000_000_000 + int64(i), ChainID: c, Height: uint64(i / 20),
			Version: ledger.Mainnet01.Code, Nonce: uint64(i), Target: ledger.MaxU256,
		}
		for _, a := range ledger.TwentyChainGraph.Neighbors(c) {
			h.Adjacents = append(h.Adjacents, ledger.Adjacent{Chain: a, Hash: ledger.Hash{byte(a), byte(i)}})
		}
		h.Seal()
		bodySize = len(h.B64()) + 2
		paths = append(paths, fmt.Sprintf("/chainweb/0.0/mainnet01/chain/%d/header/%s", c, h.Hash))
		batch = append(batch, h)
		if len(batch) == cap(batch) || i == n-1 {
			if err := db.PutHeaders(batch...); err != nil {
				return nil, 0, err
			}
			batch = batch[:0]
		}
	}
	return paths, bodySize, nil
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
	wrkErrors = regexp.MustCompile(`(Non-2xx or 3xx responses|Socket errors):.*`)
)

// wrk runs wrk pinned to CPU 1 and returns the requests per second.
func wrk(addr, script string, d time.Duration, conns int) (float64, error) {
	args := []string{"-c", "1", "wrk", "-t1", "-c" + strconv.Itoa(conns), "-d" + d.String(), "-s", script, "http://" + addr}
	out, err := exec.Command("taskset", args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("wrk: %v: %s", err, out)
	}
	m := rpsLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("wrk output has no Requests/sec: %s", out)
	}
	if bad := wrkErrors.Find(out); bad != nil {
		return 0, fmt.Errorf("wrk saw failed requests: %s", bad)
	}
	return strconv.ParseFloat(string(m[1]), 64)
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

// startProfile profiles the first node measurement when -cpuprofile is set.
func startProfile(round int) (stop func()) {
	if profilePath == "" || round > 0 {
		return func() {}
	}
	f, err := os.Create(profilePath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cpuprofile:", err)
		return func() {}
	}
	pprof.StartCPUProfile(f)
	return func() { pprof.StopCPUProfile(); f.Close() }
}
