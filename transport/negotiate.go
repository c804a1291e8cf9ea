package transport

import (
	"bytes"

	"github.com/ledgernode/ledger-node/transport/httpkit"
	"github.com/valyala/fasthttp"
)

// encoding is a response encoding an endpoint can offer.
type encoding uint8

const (
	encJSON       encoding = iota // application/json; headers as base64url strings
	encJSONObject                 // application/json;blockheader-encoding=object
	encOctet                      // application/octet-stream; headers as raw binary
)

// Offer lists, best first: the first is what a request without Accept (or with */*) gets
// (chainweb-api.md §4.2).
var (
	offersJSON         = []encoding{encJSON}
	offersHeaderList   = []encoding{encJSON, encJSONObject}
	offersHeaderByHash = []encoding{encJSON, encJSONObject, encOctet}
	// The peer API has no object encoding of headers.
	offersPeerHeaderByHash = []encoding{encJSON, encOctet}
)

// negotiate picks the encoding for an Accept header, following http-media as servant uses it:
// a media range matches an offer when type and subtype match (or are wildcards) and every
// parameter of the range is a parameter of the offer, so "application/json" matches both JSON
// offers while "application/json;blockheader-encoding=object" matches only the object one. Each
// offer takes the quality of the most specific range that matches it; the highest quality wins
// and ties go to the earlier offer. "charset" is ignored (all our JSON is UTF-8) and "q" is the
// quality. Unparsable ranges are skipped. ok is false when nothing acceptable is offered (406).
// It does not allocate.
func negotiate(accept []byte, offers []encoding) (encoding, bool) {
	if len(bytes.TrimSpace(accept)) == 0 {
		return offers[0], true
	}
	var best encoding
	bestQ := 0
	for _, o := range offers {
		q := offerQuality(accept, o)
		if q > bestQ {
			best, bestQ = o, q
		}
	}
	return best, bestQ > 0
}

// offerQuality returns the quality (0..1000) the Accept header gives to offer o.
func offerQuality(accept []byte, o encoding) int {
	q, spec := 0, -1
	for rest := accept; len(rest) > 0; {
		var r []byte
		if i := bytes.IndexByte(rest, ','); i >= 0 {
			r, rest = rest[:i], rest[i+1:]
		} else {
			r, rest = rest, nil
		}
		rq, rspec, ok := matchRange(r, o)
		if ok && rspec > spec {
			q, spec = rq, rspec
		}
	}
	return q
}

// matchRange matches one media range against offer o, returning the range's quality and its
// specificity (wildcards count less than a full type, parameters add to it).
func matchRange(r []byte, o encoding) (q, spec int, ok bool) {
	mt, params := httpkit.CutParam(r)
	slash := bytes.IndexByte(mt, '/')
	if slash <= 0 || slash == len(mt)-1 {
		return 0, 0, false
	}
	typ, sub := mt[:slash], mt[slash+1:]
	oTyp, oSub := "application", "json"
	if o == encOctet {
		oSub = "octet-stream"
	}
	switch {
	case string(typ) == "*":
		if string(sub) != "*" {
			return 0, 0, false
		}
	case !bytes.EqualFold(typ, []byte(oTyp)):
		return 0, 0, false
	case string(sub) == "*":
		spec = 1
	case !bytes.EqualFold(sub, []byte(oSub)):
		return 0, 0, false
	default:
		spec = 2
	}
	q = 1000
	for len(params) > 0 {
		var p []byte
		p, params = httpkit.CutParam(params)
		k, v, _ := bytes.Cut(p, []byte("="))
		k = bytes.TrimSpace(k)
		v = bytes.Trim(bytes.TrimSpace(v), `"`)
		switch {
		case len(k) == 0:
		case bytes.EqualFold(k, []byte("q")):
			pq, valid := parseQuality(v)
			if !valid {
				return 0, 0, false
			}
			q = pq
		case bytes.EqualFold(k, []byte("charset")):
		case o == encJSONObject && bytes.EqualFold(k, []byte("blockheader-encoding")) && bytes.EqualFold(v, []byte("object")):
			spec++
		default:
			return 0, 0, false // a parameter the offer does not have
		}
	}
	return q, spec, true
}

// parseQuality parses an RFC 9110 qvalue ("0", "0.5", "1.000") into thousandths.
func parseQuality(b []byte) (int, bool) {
	if len(b) == 0 || (b[0] != '0' && b[0] != '1') {
		return 0, false
	}
	q := int(b[0]-'0') * 1000
	if len(b) == 1 {
		return q, true
	}
	if b[1] != '.' || len(b) > 5 {
		return 0, false
	}
	scale := 100
	for _, d := range b[2:] {
		if d < '0' || d > '9' {
			return 0, false
		}
		q += int(d-'0') * scale
		scale /= 10
	}
	return q, q <= 1000
}

// acceptEncoding negotiates for the request; false means a 406 was sent.
func acceptEncoding(ctx *fasthttp.RequestCtx, offers []encoding) (encoding, bool) {
	e, ok := negotiate(ctx.Request.Header.Peek(fasthttp.HeaderAccept), offers)
	if !ok {
		notAcceptable(ctx, offers)
	}
	return e, ok
}

// contentTypeOf is the response Content-Type of an encoding.
func contentTypeOf(e encoding) []byte {
	switch e {
	case encJSONObject:
		return ctJSONObject
	case encOctet:
		return ctOctet
	}
	return httpkit.ContentTypeJSON
}
