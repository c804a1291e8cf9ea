package httpkit

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/valyala/fasthttp"
)

// Media types of responses. Servant writes JSON as "application/json;charset=utf-8" and plain
// text as "text/plain;charset=utf-8"; clients compare these loosely, but matching upstream keeps
// byte-level diffs against a real node quiet.
var (
	ContentTypeJSON = []byte("application/json;charset=utf-8")
	ContentTypeText = []byte("text/plain;charset=utf-8")
)

// Limits of the servers' request reading.
const (
	// DefaultMaxBodyBytes bounds request bodies unless a server is configured otherwise.
	DefaultMaxBodyBytes = 2 << 20
	// ReadBufferSize bounds the request line plus headers: long query strings and cursors must
	// fit (fasthttp's default 4 KiB rejects them with "small read buffer").
	ReadBufferSize = 16 << 10
	// ReadTimeout bounds reading one request, a 2 MiB body on a slow link included.
	ReadTimeout = 60 * time.Second
	// IdleTimeout closes idle keep-alive connections; Shutdown does not close them itself.
	IdleTimeout = 120 * time.Second
)

// WriteJSON sends a JSON body that is already encoded.
func WriteJSON(ctx *fasthttp.RequestCtx, status int, body []byte) {
	ctx.SetStatusCode(status)
	ctx.Response.Header.SetContentTypeBytes(ContentTypeJSON)
	ctx.Response.SetBody(body)
}

// WriteText sends a plain-text body.
func WriteText(ctx *fasthttp.RequestCtx, status int, msg string) {
	ctx.SetStatusCode(status)
	ctx.Response.Header.SetContentTypeBytes(ContentTypeText)
	ctx.Response.SetBodyString(msg)
}

// WriteEmpty sends a status with no body and no Content-Type: for successes without content
// (204). Every 4xx carries a reason instead.
func WriteEmpty(ctx *fasthttp.RequestCtx, status int) {
	ctx.SetStatusCode(status)
	ctx.Response.ResetBody()
	ctx.Response.Header.SetContentLength(0)
}

// BadQueryParam sends servant's wording for a query parameter that does not parse.
func BadQueryParam(ctx *fasthttp.RequestCtx, name, reason string) {
	WriteText(ctx, fasthttp.StatusBadRequest, "Error parsing query parameter "+name+" failed: "+reason)
}

// UnsupportedMediaType answers a JSON-bodied POST whose Content-Type is not JSON. Servant sends
// an empty 415; a sentence saying what is required saves a client developer a trip to the docs.
func UnsupportedMediaType(ctx *fasthttp.RequestCtx) {
	WriteText(ctx, fasthttp.StatusUnsupportedMediaType,
		"Unsupported Content-Type: this endpoint requires a request body with Content-Type application/json.")
}

// TooLargeText is the 413 body. A chunked body (contentLength < 0) has no declared size, so the
// text says it exceeded the limit while arriving, as upstream's limiter words it.
func TooLargeText(limit, contentLength int) string {
	msg := "Request body too large to be processed. The maximum size is " + strconv.Itoa(limit) + " bytes; your request body was "
	if contentLength > 0 {
		return msg + strconv.Itoa(contentLength) + " bytes."
	}
	return msg + "split into chunks, whose total size is unknown, but exceeded the limit."
}

// AnswerUnreadable answers a request fasthttp could not read (a server's ErrorHandler): 413 for
// a body over maxBody, with the text upstream's size limiter sends (chainweb-api.md §1.1); 431
// for a request line and headers over ReadBufferSize; 408 for a read that timed out; 400 for
// the rest. The caller resets the response and sets its own headers first.
func AnswerUnreadable(ctx *fasthttp.RequestCtx, err error, maxBody int) {
	var netErr net.Error
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		WriteText(ctx, fasthttp.StatusRequestEntityTooLarge, TooLargeText(maxBody, ctx.Request.Header.ContentLength()))
	case errors.As(err, &small):
		WriteText(ctx, fasthttp.StatusRequestHeaderFieldsTooLarge,
			"Request line and headers too large to be processed. The maximum size is "+strconv.Itoa(ReadBufferSize)+" bytes.")
	case errors.As(err, &netErr) && netErr.Timeout():
		WriteText(ctx, fasthttp.StatusRequestTimeout, "Request timed out.")
	default:
		WriteText(ctx, fasthttp.StatusBadRequest, "Malformed HTTP request: "+err.Error())
	}
}

// AppendJSONString appends s as a JSON string literal. Invalid UTF-8 becomes U+FFFD so the body
// stays valid JSON whatever a client sent us to echo back.
func AppendJSONString(dst []byte, s string) []byte {
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

// Logger routes fasthttp's own messages (mostly connection-level errors of clients) to slog at
// debug level: they are noise in normal operation.
type Logger struct{ L *slog.Logger }

// Printf logs one of fasthttp's messages.
func (f Logger) Printf(format string, args ...any) {
	f.L.Debug(fmt.Sprintf(format, args...), "component", "fasthttp")
}
