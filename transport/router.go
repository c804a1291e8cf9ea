package transport

import (
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// apiVersion is the API version path segment (upstream's `type Version = "0.0"`).
const apiVersion = "0.0"

// params are the parsed path captures of a matched route.
type params struct {
	chain ledger.ChainID // {chain}
	hash  ledger.Hash    // the route's {…Hash} capture, if any
	id    uint64         // the route's {…Id} capture, if any
	text  string         // the route's {account} capture (path-decoded), if any
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
	segText            // any non-empty segment (an account name); the handler checks it
)

type segment struct {
	kind segKind
	text string // the literal, or the capture's name
}

type route struct {
	method  string // GET routes answer HEAD too
	pattern string // as registered, e.g. "cut/peer" (the peer API's throttle classes use it)
	segs    []segment
	h       handlerFunc
	// stats counts the route's requests (requests.go); nil when nobody counts.
	stats *routeClass
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
	// hot is the route fastLookup matches (fastpath.go), nil when none; hotPrefix is the
	// table's path prefix, /chainweb/0.0/{network}/; hotChains[c] says whether chain c exists.
	hot       *route
	hotPrefix []byte
	hotChains []bool
}

func newRouter(v *ledger.Version) *router { return &router{version: v} }

// handle registers a route. A pattern starting with "/" is rooted ("/" alone is the root path);
// any other pattern lives under /chainweb/0.0/{network}/. Captures are written {chain}, {nameHash} (any name ending in
// "Hash", e.g. {blockHash}, {payloadHash}) and {nameId} (any name ending in "Id", e.g.
// {backupId}).
func (r *router) handle(method, pattern string, h handlerFunc) {
	rt := route{method: method, pattern: pattern, h: h}
	rooted := strings.HasPrefix(pattern, "/")
	var segs []string // "/" alone is the root: no segments
	if pattern != "/" {
		segs = strings.Split(strings.Trim(pattern, "/"), "/")
	}
	for _, s := range segs {
		switch {
		case s == "{chain}":
			rt.segs = append(rt.segs, segment{kind: segChain, text: "chain"})
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "Hash}"):
			rt.segs = append(rt.segs, segment{kind: segHash, text: s[1 : len(s)-1]})
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "Id}"):
			rt.segs = append(rt.segs, segment{kind: segID, text: s[1 : len(s)-1]})
		case s == "{account}":
			rt.segs = append(rt.segs, segment{kind: segText, text: "account"})
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

// miss says why a request reached no handler.
type miss struct {
	badCapture  string // first capture parse error, as a 400 text
	wrongMethod bool   // some route has this path, with another method
	notFound    string // why nothing matched: the 404 text
}

// table picks the route table for a path and returns the segments relative to it. For a path
// under /chainweb that names another API version or network (servant: 404), ok is false and
// why says what is wrong.
func (r *router) table(segs [][]byte) (t []route, rest [][]byte, why string, ok bool) {
	if len(segs) > 0 && string(segs[0]) == "chainweb" {
		// Only a failure builds the text: matching costs no allocation.
		if len(r.api) > 0 && len(segs) >= 3 && string(segs[1]) == apiVersion && string(segs[2]) == r.version.Name {
			return r.api, segs[3:], "", true
		}
		prefix := "/chainweb/" + apiVersion + "/" + r.version.Name + "/"
		switch {
		case len(r.api) == 0:
			return nil, nil, "this server has no /chainweb routes", false
		case len(segs) < 2 || len(segs) < 3 && string(segs[1]) == apiVersion:
			return nil, nil, "the API's paths start with " + prefix, false
		case string(segs[1]) != apiVersion:
			return nil, nil, "unknown API version " + httpkit.Echo(segs[1]) + ": this node serves " + prefix, false
		case string(segs[2]) != r.version.Name:
			return nil, nil, "unknown network " + httpkit.Echo(segs[2]) + ": this node serves " + r.version.Name +
				" (" + prefix + ")", false
		}
	}
	return r.rooted, segs, "", true
}

// lookup finds the route for a request; path is the raw path (URI().PathOriginal()). On
// success it returns the route with its captures. On failure it returns what went wrong, for
// dispatch to answer in servant's priority order, with a reason for each answer.
func (r *router) lookup(method, path []byte, p *params) (*route, miss) {
	var m miss
	var buf [httpkit.MaxSegments][]byte
	segs, ok := httpkit.SplitPath(path, &buf)
	if !ok {
		m.notFound = "no route for " + string(method) + " " + httpkit.Echo(path) + httpkit.SplitProblem(path)
		return nil, m
	}
	table, rest, why, ok := r.table(segs)
	if !ok {
		m.notFound = "no route for " + string(method) + " " + httpkit.Echo(path) + ": " + why
		return nil, m
	}
	near := -1 // a segment that alone kept some route from matching
	var nearSeg *segment
	for i := range table {
		rt := &table[i]
		capErr, j, matched := r.matchSegs(rt.segs, rest, p)
		if !matched {
			if j >= 0 && nearSeg == nil {
				near, nearSeg = j, &rt.segs[j]
			}
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
	if m.badCapture == "" && !m.wrongMethod {
		m.notFound = "no route for " + string(method) + " " + httpkit.Echo(path)
		if nearSeg != nil {
			m.notFound = r.captureMiss(nearSeg, rest[near])
		}
	}
	return nil, m
}

// captureMiss says why a {chain} or {…Id} segment matched no route.
func (r *router) captureMiss(s *segment, b []byte) string {
	if s.kind == segID {
		return "no " + s.text + " " + httpkit.Echo(b) + ": ids are decimal numbers without leading zeros"
	}
	have := "this network has chains " + describeChains(r.version.Chains())
	digits := len(b) > 0
	for _, c := range b {
		digits = digits && '0' <= c && c <= '9'
	}
	switch {
	case !digits:
		return "chain " + httpkit.Echo(b) + " is not a chain id: " + have
	case len(b) > 1 && b[0] == '0':
		return "chain " + httpkit.Echo(b) + " is not a chain id (no leading zeros): " + have
	}
	return "unknown chain " + httpkit.Echo(b) + ": " + have
}

// describeChains writes a chain list, as a range when it has no gaps ("0–19").
func describeChains(cs []ledger.ChainID) string {
	if len(cs) == 0 {
		return "none"
	}
	contiguous := true
	for i := 1; i < len(cs); i++ {
		contiguous = contiguous && cs[i] == cs[i-1]+1
	}
	if contiguous && len(cs) > 1 {
		return strconv.Itoa(int(cs[0])) + "–" + strconv.Itoa(int(cs[len(cs)-1]))
	}
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(int(c)))
	}
	return b.String()
}

// matchSegs matches a route's segments against the path. matched is false when a literal or
// a {chain} or {…Id} capture does not fit; when only one such capture keeps the route from
// matching, near is its index (for the 404's reason), else -1. capErr is set when everything
// fits but a hash capture is malformed. Error texts are only built once the whole path has
// matched: probing routes that do not fit costs no allocation.
func (r *router) matchSegs(pattern []segment, rest [][]byte, p *params) (capErr string, near int, matched bool) {
	near = -1
	if len(pattern) != len(rest) {
		return "", -1, false
	}
	bad := -1 // first malformed hash capture
	for j := range pattern {
		s := &pattern[j]
		switch s.kind {
		case segLiteral:
			if string(rest[j]) != s.text {
				return "", -1, false
			}
		case segChain:
			c, ok := parseChainSegment(rest[j])
			if !ok || !r.version.HasChain(c) {
				if near >= 0 {
					return "", -1, false
				}
				near = j
				continue
			}
			p.chain = c
		case segID:
			n, ok := parseIDSegment(rest[j])
			if !ok {
				if near >= 0 {
					return "", -1, false
				}
				near = j
				continue
			}
			p.id = n
		case segText:
			if len(rest[j]) == 0 {
				return "", -1, false
			}
			p.text = string(rest[j])
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
	if near >= 0 {
		return "", near, false
	}
	if bad >= 0 {
		_, err := ledger.ParseHashBytes(rest[bad])
		return "Error parsing path parameter " + pattern[bad].text + " failed: " + err.Error(), -1, true
	}
	return "", -1, true
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
	var buf [httpkit.MaxSegments][]byte
	segs, ok := httpkit.SplitPath(path, &buf)
	if !ok {
		return nil
	}
	table, rest, _, ok := r.table(segs)
	if !ok {
		return nil
	}
	var methods []string
	var p params
	for i := range table {
		if capErr, _, matched := r.matchSegs(table[i].segs, rest, &p); matched && capErr == "" {
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
