package transport

import (
	"net"
	"strconv"
	"time"

	"github.com/ledgernode/ledger-node/transport/connguard"
	"github.com/ledgernode/ledger-node/transport/httpkit"
	"github.com/valyala/fasthttp"
)

// Media types of responses besides httpkit's JSON and text: the header encodings.
var (
	ctJSONObject = []byte("application/json;blockheader-encoding=object")
	ctOctet      = []byte("application/octet-stream")
)

// Canonical (already normalised) names of the headers every response carries, so SetCanonical
// can skip fasthttp's per-call normalisation.
var (
	hdrPeerAddr        = []byte("X-Peer-Addr")
	hdrServerTimestamp = []byte("X-Server-Timestamp")
	hdrLedgerVersion   = []byte("X-Ledger-Node-Version")
	hdrChainwebVersion = []byte("X-Chainweb-Node-Version")
	hdrAllowOrigin     = []byte("Access-Control-Allow-Origin")
	valStar            = []byte("*")
)

// commonHeaders is what every response of a service carries, success or failure (interface.md
// "Response headers on every node response"; DECISIONS.md extends upstream's set to 404, 406,
// 413 and the rest).
type commonHeaders struct {
	nodeVersion []byte
}

// set writes the common headers. It runs before routing, so nothing a handler does can produce a
// response without them, and again after a panic or a fasthttp-level error (both start from a
// reset response).
func (c *commonHeaders) set(ctx *fasthttp.RequestCtx) { c.setAt(ctx, time.Now()) }

// setRequest is set at the start of a request fasthttp has just read: the server timestamp is
// the second fasthttp stamped the request with (RequestCtx.Time), which saves a clock read
// (about 100 ns on this project's VMs) on every request. A context made outside a server
// (RequestCtx.Init) has no stamp; it gets the clock's.
func (c *commonHeaders) setRequest(ctx *fasthttp.RequestCtx) {
	t := ctx.Time()
	if t.IsZero() {
		t = time.Now()
	}
	c.setAt(ctx, t)
}

// peerAddrConn is a connection that formatted its X-Peer-Addr once, when it was accepted
// (guardedConn, tlsConn, lazyDeadlineConn), instead of on every request.
type peerAddrConn interface{ PeerAddr() []byte }

func (c *commonHeaders) setAt(ctx *fasthttp.RequestCtx, now time.Time) {
	var buf [64]byte
	h := &ctx.Response.Header
	if pc, ok := ctx.Conn().(peerAddrConn); ok {
		h.SetCanonical(hdrPeerAddr, pc.PeerAddr())
	} else {
		h.SetCanonical(hdrPeerAddr, connguard.AppendPeerAddr(buf[:0], ctx.RemoteAddr()))
	}
	h.SetCanonical(hdrServerTimestamp, strconv.AppendInt(buf[:0], now.Unix(), 10))
	h.SetCanonical(hdrLedgerVersion, c.nodeVersion)
	h.SetCanonical(hdrChainwebVersion, c.nodeVersion)
	h.SetCanonical(hdrAllowOrigin, valStar)
}

// AppendCommonHeaders appends the common headers for a client at remote as raw header lines
// ("Name: value\r\n"), for answers written outside fasthttp (GuardedListener.SetHeaders).
func (s *Service) AppendCommonHeaders(dst []byte, remote net.Addr) []byte {
	line := func(dst, name, val []byte) []byte {
		dst = append(append(append(dst, name...), ": "...), val...)
		return append(dst, "\r\n"...)
	}
	var buf [64]byte
	dst = line(dst, hdrPeerAddr, connguard.AppendPeerAddr(buf[:0], remote))
	dst = line(dst, hdrServerTimestamp, strconv.AppendInt(buf[:0], time.Now().Unix(), 10))
	dst = line(dst, hdrLedgerVersion, s.headers.nodeVersion)
	dst = line(dst, hdrChainwebVersion, s.headers.nodeVersion)
	return line(dst, hdrAllowOrigin, valStar)
}

// notFoundKey sends the interface's not-found body {"key": ..., "reason": ...} (keys in
// alphabetical order, as upstream's aeson object comes out).
func notFoundKey(ctx *fasthttp.RequestCtx, key, reason string) {
	var buf [192]byte
	b := append(buf[:0], `{"key":`...)
	b = httpkit.AppendJSONString(b, key)
	b = append(b, `,"reason":`...)
	b = httpkit.AppendJSONString(b, reason)
	b = append(b, '}')
	httpkit.WriteJSON(ctx, fasthttp.StatusNotFound, b)
}

// keyNotFound is the not-found body for an unknown hash.
func keyNotFound(ctx *fasthttp.RequestCtx, key string) { notFoundKey(ctx, key, "key not found") }

// notAcceptable answers an Accept header no offered encoding satisfies. Servant's 406 is
// empty; the reason names what was asked for and what the endpoint can produce.
func notAcceptable(ctx *fasthttp.RequestCtx, offers []encoding) {
	msg := "cannot produce any of the accepted media types: " +
		httpkit.EchoText(ctx.Request.Header.Peek(fasthttp.HeaderAccept), true) + "; available: "
	for i, o := range offers {
		if i > 0 {
			msg += ", "
		}
		if o == encJSON {
			msg += "application/json"
		} else {
			msg += string(contentTypeOf(o))
		}
	}
	httpkit.WriteText(ctx, fasthttp.StatusNotAcceptable, msg)
}
