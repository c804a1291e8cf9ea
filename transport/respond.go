package transport

import (
	"net"
	"net/netip"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/valyala/fasthttp"
)

// Media types of responses. Servant writes JSON as "application/json;charset=utf-8" and plain
// text as "text/plain;charset=utf-8"; clients compare these loosely, but matching upstream keeps
// byte-level diffs against a real node quiet.
var (
	ctJSON       = []byte("application/json;charset=utf-8")
	ctJSONObject = []byte("application/json;blockheader-encoding=object")
	ctOctet      = []byte("application/octet-stream")
	ctText       = []byte("text/plain;charset=utf-8")
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
type peerAddrConn interface{ peerAddr() []byte }

func (c *commonHeaders) setAt(ctx *fasthttp.RequestCtx, now time.Time) {
	var buf [64]byte
	h := &ctx.Response.Header
	if pc, ok := ctx.Conn().(peerAddrConn); ok {
		h.SetCanonical(hdrPeerAddr, pc.peerAddr())
	} else {
		h.SetCanonical(hdrPeerAddr, appendPeerAddr(buf[:0], ctx.RemoteAddr()))
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
	dst = line(dst, hdrPeerAddr, appendPeerAddr(buf[:0], remote))
	dst = line(dst, hdrServerTimestamp, strconv.AppendInt(buf[:0], time.Now().Unix(), 10))
	dst = line(dst, hdrLedgerVersion, s.headers.nodeVersion)
	dst = line(dst, hdrChainwebVersion, s.headers.nodeVersion)
	return line(dst, hdrAllowOrigin, valStar)
}

// appendPeerAddr appends the client address as "ip:port", IPv6 in brackets, as upstream's
// X-Peer-Addr shows it. IPv4 peers of a dual-stack listener arrive as IPv4-mapped IPv6; they are
// unmapped so a client sees the address it connected from.
func appendPeerAddr(dst []byte, a net.Addr) []byte {
	if t, ok := a.(*net.TCPAddr); ok {
		if ip4 := t.IP.To4(); ip4 != nil && t.Zone == "" && 0 <= t.Port && t.Port <= 0xffff {
			// The common case written by hand: netip's formatting costs about four times as
			// much, on every request. The same text (TestAppendPeerAddr).
			for i, b := range ip4 {
				if i > 0 {
					dst = append(dst, '.')
				}
				dst = strconv.AppendUint(dst, uint64(b), 10)
			}
			dst = append(dst, ':')
			return strconv.AppendUint(dst, uint64(t.Port), 10)
		}
		ap := t.AddrPort()
		if ap.Addr().Is4In6() {
			ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		}
		return ap.AppendTo(dst)
	}
	return append(dst, a.String()...)
}

// writeJSON sends a JSON body that is already encoded.
func writeJSON(ctx *fasthttp.RequestCtx, status int, body []byte) {
	ctx.SetStatusCode(status)
	ctx.Response.Header.SetContentTypeBytes(ctJSON)
	ctx.Response.SetBody(body)
}

// writeText sends a plain-text body.
func writeText(ctx *fasthttp.RequestCtx, status int, msg string) {
	ctx.SetStatusCode(status)
	ctx.Response.Header.SetContentTypeBytes(ctText)
	ctx.Response.SetBodyString(msg)
}

// writeEmpty sends a status with no body and no Content-Type: for successes without content
// (204). Every 4xx carries a reason instead.
func writeEmpty(ctx *fasthttp.RequestCtx, status int) {
	ctx.SetStatusCode(status)
	ctx.Response.ResetBody()
	ctx.Response.Header.SetContentLength(0)
}

// notFoundKey sends the interface's not-found body {"key": ..., "reason": ...} (keys in
// alphabetical order, as upstream's aeson object comes out).
func notFoundKey(ctx *fasthttp.RequestCtx, key, reason string) {
	var buf [192]byte
	b := append(buf[:0], `{"key":`...)
	b = appendJSONString(b, key)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, reason)
	b = append(b, '}')
	writeJSON(ctx, fasthttp.StatusNotFound, b)
}

// keyNotFound is the not-found body for an unknown hash.
func keyNotFound(ctx *fasthttp.RequestCtx, key string) { notFoundKey(ctx, key, "key not found") }

// badQueryParam sends servant's wording for a query parameter that does not parse.
func badQueryParam(ctx *fasthttp.RequestCtx, name, reason string) {
	writeText(ctx, fasthttp.StatusBadRequest, "Error parsing query parameter "+name+" failed: "+reason)
}

// unsupportedMediaType answers a JSON-bodied POST whose Content-Type is not JSON. Servant sends
// an empty 415; a sentence saying what is required saves a client developer a trip to the docs.
func unsupportedMediaType(ctx *fasthttp.RequestCtx) {
	writeText(ctx, fasthttp.StatusUnsupportedMediaType,
		"Unsupported Content-Type: this endpoint requires a request body with Content-Type application/json.")
}

// notAcceptable answers an Accept header no offered encoding satisfies. Servant's 406 is
// empty; the reason names what was asked for and what the endpoint can produce.
func notAcceptable(ctx *fasthttp.RequestCtx, offers []encoding) {
	msg := "cannot produce any of the accepted media types: " +
		echoText(ctx.Request.Header.Peek(fasthttp.HeaderAccept), true) + "; available: "
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
	writeText(ctx, fasthttp.StatusNotAcceptable, msg)
}

// appendJSONString appends s as a JSON string literal. Invalid UTF-8 becomes U+FFFD so the body
// stays valid JSON whatever a client sent us to echo back.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}
