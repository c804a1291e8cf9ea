package transport

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/metrics/hist"
)

// RequestStats counts a server's requests by route class and status, with a latency histogram
// per class, for the metrics (ServiceConfig.Requests). A route class is a registered route (its
// method and pattern: "GET chain/{chain}/header/{blockHash}"), so the label set is bounded
// whatever clients ask; requests no route took count as "unmatched", CORS preflights as
// "preflight", requests fasthttp could not read (413 and friends) as "refused". Counting is an
// atomic add per request and one clock read (fasthttp read the start time already); nothing is
// built until Snapshot.
type RequestStats struct {
	mu      sync.Mutex
	classes []*routeClass
	byKey   map[string]*routeClass
}

// NewRequestStats makes an empty RequestStats; several services may share one (the classes
// carry their API's name).
func NewRequestStats() *RequestStats { return &RequestStats{byKey: map[string]*routeClass{}} }

// statusCodes are the statuses counted on their own; any other counts as StatusOther.
var statusCodes = [...]int{200, 204, 400, 401, 403, 404, 405, 406, 408, 413, 415, 429, 431, 500, 503, 504}

// StatusOther is the Status of RouteCounts for responses whose status has no counter of its own.
const StatusOther = 0

// statusSlot returns the counter index of status code c.
func statusSlot(c int) int {
	for i, s := range statusCodes {
		if s == c {
			return i
		}
	}
	return len(statusCodes)
}

type routeClass struct {
	api, method, route string
	status             [len(statusCodes) + 1]atomic.Uint64
	latency            hist.Histogram
}

// class returns the class of a route of api, made on first use.
func (rs *RequestStats) class(api, method, route string) *routeClass {
	key := api + " " + method + " " + route
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if c, ok := rs.byKey[key]; ok {
		return c
	}
	c := &routeClass{api: api, method: method, route: route}
	rs.byKey[key] = c
	rs.classes = append(rs.classes, c)
	return c
}

// count records a finished request of class c.
func (c *routeClass) count(ctx *fasthttp.RequestCtx) {
	c.status[statusSlot(ctx.Response.StatusCode())].Add(1)
	c.latency.Observe(time.Since(ctx.Time()))
}

// countStatus records a request without its latency: fasthttp sets the start time only for
// requests it could read.
func (c *routeClass) countStatus(ctx *fasthttp.RequestCtx) {
	c.status[statusSlot(ctx.Response.StatusCode())].Add(1)
}

// StatusCount is how many requests of a class got one status (StatusOther: any status without
// a counter of its own).
type StatusCount struct {
	Status int
	Count  uint64
}

// RouteCounts are one route class's figures.
type RouteCounts struct {
	API, Method, Route string // Method is "" for the "unmatched" and "refused" classes
	Statuses           []StatusCount
	Latency            hist.Snapshot // seconds from the request read to the handler's return ("refused": none)
}

// Snapshot returns every class's figures; statuses no request got are left out.
func (rs *RequestStats) Snapshot() []RouteCounts {
	rs.mu.Lock()
	classes := rs.classes
	rs.mu.Unlock()
	out := make([]RouteCounts, 0, len(classes))
	for _, c := range classes {
		rc := RouteCounts{API: c.api, Method: c.method, Route: c.route, Latency: c.latency.Snapshot()}
		for i := range c.status {
			if n := c.status[i].Load(); n > 0 {
				code := StatusOther
				if i < len(statusCodes) {
					code = statusCodes[i]
				}
				rc.Statuses = append(rc.Statuses, StatusCount{code, n})
			}
		}
		out = append(out, rc)
	}
	return out
}

// attachRequestStats gives every registered route of s its class, and s its classes for
// requests no route takes. Called once the routes are registered.
func (s *Service) attachRequestStats(api string, rs *RequestStats) {
	for _, table := range [][]route{s.router.rooted, s.router.api} {
		for i := range table {
			rt := &table[i]
			rt.stats = rs.class(api, rt.method, rt.pattern)
		}
	}
	s.unmatched = rs.class(api, "", "unmatched")
	s.preflights = rs.class(api, fasthttp.MethodOptions, "preflight")
	s.refused = rs.class(api, "", "refused")
}
