package transport

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/store"
)

// serve is the service's request handler: common headers first, then a panic guard, CORS
// preflights, and routing.
func (s *Service) serve(ctx *fasthttp.RequestCtx) {
	s.headers.set(ctx)
	defer s.recoverPanic(ctx)
	if ctx.IsOptions() {
		s.preflight(ctx)
		return
	}
	if s.throttle != nil && !s.throttle.allow(ctx) {
		ctx.Response.Header.Set("Retry-After", "1")
		writeText(ctx, fasthttp.StatusTooManyRequests, "Too many requests: this peer limits the request rate per client address.")
		return
	}
	var p params
	rt, m := s.router.lookup(ctx.Method(), ctx.Path(), &p)
	if rt != nil {
		rt.h(ctx, p)
		return
	}
	switch {
	case m.badCapture != "":
		writeText(ctx, fasthttp.StatusBadRequest, m.badCapture)
	case m.wrongMethod:
		ms := s.router.allowedMethods(ctx.Path())
		ctx.Response.Header.Set(fasthttp.HeaderAllow, strings.Join(ms, ", "))
		writeEmpty(ctx, fasthttp.StatusMethodNotAllowed)
	default:
		writeEmpty(ctx, fasthttp.StatusNotFound)
	}
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
// Damaged stored data (store.ErrCorrupt) is no bug of the node's: it answers 503 saying so and
// what to do, and is neither logged here nor counted, since the store logs the first damage it
// meets and marks itself for repair at the next start (store, integrity.go).
func (s *Service) internalError(ctx *fasthttp.RequestCtx, err error) {
	if errors.Is(err, store.ErrCorrupt) {
		ctx.Response.Reset()
		s.headers.set(ctx)
		ctx.Response.Header.Set("Retry-After", "3600")
		writeText(ctx, fasthttp.StatusServiceUnavailable, "The node's data directory is damaged where this request reads; "+
			"the node repairs it when restarted (or stop it and run `ledger-node check` and `ledger-node repair`).")
		return
	}
	s.internalErrors.Add(1)
	s.log.Error("HTTP handler failed", "method", string(ctx.Method()), "uri", string(ctx.RequestURI()), "err", err)
	s.somethingWentWrong(ctx)
}

func (s *Service) somethingWentWrong(ctx *fasthttp.RequestCtx) {
	ctx.Response.Reset()
	s.headers.set(ctx)
	writeText(ctx, fasthttp.StatusInternalServerError, "Something went wrong")
}

// preflight answers CORS OPTIONS requests for any existing path, as wai-cors does in front of
// upstream's service API. Only CORS-safelisted request headers plus Content-Type are allowed,
// which is what browsers need for JSON POSTs.
func (s *Service) preflight(ctx *fasthttp.RequestCtx) {
	ms := s.router.allowedMethods(ctx.Path())
	if len(ms) == 0 {
		writeEmpty(ctx, fasthttp.StatusNotFound)
		return
	}
	ms = append(ms, fasthttp.MethodOptions)
	h := &ctx.Response.Header
	allow := strings.Join(ms, ", ")
	h.Set(fasthttp.HeaderAllow, allow)
	h.Set(fasthttp.HeaderAccessControlAllowMethods, allow)
	h.Set(fasthttp.HeaderAccessControlAllowHeaders, "Accept, Accept-Language, Content-Language, Content-Type")
	h.Set(fasthttp.HeaderAccessControlMaxAge, "86400")
	writeEmpty(ctx, fasthttp.StatusNoContent)
}
