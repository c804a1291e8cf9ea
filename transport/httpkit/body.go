package httpkit

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// RequireJSONBody checks that a POST declares a JSON body; false means a 415 was sent. Servant
// demands the header (a missing one counts as application/octet-stream); parameters such as
// charset are allowed.
func RequireJSONBody(ctx *fasthttp.RequestCtx) bool {
	mt, _ := CutParam(ctx.Request.Header.ContentType())
	if !bytes.EqualFold(mt, []byte("application/json")) {
		UnsupportedMediaType(ctx)
		return false
	}
	return true
}

// CutParam splits a media type or range "a;b;c" into the trimmed "a" and the rest "b;c".
func CutParam(b []byte) (head, rest []byte) {
	if i := bytes.IndexByte(b, ';'); i >= 0 {
		return bytes.TrimSpace(b[:i]), b[i+1:]
	}
	return bytes.TrimSpace(b), nil
}
