package transport

import (
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/explorer"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The explorer page (package explorer) on the service API, when ServiceConfig.Explorer is set:
//
//	GET /                         the page (index.html)
//	GET /explorer/app.js, …/style.css
//	GET /explorer/status          explorer.Status as JSON: mining mode, mempools, peers
//	GET /explorer/block/{hash}    {"chain":c,"height":h} of a block this node has, or null:
//	                              the search box finds a block by hash without asking all 20
//	                              chains (and without 19 404s in the browser's console)
//
// The files are in the binary; nothing runs unless a browser asks.

// serveExplorerFile serves an embedded file of the page.
func serveExplorerFile(name string) handlerFunc {
	body, ct, ok := explorer.File(name)
	if !ok {
		panic("transport: the explorer has no file " + name)
	}
	return func(ctx *fasthttp.RequestCtx, _ params) {
		ctx.SetStatusCode(fasthttp.StatusOK)
		ctx.Response.Header.SetContentType(ct)
		// The page is part of the binary: a new binary may bring a new page, so browsers
		// revalidate rather than keep an old one.
		ctx.Response.Header.Set("Cache-Control", "no-cache")
		ctx.Response.SetBody(body)
	}
}

func (s *Service) explorerStatus(ctx *fasthttp.RequestCtx, _ params) {
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, s.cfg.Explorer().JSON())
}

func (s *Service) explorerBlock(ctx *fasthttp.RequestCtx, p params) {
	h, err := s.db.Header(p.hash)
	switch {
	case isNotFound(err):
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, []byte("null"))
	case err != nil:
		s.internalError(ctx, err)
	default:
		b := append([]byte(`{"chain":`), strconv.FormatUint(uint64(h.ChainID), 10)...)
		b = append(b, `,"height":`...)
		b = strconv.AppendUint(b, h.Height, 10)
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, append(b, '}'))
	}
}
