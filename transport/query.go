package transport

import (
	"strconv"

	"github.com/valyala/fasthttp"
)

// paramError is a query parameter that does not parse; it becomes servant's 400
// "Error parsing query parameter NAME failed: REASON".
type paramError struct {
	name, reason string
}

func (e *paramError) Error() string {
	return "Error parsing query parameter " + e.name + " failed: " + e.reason
}

func (e *paramError) write(ctx *fasthttp.RequestCtx) { badQueryParam(ctx, e.name, e.reason) }

// parseUint parses a non-negative decimal integer without allocating. overflow is set (with
// ok false) for a well-formed number above 2^64-1, so callers that clamp can accept it.
func parseUint(b []byte) (v uint64, ok, overflow bool) {
	if len(b) == 0 {
		return 0, false, false
	}
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false, false
		}
		n := v*10 + uint64(d-'0')
		if v > (1<<64-1)/10 || n < v*10 {
			overflow = true
		}
		v = n
	}
	if overflow {
		return 0, false, true
	}
	return v, true, false
}

// uintReason explains why a value is not a non-negative integer.
func uintReason(b []byte, overflow bool) string {
	if overflow {
		return "number out of range: " + strconv.Quote(string(b))
	}
	return "not a non-negative integer: " + strconv.Quote(string(b))
}

// optUint reads an optional non-negative integer parameter.
func optUint(args *fasthttp.Args, name string) (v uint64, present bool, err *paramError) {
	b := args.Peek(name)
	if b == nil {
		return 0, false, nil
	}
	v, ok, overflow := parseUint(b)
	if !ok {
		return 0, true, &paramError{name, uintReason(b, overflow)}
	}
	return v, true, nil
}

// listQuery holds the paging parameters of a list endpoint (interface.md "Paging").
type listQuery struct {
	limit     int // clamped to the endpoint's maximum
	cursor    cursor
	hasCursor bool
	minHeight uint64
	maxHeight uint64
	hasMax    bool
}

// parseListQuery reads limit, next, minheight and maxheight. A limit above maxLimit (or too
// large to represent) is clamped silently, as upstream does; a missing limit means maxLimit.
// Parameters are checked in a fixed order so a request with several bad ones always gets the
// same answer; unknown parameters are ignored, as servant ignores them.
func parseListQuery(args *fasthttp.Args, maxLimit int) (listQuery, *paramError) {
	q := listQuery{limit: maxLimit}
	if b := args.Peek("limit"); b != nil {
		v, ok, overflow := parseUint(b)
		switch {
		case overflow:
			// A limit too large to represent is still a valid "as many as you can".
		case !ok:
			return q, &paramError{"limit", uintReason(b, false)}
		case v < uint64(maxLimit):
			q.limit = int(v)
		}
	}
	if b := args.Peek("next"); b != nil {
		c, err := parseCursor(b)
		if err != nil {
			return q, &paramError{"next", err.Error()}
		}
		q.cursor, q.hasCursor = c, true
	}
	var err *paramError
	if q.minHeight, _, err = optUint(args, "minheight"); err != nil {
		return q, err
	}
	if q.maxHeight, q.hasMax, err = optUint(args, "maxheight"); err != nil {
		return q, err
	}
	return q, nil
}
