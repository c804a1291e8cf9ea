package transport

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/ledgernode/ledger-node/transport/httpkit"
	"github.com/valyala/fasthttp"
)

// serve is the service's request handler: common headers first, then a panic guard, CORS
// preflights, and routing; then, when the requests are counted, the count.
func (s *Service) serve(ctx *fasthttp.RequestCtx) {
	c := s.dispatch(ctx)
	if c != nil {
		c.count(ctx)
	}
}

// dispatch answers a request and returns the class it counts in (nil when nobody counts).
func (s *Service) dispatch(ctx *fasthttp.RequestCtx) (c *routeClass) {
	s.headers.setRequest(ctx)
	defer s.recoverPanic(ctx)
	if ctx.IsOptions() {
		s.preflight(ctx)
		return s.preflights
	}
	var p params
	var m miss
	path := ctx.URI().PathOriginal() // fasthttp parsed the URI before calling the handler
	rt := s.router.fastLookup(ctx.Method(), path, &p)
	if rt == nil {
		rt, m = s.router.lookup(ctx.Method(), path, &p)
	}
	// The throttle classes come from the matched route, so no spelling of a path (a trailing
	// slash, a percent-encoded letter) escapes its class.
	if s.throttle != nil && !s.throttle.allow(ctx, rt) {
		ctx.Response.Header.Set("Retry-After", "1")
		httpkit.WriteText(ctx, fasthttp.StatusTooManyRequests, "Too many requests: this peer limits the request rate per client address.")
		if rt != nil {
			return rt.stats
		}
		return s.unmatched
	}
	if rt != nil {
		// Set before the handler runs: after a panic, recoverPanic has answered 500 and the
		// request counts in its route's class.
		c = rt.stats
		rt.h(ctx, p)
		return c
	}
	s.router.answerMiss(ctx, m)
	return s.unmatched
}

// recoverPanic turns a panic into a logged 500. fasthttp does no recovery of its own, so without
// this one bad handler would take the whole node down. A 5xx always means a bug here: bad input
// gets a 4xx before it can reach code that could panic, and the tests check that the counter
// behind this stays at zero.
func (s *Service) recoverPanic(ctx *fasthttp.RequestCtx) {
	r := recover()
	if r == nil {
		return
	}
	s.internalErrors.Add(1)
	s.log.Error("panic in HTTP handler", "method", string(ctx.Method()), "uri", string(ctx.RequestURI()),
		"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	s.somethingWentWrong(ctx)
}

// internalError answers a store failure that is not "not found": the request was fine, the node
// is not. Logged, counted and reported as Warp reports escaped exceptions.
//
// Damaged data on disk is no bug of the node's: it answers 503 saying so and what to do
// (damaged.go), and is not counted as an internal error.
func (s *Service) internalError(ctx *fasthttp.RequestCtx, err error) {
	if text, ok := damagedText(err, s.log); ok {
		ctx.Response.Reset()
		s.headers.set(ctx)
		writeDamaged(ctx, text)
		return
	}
	s.internalErrors.Add(1)
	s.log.Error("HTTP handler failed", "method", string(ctx.Method()), "uri", string(ctx.RequestURI()), "err", err)
	s.somethingWentWrong(ctx)
}

func (s *Service) somethingWentWrong(ctx *fasthttp.RequestCtx) {
	ctx.Response.Reset()
	s.headers.set(ctx)
	httpkit.WriteText(ctx, fasthttp.StatusInternalServerError, "Something went wrong")
}

// answerMiss answers a request no route took, in servant's priority order (400 for a malformed
// capture, then 405, then 404), each with a text/plain reason: servant's routing failures have
// empty bodies, which leave clients with an empty error message (issue 19).
func (r *router) answerMiss(ctx *fasthttp.RequestCtx, m miss) {
	switch {
	case m.badCapture != "":
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, m.badCapture)
	case m.wrongMethod:
		path := ctx.URI().PathOriginal()
		allow := strings.Join(r.allowedMethods(path), ", ")
		ctx.Response.Header.Set(fasthttp.HeaderAllow, allow)
		httpkit.WriteText(ctx, fasthttp.StatusMethodNotAllowed,
			"method "+httpkit.Echo(ctx.Method())+" is not allowed on "+httpkit.Echo(path)+"; allowed: "+allow)
	default:
		httpkit.WriteText(ctx, fasthttp.StatusNotFound, m.notFound)
	}
}

// preflightMiss answers a CORS preflight for a path no route has.
func (r *router) preflightMiss(ctx *fasthttp.RequestCtx) {
	var p params
	_, m := r.lookup(ctx.Method(), ctx.URI().PathOriginal(), &p)
	why := m.notFound
	if why == "" {
		why = m.badCapture
	}
	if why == "" {
		why = "no route for " + httpkit.Echo(ctx.URI().PathOriginal())
	}
	httpkit.WriteText(ctx, fasthttp.StatusNotFound, why)
}

// preflight answers CORS OPTIONS requests for any existing path, as wai-cors does in front of
// upstream's service API. Only CORS-safelisted request headers plus Content-Type are allowed,
// which is what browsers need for JSON POSTs.
func (s *Service) preflight(ctx *fasthttp.RequestCtx) {
	ms := s.router.allowedMethods(ctx.URI().PathOriginal())
	if len(ms) == 0 {
		s.router.preflightMiss(ctx)
		return
	}
	ms = append(ms, fasthttp.MethodOptions)
	h := &ctx.Response.Header
	allow := strings.Join(ms, ", ")
	h.Set(fasthttp.HeaderAllow, allow)
	h.Set(fasthttp.HeaderAccessControlAllowMethods, allow)
	h.Set(fasthttp.HeaderAccessControlAllowHeaders, "Accept, Accept-Language, Content-Language, Content-Type")
	h.Set(fasthttp.HeaderAccessControlMaxAge, "86400")
	httpkit.WriteEmpty(ctx, fasthttp.StatusNoContent)
}
