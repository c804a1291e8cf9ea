package connguard

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// lazyDeadlineConn keeps fasthttp's read deadlines while arming the connection's own timer only
// when a deadline moves earlier.
//
// fasthttp sets a read deadline twice per keep-alive request (the idle timeout before the next
// request, the read timeout once it starts), and each SetReadDeadline re-arms the runtime's
// poller timer: about 200 ns, twice per request, which the constant-body server that
// bench/headerserve compares the hot route with does not pay (it has no timeouts). The deadlines
// only ever move later on a busy connection, so this wrapper records the deadline asked for and
// leaves an earlier armed one in place. When that one fires, Read sees the timeout, finds that the
// deadline asked for is still ahead, arms it and reads on; the caller never sees the early
// timeout. A deadline that moves earlier (a shorter timeout, a deadline in the past to cancel a
// read) is armed at once. So a read times out exactly when the last SetReadDeadline said, as
// before, and the timer is re-armed about once per timeout period instead of twice per request.
//
// Write deadlines pass straight through: fasthttp sets none on this server (WriteTimeout is 0).
// The guarded listener's connections do the same with their own readDeadlines.
type lazyDeadlineConn struct {
	net.Conn
	dl   readDeadlines
	peer []byte // X-Peer-Addr, formatted once
}

func (c *lazyDeadlineConn) PeerAddr() []byte { return c.peer }

func (c *lazyDeadlineConn) SetReadDeadline(t time.Time) error { return c.dl.set(c.Conn, t) }
func (c *lazyDeadlineConn) SetDeadline(t time.Time) error     { return c.dl.setBoth(c.Conn, t) }
func (c *lazyDeadlineConn) Read(p []byte) (int, error)        { return c.dl.read(c.Conn, p) }

// readDeadlines is the state of a connection's lazy read deadline: the deadline asked for and
// the one armed on the connection, as Unix nanoseconds (0: none, which is later than any).
type readDeadlines struct {
	mu          sync.Mutex
	want, armed int64
}

// after orders deadlines with 0 (none) last.
func after(a, b int64) bool {
	switch {
	case a == 0:
		return b != 0
	case b == 0:
		return false
	}
	return a > b
}

func deadlineNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// set records t as c's read deadline and arms it only if it is earlier than the armed one.
func (d *readDeadlines) set(c net.Conn, t time.Time) error {
	n := deadlineNanos(t)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.want = n
	if !after(d.armed, n) {
		return nil // the armed deadline comes first (or is this one); read moves it on when it fires
	}
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	d.armed = n
	return nil
}

// setBoth is SetDeadline: the write deadline directly, the read deadline lazily.
func (d *readDeadlines) setBoth(c net.Conn, t time.Time) error {
	if err := c.SetWriteDeadline(t); err != nil {
		return err
	}
	return d.set(c, t)
}

// read reads from c, passing over a timeout of an armed deadline earlier than the one asked for.
func (d *readDeadlines) read(c net.Conn, p []byte) (int, error) {
	for {
		n, err := c.Read(p)
		if n > 0 || err == nil || !errors.Is(err, os.ErrDeadlineExceeded) || !d.rearm(c) {
			return n, err
		}
	}
}

// rearm arms the deadline asked for after the armed one fired, and reports whether it is still
// ahead (so the read goes on).
func (d *readDeadlines) rearm(c net.Conn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.want != 0 && d.want <= time.Now().UnixNano() {
		return false // the deadline asked for has passed: a real timeout
	}
	var t time.Time
	if d.want != 0 {
		t = time.Unix(0, d.want)
	}
	if c.SetReadDeadline(t) != nil {
		return false
	}
	d.armed = d.want
	return true
}

// LazyDeadlineListener gives each accepted connection lazy read deadlines and its X-Peer-Addr
// text (transport.Service.Serve on a listener that is not a GuardedListener, whose
// connections have both already).
type LazyDeadlineListener struct{ net.Listener }

func (l LazyDeadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &lazyDeadlineConn{Conn: c, peer: AppendPeerAddr(nil, c.RemoteAddr())}, nil
}
