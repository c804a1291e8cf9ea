package contracthttp

import (
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The server's route table: a handful of literal paths, each with one method. Paths are read as
// the node's router reads them (httpkit.SplitPath: each segment percent-decoded on its own, a
// trailing slash ignored), and misses are answered with its reasons, so a client sees the same
// 404s and 405s from `pact -s` as from a node.

// route is one path (its decoded segments) and method; GET routes answer HEAD too.
type route struct {
	method string
	segs   []string
	h      func(ctx *fasthttp.RequestCtx, chain ledger.ChainID)
}

func (r *route) matches(segs [][]byte) bool {
	if len(segs) != len(r.segs) {
		return false
	}
	for i, s := range segs {
		if string(s) != r.segs[i] {
			return false
		}
	}
	return true
}

func (r *route) allows(method []byte) bool {
	m := string(method)
	return m == r.method || (r.method == fasthttp.MethodGet && m == fasthttp.MethodHead)
}

// route serves a request, or answers 405 (with Allow) or 404 with the reason.
func (s *ContractServer) route(ctx *fasthttp.RequestCtx) {
	method, path := ctx.Method(), ctx.URI().PathOriginal()
	var buf [httpkit.MaxSegments][]byte
	if segs, ok := httpkit.SplitPath(path, &buf); ok {
		for i := range s.routes {
			if rt := &s.routes[i]; rt.matches(segs) && rt.allows(method) {
				rt.h(ctx, 0)
				return
			}
		}
	}
	if allowed := s.allowedMethods(path); len(allowed) > 0 {
		allow := strings.Join(allowed, ", ")
		ctx.Response.Header.Set(fasthttp.HeaderAllow, allow)
		httpkit.WriteText(ctx, fasthttp.StatusMethodNotAllowed,
			"method "+httpkit.Echo(method)+" is not allowed on "+httpkit.Echo(path)+"; allowed: "+allow)
		return
	}
	httpkit.WriteText(ctx, fasthttp.StatusNotFound, s.notFound(method, path))
}

// allowedMethods lists the methods of the routes at path, for 405's Allow header and for CORS
// preflights.
func (s *ContractServer) allowedMethods(path []byte) []string {
	var buf [httpkit.MaxSegments][]byte
	segs, ok := httpkit.SplitPath(path, &buf)
	if !ok {
		return nil
	}
	var methods []string
	for i := range s.routes {
		if rt := &s.routes[i]; rt.matches(segs) {
			methods = append(methods, rt.method)
			if rt.method == fasthttp.MethodGet {
				methods = append(methods, fasthttp.MethodHead)
			}
		}
	}
	return methods
}

// notFound is the 404's reason for a path no route has.
func (s *ContractServer) notFound(method, path []byte) string {
	why := "no route for " + string(method) + " " + httpkit.Echo(path)
	var buf [httpkit.MaxSegments][]byte
	segs, ok := httpkit.SplitPath(path, &buf)
	switch {
	case !ok:
		return why + httpkit.SplitProblem(path)
	case len(segs) > 0 && string(segs[0]) == "chainweb":
		return why + ": this server has no /chainweb routes"
	}
	return why
}
