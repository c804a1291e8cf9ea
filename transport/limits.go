package transport

import (
	"github.com/ledgernode/ledger-node/transport/httpkit"
	"github.com/valyala/fasthttp"
)

// requestError answers a request fasthttp could not read (it calls this instead of the handler).
// fasthttp's own answers would lack the common headers, which DECISIONS.md requires on 413 as on
// everything else; and the 413 text is the one upstream's size limiter sends (chainweb-api.md
// §1.1).
func (s *Service) requestError(ctx *fasthttp.RequestCtx, err error) {
	ctx.Response.Reset()
	s.headers.set(ctx)
	httpkit.AnswerUnreadable(ctx, err, s.cfg.MaxBodyBytes)
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
