package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// constMain is `scale const -port P -size N`: a fasthttp server answering every request with a
// constant JSON string body of N bytes, the baseline a GET header is compared with. It runs as
// its own process, as the node does, so that both servers are measured under the same
// conditions (the same CPU pinning, the load generator in another process).
func constMain(args []string) error {
	fs := flag.NewFlagSet("const", flag.ExitOnError)
	port := fs.Int("port", 0, "port to listen on (127.0.0.1)")
	size := fs.Int("size", 0, "body size in bytes (at least 2)")
	fs.Parse(args)
	if *size < 2 {
		return fmt.Errorf("const needs -size >= 2")
	}
	body := make([]byte, *size)
	for i := range body {
		body[i] = 'A'
	}
	body[0], body[len(body)-1] = '"', '"'
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		return err
	}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json;charset=utf-8")
		ctx.SetBody(body)
	}, NoDefaultServerHeader: true}
	return srv.Serve(ln)
}

// loadResult is what a load run measured.
type loadResult struct {
	Requests int
	RPS      float64
	P50, P99 time.Duration
	Errors   int
}

// load sends GETs of random paths to addr (HOST:PORT) from conns concurrent workers, each
// waiting for its answer before the next request (a closed loop), for d or until maxRequests,
// and returns the rate and latency percentiles. A request that fails or does not answer 200 with
// a body of wantSize bytes (when > 0) counts as an error.
func load(addr string, paths []string, conns int, d time.Duration, maxRequests int, wantSize int) loadResult {
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: conns, ReadTimeout: 30 * time.Second}
	var (
		mu   sync.Mutex
		lats []time.Duration
		errs int
		wg   sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	perWorker := (maxRequests + conns - 1) / conns
	start := time.Now()
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 42))
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			mine := make([]time.Duration, 0, 4096)
			bad := 0
			for i := 0; (maxRequests <= 0 || i < perWorker) && time.Now().Before(deadline); i++ {
				req.SetRequestURI("http://" + addr + paths[r.IntN(len(paths))])
				t0 := time.Now()
				err := hc.Do(req, resp)
				lat := time.Since(t0)
				if err != nil || resp.StatusCode() != 200 || (wantSize > 0 && len(resp.Body()) != wantSize) {
					bad++
					continue
				}
				mine = append(mine, lat)
			}
			mu.Lock()
			lats = append(lats, mine...)
			errs += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	slices.Sort(lats)
	res := loadResult{Requests: len(lats), RPS: float64(len(lats)) / el.Seconds(), Errors: errs}
	if len(lats) > 0 {
		res.P50 = lats[len(lats)/2]
		res.P99 = lats[min(len(lats)-1, len(lats)*99/100)]
	}
	return res
}
