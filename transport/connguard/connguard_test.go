package connguard

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// fakeListener hands out the connections and errors it is given, in order.
type fakeListener struct {
	next    []any // net.Conn or error
	accepts atomic.Int64
}

func (l *fakeListener) Accept() (net.Conn, error) {
	l.accepts.Add(1)
	if len(l.next) == 0 {
		return nil, net.ErrClosed
	}
	x := l.next[0]
	l.next = l.next[1:]
	if err, ok := x.(error); ok {
		return nil, err
	}
	return x.(net.Conn), nil
}
func (l *fakeListener) Close() error   { return nil }
func (l *fakeListener) Addr() net.Addr { return &net.TCPAddr{} }

// fakeConn is a connection from ip that records its closing.
type fakeConn struct {
	net.Conn
	ip     string
	closed atomic.Int64
}

func (c *fakeConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.ParseIP(c.ip), Port: 40000} }
func (c *fakeConn) Close() error         { c.closed.Add(1); return nil }

func conns(ips ...string) []*fakeConn {
	out := make([]*fakeConn, len(ips))
	for i, ip := range ips {
		out[i] = &fakeConn{ip: ip}
	}
	return out
}

// The guard hands out connections up to its global and per-address limits, closes the others at
// once and counts them, gives a place back when a connection closes (once, however often it is
// closed), and does not count loopback clients per address.
func TestGuardListenerLimits(t *testing.T) {
	cs := conns("10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2", "127.0.0.1", "127.0.0.1", "::1", "10.0.0.3")
	fl := &fakeListener{}
	for _, c := range cs {
		fl.next = append(fl.next, c)
	}
	g := GuardListener(fl, ConnLimits{Max: 5, PerAddress: 2}, "test", quietLog)
	var got []net.Conn
	for range 5 {
		c, err := g.Accept()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	// 10.0.0.1 twice (its third refused), 10.0.0.2, and 127.0.0.1 twice: loopback is not
	// counted per address. That is five, the global limit.
	want := []*fakeConn{cs[0], cs[1], cs[3], cs[4], cs[5]}
	for i, c := range got {
		if c.(*guardedConn).Conn != want[i] {
			t.Fatalf("connection %d is from %s, want %s", i, c.RemoteAddr(), want[i].ip)
		}
	}
	if cs[2].closed.Load() != 1 {
		t.Fatal("the third connection of one address was not closed")
	}
	if st := g.Stats(); st.Open != 5 || st.Refused != 1 {
		t.Fatalf("stats %+v, want 5 open and 1 refused", st)
	}
	// At the global limit: ::1 and 10.0.0.3 are refused; then the listener ends.
	if _, err := g.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("accept past the flood: %v", err)
	}
	if cs[6].closed.Load() != 1 || cs[7].closed.Load() != 1 || g.Stats().Refused != 3 {
		t.Fatalf("at the limit: closed %d %d, stats %+v", cs[6].closed.Load(), cs[7].closed.Load(), g.Stats())
	}
	// Closing gives places back, once each.
	got[0].Close()
	got[0].Close()
	got[3].Close()
	if st := g.Stats(); st.Open != 3 {
		t.Fatalf("after closing two: %+v", st)
	}
	more := conns("10.0.0.1", "10.0.0.1")
	fl.next = []any{more[0], more[1]}
	if c, err := g.Accept(); err != nil || c.(*guardedConn).Conn != more[0] {
		t.Fatalf("a place freed by 10.0.0.1: %v %v", c, err)
	}
	if _, err := g.Accept(); !errors.Is(err, net.ErrClosed) || more[1].closed.Load() != 1 {
		t.Fatal("10.0.0.1 got a third place")
	}
}

// An accept that fails for want of descriptors or buffers is retried; any other failure is
// returned, as a closed listener is.
func TestGuardListenerAcceptErrors(t *testing.T) {
	c := conns("10.0.0.9")[0]
	fl := &fakeListener{next: []any{
		&net.OpError{Op: "accept", Err: fmt.Errorf("accept4: %w", syscall.EMFILE)},
		syscall.ENFILE, syscall.ECONNABORTED, c,
		errors.New("something permanent"),
	}}
	g := GuardListener(fl, ConnLimits{}, "test", quietLog)
	got, err := g.Accept()
	if err != nil || got.(*guardedConn).Conn != c {
		t.Fatalf("accept after resource errors: %v %v", got, err)
	}
	if st := g.Stats(); st.AcceptErrors != 3 || fl.accepts.Load() != 4 {
		t.Fatalf("stats %+v after %d accepts, want 3 accept errors retried", st, fl.accepts.Load())
	}
	if _, err := g.Accept(); err == nil || err.Error() != "something permanent" {
		t.Fatalf("a permanent error: %v", err)
	}
}

// The automatic limits share what the reserve leaves of the descriptors, within their caps.
func TestAutoConnLimits(t *testing.T) {
	for _, tc := range []struct {
		nofile, reserve int
		shares          []float64
		want            []ConnLimits
	}{
		{512, 272, []float64{2.0 / 3, 1.0 / 3}, []ConnLimits{{160, 40}, {80, 20}}},
		{1 << 20, 1000, []float64{1}, []ConnLimits{{maxAutoConnections, maxAutoPerAddress}}},
		{100, 200, []float64{1}, []ConnLimits{{16, 4}}}, // nothing left: a floor, not zero
		{0, 272, []float64{1}, []ConnLimits{{fallbackDescriptors - 272, maxAutoPerAddress}}},
	} {
		got := AutoConnLimits(tc.nofile, tc.reserve, tc.shares...)
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("AutoConnLimits(%d, %d, %v) = %v, want %v", tc.nofile, tc.reserve, tc.shares, got, tc.want)
			}
		}
	}
}

// A first request whose header lines end in a bare LF is answered 400 at once, with the reason
// and the headers the listener was given, however the bytes arrive; CRLF requests pass, also when
// their line ends straddle two reads, and a later request on the connection is not checked.
func TestGuardListenerBareLF(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		bareLF bool
	}{
		{"bare LF everywhere", []string{"GET / HTTP/1.1\nHost: x\n\n"}, true},
		{"bare LF in the headers", []string{"GET / HTTP/1.1\r\nHost: x\n\r\n"}, true},
		{"bare LF after a CR of the previous read", []string{"GET / HTTP/1.1\r", "\nHost: x\r\n\nX"}, true},
		{"CRLF", []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\n"}, false},
		{"CRLF across reads", []string{"GET / HTTP/1.1\r", "\nHost: x\r", "\n", "\r", "\n"}, false},
		{"a later request is not checked", []string{"GET / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\nHost: x\n\n"}, false},
	} {
		server, client := net.Pipe()
		g := GuardListener(&fakeListener{next: []any{&pipeConn{Conn: server}}}, ConnLimits{}, "test", quietLog)
		g.SetHeaders(func(dst []byte, _ net.Addr) []byte { return append(dst, "X-Test: yes\r\n"...) })
		c, err := g.Accept()
		if err != nil {
			t.Fatal(err)
		}
		answer := make(chan string, 1)
		go func() {
			for _, ch := range tc.chunks {
				client.Write([]byte(ch))
			}
			b, _ := io.ReadAll(client)
			answer <- string(b)
		}()
		var got []byte
		var readErr error
		for readErr == nil {
			buf := make([]byte, 64)
			var n int
			n, readErr = c.Read(buf)
			got = append(got, buf[:n]...)
			if len(got) == len(strings.Join(tc.chunks, "")) {
				break
			}
		}
		c.Close()
		a := <-answer
		if tc.bareLF {
			if readErr != io.EOF || !strings.HasPrefix(a, "HTTP/1.1 400 Bad Request\r\n") || !strings.Contains(a, "X-Test: yes\r\n") ||
				!strings.HasSuffix(a, "\r\n\r\n"+bareLFReason) || !strings.Contains(a, fmt.Sprintf("Content-Length: %d\r\n", len(bareLFReason))) {
				t.Errorf("%s: read %v, answer %q", tc.name, readErr, a)
			}
		} else if readErr != nil || a != "" || string(got) != strings.Join(tc.chunks, "") {
			t.Errorf("%s: read %q %v, answer %q", tc.name, got, readErr, a)
		}
		client.Close()
	}
}

// pipeConn is a net.Pipe end with a TCP remote address.
type pipeConn struct{ net.Conn }

func (pipeConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 5} }

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))
