//go:build unix

package transport

import (
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/connguard"
)

// The benchmarks below run a whole fasthttp server, request parsing and response writing
// included, over an in-memory connection: what bench/headerserve measures with wrk, without the
// kernel's share (read and write syscalls, about 70% of the server's CPU there), which is the
// same for the node and the constant body. BenchmarkServeHeaderByHash minus
// BenchmarkServeConstantBody is what the route costs a request beyond a constant answer.
//
//	go test -run '^$' -bench 'Serve' -count 5 ./transport

// benchStore is a store of 20,000 headers on 20 chains with a 1,000-entry header cache, so that
// most reads of uniformly chosen hashes miss the cache as in bench/headerserve; shared by the
// benchmarks of one run.
var benchStore = sync.OnceValues(func() (*store.DB, [][]byte) {
	dir, err := os.MkdirTemp("", "transport-bench")
	if err != nil {
		panic(err)
	}
	benchCleanup = append(benchCleanup, func() { os.RemoveAll(dir) })
	db, err := store.Open(dir, store.Options{HeaderCacheSize: 1000})
	if err != nil {
		panic(err)
	}
	benchCleanup = append(benchCleanup, func() { db.Close() })
	const n = 20_000
	reqs := make([][]byte, 0, n)
	batch := make([]*ledger.Header, 0, 1000)
	for i := range n {
		c := ledger.ChainID(i % 20)
		h := &ledger.Header{
			CreationTime: 1_700_000_000_000_000 + int64(i), ChainID: c, Height: uint64(i / 20),
			Version: ledger.Mainnet01.Code, Nonce: uint64(i), Target: ledger.MaxU256,
		}
		for _, a := range ledger.TwentyChainGraph.Neighbors(c) {
			h.Adjacents = append(h.Adjacents, ledger.Adjacent{Chain: a, Hash: ledger.Hash{byte(a), byte(i)}})
		}
		h.Seal()
		batch = append(batch, h)
		if len(batch) == cap(batch) {
			if err := db.PutHeaders(batch...); err != nil {
				panic(err)
			}
			batch = batch[:0]
		}
		// wrk's request: request line, Host, and nothing else.
		reqs = append(reqs, []byte("GET /chainweb/0.0/mainnet01/chain/"+strconv.Itoa(int(c))+"/header/"+h.Hash.String()+
			" HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"))
	}
	// Shuffle the order deterministically, so consecutive requests read unrelated records.
	for i := range reqs {
		j := int(uint64(i) * 2654435761 % uint64(len(reqs)))
		reqs[i], reqs[j] = reqs[j], reqs[i]
	}
	return db, reqs
})

// processCPU is the process's user and system CPU time so far, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// benchCleanup closes and removes benchStore's store after the tests (TestMain).
var benchCleanup []func()

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(benchCleanup) - 1; i >= 0; i-- {
		benchCleanup[i]()
	}
	os.Exit(code)
}

// memConn is a client connection held in memory: each Read delivers the next request (one per
// call, as wrk's requests arrive one per response), Write discards the response, and after n
// requests Read says EOF.
type memConn struct {
	reqs    [][]byte
	next, n int
	written int
}

func (c *memConn) Read(p []byte) (int, error) {
	if c.n == 0 {
		return 0, io.EOF
	}
	c.n--
	r := c.reqs[c.next%len(c.reqs)]
	c.next++
	return copy(p, r), nil
}

func (c *memConn) Write(p []byte) (int, error) { c.written += len(p); return len(p), nil }
func (c *memConn) Close() error                { return nil }
func (c *memConn) LocalAddr() net.Addr         { return memLocal }
func (c *memConn) RemoteAddr() net.Addr        { return memRemote }

var (
	memLocal  = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	memRemote = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
)

func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

// oneConnListener hands out one connection, then blocks until closed.
type oneConnListener struct {
	c    chan net.Conn
	done chan struct{}
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.c:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}
func (l *oneConnListener) Close() error { close(l.done); return nil }
func (l *oneConnListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
}

// serveMem serves b.N requests of reqs on one connection through srv.
func serveMem(b *testing.B, srv *fasthttp.Server, reqs [][]byte, guarded bool) {
	b.ReportAllocs()
	conn := &memConn{reqs: reqs, n: b.N}
	var c net.Conn = conn
	if guarded {
		// Through a connguard.GuardedListener, as the node serves: its connection wraps each read.
		l := &oneConnListener{c: make(chan net.Conn, 1), done: make(chan struct{})}
		l.c <- conn
		g := connguard.GuardListener(l, connguard.ConnLimits{Max: 100, PerAddress: 10}, "bench", slog.New(slog.DiscardHandler))
		var err error
		if c, err = g.Accept(); err != nil {
			b.Fatal(err)
		}
		defer g.Close()
	}
	b.ResetTimer()
	cpu0 := processCPU()
	if err := srv.ServeConn(c); err != nil && err != io.EOF {
		b.Fatal(err)
	}
	b.StopTimer()
	// CPU time per request moves less than wall time on a shared machine.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	if conn.written == 0 {
		b.Fatal("nothing written")
	}
}

func benchService(b *testing.B, counted bool) *Service {
	db, _ := benchStore()
	cfg := ServiceConfig{Version: ledger.Mainnet01, Store: db, PackageVersion: "bench", Logger: slog.New(slog.DiscardHandler)}
	if counted {
		cfg.Requests = NewRequestStats()
	}
	return NewService(cfg)
}

// BenchmarkServeHeaderByHash serves GET header/{hash} of uniformly chosen hashes (most miss the
// header cache): "bare" without the node's layers, "node" as the node serves it, through a
// guarded listener with the requests counted for the metrics.
func BenchmarkServeHeaderByHash(b *testing.B) {
	_, reqs := benchStore()
	b.Run("bare", func(b *testing.B) { serveMem(b, benchService(b, false).server, reqs, false) })
	b.Run("node", func(b *testing.B) { serveMem(b, benchService(b, true).server, reqs, true) })
}

// BenchmarkServeConstantBody is bench/headerserve's baseline: a plain fasthttp server answering a
// constant body of the header's size, to the same requests.
func BenchmarkServeConstantBody(b *testing.B) {
	_, reqs := benchStore()
	body := make([]byte, 426)
	for i := range body {
		body[i] = 'A'
	}
	body[0], body[len(body)-1] = '"', '"'
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json;charset=utf-8")
		ctx.SetBody(body)
	}, NoDefaultServerHeader: true}
	serveMem(b, srv, reqs, false)
}
