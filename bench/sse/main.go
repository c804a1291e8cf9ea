// Command sse measures delivery latency of the header update stream (GET …/header/updates):
// an actors.UpdatesHub behind a transport.Service on loopback, N subscribers on real HTTP/1.1
// connections, and a publisher at a fixed rate. Latency is the time from just before Publish
// to the moment a subscriber has read the event's data line off its socket. Nothing is
// embedded in the events: the publisher records each sequence number's publish time (the last
// field of the event id), and subscribers look it up.
//
// Each round also measures a baseline in the same process: the same hub, events and clients,
// but a bare server that writes every event as one HTTP chunk straight to the socket from one
// goroutine per connection (no fasthttp, no stream pipe). It is the floor this machine's
// loopback and scheduler allow, so the service's figure can be read against it. The two
// targets take turns, each with its own subscribers (the idle ones cost nothing).
//
// With -stalled N, each target also has N clients that send the request and never read (with a
// small receive buffer): the readers' latency beside them, against the same run without, says
// whether a client that stops reading holds up the others (the hub drops it once its buffer
// fills; until then its writer is stuck). The tests check only that it is dropped and that the
// readers get every event (issue 31: no speed in tests).
//
// Subscribers run in the same process as the server, as they did for the fan-out figures in
// dependencies-and-performance.md: the two share the machine's cores, which is pessimistic for
// the server.
//
//	go run ./bench/sse [-subscribers 1000] [-stalled 0] [-rate 50] [-duration 20s] [-rounds 3] [-quiet 2m] [-stream header]
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport"
)

func main() {
	subs := flag.Int("subscribers", 1000, "subscribers per target, one loopback connection each")
	stalled := flag.Int("stalled", 0, "clients per target that subscribe and never read")
	rate := flag.Float64("rate", 50, "headers published per second")
	duration := flag.Duration("duration", 20*time.Second, "publishing time per target and round")
	warmup := flag.Duration("warmup", 2*time.Second, "publishing time per target before the rounds (not counted)")
	rounds := flag.Int("rounds", 3, "measurement rounds")
	stream := flag.String("stream", "header", "header or block (block adds payloadWithOutputs)")
	buffer := flag.Int("buffer", 0, "per-subscriber buffer (0: actors.DefaultSubscriberBuffer)")
	baseline := flag.Bool("baseline", true, "also measure the bare-socket baseline")
	quiet := flag.Duration("quiet", 0, "before each measurement, wait up to this long for the shared machine to go idle")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *stream != "header" && *stream != "block" {
		fmt.Fprintln(os.Stderr, "sse: -stream must be header or block")
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sse:", err)
			os.Exit(1)
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	cfg := config{subs: *subs, stalled: *stalled, rate: *rate, duration: *duration, warmup: *warmup, rounds: *rounds,
		withPayload: *stream == "block", stream: *stream, buffer: *buffer, baseline: *baseline, quiet: *quiet}
	if err := run(cfg); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "sse:", err)
		os.Exit(1)
	}
}

type config struct {
	subs, stalled    int
	rate             float64
	duration, warmup time.Duration
	rounds           int
	withPayload      bool
	stream           string
	buffer           int
	baseline         bool
	quiet            time.Duration
}

// target is one server under measurement with its hub and subscribers.
type target struct {
	name    string
	hub     *actors.UpdatesHub
	clients []*client
	wg      sync.WaitGroup
	pubAt   []atomic.Int64 // by the hub's sequence number: UnixNano just before Publish
	next    int            // events published so far
}

func run(cfg config) error {
	if cfg.buffer <= 0 {
		cfg.buffer = actors.DefaultSubscriberBuffer
	}
	if err := raiseFileLimit(uint64(4*cfg.subs + 256)); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "ssebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()

	v := ledger.Development
	nWarm := int(cfg.warmup.Seconds() * cfg.rate)
	nRound := int(cfg.duration.Seconds() * cfg.rate)
	total := nWarm + cfg.rounds*nRound
	events := makeEvents(v, total)
	path := "/chainweb/0.0/" + v.Name + "/" + cfg.stream + "/updates"

	svcTarget := &target{name: "service", hub: actors.NewUpdatesHub(0), pubAt: make([]atomic.Int64, total+1)}
	svc := transport.NewService(transport.ServiceConfig{
		Version: v, Store: db, Updates: svcTarget.hub, UpdatesBuffer: cfg.buffer, PackageVersion: "bench",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go svc.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Shutdown(ctx)
	}()
	targets := []*target{svcTarget}
	addrs := []string{ln.Addr().String()}
	if cfg.baseline {
		raw := &target{name: "baseline", hub: actors.NewUpdatesHub(0), pubAt: make([]atomic.Int64, total+1)}
		rln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer rln.Close()
		go serveRaw(rln, raw.hub, cfg.withPayload, cfg.buffer)
		targets = append(targets, raw)
		addrs = append(addrs, rln.Addr().String())
	}
	for i, t := range targets {
		for range cfg.subs {
			c, err := dial(addrs[i], path, total)
			if err != nil {
				return fmt.Errorf("%s subscriber: %w", t.name, err)
			}
			t.clients = append(t.clients, c)
		}
		for range cfg.stalled {
			c, err := stall(addrs[i], path)
			if err != nil {
				return fmt.Errorf("%s stalled client: %w", t.name, err)
			}
			defer c.Close()
		}
		for t.hub.Stats().Subscribers < cfg.subs+cfg.stalled {
			time.Sleep(10 * time.Millisecond)
		}
		pollers := runtime.GOMAXPROCS(0)
		for k := 0; k < pollers; k++ {
			var share []*client
			for j := k; j < len(t.clients); j += pollers {
				share = append(share, t.clients[j])
			}
			t.wg.Add(1)
			go func() {
				defer t.wg.Done()
				if err := poll(share, t.pubAt); err != nil {
					fmt.Fprintln(os.Stderr, "sse: poller:", err)
				}
			}()
		}
	}

	fmt.Printf("sse: %d subscribers and %d stalled clients per target on %s/updates, %.0f headers/s, warmup %v, %d rounds of %v (%d events) per target\n",
		cfg.subs, cfg.stalled, cfg.stream, cfg.rate, cfg.warmup, cfg.rounds, cfg.duration, nRound)
	fmt.Printf("linux/%s GOMAXPROCS=%d %s, %d CPUs; event size %d bytes; subscriber buffer %d\n", runtime.GOARCH,
		runtime.GOMAXPROCS(0), runtime.Version(), runtime.NumCPU(), eventSize(events[0], cfg.withPayload), cfg.buffer)

	interval := time.Duration(float64(time.Second) / cfg.rate)
	// publish returns how often the publisher fell more than an interval behind its schedule,
	// and how long each Publish call took (that must not grow with the subscribers).
	publish := func(t *target, n int) (late int, took []time.Duration) {
		start := time.Now()
		for i := 0; i < n; i++ {
			next := start.Add(time.Duration(i) * interval)
			if d := time.Until(next); d > 0 {
				time.Sleep(d)
			} else if d < -interval {
				late++
			}
			t0 := time.Now()
			t.pubAt[t.next+1].Store(t0.UnixNano())
			t.hub.Publish(events[t.next])
			took = append(took, time.Since(t0))
			t.next++
		}
		return late, took
	}
	for _, t := range targets {
		publish(t, nWarm)
	}
	fmt.Println("latency: Publish → data line read by the subscriber; span: until the last subscriber has an event;")
	fmt.Println("Publish: median/slowest Publish call; machine: all CPUs' busy time (others' work and softirq included)")
	fmt.Printf("%-5s %-8s %8s %8s %8s %8s %8s %9s %6s %5s %13s %8s %8s\n", "round", "target", "p50", "p90", "p99",
		"p99.9", "max", "span p50", "missed", "late", "Publish", "our CPU", "machine")
	type result struct{ p50, p99, max time.Duration }
	results := map[string][]result{}
	for r := 1; r <= cfg.rounds; r++ {
		for _, t := range targets {
			if cfg.quiet > 0 {
				waitQuiet(cfg.quiet)
			}
			from := t.next
			cpu0, busy0, t0 := processCPU(), machineBusy(), time.Now()
			late, took := publish(t, nRound)
			slices.Sort(took)
			time.Sleep(100 * time.Millisecond) // the last event's fan-out
			elapsed := time.Since(t0).Seconds()
			cpu, busy := processCPU()-cpu0, machineBusy()-busy0
			var lat, span []time.Duration
			lastBySeq := make(map[uint64]time.Duration, nRound)
			for _, c := range t.clients {
				for _, x := range c.snapshot() {
					if x.seq > uint64(from) && x.seq <= uint64(t.next) {
						lat = append(lat, x.d)
						lastBySeq[x.seq] = max(lastBySeq[x.seq], x.d)
					}
				}
			}
			if len(lat) == 0 {
				fmt.Printf("%-5d %-8s no deliveries: every subscriber was dropped (%d)\n", r, t.name, t.hub.Stats().Dropped)
				continue
			}
			for _, d := range lastBySeq {
				span = append(span, d)
			}
			slices.Sort(lat)
			slices.Sort(span)
			q := func(l []time.Duration, p float64) time.Duration { return l[min(len(l)-1, int(p*float64(len(l))))] }
			fmt.Printf("%-5d %-8s %8s %8s %8s %8s %8s %9s %6d %5d %13s %7.0f%% %7.0f%%\n", r, t.name, ms(q(lat, .5)),
				ms(q(lat, .9)), ms(q(lat, .99)), ms(q(lat, .999)), ms(lat[len(lat)-1]), ms(q(span, .5)),
				nRound*cfg.subs-len(lat), late, us(took[len(took)/2])+"/"+us(took[len(took)-1]), 100*cpu/elapsed, 100*busy/elapsed)
			results[t.name] = append(results[t.name], result{q(lat, .5), q(lat, .99), lat[len(lat)-1]})
		}
	}
	for _, t := range targets {
		t.hub.Close()
	}
	for _, t := range targets {
		t.wg.Wait()
		failed := 0
		for _, c := range t.clients {
			if c.err != nil {
				failed++
			}
		}
		rs := results[t.name]
		if len(rs) == 0 {
			continue
		}
		slices.SortFunc(rs, func(a, b result) int { return int(a.p99 - b.p99) })
		med := rs[len(rs)/2]
		fmt.Printf("%s, median round by p99: p50 %s p99 %s max %s; subscribers dropped %d, streams failed %d\n",
			t.name, ms(med.p50), ms(med.p99), ms(med.max), t.hub.Stats().Dropped, failed)
		if t == svcTarget {
			verdict := "met"
			if med.p99 >= 25*time.Millisecond {
				verdict = "NOT met"
			}
			defer fmt.Printf("goal p99 < 25 ms (service): %s\n", verdict)
		}
	}
	return nil
}

// serveRaw is the baseline server: it answers any request with a chunked event stream and
// writes each event as one chunk, in one write, from the connection's own goroutine.
func serveRaw(ln net.Listener, hub *actors.UpdatesHub, withPayload bool, buffer int) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			br := bufio.NewReader(c)
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					return
				}
				if len(bytes.TrimSpace(line)) == 0 {
					break
				}
			}
			sub, err := hub.Subscribe("", buffer)
			if err != nil {
				return
			}
			defer sub.Close()
			if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"); err != nil {
				return
			}
			buf := make([]byte, 0, 4096)
			for {
				select {
				case e := <-sub.Events():
					b := e.SSE(withPayload)
					buf = strconv.AppendInt(buf[:0], int64(len(b)), 16)
					buf = append(append(append(buf, "\r\n"...), b...), "\r\n"...)
					if _, err := c.Write(buf); err != nil {
						return
					}
				case <-sub.Done():
					io.WriteString(c, "0\r\n\r\n") // the end of the chunked body
					return
				}
			}
		}()
	}
}

// waitQuiet waits until the machine has been nearly idle for two seconds (our idle
// subscribers cost nothing), or until max has passed.
func waitQuiet(max time.Duration) {
	for deadline := time.Now().Add(max); time.Now().Before(deadline); {
		b0 := machineBusy()
		time.Sleep(2 * time.Second)
		if (machineBusy()-b0)/2 < 0.1 {
			return
		}
	}
}

// processCPU returns the CPU seconds this process has used.
func processCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// machineBusy returns the CPU seconds all CPUs have spent busy (everything but idle and
// iowait), from /proc/stat. It includes the kernel's loopback work in softirq context, which
// is not charged to this process, and whatever else runs on the shared machine.
func machineBusy() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var busy float64
	for i, x := range f[1:] {
		n, _ := strconv.ParseFloat(x, 64)
		if i != 3 && i != 4 && i < 8 { // idle, iowait; guest time is already in user
			busy += n
		}
	}
	return busy / 100 // USER_HZ
}

func us(d time.Duration) string { return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond)) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// raiseFileLimit lifts RLIMIT_NOFILE to at least n (each subscriber holds two descriptors here:
// its client end and the server's).
func raiseFileLimit(n uint64) error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return err
	}
	if rl.Cur >= n {
		return nil
	}
	rl.Cur = max(n, rl.Cur)
	if rl.Max < rl.Cur {
		rl.Max = rl.Cur // needs privilege; the error says so
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return fmt.Errorf("raise RLIMIT_NOFILE to %d: %w", n, err)
	}
	return nil
}

// makeEvents builds a 20-chain braid's worth of realistic headers (degree-3 adjacents, real
// field sizes) with small payloads, round-robin over the chains.
func makeEvents(v *ledger.Version, n int) []actors.BlockEvent {
	out := make([]actors.BlockEvent, n)
	for i := range out {
		c := ledger.ChainID(i % 20)
		p := ledger.NewPayloadWithOutputs([]byte(`{"account":"k:bench","predicate":"keys-all","public-keys":["bench"]}`),
			[]byte(`{"gas":0,"result":{"status":"success","data":"Write succeeded"},"reqKey":"bench"}`), nil)
		h := ledger.GenesisHeader(v, c, p.PayloadHash)
		h.Height = uint64(i/20 + 1)
		h.CreationTime += int64(i) * 1_500_000
		h.Nonce = uint64(i) * 0x9e3779b97f4a7c15
		h.Weight = ledger.U256{uint64(i/20+1) * 1_000_000}
		for k := range h.Adjacents {
			h.Adjacents[k].Hash[0], h.Adjacents[k].Hash[1] = byte(i), byte(k)
		}
		h.Seal()
		out[i] = actors.BlockEvent{Header: h, Payload: p, CutHeight: uint64(i + 20)}
	}
	return out
}

func eventSize(be actors.BlockEvent, withPayload bool) int {
	h := actors.NewUpdatesHub(1)
	defer h.Close()
	s, _ := h.Subscribe("", 1)
	h.Publish(be)
	return len((<-s.Events()).SSE(withPayload))
}

// The subscribers are raw sockets read through epoll by two goroutines (one per core), not one
// goroutine per net.Conn: the instrument should take as little of the shared CPUs as possible,
// since in production the subscribers are on other machines. A net.Conn reader costs two read
// syscalls per event (the first says EAGAIN and parks the goroutine) plus a goroutine wake-up;
// here one level-triggered epoll_wait serves many connections and each event costs one read.

// client is one subscriber: a loopback TCP socket that sent a GET and reads the chunked event
// stream.
type client struct {
	fd     int
	parser chunkParser
	mu     sync.Mutex
	lat    []seqLatency // every event received, in order of receipt
	err    error        // why the stream ended
}

type seqLatency struct {
	seq uint64
	d   time.Duration
}

// snapshot returns the latencies recorded so far.
func (c *client) snapshot() []seqLatency {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lat[:len(c.lat):len(c.lat)]
}

// dial connects, sends the request and reads the response head with blocking syscalls, then
// switches the socket to non-blocking for the poller.
func dial(addr, path string, capacity int) (*client, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	c := &client{fd: fd, lat: make([]seqLatency, 0, capacity)}
	fail := func(err error) (*client, error) {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err != nil {
		return fail(err)
	}
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	req := []byte("GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\n\r\n")
	for len(req) > 0 {
		n, err := syscall.Write(fd, req)
		if err != nil {
			return fail(err)
		}
		req = req[n:]
	}
	var head []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(head, []byte("\r\n\r\n")) {
		n, err := syscall.Read(fd, buf)
		if err != nil || n == 0 {
			return fail(fmt.Errorf("reading the response head: %v (n=%d)", err, n))
		}
		head = append(head, buf[:n]...)
	}
	end := bytes.Index(head, []byte("\r\n\r\n"))
	hdr := strings.ToLower(string(head[:end]))
	if !strings.HasPrefix(hdr, "http/1.1 200") || !strings.Contains(hdr, "transfer-encoding: chunked") {
		return fail(fmt.Errorf("response head %q", head[:end]))
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return fail(err)
	}
	c.parser.pending = slices.Clone(head[end+4:]) // body bytes that came with the head
	return c, nil
}

// stall opens a stream that is never read: the request is sent, and the socket's small receive
// buffer soon fills, so the server's writes to it block.
func stall(addr, path string) (net.Conn, error) {
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		return nil, err
	}
	c.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := c.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\n\r\n")); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// poll reads clients until all their streams end.
func poll(clients []*client, pubAt []atomic.Int64) error {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	defer syscall.Close(epfd)
	byFD := make(map[int32]*client, len(clients))
	for _, c := range clients {
		byFD[int32(c.fd)] = c
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(c.fd)}
		if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
			return err
		}
		if p := c.parser.pending; len(p) > 0 {
			c.parser.pending = nil
			c.feed(p, time.Now().UnixNano(), pubAt)
		}
	}
	events := make([]syscall.EpollEvent, 256)
	buf := make([]byte, 64<<10)
	for open := len(clients); open > 0; {
		n, err := syscall.EpollWait(epfd, events, -1)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		for _, ev := range events[:n] {
			c := byFD[ev.Fd]
			k, err := syscall.Read(c.fd, buf)
			if k > 0 {
				c.feed(buf[:k], time.Now().UnixNano(), pubAt)
				continue
			}
			if err == syscall.EAGAIN || err == syscall.EINTR {
				continue
			}
			if err == nil && !c.parser.ended {
				err = io.ErrUnexpectedEOF
			}
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			syscall.EpollCtl(epfd, syscall.EPOLL_CTL_DEL, c.fd, nil)
			syscall.Close(c.fd)
			open--
		}
	}
	return nil
}

// feed parses received bytes, recording the latency of each event when its data line ends.
func (c *client) feed(b []byte, now int64, pubAt []atomic.Int64) {
	c.parser.feed(b, func(line []byte) {
		switch {
		case bytes.HasPrefix(line, []byte("id:")):
			id := line[3:]
			seq, err := strconv.ParseUint(string(id[bytes.LastIndexByte(id, '-')+1:]), 10, 64)
			if err == nil && seq < uint64(len(pubAt)) {
				c.parser.seq = seq
			}
		case bytes.HasPrefix(line, []byte("data:")):
			if seq := c.parser.seq; seq != 0 {
				c.mu.Lock()
				c.lat = append(c.lat, seqLatency{seq, time.Duration(now - pubAt[seq].Load())})
				c.mu.Unlock()
				c.parser.seq = 0
			}
		}
	})
}

// chunkParser decodes HTTP/1.1 chunked framing and splits the body into lines. Of each line it
// keeps only the first bytes, which is all the event fields need (data lines are long).
type chunkParser struct {
	pending []byte
	state   int // 0: chunk size line, 1: chunk data, 2: the CRLF after the data
	size    int64
	sizeBuf []byte
	crlf    int
	line    []byte // the current line's first bytes
	seq     uint64 // id of the event being read
	ended   bool   // the last chunk arrived
}

const linePrefix = 48

func (p *chunkParser) feed(b []byte, onLine func([]byte)) {
	for len(b) > 0 && !p.ended {
		switch p.state {
		case 0:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				p.sizeBuf = append(p.sizeBuf, b...)
				return
			}
			p.sizeBuf = append(p.sizeBuf, b[:i]...)
			b = b[i+1:]
			hexLen, _, _ := bytes.Cut(bytes.TrimSpace(p.sizeBuf), []byte(";"))
			p.sizeBuf = p.sizeBuf[:0]
			n, err := strconv.ParseInt(string(hexLen), 16, 64)
			if err != nil {
				p.ended = true
				return
			}
			if n == 0 {
				p.ended = true
				return
			}
			p.size, p.state = n, 1
		case 1:
			k := int(min(p.size, int64(len(b))))
			data := b[:k]
			for len(data) > 0 {
				i := bytes.IndexByte(data, '\n')
				if i < 0 {
					p.keep(data)
					break
				}
				p.keep(data[:i])
				onLine(p.line)
				p.line = p.line[:0]
				data = data[i+1:]
			}
			p.size -= int64(k)
			b = b[k:]
			if p.size == 0 {
				p.state, p.crlf = 2, 2
			}
		case 2:
			k := min(p.crlf, len(b))
			p.crlf -= k
			b = b[k:]
			if p.crlf == 0 {
				p.state = 0
			}
		}
	}
}

func (p *chunkParser) keep(b []byte) {
	if room := linePrefix - len(p.line); room > 0 {
		p.line = append(p.line, b[:min(room, len(b))]...)
	}
}
