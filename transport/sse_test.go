package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/internal/jsontest"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// sseFixture is a fixture whose service serves update streams from its own hub.
type sseFixture struct {
	*fixture
	hub    *actors.UpdatesHub
	events []actors.BlockEvent // every block event published, in order; seq = index+1
}

func newSSEFixture(t *testing.T, configure ...func(*ServiceConfig)) *sseFixture {
	t.Helper()
	hub := actors.NewUpdatesHub(256)
	f := newFixture(t, append([]func(*ServiceConfig){func(c *ServiceConfig) { c.Updates = hub }}, configure...)...)
	t.Cleanup(hub.Close) // runs before the fixture's shutdown: streams end first
	return &sseFixture{fixture: f, hub: hub}
}

// blocks returns the fixture's stored blocks as events: the chain 0 main line and the chain 5
// line, interleaved, repeated to n events with increasing cut heights.
func (f *sseFixture) blocks(n int) []actors.BlockEvent {
	var names []string
	for i := 1; i <= 30; i++ {
		names = append(names, fmt.Sprintf("m%d", i))
		if i <= 3 {
			names = append(names, fmt.Sprintf("n%d", i))
		}
	}
	out := make([]actors.BlockEvent, n)
	for i := range out {
		h := f.named[names[(len(f.events)+i)%len(names)]]
		out[i] = actors.BlockEvent{Header: h, Payload: f.payloads[h.PayloadHash], CutHeight: uint64(1000 + len(f.events) + i)}
	}
	return out
}

func (f *sseFixture) publish(evs ...actors.BlockEvent) {
	f.events = append(f.events, evs...)
	f.hub.Publish(evs...)
}

// sseItem is one thing read from a stream: an event or a comment line.
type sseItem struct {
	comment string // without the leading ':' and space; "" for an event
	id      string
	event   string
	data    []byte
	at      time.Time
}

// sseStream is an open stream read by a real net/http client, parsed strictly from the raw
// body: every line must be a comment or one of id:, event:, data: (no space after the colon,
// as upstream frames it), and every event must be exactly those three lines in that order.
type sseStream struct {
	t      testing.TB
	res    *http.Response
	cancel context.CancelFunc
	items  chan sseItem
	errc   chan error // the read loop's end: io.EOF for a clean end
}

// sseClient has no overall timeout: streams outlive any fixed one.
var sseClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func (f *sseFixture) open(path string, hdr ...string) *sseStream {
	f.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.prefix+"/"+path, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := sseClient.Do(req)
	if err != nil {
		cancel()
		f.t.Fatal(err)
	}
	s := &sseStream{t: f.t, res: res, cancel: cancel, items: make(chan sseItem, 4096), errc: make(chan error, 1)}
	f.t.Cleanup(s.close)
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		f.t.Fatalf("GET %s: status %d %q", path, res.StatusCode, b)
	}
	go s.read()
	return s
}

func (s *sseStream) close() {
	s.cancel()
	s.res.Body.Close()
}

func (s *sseStream) read() {
	defer close(s.items)
	br := bufio.NewReader(s.res.Body)
	var cur sseItem
	fields := 0
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			if len(line) > 0 || fields > 0 {
				err = fmt.Errorf("stream ends inside an event: %q: %w", line, err)
			}
			s.errc <- err
			return
		}
		line = line[:len(line)-1]
		switch {
		case len(line) == 0:
			if fields == 0 {
				continue // the blank line after a comment
			}
			if fields != 3 {
				s.errc <- fmt.Errorf("event with %d of its 3 lines: %+v", fields, cur)
				return
			}
			cur.at = time.Now()
			s.items <- cur
			cur, fields = sseItem{}, 0
		case line[0] == ':':
			if fields != 0 {
				s.errc <- fmt.Errorf("comment inside an event: %q", line)
				return
			}
			s.items <- sseItem{comment: strings.TrimPrefix(string(line[1:]), " "), at: time.Now()}
		case fields == 0 && bytes.HasPrefix(line, []byte("id:")):
			cur.id = string(line[3:])
			fields++
		case fields == 1 && bytes.HasPrefix(line, []byte("event:")):
			cur.event = string(line[6:])
			fields++
		case fields == 2 && bytes.HasPrefix(line, []byte("data:")):
			cur.data = slices.Clone(line[5:])
			fields++
		default:
			s.errc <- fmt.Errorf("unexpected line %q after %d fields", line, fields)
			return
		}
	}
}

// next returns the next item, failing the test if the stream ends or hangs.
func (s *sseStream) next() sseItem {
	s.t.Helper()
	select {
	case it, ok := <-s.items:
		if !ok {
			s.t.Fatalf("stream ended: %v", <-s.errc)
		}
		return it
	case <-hangguard.After():
		s.t.Fatal(hangguard.Failure("the stream's next item"))
	}
	return sseItem{}
}

// nextEvent returns the next event, skipping keepalive comments.
func (s *sseStream) nextEvent() sseItem {
	s.t.Helper()
	for {
		it := s.next()
		if it.comment == "keepalive" {
			continue
		}
		if it.comment != "" {
			s.t.Fatalf("unexpected comment %q", it.comment)
		}
		return it
	}
}

// expectEnd waits for the stream to end cleanly (or with a connection reset, for a stream cut
// off) and returns the comments seen before.
func (s *sseStream) expectEnd() []string {
	s.t.Helper()
	var comments []string
	deadline := hangguard.After()
	for {
		select {
		case it, ok := <-s.items:
			if !ok {
				if err := <-s.errc; err != io.EOF {
					s.t.Fatalf("stream ended with %v", err)
				}
				return comments
			}
			if it.comment == "" {
				s.t.Fatalf("event %s after the end was due", it.id)
			}
			comments = append(comments, it.comment)
		case <-deadline:
			s.t.Fatal(hangguard.Failure("the stream's end"))
		}
	}
}

// checkEvent verifies an event against the block event published as number seq (1-based).
func (f *sseFixture) checkEvent(t *testing.T, it sseItem, seq int, withPayload bool) {
	t.Helper()
	be := f.events[seq-1]
	wantID := fmt.Sprintf("%d-%d-%d", be.CutHeight, be.Header.ChainID, seq)
	if it.comment != "" || it.id != wantID || it.event != "BlockHeader" {
		t.Fatalf("event %d: id %q event %q comment %q, want id %q", seq, it.id, it.event, it.comment, wantID)
	}
	keys := []string{"header", "powHash", "target", "txCount"}
	if withPayload {
		keys = []string{"header", "payloadWithOutputs", "powHash", "target", "txCount"}
	}
	if got := jsontest.ObjectKeys(t, it.data); !slices.Equal(got, keys) {
		t.Fatalf("event %d keys %v, want %v", seq, got, keys)
	}
	var d struct {
		Header             json.RawMessage            `json:"header"`
		PayloadWithOutputs *ledger.PayloadWithOutputs `json:"payloadWithOutputs"`
		PowHash            string                     `json:"powHash"`
		Target             string                     `json:"target"`
		TxCount            int                        `json:"txCount"`
	}
	if err := json.Unmarshal(it.data, &d); err != nil {
		t.Fatalf("event %d data: %v", seq, err)
	}
	h, err := ledger.DecodeHeaderObject(d.Header)
	if err != nil {
		t.Fatalf("event %d header: %v", seq, err)
	}
	if !bytes.Equal(h.Bytes(), be.Header.Bytes()) {
		t.Fatalf("event %d: header does not decode back to the published one", seq)
	}
	if d.PowHash != pow.PowHash(be.Header).BEHex() || d.Target != be.Header.Target.BEHex() ||
		d.TxCount != len(be.Payload.Transactions) || len(d.PowHash) != 64 || len(d.Target) != 64 {
		t.Fatalf("event %d: powHash %s target %s txCount %d", seq, d.PowHash, d.Target, d.TxCount)
	}
	if withPayload {
		p := d.PayloadWithOutputs
		if p == nil || p.PayloadHash != be.Payload.PayloadHash || p.Verify() != nil ||
			!bytes.Equal(p.Transactions[0].Tx, be.Payload.Transactions[0].Tx) {
			t.Fatalf("event %d: payload %+v", seq, p)
		}
	}
}

func TestUpdatesDisabled(t *testing.T) {
	f := newFixture(t)
	f.get("header/updates").expect(t, http.StatusNotFound)
	f.get("block/updates").expect(t, http.StatusNotFound)
}

// TestUpdatesStream: 20 subscribers, half on each stream kind, each get every published block
// in order and correctly framed.
func TestUpdatesStream(t *testing.T) {
	f := newSSEFixture(t)
	var streams []*sseStream
	for i := 0; i < 20; i++ {
		path := "header/updates"
		if i%2 == 1 {
			path = "block/updates"
		}
		s := f.open(path)
		streams = append(streams, s)
		h := s.res.Header
		if h.Get("Content-Type") != "text/event-stream" || h.Get("Cache-Control") != "no-cache" ||
			h.Get("X-Chainweb-Node-Version") != "9.9.9-test" || h.Get("X-Server-Timestamp") == "" ||
			h.Get("X-Peer-Addr") == "" || h.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("headers %v", h)
		}
	}
	// The headers arrived before any event: subscribed. One batch (a cut change adding several
	// blocks), then singles.
	f.publish(f.blocks(10)...)
	for _, be := range f.blocks(40) {
		f.publish(be)
	}
	for i, s := range streams {
		for seq := 1; seq <= 50; seq++ {
			f.checkEvent(t, s.nextEvent(), seq, i%2 == 1)
		}
	}
	// Nothing more, nothing duplicated.
	f.publish(f.blocks(1)...)
	for i, s := range streams {
		f.checkEvent(t, s.nextEvent(), 51, i%2 == 1)
	}
	if st := f.hub.Stats(); st.Subscribers != 20 || st.Dropped != 0 {
		t.Errorf("hub %+v", st)
	}

	// HEAD: the stream's headers, no body, no subscription.
	r := f.do(http.MethodHead, "header/updates", nil).expect(t, http.StatusOK)
	if r.header.Get("Content-Type") != "text/event-stream" || len(r.body) != 0 {
		t.Errorf("HEAD %v %q", r.header, r.body)
	}
	if st := f.hub.Stats(); st.Subscribers != 20 {
		t.Errorf("HEAD subscribed: %+v", st)
	}
	// A client going away ends its subscription. Only a failed write notices, and the first
	// write after the close still succeeds (the peer answers it with a reset), so it takes a
	// few events; in production the keepalives do it.
	streams[0].close()
	hangguard.Until(t, "the closed client's subscription ended", func() bool {
		f.publish(f.blocks(1)...)
		return f.hub.Stats().Subscribers == 19
	})
}

// TestUpdatesResumeHTTP: disconnect, miss some blocks, reconnect with Last-Event-ID, get
// exactly the missed ones and then the live ones.
func TestUpdatesResumeHTTP(t *testing.T) {
	f := newSSEFixture(t)
	s := f.open("block/updates")
	f.publish(f.blocks(5)...)
	var last sseItem
	for seq := 1; seq <= 5; seq++ {
		last = s.nextEvent()
		f.checkEvent(t, last, seq, true)
	}
	s.close()
	f.publish(f.blocks(7)...) // 6..12 missed

	for _, how := range []string{"header", "query"} {
		var r *sseStream
		if how == "header" {
			r = f.open("block/updates", "Last-Event-ID", last.id)
		} else {
			r = f.open("block/updates?lastEventId=" + last.id)
		}
		// Everything after event 5: 6..12 the first time, 6..14 the second (the first
		// reconnection saw two live ones).
		missed := len(f.events) - 5
		if c := r.next().comment; c != fmt.Sprintf("resuming: %d missed events follow", missed) {
			t.Fatalf("%s: first comment %q", how, c)
		}
		for seq := 6; seq <= len(f.events); seq++ {
			f.checkEvent(t, r.nextEvent(), seq, true)
		}
		f.publish(f.blocks(2)...) // live
		for seq := len(f.events) - 1; seq <= len(f.events); seq++ {
			f.checkEvent(t, r.nextEvent(), seq, true)
		}
		r.close()
	}

	// An unknown id says so and starts live: the first event is the next one published.
	u := f.open("header/updates", "Last-Event-ID", "1-2-999999")
	if c := u.next().comment; !strings.Contains(c, "not in the replay window") {
		t.Fatalf("unknown id: comment %q", c)
	}
	f.publish(f.blocks(1)...)
	f.checkEvent(t, u.nextEvent(), len(f.events), false)
}

// slowListener shrinks the kernel send buffer of accepted connections, so a client that stops
// reading blocks the server's writes after kilobytes rather than megabytes.
type slowListener struct{ net.Listener }

func (l slowListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

// stalledClient opens a stream over a raw connection with a small receive buffer and never
// reads from it.
func stalledClient(t *testing.T, addr, path string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.(*net.TCPConn).SetReadBuffer(4 << 10)
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	return c
}

// stalledStream opens a stream that is never read through a second listener of the service
// whose connections have small send buffers (Shutdown closes that listener too).
func (f *sseFixture) stalledStream(t *testing.T, path string) net.Conn {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go f.svc.Serve(slowListener{ln})
	n := f.hub.Stats().Subscribers
	c := stalledClient(t, ln.Addr().String(), "/chainweb/0.0/development/"+path)
	hangguard.Until(t, "the stalled client's subscription", func() bool { return f.hub.Stats().Subscribers == n+1 })
	return c
}

// expectClosed checks that the server ends a stalled client's connection: reading what was
// buffered reaches the end instead of waiting.
func expectClosed(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(hangguard.Deadline())
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: %v", hangguard.Failure("the end of the stalled client's connection"), err)
	}
}

// TestUpdatesStalledSubscriber: a client that never reads is dropped once its buffer fills, and
// neither the publisher nor ten reading subscribers are held up meanwhile.
func TestUpdatesStalledSubscriber(t *testing.T) {
	f := newSSEFixture(t, func(c *ServiceConfig) { c.UpdatesBuffer = 32 })
	stalled := f.stalledStream(t, "block/updates")

	var readers []*sseStream
	for i := 0; i < 10; i++ {
		readers = append(readers, f.open("block/updates"))
	}
	conns := f.svc.server.GetOpenConnectionsCount()
	const n = 400
	evs := f.blocks(n)
	f.events = append(f.events, evs...)
	sentAt := make([]time.Time, n)
	var worstPublish time.Duration
	var wg sync.WaitGroup
	lat := make([][]time.Duration, len(readers))
	for i, r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 1; seq <= n; seq++ {
				it, ok := <-r.items
				if !ok {
					t.Errorf("reader %d: stream ended at %d: %v", i, seq, <-r.errc)
					return
				}
				if want := evs[seq-1]; !strings.HasSuffix(it.id, fmt.Sprintf("-%d-%d", want.Header.ChainID, seq)) {
					t.Errorf("reader %d: got %q at %d", i, it.id, seq)
					return
				}
				lat[i] = append(lat[i], it.at.Sub(sentAt[seq-1]))
			}
		}()
	}
	for i := range evs {
		sentAt[i] = time.Now() // written before Publish, read after the event arrives
		f.hub.Publish(evs[i])
		worstPublish = max(worstPublish, time.Since(sentAt[i]))
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	if len(all) > 0 {
		p99, worst := all[len(all)*99/100], all[len(all)-1]
		// Logged, not bounded (a busy machine stretches any of them): bench/sse measures
		// delivery against a stalled client's.
		t.Logf("reader delivery latency over %d events: p50 %v p99 %v max %v; slowest Publish %v",
			len(all), all[len(all)/2], p99, worst, worstPublish)
	}
	if st := f.hub.Stats(); st.Dropped != 1 || st.Subscribers != 10 {
		t.Errorf("hub %+v: want the stalled subscriber dropped and the 10 readers kept", st)
	}
	// Its stream ends: the server closes the connection although the client still reads
	// nothing (reading would unblock the writer and prove nothing).
	hangguard.Until(t, "the stalled client's connection closed", func() bool { return f.svc.server.GetOpenConnectionsCount() == conns-1 })
	expectClosed(t, stalled)
}

func TestUpdatesKeepalive(t *testing.T) {
	f := newSSEFixture(t, func(c *ServiceConfig) { c.UpdatesKeepalive = 20 * time.Millisecond })
	s := f.open("header/updates")
	for i := 0; i < 3; i++ {
		if c := s.next().comment; c != "keepalive" {
			t.Fatalf("item %d: %q, want a keepalive comment", i, c)
		}
	}
	f.publish(f.blocks(1)...)
	f.checkEvent(t, s.nextEvent(), 1, false)
	if c := s.next().comment; c != "keepalive" {
		t.Fatalf("after an event: %q", c)
	}
}

// stallEvents is enough block events to fill a stalled stream's socket buffers and pipe
// (its writer then blocks in Flush) but not its subscription buffer (it is not dropped).
const stallEvents = 80

// TestUpdatesHubClose: closing the hub (node shutdown) ends every stream at once, with a comment
// saying why, a stalled one included; later requests get 503.
func TestUpdatesHubClose(t *testing.T) {
	f := newSSEFixture(t)
	var streams []*sseStream
	for i := 0; i < 5; i++ {
		streams = append(streams, f.open("block/updates"))
	}
	stalled := f.stalledStream(t, "block/updates")
	f.publish(f.blocks(stallEvents)...)
	time.Sleep(100 * time.Millisecond) // let the stalled writer get stuck
	f.hub.Close()                      // returns: it waits on no stream
	for _, s := range streams {
		for seq := 1; seq <= stallEvents; seq++ {
			f.checkEvent(t, s.nextEvent(), seq, true)
		}
		if c := s.expectEnd(); !slices.Equal(c, []string{"the node is shutting down"}) {
			t.Errorf("comments before the end: %q", c)
		}
	}
	expectClosed(t, stalled)
	if st := f.hub.Stats(); st.Dropped != 0 {
		t.Errorf("hub %+v: the stalled stream was dropped before the close", st)
	}
	r := f.get("header/updates").expect(t, http.StatusServiceUnavailable)
	if !strings.Contains(string(r.body), "shutting down") {
		t.Errorf("body %q", r.body)
	}
}

// TestUpdatesShutdown: server shutdown ends open streams at once, a stalled one included.
func TestUpdatesShutdown(t *testing.T) {
	f := newSSEFixture(t)
	var streams []*sseStream
	for i := 0; i < 5; i++ {
		streams = append(streams, f.open("block/updates"))
	}
	stalled := f.stalledStream(t, "block/updates")
	f.publish(f.blocks(stallEvents)...)
	for _, s := range streams {
		for seq := 1; seq <= stallEvents; seq++ {
			f.checkEvent(t, s.nextEvent(), seq, true)
		}
	}
	if st := f.hub.Stats(); st.Dropped != 0 {
		t.Fatalf("hub %+v: the stalled stream was dropped", st)
	}
	// Shutdown returns although a client reads nothing: its write ends at stuckWriteGrace.
	if err := f.svc.Shutdown(hangguard.Context(t)); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	for _, s := range streams {
		s.expectEnd()
	}
	expectClosed(t, stalled)
	hangguard.Until(t, "every subscription ended", func() bool { return f.hub.Stats().Subscribers == 0 })
}
