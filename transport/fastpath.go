package transport

import (
	"bytes"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// hotPattern is the route the router matches on a fast path: GET …/chain/{c}/header/{hash},
// the API's hottest read (bench/headerserve).
//
// The general lookup splits and percent-decodes the path and tries the table's routes in order,
// parsing the {chain} of each until one fits: the fifth route, for this one. fastLookup compares
// the raw path against the one route instead. It answers only when the general lookup would pick
// the same route with the same captures, and otherwise returns nil for the general lookup to
// decide (and to word any failure): so the responses are the same bytes either way, which
// TestFastPathSameAnswers checks over the spellings that could tell them apart.
const hotPattern = "chain/{chain}/header/{blockHash}"

// pickHot makes the route registered under pattern the fast path's, if there is one and no route
// registered before it could take a request that it matches (the general lookup takes the first
// route that matches and allows the method). Call it once every route is registered: it keeps a
// pointer into the table.
func (r *router) pickHot(pattern string) {
	r.hot = nil
	for i := range r.api {
		rt := &r.api[i]
		if rt.pattern != pattern {
			continue
		}
		if !fastMatchable(rt.segs) {
			return
		}
		for j := range i {
			if mayShadow(&r.api[j], rt) {
				return
			}
		}
		r.hot = rt
		r.hotPrefix = []byte("/chainweb/" + apiVersion + "/" + r.version.Name + "/")
		// The version's chains as a table: HasChain walks the version's graphs.
		r.hotChains = nil
		for _, e := range r.version.Graphs {
			for _, c := range e.Graph.Chains() {
				for int(c) >= len(r.hotChains) {
					r.hotChains = append(r.hotChains, false)
				}
				r.hotChains[c] = true
			}
		}
		return
	}
}

// fastMatchable: fastLookup handles literals, {chain} and {…Hash} captures, and no more than
// httpkit.MaxSegments segments in all (the general lookup refuses deeper paths).
func fastMatchable(segs []segment) bool {
	if len(segs)+3 > httpkit.MaxSegments {
		return false
	}
	for _, s := range segs {
		if s.kind != segLiteral && s.kind != segChain && s.kind != segHash {
			return false
		}
	}
	return true
}

// mayShadow reports whether route e, registered before hot, could match a GET or HEAD request
// that hot matches. It errs towards yes: a capture of e may match anything.
func mayShadow(e, hot *route) bool {
	if !e.allows([]byte("GET")) && !e.allows([]byte("HEAD")) {
		return false
	}
	if len(e.segs) != len(hot.segs) {
		return false
	}
	for j := range e.segs {
		a, b := &e.segs[j], &hot.segs[j]
		if a.kind != segLiteral {
			continue
		}
		switch b.kind {
		case segLiteral:
			if a.text != b.text {
				return false
			}
		case segHash:
			if _, err := ledger.ParseHashBytes([]byte(a.text)); err != nil {
				return false
			}
		case segChain:
			if _, ok := parseChainSegment([]byte(a.text)); !ok {
				return false
			}
		}
	}
	return true
}

// fastLookup returns the hot route with its captures when the request is plainly for it: the
// raw path (as lookup takes it) is exactly /chainweb/0.0/{network}/ and the route's segments (no
// percent-encoding, no trailing slash), each capture parses, and the method is one the route
// allows. Otherwise it returns nil and the general lookup decides.
func (r *router) fastLookup(method, path []byte, p *params) *route {
	rt := r.hot
	if rt == nil || !rt.allows(method) || !bytes.HasPrefix(path, r.hotPrefix) {
		return nil
	}
	rest := path[len(r.hotPrefix):]
	for j := range rt.segs {
		s := &rt.segs[j]
		seg := rest
		if i := bytes.IndexByte(rest, '/'); i >= 0 {
			if j == len(rt.segs)-1 {
				return nil // more segments, or a trailing slash
			}
			seg, rest = rest[:i], rest[i+1:]
		} else if j < len(rt.segs)-1 {
			return nil
		} else {
			rest = nil
		}
		switch s.kind {
		case segLiteral:
			if string(seg) != s.text {
				return nil
			}
		case segChain:
			c, ok := parseChainSegment(seg)
			if !ok || int(c) >= len(r.hotChains) || !r.hotChains[c] {
				return nil
			}
			p.chain = c
		case segHash:
			// 43 base64url characters: no '%' can hide in a hash that parses.
			h, ok := parseHash(seg)
			if !ok {
				return nil
			}
			p.hash = h
		}
	}
	return rt
}
