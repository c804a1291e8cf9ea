package transport

import (
	"github.com/ledgernode/ledger-node/transport/httpkit"
	"github.com/valyala/fasthttp"
)

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
func parseListQuery(args *fasthttp.Args, maxLimit int) (listQuery, *httpkit.ParamError) {
	q := listQuery{limit: maxLimit}
	if b := args.Peek("limit"); b != nil {
		v, ok, overflow := httpkit.ParseUint(b)
		switch {
		case overflow:
			// A limit too large to represent is still a valid "as many as you can".
		case !ok:
			return q, &httpkit.ParamError{Name: "limit", Reason: httpkit.UintReason(b, false)}
		case v < uint64(maxLimit):
			q.limit = int(v)
		}
	}
	if b := args.Peek("next"); b != nil {
		c, err := parseCursor(b)
		if err != nil {
			return q, &httpkit.ParamError{Name: "next", Reason: err.Error()}
		}
		q.cursor, q.hasCursor = c, true
	}
	var err *httpkit.ParamError
	if q.minHeight, _, err = httpkit.OptUint(args, "minheight"); err != nil {
		return q, err
	}
	if q.maxHeight, q.hasMax, err = httpkit.OptUint(args, "maxheight"); err != nil {
		return q, err
	}
	return q, nil
}
