// Command miningapi measures the mining API of a development node (cmd/ledger-node) run as a
// separate process, as ratios to the node's own GET …/chain/{c}/header/{hash} rate measured in
// the same run (the machines are shared and noisy; only the ratios are meaningful):
//
//   - header (baseline): GET …/chain/{c}/header/{hash} (octet-stream) of the cut's 20 heads,
//     round-robin, from -clients goroutines for -duration; answers 200 per second.
//   - work: GET …/mining/work with the miner's JSON body from -clients goroutines for
//     -duration; answers 200 (322 bytes) per second. The cut does not move during the phase, so
//     this is the request path: decoding the miner, choosing a chain, building the header
//     (parents, target, weight, epoch) and recording the work.
//   - solved: -clients goroutines each loop GET …/mining/work then POST …/mining/solved with the
//     work's 286 bytes unchanged (nonce 0: the node runs with --disable-pow, as devnet does for
//     its on-demand miner), for -duration. The figure is solved submissions answered 200 per
//     second; each one also had its own work request, so this is the rate of a full
//     work-and-submit cycle, with each block validated, stored, put into the cut and its
//     coinbase applied to the chain's Pact state. Two clients can get work on the same chain
//     and payload: the second submission then finds no payload (404) or an orphan (200); both
//     are counted apart, and blocks = the sum of the chains' height changes over the phase.
//
// The node runs with --mining off, so nothing but the benchmark's requests uses its CPU. The
// phases alternate in rounds; each ratio is taken against its own round's header rate.
//
// Usage (from the repository root):
//
//	go run ./bench/miningapi [-rounds 3] [-duration 3s] [-clients 8] [-bin PATH]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/bench/internal/nodeproc"
	"github.com/ledgernode/ledger-node/bench/internal/proc"
	"github.com/ledgernode/ledger-node/bench/internal/stats"
)

const (
	chains   = 20
	minerKey = "f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f"
	api      = "/chainweb/0.0/development"
)

func main() {
	rounds := flag.Int("rounds", 3, "alternating measurement rounds")
	duration := flag.Duration("duration", 3*time.Second, "length of each phase")
	clients := flag.Int("clients", 8, "concurrent client goroutines")
	bin := flag.String("bin", "", "ledger-node binary (built from ./cmd/ledger-node if empty)")
	flag.Parse()
	if err := run(*rounds, *duration, *clients, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "miningapi:", err)
		os.Exit(1)
	}
}

func run(rounds int, d time.Duration, clients int, bin string) error {
	tmp, err := os.MkdirTemp("", "miningapi")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	fmt.Printf("miningapi: %s/%s, %d CPUs, %s, load average %s\n", runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), runtime.Version(), proc.LoadAverage())
	fmt.Printf("miningapi: %d clients, %v per phase, %d rounds\n", clients, d, rounds)
	nd, err := start(bin, filepath.Join(tmp, "data"))
	if err != nil {
		return err
	}
	defer nd.stop()
	miner, _ := json.Marshal(map[string]any{"account": "k:" + minerKey, "public-keys": []string{minerKey}, "predicate": "keys-all"})
	nd.miner = miner

	var workRatios, solvedRatios []float64
	for r := 1; r <= rounds; r++ {
		heads, err := nd.heads()
		if err != nil {
			return err
		}
		header, err := measure(d, clients, func(req *fasthttp.Request, resp *fasthttp.Response, i int) (int, error) {
			c := i % chains
			req.Header.SetMethod("GET")
			req.SetRequestURI(fmt.Sprintf("%s%s/chain/%d/header/%s", nd.Base, api, c, heads[c]))
			req.Header.Set("Accept", "application/octet-stream")
			req.SetBody(nil)
			return nd.do(req, resp)
		})
		if err != nil {
			return err
		}
		work, err := measure(d, clients, func(req *fasthttp.Request, resp *fasthttp.Response, _ int) (int, error) {
			return nd.work(req, resp)
		})
		if err != nil {
			return err
		}
		before, err := nd.Heights(nd.hc, chains)
		if err != nil {
			return err
		}
		var notFound atomic.Int64
		solved, err := measure(d, clients, func(req *fasthttp.Request, resp *fasthttp.Response, _ int) (int, error) {
			if status, err := nd.work(req, resp); err != nil || status != 200 {
				return 0, fmt.Errorf("work: %d %v: %s", status, err, resp.Body())
			}
			body := append([]byte(nil), resp.Body()[36:]...)
			req.Reset()
			req.Header.SetMethod("POST")
			req.SetRequestURI(nd.Base + api + "/mining/solved")
			req.SetBody(body)
			status, err := nd.do(req, resp)
			if status == 404 {
				notFound.Add(1)
				return 0, nil // another client solved this chain's work first
			}
			return status, err
		})
		if err != nil {
			return err
		}
		after, err := nd.Heights(nd.hc, chains)
		if err != nil {
			return err
		}
		blocks := uint64(0)
		for c := range chains {
			blocks += after[c] - before[c]
		}
		workRatios = append(workRatios, work/header)
		solvedRatios = append(solvedRatios, solved/header)
		fmt.Printf("round %d: header %.0f/s, work %.0f/s (ratio %.3f), solved %.0f/s (ratio %.3f; %.0f blocks/s, %d answered 404)\n",
			r, header, work, work/header, solved, solved/header, float64(blocks)/d.Seconds(), notFound.Load())
	}
	fmt.Printf("median ratios: work/header %.3f, solved/header %.3f\n", stats.Median(workRatios), stats.Median(solvedRatios))
	return nil
}

// measure runs op from clients goroutines for d and returns the answers 200 per second. Any
// other status with a nil error stops the run; status 0 with a nil error is not counted.
func measure(d time.Duration, clients int, op func(*fasthttp.Request, *fasthttp.Response, int) (int, error)) (float64, error) {
	var ok atomic.Int64
	var first error
	var once sync.Once
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for i := g; time.Now().Before(stop); i += clients {
				status, err := op(req, resp, i)
				if err == nil && status != 0 && status != 200 {
					err = fmt.Errorf("status %d: %s", status, resp.Body())
				}
				if err != nil {
					once.Do(func() { first = err })
					return
				}
				if status == 200 {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(ok.Load()) / time.Since(start).Seconds(), first
}

type node struct {
	*nodeproc.Node
	hc    *fasthttp.HostClient
	miner []byte
}

// start runs a development node with mining off, the mining API on for minerKey and PoW off,
// and waits until it prints its service address.
func start(bin, dir string) (*node, error) {
	args := []string{"--data-dir", dir, "--service-port", "0", "--p2p-port", "0", "--mining", "off", "--disable-pow",
		"--enable-mining-coordination", "--mining-public-key", minerKey, "--mining-request-limit", "1000000",
		"--log-level", "warn"}
	p, err := nodeproc.Start(bin, args, os.Stderr)
	if err != nil {
		return nil, err
	}
	return &node{Node: p, hc: &fasthttp.HostClient{Addr: p.Addr, MaxConns: 64, ReadTimeout: 60 * time.Second,
		WriteTimeout: 60 * time.Second}}, nil
}

func (nd *node) stop() { nd.Stop() }

func (nd *node) do(req *fasthttp.Request, resp *fasthttp.Response) (int, error) {
	if err := nd.hc.Do(req, resp); err != nil {
		return 0, err
	}
	return resp.StatusCode(), nil
}

// work asks for work (GET with the miner's JSON body).
func (nd *node) work(req *fasthttp.Request, resp *fasthttp.Response) (int, error) {
	req.Reset()
	req.Header.SetMethod("GET")
	req.SetRequestURI(nd.Base + api + "/mining/work")
	req.Header.SetContentType("application/json")
	req.SetBody(nd.miner)
	status, err := nd.do(req, resp)
	if err == nil && status == 200 && len(resp.Body()) != 322 {
		return 0, fmt.Errorf("work of %d bytes", len(resp.Body()))
	}
	return status, err
}

type cutJSON struct {
	Hashes map[string]struct {
		Height uint64 `json:"height"`
		Hash   string `json:"hash"`
	} `json:"hashes"`
}

func (nd *node) cut() (*cutJSON, error) {
	status, body, err := nd.hc.Get(nil, nd.Base+api+"/cut")
	if err != nil || status != 200 {
		return nil, fmt.Errorf("GET cut: %d %v", status, err)
	}
	var c cutJSON
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, err
	}
	if len(c.Hashes) != chains {
		return nil, fmt.Errorf("cut of %d chains", len(c.Hashes))
	}
	return &c, nil
}

// heads returns the hash of every chain's head in the cut.
func (nd *node) heads() ([]string, error) {
	c, err := nd.cut()
	if err != nil {
		return nil, err
	}
	out := make([]string, chains)
	for i := range chains {
		out[i] = c.Hashes[strconv.Itoa(i)].Hash
	}
	return out, nil
}
