package transport

import (
	"net"
	"testing"

	"github.com/ledgernode/ledger-node/transport/httpkit"
	"github.com/valyala/fasthttp"
)

// headerCtx prepares a request context for GET header/{hash} with the given Accept, for
// in-process measurements of the handler without a network in between.
func headerCtx(f *fixture, accept string) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.SetRequestURI("/chainweb/0.0/development/chain/0/header/" + f.named["m12"].Hash.String())
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}, nil)
	return &ctx
}

// TestHeaderByHashAllocations pins the hot path: GET header/{hash} with plain JSON allocates
// nothing in this package (the store serves the header from its cache, the body is appended
// into fasthttp's pooled buffer).
func TestHeaderByHashAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	f := newFixture(t)
	counted := newFixture(t, func(c *ServiceConfig) { c.Requests = NewRequestStats() })
	for _, h := range []fasthttp.RequestHandler{f.svc.Handler(), counted.svc.Handler()} { // counting allocates nothing either
		assertNoAllocations(t, f, h)
	}
}

func assertNoAllocations(t *testing.T, f *fixture, h fasthttp.RequestHandler) {
	for _, accept := range []string{"", "application/json", "application/octet-stream", "application/json;blockheader-encoding=object"} {
		ctx := headerCtx(f, accept)
		h(ctx) // warm the pools and the store's cache
		allocs := testing.AllocsPerRun(200, func() {
			ctx.Response.Reset()
			h(ctx)
		})
		if ctx.Response.StatusCode() != 200 {
			t.Fatalf("status %d", ctx.Response.StatusCode())
		}
		if allocs > 0 {
			t.Errorf("Accept %q: %.1f allocations per request", accept, allocs)
		}
	}
}

func benchHandler(b *testing.B, h fasthttp.RequestHandler, ctx *fasthttp.RequestCtx) {
	b.ReportAllocs()
	for b.Loop() {
		ctx.Response.Reset()
		h(ctx)
	}
}

func BenchmarkHeaderByHashJSON(b *testing.B) {
	f := newFixture(b)
	benchHandler(b, f.svc.Handler(), headerCtx(f, ""))
}

func BenchmarkHeaderByHashObject(b *testing.B) {
	f := newFixture(b)
	benchHandler(b, f.svc.Handler(), headerCtx(f, "application/json;blockheader-encoding=object"))
}

// BenchmarkConstantBody is the baseline of the performance target: a handler that answers the
// same bytes as BenchmarkHeaderByHashJSON with no work at all.
func BenchmarkConstantBody(b *testing.B) {
	f := newFixture(b)
	ctx := headerCtx(f, "")
	f.svc.Handler()(ctx)
	body := append([]byte(nil), ctx.Response.Body()...)
	benchHandler(b, func(ctx *fasthttp.RequestCtx) {
		ctx.Response.Header.SetContentTypeBytes(httpkit.ContentTypeJSON)
		ctx.Response.SetBody(body)
	}, ctx)
}

// BenchmarkHeaderByHashJSONCounted is BenchmarkHeaderByHashJSON with the requests counted for
// the metrics (ServiceConfig.Requests): the difference is what counting costs a request.
func BenchmarkHeaderByHashJSONCounted(b *testing.B) {
	f := newFixture(b, func(c *ServiceConfig) { c.Requests = NewRequestStats() })
	benchHandler(b, f.svc.Handler(), headerCtx(f, ""))
}
