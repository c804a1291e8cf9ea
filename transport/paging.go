package transport

import (
	"strconv"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
)

// itemEncoder appends the page item for header h to dst. ok false means h is not an item of
// this list (a block whose payload is not stored yet) and is skipped without counting.
type itemEncoder func(dst []byte, h *ledger.Header) (out []byte, ok bool, err error)

// pager fills one page from a stream of headers in page order. The page holds up to limit
// items; the item after them becomes the `next` cursor (DECISIONS.md: next is
// "inclusive:<first item of the next page>", null when the page reaches the last item). With
// limit 0 the page is empty and next names the first matching item.
type pager struct {
	limit   int
	n       int
	items   []byte // encoded items, comma separated
	next    ledger.Hash
	hasNext bool
	encode  itemEncoder
	err     error
}

// add offers the next header of the stream; it returns false when the page is complete (or an
// error stopped it), so it can serve directly as a scan callback.
func (p *pager) add(h *ledger.Header) bool {
	mark := len(p.items)
	if p.n > 0 {
		p.items = append(p.items, ',')
	}
	out, ok, err := p.encode(p.items, h)
	if err != nil {
		p.err = err
		return false
	}
	if !ok {
		p.items = p.items[:mark]
		return true
	}
	if p.n == p.limit {
		// One past the page: only its hash is needed. Encoding it anyway is what tells a
		// skipped header from a real item.
		p.items = out[:mark]
		p.next, p.hasNext = h.Hash, true
		return false
	}
	p.items = out
	p.n++
	return true
}

// write sends the page: {"limit":N,"items":[...],"next":...}, the key order of upstream's page
// encoding, with limit the number of items returned (DECISIONS.md).
func (p *pager) write(ctx *fasthttp.RequestCtx, contentType []byte) {
	var head [48]byte
	h := append(head[:0], `{"limit":`...)
	h = strconv.AppendInt(h, int64(p.n), 10)
	h = append(h, `,"items":[`...)
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.Response.Header.SetContentTypeBytes(contentType)
	ctx.Response.ResetBody()
	ctx.Response.AppendBody(h)
	ctx.Response.AppendBody(p.items)
	var tail [96]byte
	t := append(tail[:0], `],"next":`...)
	if p.hasNext {
		t = append(t, '"')
		t = cursor{inclusive: true, hash: p.next}.appendText(t)
		t = append(t, '"')
	} else {
		t = append(t, "null"...)
	}
	t = append(t, '}')
	ctx.Response.AppendBody(t)
}

// Scratch buffers for page items and header encodings: a 360-header page is ~150 KB, and
// pooling keeps list requests from allocating it each time.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledBuf keeps one huge page from pinning its buffer in the pool forever.
const maxPooledBuf = 1 << 20

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte, grown []byte) {
	if cap(grown) > maxPooledBuf {
		return
	}
	*b = grown[:0]
	bufPool.Put(b)
}
