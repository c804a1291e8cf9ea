package connguard

import (
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Connection limits. A listener accepts connections for as long as the process has file
// descriptors; when it runs out, accept fails with EMFILE, which fasthttp's Serve takes for a
// permanent error: it returned, and the node exited (issue 30: 450 idle connections to a node at
// `ulimit -n 400`). GuardListener stands between the listener and the server:
//
//   - it keeps the connections it hands out under a global limit, set below the descriptor
//     limit with room for the database, the logs and outgoing peer connections, and under a
//     per-address limit (loopback clients are counted only globally: a machine's own tools
//     and a network of nodes on one machine share that address); a connection beyond either
//     is closed at once, never fatal, and counted;
//   - it retries an accept that failed for want of resources (EMFILE, ENFILE, ENOBUFS,
//     ENOMEM, and connections aborted before they were accepted) with a growing pause, and
//     logs it once per interval instead of returning it.
//
// Idle and slow connections are closed by the servers' deadlines (ReadTimeout, IdleTimeout).

// ConnLimits bounds the connections one listener serves at once.
type ConnLimits struct {
	// Max bounds every connection together; PerAddress those of one client address (not
	// applied to loopback clients). Zero means no limit.
	Max, PerAddress int
}

// ConnStats are a guarded listener's counts, for the metrics.
type ConnStats struct {
	Open    int64  // connections open now
	Refused uint64 // connections closed at once for a limit
	// AcceptErrors counts accepts that failed for want of resources and were retried.
	AcceptErrors uint64
}

// GuardedListener is a listener under ConnLimits (GuardListener).
type GuardedListener struct {
	net.Listener
	limits ConnLimits
	log    *slog.Logger
	name   string

	mu     sync.Mutex
	open   int
	byAddr map[string]int

	openN        atomic.Int64
	refused      atomic.Uint64
	acceptErrors atomic.Uint64
	lastRefusal  atomic.Int64 // UnixNano of the last logged refusal
	lastAcceptEr atomic.Int64 // UnixNano of the last logged accept error
	// headers appends the API's common header lines to the answers the listener writes itself
	// (SetHeaders); nil: none.
	headers func(dst []byte, remote net.Addr) []byte
	// tls, when set, makes the connections TLS (SetTLS): the limits count the TCP
	// connections, the bare-LF check reads the decrypted requests.
	tls *tls.Config
}

// connLogEvery is how often a guarded listener logs refusals, and accept errors, at most.
const connLogEvery = 10 * time.Second

// GuardListener wraps ln with limits; name ("service API", "peer API") is what its log lines
// call it.
func GuardListener(ln net.Listener, limits ConnLimits, name string, log *slog.Logger) *GuardedListener {
	if log == nil {
		log = slog.Default()
	}
	return &GuardedListener{Listener: ln, limits: limits, log: log, name: name, byAddr: map[string]int{}}
}

// Stats returns the listener's counts.
func (l *GuardedListener) Stats() ConnStats {
	return ConnStats{Open: l.openN.Load(), Refused: l.refused.Load(), AcceptErrors: l.acceptErrors.Load()}
}

// Limits returns the listener's limits.
func (l *GuardedListener) Limits() ConnLimits { return l.limits }

// Accept returns the next connection within the limits. It returns an error only when the
// listener is closed or fails for good.
func (l *GuardedListener) Accept() (net.Conn, error) {
	pause := 5 * time.Millisecond
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if !retryableAccept(err) {
				return nil, err
			}
			l.acceptErrors.Add(1)
			if logDue(&l.lastAcceptEr) {
				l.log.Warn("accepting connections fails for want of resources; retrying", "api", l.name, "err", err,
					"open", l.openN.Load(), "limit", l.limits.Max)
			}
			time.Sleep(pause)
			pause = min(2*pause, time.Second)
			continue
		}
		pause = 5 * time.Millisecond
		addr, loopback := remoteHost(c)
		if gc, ok := l.admit(c, addr, loopback); ok {
			return gc, nil
		}
		c.Close()
		l.refused.Add(1)
		if logDue(&l.lastRefusal) {
			l.log.Warn("connection refused: too many open", "api", l.name, "client", addr, "open", l.openN.Load(),
				"limit", l.limits.Max, "perAddress", l.limits.PerAddress)
		}
	}
}

// admit counts c in if the limits allow it.
func (l *GuardedListener) admit(c net.Conn, addr string, loopback bool) (net.Conn, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limits.Max > 0 && l.open >= l.limits.Max {
		return nil, false
	}
	perAddr := l.limits.PerAddress > 0 && !loopback
	if perAddr && l.byAddr[addr] >= l.limits.PerAddress {
		return nil, false
	}
	l.open++
	if perAddr {
		l.byAddr[addr]++
	}
	l.openN.Add(1)
	gc := &guardedConn{Conn: c, l: l, addr: addr, counted: perAddr, peer: AppendPeerAddr(nil, c.RemoteAddr())}
	if l.tls != nil {
		return newTLSConn(gc, l.tls), true
	}
	return gc, true
}

func (l *GuardedListener) release(addr string, counted bool) {
	l.mu.Lock()
	l.open--
	if counted {
		if n := l.byAddr[addr] - 1; n > 0 {
			l.byAddr[addr] = n
		} else {
			delete(l.byAddr, addr)
		}
	}
	l.mu.Unlock()
	l.openN.Add(-1)
}

// guardedConn gives its place back when closed (once, however often Close is called), and
// answers a first request whose header lines end in a bare LF at once (lineEnds). Its read
// deadlines are lazy (deadline.go), which spares the server two timer re-arms per request.
type guardedConn struct {
	net.Conn
	l       *GuardedListener
	addr    string
	counted bool
	closed  atomic.Bool
	lines   lineEnds
	dl      readDeadlines
	peer    []byte // X-Peer-Addr, formatted once
}

func (c *guardedConn) PeerAddr() []byte                  { return c.peer }
func (c *guardedConn) SetReadDeadline(t time.Time) error { return c.dl.set(c.Conn, t) }
func (c *guardedConn) SetDeadline(t time.Time) error     { return c.dl.setBoth(c.Conn, t) }

// Read reads from the connection. While the first request's header block comes in, a line
// ending in a bare LF gets a 400 with the reason and ends the connection: fasthttp's parser
// wants CRLF and waited for one until its read timeout, 60 s for a one-line mistake (issue 30).
func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.dl.read(c.Conn, p)
	if n > 0 && !c.lines.done && c.l.tls == nil {
		if c.lines.scan(p[:n]) {
			c.Conn.Write(c.l.bareLFAnswer(c.Conn.RemoteAddr()))
			c.Close()
			return 0, io.EOF
		}
	}
	return n, err
}

// SetTLS makes the listener's connections TLS with cfg (the peer API's HTTPS). Call it before
// the listener is served.
func (l *GuardedListener) SetTLS(cfg *tls.Config) { l.tls = cfg }

// tlsConn is a guarded connection under TLS: the bare-LF check reads the decrypted first
// request, and a client that speaks plain HTTP to the TLS port is answered, in plain HTTP, a 400
// that says so (as net/http does) instead of a TLS alert it cannot read.
type tlsConn struct {
	*tls.Conn
	raw   *guardedConn
	lines lineEnds
}

func newTLSConn(c *guardedConn, cfg *tls.Config) *tlsConn {
	return &tlsConn{Conn: tls.Server(c, cfg), raw: c}
}

func (c *tlsConn) PeerAddr() []byte { return c.raw.peer }

// plainHTTPReason is the body of the answer to plain HTTP on the TLS port.
const plainHTTPReason = "this port speaks HTTPS (TLS); the request came in plain HTTP\n"

func (c *tlsConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	var rhe tls.RecordHeaderError
	if err != nil && errors.As(err, &rhe) && rhe.Conn != nil && looksLikeHTTP(rhe.RecordHeader[:]) {
		b := []byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: ")
		b = strconv.AppendInt(b, int64(len(plainHTTPReason)), 10)
		b = append(b, "\r\n\r\n"...)
		rhe.Conn.Write(append(b, plainHTTPReason...))
		c.Close()
		return 0, io.EOF
	}
	if n > 0 && !c.lines.done {
		if c.lines.scan(p[:n]) {
			c.Conn.Write(c.raw.l.bareLFAnswer(c.RemoteAddr()))
			c.Close()
			return 0, io.EOF
		}
	}
	return n, err
}

// looksLikeHTTP reports whether the first bytes of a connection are an HTTP method's.
func looksLikeHTTP(b []byte) bool {
	for _, m := range []string{"GET ", "PUT ", "POST", "HEAD", "DELE", "OPTI", "PATC", "CONN", "TRAC"} {
		if len(b) >= 4 && string(b[:4]) == m[:4] {
			return true
		}
	}
	return false
}

// lineEnds follows the header block of a connection's first request for a bare LF. It stops at
// the end of the block (CRLF CRLF), or after maxHeaderScan bytes (fasthttp judges longer
// headers itself); later requests on the connection are not checked.
type lineEnds struct {
	done  bool
	seen  int
	tail  [3]byte // the last bytes before this read: a line end may straddle two reads
	ntail int
}

// maxHeaderScan bounds how much of a first request lineEnds reads.
const maxHeaderScan = 64 << 10

// bareLFReason is the body of the answer to a request with bare-LF line ends.
const bareLFReason = "the request's lines end in a bare LF: HTTP needs CRLF line ends (RFC 9112)\n"

// SetHeaders makes the answers the listener writes itself (to a bare-LF request) carry the
// header lines hdr appends for the client at remote: the API's common headers
// (transport.Service.AppendCommonHeaders).
func (l *GuardedListener) SetHeaders(hdr func(dst []byte, remote net.Addr) []byte) { l.headers = hdr }

// bareLFAnswer is the 400 to a request with bare-LF line ends, from the client at remote.
func (l *GuardedListener) bareLFAnswer(remote net.Addr) []byte {
	b := []byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: ")
	b = strconv.AppendInt(b, int64(len(bareLFReason)), 10)
	b = append(b, "\r\n"...)
	if l.headers != nil {
		b = l.headers(b, remote)
	}
	b = append(b, "\r\n"...)
	return append(b, bareLFReason...)
}

// scan takes the next bytes of the connection; it reports a bare LF in the header block.
func (e *lineEnds) scan(b []byte) (bareLF bool) {
	for i, ch := range b {
		prev := func(k int) byte { // the byte k places before b[i], across reads
			if i-k >= 0 {
				return b[i-k]
			}
			if j := e.ntail - (k - i); j >= 0 {
				return e.tail[j]
			}
			return 0
		}
		if ch != '\n' {
			continue
		}
		if prev(1) != '\r' {
			e.done = true
			return true
		}
		if prev(2) == '\n' && prev(3) == '\r' && e.seen+i >= 3 {
			e.done = true // CRLF CRLF: the block ended well
			return false
		}
	}
	e.seen += len(b)
	if e.seen > maxHeaderScan {
		e.done = true
		return false
	}
	// Keep the last three bytes for the next read.
	all := append(e.tail[:e.ntail:e.ntail], b[max(0, len(b)-3):]...)
	e.ntail = copy(e.tail[:], all[max(0, len(all)-3):])
	return false
}

func (c *guardedConn) Close() error {
	err := c.Conn.Close()
	if c.closed.CompareAndSwap(false, true) {
		c.l.release(c.addr, c.counted)
	}
	return err
}

// remoteHost returns the connection's client address without the port, and whether it is a
// loopback address.
func remoteHost(c net.Conn) (string, bool) {
	switch a := c.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.IP.String(), a.IP.IsLoopback()
	case nil:
		return "", false
	default:
		host, _, err := net.SplitHostPort(a.String())
		if err != nil {
			return a.String(), false
		}
		ip := net.ParseIP(host)
		return host, ip != nil && ip.IsLoopback()
	}
}

// retryableAccept reports whether an accept failed for a reason that passes: the process or the
// system ran out of descriptors or buffers, or a client gave up before it was accepted.
func retryableAccept(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED,
		syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// logDue reports whether connLogEvery passed since *last, and if so moves *last to now.
func logDue(last *atomic.Int64) bool {
	now := time.Now().UnixNano()
	prev := last.Load()
	return now-prev >= int64(connLogEvery) && last.CompareAndSwap(prev, now)
}

// Defaults of the connection limits when the descriptor limit cannot be read, and their caps
// (each connection costs its buffers and a goroutine: a limit of a million would only move the
// failure from descriptors to memory).
const (
	fallbackDescriptors = 4096
	maxAutoConnections  = 16384
	maxAutoPerAddress   = 256
)

// AutoConnLimits divides the descriptors left when reserve of the process's limit (nofile; 0:
// unknown) is set aside between listeners in the given shares (which sum to at most 1), and
// returns one ConnLimits per share: each a share of what is left, at most maxAutoConnections,
// and a quarter of that per address (at least 4, at most maxAutoPerAddress).
func AutoConnLimits(nofile, reserve int, shares ...float64) []ConnLimits {
	if nofile <= 0 {
		nofile = fallbackDescriptors
	}
	left := max(nofile-reserve, 16)
	out := make([]ConnLimits, len(shares))
	for i, s := range shares {
		m := min(max(int(float64(left)*s), 4), maxAutoConnections)
		out[i] = ConnLimits{Max: m, PerAddress: min(max(m/4, 4), maxAutoPerAddress)}
	}
	return out
}
