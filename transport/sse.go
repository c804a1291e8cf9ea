package transport

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The header update streams, GET …/header/updates and …/block/updates (chainweb-api.md §5,
// interface.md "Events", DECISIONS.md): server-sent events fed by an actors.UpdatesHub, one
// event per block entering the best cut. Beyond upstream they carry an id per event, resume from
// Last-Event-ID, and send ": keepalive" comments, so idle streams survive proxies and dead
// clients are noticed.

// DefaultUpdatesKeepalive is the interval of keepalive comments on an update stream.
const DefaultUpdatesKeepalive = 15 * time.Second

// stuckWriteGrace is how long a stream that has to end (dropped, hub closed, server shutting
// down) may take to get its last bytes to the client. A client that stopped reading would
// otherwise hold the connection, and Shutdown with it, forever: WriteTimeout is 0 on purpose.
const stuckWriteGrace = 250 * time.Millisecond

// maxEventBatch bounds how many waiting events go out in one flush (a replay, or a burst of
// blocks from one cut change), so a long replay still reaches the client progressively.
const maxEventBatch = 64

var (
	ctEventStream   = []byte("text/event-stream")
	hdrCacheControl = []byte("Cache-Control")
	valNoCache      = []byte("no-cache")
	// X-Accel-Buffering: no asks nginx-style reverse proxies (the changelog's advice for
	// operators) not to buffer the stream, which would hold events back until a buffer fills.
	hdrAccelBuffering = []byte("X-Accel-Buffering")
	valNo             = []byte("no")
	hdrLastEventID    = []byte("Last-Event-ID")
)

var (
	keepaliveComment = []byte(": keepalive\n\n")
	unknownComment   = []byte(": Last-Event-ID is not in the replay window (unknown or expired); starting with live events\n\n")
	droppedComment   = []byte(": dropped for falling behind; reconnect with Last-Event-ID to resume\n\n")
	closingComment   = []byte(": the node is shutting down\n\n")
)

// getUpdates serves an update stream; withPayload selects /block/updates.
func (s *Service) getUpdates(withPayload bool) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, _ params) {
		h := &ctx.Response.Header
		if ctx.IsHead() {
			// Headers only: no subscription for a response that will never carry a body.
			ctx.SetStatusCode(fasthttp.StatusOK)
			h.SetContentTypeBytes(ctEventStream)
			h.SetCanonical(hdrCacheControl, valNoCache)
			return
		}
		// EventSource sends the header on reconnect; the query parameter serves polyfills that
		// cannot set headers. Both are copied: ctx's bytes are reused after the handler returns.
		lastID := string(ctx.Request.Header.PeekBytes(hdrLastEventID))
		if lastID == "" {
			lastID = string(ctx.QueryArgs().Peek("lastEventId"))
		}
		sub, err := s.cfg.Updates.Subscribe(lastID, s.cfg.UpdatesBuffer)
		if err != nil {
			httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, "The update stream is closed: the node is shutting down.")
			return
		}
		ctx.SetStatusCode(fasthttp.StatusOK)
		h.SetContentTypeBytes(ctEventStream)
		h.SetCanonical(hdrCacheControl, valNoCache)
		h.SetCanonical(hdrAccelBuffering, valNo)
		// The headers go out now, not with the first event: a client is told at once that it
		// is subscribed, even on an idle network.
		ctx.Response.ImmediateHeaderFlush = true
		// The connection is not reused after a stream: an ended stream may leave a write
		// deadline on it (see watch).
		ctx.SetConnectionClose()

		st := &updateStream{
			svc:         s,
			sub:         sub,
			withPayload: withPayload,
			keepalive:   s.cfg.UpdatesKeepalive,
			// Taken here, never inside the writer: ctx is recycled once the handler returns.
			done: ctx.Done(),
			conn: ctx.Conn(),
			ctl:  make(chan struct{}, 1),
		}
		ctx.SetBodyStreamWriter(st.run)
	}
}

// updateStream is one open update stream. Two goroutines serve it:
//
//   - the writer (run), on a goroutine of fasthttp's that feeds the connection through a pipe,
//     waits on just two channels of its own: the subscription's events and ctl. With 1,000
//     streams every event wakes every writer, so what a writer selects on is paid per event
//     per subscriber; a channel shared by all streams (the server's done) would also be locked
//     by all of them on every event.
//   - the watcher (watch) waits for the rare things: the keepalive ticker, the subscription's
//     end, the server's shutdown. It pokes the writer through ctl, and cuts off a writer that
//     cannot notice because it is blocked behind a client that stopped reading.
type updateStream struct {
	svc         *Service
	sub         *actors.Subscription
	withPayload bool
	keepalive   time.Duration
	done        <-chan struct{} // closed when the server shuts down
	conn        net.Conn

	ctl          chan struct{} // one slot: the watcher has set keepaliveDue or ending
	keepaliveDue atomic.Bool
	ending       atomic.Int32 // why the stream must end: endNone, endSubscription, endShutdown
}

const (
	endNone         = iota
	endSubscription // dropped, or the hub closed
	endShutdown     // the server is shutting down
)

func (st *updateStream) run(w *bufio.Writer) {
	defer st.sub.Close()
	exited := make(chan struct{})
	defer close(exited)
	go st.watch(exited)
	// This goroutine is not covered by the handler's panic guard, and a panic here would take
	// the node down.
	defer func() {
		if r := recover(); r != nil {
			st.svc.internalErrors.Add(1)
			st.svc.log.Error("panic in update stream", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()

	switch status, n := st.sub.Resume(); status {
	case actors.Resumed:
		// Say what follows, for someone reading the raw stream.
		b := append([]byte(": resuming: "), strconv.Itoa(n)...)
		if _, err := w.Write(append(b, " missed events follow\n\n"...)); err != nil || w.Flush() != nil {
			return
		}
	case actors.ResumeUnknown:
		if _, err := w.Write(unknownComment); err != nil || w.Flush() != nil {
			return
		}
	}

	events := st.sub.Events()
	for {
		select {
		case e := <-events:
			if _, err := w.Write(e.SSE(st.withPayload)); err != nil {
				return
			}
			// Whatever else is already waiting goes out with the same flush.
		batch:
			for n := 1; n < maxEventBatch; n++ {
				select {
				case e = <-events:
					if _, err := w.Write(e.SSE(st.withPayload)); err != nil {
						return
					}
				default:
					break batch
				}
			}
			if w.Flush() != nil {
				return // the client is gone
			}
		case <-st.ctl:
			switch st.ending.Load() {
			case endShutdown:
				return
			case endSubscription:
				// Tell a client that is still reading why the stream ends; a stalled one will
				// not see it, and the watcher cuts it off.
				c := droppedComment
				if errors.Is(st.sub.Err(), actors.ErrHubClosed) {
					// The node is shutting down: the blocks that entered the cut before are
					// already here, so send them rather than make the client ask again.
					c = closingComment
					st.drain(w)
				}
				if _, err := w.Write(c); err == nil {
					w.Flush()
				}
				return
			}
			if st.keepaliveDue.Swap(false) {
				if _, err := w.Write(keepaliveComment); err != nil || w.Flush() != nil {
					return
				}
			}
		}
	}
}

// drain writes the events already delivered to the subscription (at most its buffer).
func (st *updateStream) drain(w *bufio.Writer) {
	for {
		select {
		case e := <-st.sub.Events():
			if _, err := w.Write(e.SSE(st.withPayload)); err != nil {
				return
			}
		default:
			return
		}
	}
}

func (st *updateStream) poke() {
	select {
	case st.ctl <- struct{}{}:
	default: // a poke is pending; the writer reads both flags when it takes it
	}
}

// watch runs beside the writer until it exits: it asks for keepalives, and tells the writer
// when the stream must end. Then it makes sure the stream does end: a writer blocked in Flush
// because the client stopped reading (the pipe and the socket buffers are full) cannot notice,
// so a write deadline makes the connection's pending write fail, fasthttp closes the
// connection and the pipe, and the writer's Flush returns an error. A writer that did notice
// gets the grace period to send its last bytes. The deadline is harmless afterwards: stream
// connections are not reused.
func (st *updateStream) watch(exited <-chan struct{}) {
	tick := time.NewTicker(st.keepalive)
	defer tick.Stop()
wait:
	for {
		select {
		case <-exited:
			return // ended on its own (client gone)
		case <-tick.C:
			st.keepaliveDue.Store(true)
			st.poke()
		case <-st.sub.Done():
			st.ending.Store(endSubscription)
			break wait
		case <-st.done:
			st.ending.Store(endShutdown)
			break wait
		}
	}
	st.poke()
	if st.conn != nil {
		st.conn.SetWriteDeadline(time.Now().Add(stuckWriteGrace))
	}
}
