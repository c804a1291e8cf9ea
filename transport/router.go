package transport

import (
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
)

// apiVersion is the API version path segment (upstream's `type Version = "0.0"`).
const apiVersion = "0.0"

// params are the parsed path captures of a matched route.
type params struct {
	chain ledger.ChainID // {chain}
	hash  ledger.Hash    // the route's {…Hash} capture, if any
	id    uint64         // the route's {…Id} capture, if any
}

// handlerFunc serves one route. Captures arrive parsed: a handler never sees a chain outside the
// version or a malformed hash.
type handlerFunc func(ctx *fasthttp.RequestCtx, p params)

type segKind uint8

const (
	segLiteral segKind = iota
	segChain           // decimal chain id that exists in the version
	segHash            // 43-character base64url hash; the name is used in error messages
	segID              // canonical decimal uint64 (a backup id); anything else does not match: 404
)

type segment struct {
	kind segKind
	text string // the literal, or the capture's name
}

type route struct {
	method string // GET routes answer HEAD too
	segs   []segment
	h      handlerFunc
}

func (r *route) allows(method []byte) bool {
	m := string(method)
	return m == r.method || (r.method == fasthttp.MethodGet && m == fasthttp.MethodHead)
}

// router is a small route table. Routes are tried in registration order, so a literal segment
// registered before a capture at the same position wins (POST …/header/branch before
// GET …/header/{blockHash}). A table per API lets the peer API reuse the matcher with its own
// routes and limits.
//
// Failures follow servant's priorities (chainweb-api.md §1.4): a malformed capture (400) beats a
// wrong method (405), which beats no match (404). So GET …/header/branch is a 400, because
// "branch" is tried as a block hash.
type router struct {
	version *ledger.Version
	rooted  []route // matched against the whole path: /info, /health-check
	api     []route // matched after /chainweb/0.0/{network}/
}

func newRouter(v *ledger.Version) *router { return &router{version: v} }

// handle registers a route. A pattern starting with "/" is rooted; any other pattern lives under
// /chainweb/0.0/{network}/. Captures are written {chain}, {nameHash} (any name ending in
// "Hash", e.g. {blockHash}, {payloadHash}) and {nameId} (any name ending in "Id", e.g.
// {backupId}).
func (r *router) handle(method, pattern string, h handlerFunc) {
	rt := route{method: method, h: h}
	rooted := strings.HasPrefix(pattern, "/")
	for _, s := range strings.Split(strings.Trim(pattern, "/"), "/") {
		switch {
		case s == "{chain}":
			rt.segs = append(rt.segs, segment{kind: segChain, text: "chain"})
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "Hash}"):
			rt.segs = append(rt.segs, segment{kind: segHash, text: s[1 : len(s)-1]})
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "Id}"):
			rt.segs = append(rt.segs, segment{kind: segID, text: s[1 : len(s)-1]})
		case strings.ContainsAny(s, "{}") || s == "":
			panic("transport: bad route pattern " + pattern)
		default:
			rt.segs = append(rt.segs, segment{kind: segLiteral, text: s})
		}
	}
	if rooted {
		r.rooted = append(r.rooted, rt)
	} else {
		r.api = append(r.api, rt)
	}
}

// maxSegments bounds the path depth the router looks at; deeper paths match nothing. The
// deepest planned route is /chainweb/0.0/{v}/chain/{c}/contract/api/v1/<op> (8 segments).
const maxSegments = 12

// splitPath splits a path into its segments without allocating. A single trailing slash is
// ignored, as servant ignores an empty last path piece. ok is false for a path deeper than
// maxSegments or with an empty segment.
func splitPath(path []byte, out *[maxSegments][]byte) (segs [][]byte, ok bool) {
	if len(path) == 0 || path[0] != '/' {
		return nil, false
	}
	path = path[1:]
	if n := len(path); n > 0 && path[n-1] == '/' {
		path = path[:n-1]
	}
	n := 0
	for len(path) > 0 {
		if n == maxSegments {
			return nil, false
		}
		i := 0
		for i < len(path) && path[i] != '/' {
			i++
		}
		if i == 0 {
			return nil, false
		}
		out[n] = path[:i]
		n++
		if i == len(path) {
			break
		}
		path = path[i+1:]
	}
	return out[:n], true
}

// miss says why a request reached no handler.
type miss struct {
	badCapture  string // first capture parse error, as a 400 text
	wrongMethod bool   // some route has this path, with another method
}

// table picks the route table for a path and returns the segments relative to it; ok is false
// for a path under /chainweb that names another API version or network (servant: 404).
func (r *router) table(segs [][]byte) ([]route, [][]byte, bool) {
	if len(segs) > 0 && string(segs[0]) == "chainweb" {
		if len(segs) < 3 || string(segs[1]) != apiVersion || string(segs[2]) != r.version.Name {
			return nil, nil, false
		}
		return r.api, segs[3:], true
	}
	return r.rooted, segs, true
}

// lookup finds the route for a request. On success it returns the route with its captures. On
// failure it returns what went wrong, for dispatch to answer in servant's priority order.
func (r *router) lookup(method, path []byte, p *params) (*route, miss) {
	var m miss
	var buf [maxSegments][]byte
	segs, ok := splitPath(path, &buf)
	if !ok {
		return nil, m
	}
	table, rest, ok := r.table(segs)
	if !ok {
		return nil, m
	}
	for i := range table {
		rt := &table[i]
		capErr, matched := r.matchSegs(rt.segs, rest, p)
		if !matched {
			continue
		}
		if capErr != "" {
			if m.badCapture == "" {
				m.badCapture = capErr
			}
			continue
		}
		if !rt.allows(method) {
			m.wrongMethod = true
			continue
		}
		return rt, m
	}
	return nil, m
}

// matchSegs matches a route's segments against the path. matched is false when a literal or
// the chain does not fit; capErr is set when everything fits but a hash capture is malformed.
// The error text is only built once the whole path has matched: probing routes that do not
// fit costs no allocation.
func (r *router) matchSegs(pattern []segment, rest [][]byte, p *params) (capErr string, matched bool) {
	if len(pattern) != len(rest) {
		return "", false
	}
	bad := -1 // first malformed hash capture
	for j := range pattern {
		s := &pattern[j]
		switch s.kind {
		case segLiteral:
			if string(rest[j]) != s.text {
				return "", false
			}
		case segChain:
			c, ok := parseChainSegment(rest[j])
			if !ok || !r.version.HasChain(c) {
				return "", false
			}
			p.chain = c
		case segID:
			n, ok := parseIDSegment(rest[j])
			if !ok {
				return "", false
			}
			p.id = n
		case segHash:
			h, err := ledger.ParseHashBytes(rest[j])
			if err != nil {
				if bad < 0 {
					bad = j
				}
				continue
			}
			p.hash = h
		}
	}
	if bad >= 0 {
		_, err := ledger.ParseHashBytes(rest[bad])
		return "Error parsing path parameter " + pattern[bad].text + " failed: " + err.Error(), true
	}
	return "", true
}

// parseChainSegment parses a decimal chain id. Leading zeros are refused, as the chain segment
// is a literal per chain upstream ("05" is not chain 5).
func parseChainSegment(b []byte) (ledger.ChainID, bool) {
	if len(b) == 0 || len(b) > 9 || (len(b) > 1 && b[0] == '0') {
		return 0, false
	}
	var c uint32
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false
		}
		c = c*10 + uint32(d-'0')
	}
	return ledger.ChainID(c), true
}

// parseIDSegment parses a canonical decimal uint64: no sign, no leading zero, no overflow. One
// number has one spelling, so an id capture names exactly one thing.
func parseIDSegment(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 || (len(b) > 1 && b[0] == '0') {
		return 0, false
	}
	var n uint64
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false
		}
		x := n*10 + uint64(d-'0')
		if n > (1<<64-1)/10 || x < n*10 {
			return 0, false
		}
		n = x
	}
	return n, true
}

// allowedMethods lists the methods of every route whose path matches with valid captures, for
// 405's Allow header and for CORS preflights.
func (r *router) allowedMethods(path []byte) []string {
	var buf [maxSegments][]byte
	segs, ok := splitPath(path, &buf)
	if !ok {
		return nil
	}
	table, rest, ok := r.table(segs)
	if !ok {
		return nil
	}
	var methods []string
	var p params
	for i := range table {
		if capErr, matched := r.matchSegs(table[i].segs, rest, &p); matched && capErr == "" {
			methods = appendMethod(methods, table[i].method)
		}
	}
	return methods
}

// appendMethod adds m (and HEAD after GET) to a method list without duplicates.
func appendMethod(ms []string, m string) []string {
	add := func(x string) {
		for _, y := range ms {
			if y == x {
				return
			}
		}
		ms = append(ms, x)
	}
	add(m)
	if m == fasthttp.MethodGet {
		add(fasthttp.MethodHead)
	}
	return ms
}
