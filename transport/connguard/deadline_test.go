package connguard

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// armCounter counts the read deadlines armed on a connection.
type armCounter struct {
	net.Conn
	armed atomic.Int64
}

func (c *armCounter) SetReadDeadline(t time.Time) error {
	c.armed.Add(1)
	return c.Conn.SetReadDeadline(t)
}

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = hangguard.Recv(t, accepted, "accept")
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// readResult reads once from c in the background.
func readResult(c net.Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		var b [16]byte
		_, err := c.Read(b[:])
		done <- err
	}()
	return done
}

// A keep-alive connection's deadlines, idle then read timeout per request as fasthttp sets
// them, arm the connection's timer once, not twice per request; every request is still read.
func TestLazyDeadlineArmsOnce(t *testing.T) {
	server, client := tcpPair(t)
	raw := &armCounter{Conn: server}
	c := &lazyDeadlineConn{Conn: raw}
	for range 100 {
		if err := c.SetReadDeadline(time.Now().Add(120 * time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := c.SetReadDeadline(time.Now().Add(60 * time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := client.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := hangguard.Recv(t, readResult(c), "read"); err != nil {
			t.Fatal(err)
		}
	}
	// The first idle deadline, then the first read deadline (earlier); later ones only move on.
	if n := raw.armed.Load(); n != 2 {
		t.Fatalf("%d deadlines armed for 100 requests, want 2", n)
	}
}

// A read times out at the deadline asked for last: not at an earlier one still armed, and at
// once when the deadline moves earlier.
func TestLazyDeadlineTimesOutOnTime(t *testing.T) {
	t.Run("later", func(t *testing.T) {
		server, _ := tcpPair(t)
		c := &lazyDeadlineConn{Conn: server}
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)) // wallclock: the deadlines under test, not bounds
		want := time.Now().Add(200 * time.Millisecond)           // wallclock: the deadline under test
		c.SetReadDeadline(want)
		err := hangguard.Recv(t, readResult(c), "timeout")
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read: %v, want a timeout", err)
		}
		if now := time.Now(); now.Before(want) {
			t.Fatalf("timed out %v before the deadline", want.Sub(now))
		}
	})
	t.Run("earlier", func(t *testing.T) {
		server, _ := tcpPair(t)
		c := &lazyDeadlineConn{Conn: server}
		c.SetReadDeadline(time.Now().Add(time.Hour))
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)) // wallclock: the deadline under test, not a bound
		if err := hangguard.Recv(t, readResult(c), "timeout"); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read: %v, want a timeout", err)
		}
	})
	t.Run("past cancels a read", func(t *testing.T) {
		server, _ := tcpPair(t)
		c := &lazyDeadlineConn{Conn: server}
		c.SetReadDeadline(time.Now().Add(time.Hour))
		done := readResult(c)
		time.Sleep(20 * time.Millisecond)
		c.SetReadDeadline(time.Now().Add(-time.Second))
		if err := hangguard.Recv(t, done, "cancelled read"); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read: %v, want a timeout", err)
		}
	})
}

// Data that arrives after an earlier armed deadline has fired is read, when the deadline asked
// for is later or none; also through a guarded listener's connection.
func TestLazyDeadlineReadsPastEarlierTimer(t *testing.T) {
	for _, last := range []time.Duration{time.Hour, 0} {
		for _, guarded := range []bool{false, true} {
			server, client := tcpPair(t)
			var c net.Conn = &lazyDeadlineConn{Conn: server}
			if guarded {
				c = &guardedConn{Conn: server, l: GuardListener(nil, ConnLimits{}, "test", quietLog), lines: lineEnds{done: true}}
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Millisecond)) // wallclock: an early timer the read must pass over
			if last > 0 {
				c.SetReadDeadline(time.Now().Add(last))
			} else {
				c.SetReadDeadline(time.Time{})
			}
			done := readResult(c)
			time.Sleep(50 * time.Millisecond) // past the first deadline
			if _, err := client.Write([]byte("late")); err != nil {
				t.Fatal(err)
			}
			if err := hangguard.Recv(t, done, "read"); err != nil {
				t.Fatalf("deadline %v, guarded %v: %v", last, guarded, err)
			}
		}
	}
}
