package transport

import (
	"errors"
	"net"
	"strconv"

	"github.com/valyala/fasthttp"
)

// requestError answers a request fasthttp could not read (it calls this instead of the handler).
// fasthttp's own answers would lack the common headers, which DECISIONS.md requires on 413 as on
// everything else; and the 413 text is the one upstream's size limiter sends (chainweb-api.md
// §1.1).
func (s *Service) requestError(ctx *fasthttp.RequestCtx, err error) {
	ctx.Response.Reset()
	s.headers.set(ctx)
	var netErr net.Error
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		writeText(ctx, fasthttp.StatusRequestEntityTooLarge, tooLargeText(s.cfg.MaxBodyBytes, ctx.Request.Header.ContentLength()))
	case errors.As(err, &small):
		writeText(ctx, fasthttp.StatusRequestHeaderFieldsTooLarge,
			"Request line and headers too large to be processed. The maximum size is "+strconv.Itoa(readBufferSize)+" bytes.")
	case errors.As(err, &netErr) && netErr.Timeout():
		writeText(ctx, fasthttp.StatusRequestTimeout, "Request timed out.")
	default:
		writeText(ctx, fasthttp.StatusBadRequest, "Malformed HTTP request: "+err.Error())
	}
	if s.refused != nil {
		s.refused.countStatus(ctx)
	}
}

// expectContinue answers "Expect: 100-continue" requests: a declared body over the limit is
// refused with the 413 straight away, instead of inviting the client to send megabytes that
// would then be refused.
func (s *Service) expectContinue(ctx *fasthttp.RequestCtx) int {
	if ctx.Request.Header.ContentLength() > s.cfg.MaxBodyBytes {
		s.requestError(ctx, fasthttp.ErrBodyTooLarge)
		return fasthttp.StatusRequestEntityTooLarge
	}
	return fasthttp.StatusContinue
}

// tooLargeText is the 413 body. A chunked body (contentLength < 0) has no declared size, so the
// text says it exceeded the limit while arriving, as upstream's limiter words it.
func tooLargeText(limit, contentLength int) string {
	msg := "Request body too large to be processed. The maximum size is " + strconv.Itoa(limit) + " bytes; your request body was "
	if contentLength > 0 {
		return msg + strconv.Itoa(contentLength) + " bytes."
	}
	return msg + "split into chunks, whose total size is unknown, but exceeded the limit."
}
