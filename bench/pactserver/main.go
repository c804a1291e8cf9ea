// Command pactserver measures `pact -s` throughput: small signed commands sent through
// POST /api/v1/send and their results fetched with POST /api/v1/poll, as a ratio to bare Ed25519
// verifications per second measured in the same run with the same number of goroutines (the
// machines are noisy; only the ratio is meaningful). Every command carries one Ed25519
// signature, which the server verifies.
//
// The server (pact/server Engine behind transport's ContractServer, as pact -s runs them) and
// the HTTP clients share the process and its cores. Each client goroutine sends a batch of
// -batch commands in one /send, then polls their request keys in one /poll and checks that
// every result is there and succeeded.
//
//	go run ./bench/pactserver [-duration 3s] [-rounds 5] [-clients 8] [-batch 1]
package main

import (
	"github.com/ledgernode/ledger-node/bench/internal/proc"
	"github.com/ledgernode/ledger-node/transport/contracthttp"

	"bytes"
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/server"
)

func main() {
	duration := flag.Duration("duration", 3*time.Second, "length of each measurement")
	rounds := flag.Int("rounds", 5, "alternating measurement rounds")
	clients := flag.Int("clients", 8, "concurrent HTTP clients")
	batch := flag.Int("batch", 1, "commands per /send (and per /poll)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the server measurements to this file")
	flag.Parse()
	if err := run(*duration, *rounds, *clients, *batch, *cpuProfile); err != nil {
		fmt.Fprintln(os.Stderr, "pactserver:", err)
		os.Exit(1)
	}
}

func run(duration time.Duration, rounds, clients, batch int, cpuProfile string) error {
	key, err := api.KeyPairFromHex("246243bbb9e668a7f24666eaaca75ab0ad49df222de8379f03b2b4b76b03a757")
	if err != nil {
		return err
	}
	engine, err := server.Open(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer engine.Close()
	srv := contracthttp.NewContractServer(contracthttp.ContractServerConfig{API: engine, Version: "pact version 5.4"})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	addr := ln.Addr().String()

	gen := &generator{key: key}
	fmt.Printf("pactserver: %s/%s, GOMAXPROCS=%d, %s, %d clients, %d command(s) per /send and /poll\n",
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version(), clients, batch)
	fmt.Printf("command: %s\n", gen.next(0).Cmd)

	var prof *os.File
	if cpuProfile != "" {
		if prof, err = os.Create(cpuProfile); err != nil {
			return err
		}
		defer prof.Close()
	}
	// Each phase is measured in wall-clock time (the figure the goal is about) and in the
	// process's CPU time: on a machine other jobs share, the CPU-time rates (operations per
	// CPU-second of this process) are what the phases would reach on idle cores.
	var verifyRates, serverRates, ratios, cpuRatios []float64
	fmt.Println("round   ed25519 verify/s   send+poll cmd/s   ratio   | per CPU-s: verify   send+poll   ratio")
	for r := 1; r <= rounds; r++ {
		c0 := proc.Self()
		v, vn := verifyRate(gen, duration)
		vc := proc.Self() - c0
		work := prepare(gen, int(v*duration.Seconds()*1.1)+batch, batch)
		runtime.GC()
		if prof != nil && r == 1 {
			pprof.StartCPUProfile(prof)
		}
		c0 = proc.Self()
		s, sn, err := serverRate(addr, work, duration, clients, batch)
		sc := proc.Self() - c0
		if prof != nil && r == 1 {
			pprof.StopCPUProfile()
		}
		if err != nil {
			return err
		}
		vcpu, scpu := float64(vn)/vc.Seconds(), float64(sn)/sc.Seconds()
		verifyRates, serverRates = append(verifyRates, v), append(serverRates, s)
		ratios, cpuRatios = append(ratios, s/v), append(cpuRatios, scpu/vcpu)
		fmt.Printf("%-7d %16.0f %17.0f %7.3f   | %17.0f %11.0f %7.3f\n", r, v, s, s/v, vcpu, scpu, scpu/vcpu)
	}
	verdict := "met"
	if stats.Median(ratios) < 0.5 {
		verdict = "NOT met"
	}
	fmt.Printf("median  %16.0f %17.0f %7.3f   | %29s %7.3f\n", stats.Median(verifyRates), stats.Median(serverRates),
		stats.Median(ratios), "", stats.Median(cpuRatios))
	fmt.Printf("goal: wall-clock ratio >= 0.50: %s\n", verdict)
	if n := srv.InternalErrors(); n != 0 {
		return fmt.Errorf("%d internal server errors", n)
	}
	return nil
}

// generator makes distinct small signed commands. Signing is not measured: prepare signs a
// round's commands before the round starts.
type generator struct {
	key *api.KeyPair
	seq atomic.Int64
}

func (g *generator) next(n int64) *api.Command {
	p := &api.Payload{
		Exec:    &api.ExecMsg{Code: "(+ 1 2)", Data: eval.UnitValue},
		Signers: []api.Signer{{PubKey: g.key.PublicHex()}},
		Meta:    api.Meta{Public: &api.PublicMeta{ChainID: "0", Sender: "bench", GasLimit: 1000, TTL: 600, CreationTime: 1700000000}},
		Nonce:   "bench-" + strconv.FormatInt(n, 10),
	}
	cmd, _ := p.JSON()
	h := api.HashBytes(cmd)
	return &api.Command{Hash: h, Sigs: []api.UserSig{g.key.SignHash(h)}, Cmd: string(cmd)}
}

// verifyRate is the baseline: Ed25519 verifications of command signatures per second, on
// GOMAXPROCS goroutines, and how many were done.
func verifyRate(g *generator, d time.Duration) (float64, int64) {
	c := g.next(-1)
	pub := g.key.Public()
	sig := make([]byte, ed25519.SignatureSize)
	fmt.Sscanf(c.Sigs[0].Sig, "%x", &sig)
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
					if !ed25519.Verify(pub, c.Hash[:], sig) {
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

// prepared is one client request pair: the /send body of a batch of signed commands, the /poll
// body of their request keys, and the keys as the poll answer shows them.
type prepared struct {
	send, poll []byte
	keys       [][]byte
}

// prepare signs n commands in batches of size batch, on every core, before a measurement.
func prepare(g *generator, n, batch int) []prepared {
	out := make([]prepared, (n+batch-1)/batch)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(out) {
					return
				}
				cmds := make([]*api.Command, batch)
				p := &out[i]
				p.poll = append(p.poll, `{"requestKeys":[`...)
				for j := range cmds {
					cmds[j] = g.next(g.seq.Add(1))
					rk := cmds[j].Hash.String()
					if j > 0 {
						p.poll = append(p.poll, ',')
					}
					p.poll = append(p.poll, '"')
					p.poll = append(p.poll, rk...)
					p.poll = append(p.poll, '"')
					p.keys = append(p.keys, []byte(`"`+rk+`":{`))
				}
				p.poll = append(p.poll, "]}"...)
				p.send = (&api.SubmitBatch{Cmds: cmds}).AppendJSON(nil)
			}
		}()
	}
	wg.Wait()
	return out
}

// serverRate runs the clients over the prepared requests for d (or until they run out) and
// returns the commands per second whose results were polled back, and how many there were.
func serverRate(addr string, work []prepared, d time.Duration, clients, batch int) (float64, int64, error) {
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: clients}
	var total atomic.Int64
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
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
					return
				}
				w := &work[i]
				err := post(hc, req, resp, "/api/v1/send", w.send)
				if err == nil {
					err = post(hc, req, resp, "/api/v1/poll", w.poll)
				}
				if err == nil {
					err = checkPoll(resp.Body(), w.keys)
				}
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				total.Add(int64(batch))
			}
		}()
	}
	wg.Wait()
	return float64(total.Load()) / time.Since(start).Seconds(), total.Load(), firstErr
}

func post(hc *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response, path string, body []byte) error {
	req.Reset()
	req.SetRequestURI("http://" + hc.Addr + path)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	req.SetBodyRaw(body)
	if err := hc.Do(req, resp); err != nil {
		return err
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		return fmt.Errorf("%s: status %d: %s", path, resp.StatusCode(), resp.Body())
	}
	return nil
}

// checkPoll checks that every command's result came back, successful.
func checkPoll(body []byte, keys [][]byte) error {
	if bytes.Count(body, []byte(`"result":{"status":"success"`)) != len(keys) {
		return fmt.Errorf("poll: not every result succeeded: %s", body)
	}
	for _, k := range keys {
		if !bytes.Contains(body, k) {
			return fmt.Errorf("poll: no result for %s: %s", k, body)
		}
	}
	return nil
}
