package transport

import (
	"github.com/valyala/fasthttp"
)

// getHeader serves GET …/chain/{c}/header/{blockHash} in the encoding the Accept header picks:
// a base64url JSON string, the object encoding (service API only), or raw binary
// (chainweb-api.md §4.2).
//
// This is the hottest read of the API (bench/headerserve), so it allocates nothing here: the
// header is read into a pooled buffer and its encoding is appended straight into the response
// body. The router matches it on a fast path (fastpath.go).
func (s *Service) getHeader(ctx *fasthttp.RequestCtx, p params) {
	offers := offersHeaderByHash
	if !s.objectHeaders {
		offers = offersPeerHeaderByHash
	}
	enc, ok := acceptEncoding(ctx, offers)
	if !ok {
		return
	}
	buf := getBuf()
	defer putBuf(buf, *buf)
	if enc == encJSONObject {
		// The object form is built from the decoded header, which the store caches.
		h, err := headerOnChain(s.db, p.chain, p.hash)
		if err != nil {
			s.lookupFailed(ctx, p.hash, err)
			return
		}
		ctx.SetStatusCode(fasthttp.StatusOK)
		ctx.Response.Header.SetContentTypeBytes(ctJSONObject)
		ctx.Response.SetBody(h.AppendObjectJSON((*buf)[:0]))
		return
	}
	bin, err := s.db.HeaderBinary((*buf)[:0], p.hash)
	if err != nil {
		s.lookupFailed(ctx, p.hash, err)
		return
	}
	if c, ok := binaryChainID(bin); !ok || c != p.chain {
		keyNotFound(ctx, p.hash.String())
		return
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.Response.Header.SetContentTypeBytes(contentTypeOf(enc))
	if enc == encOctet {
		ctx.Response.SetBody(bin)
		return
	}
	// Encode straight into the response's own body buffer (taken out and put back), instead of
	// encoding into ours and having SetBody copy it over.
	body := ctx.Response.SwapBody(nil)
	ctx.Response.SwapBody(appendHeaderB64(body[:0], bin))
}
