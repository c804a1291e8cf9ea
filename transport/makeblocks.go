package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors/mining"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// POST /make-blocks, on-demand mining's one request (chainweb-mining-and-config.md §2.4): the
// body maps decimal chain ids to block counts, {"0":1,"3":2}, added to what is outstanding.
// The answer comes at once, 200 with the body [] (the mining client's encoding of unit, as
// text/plain); the blocks follow. Upstream checks no Content-Type, so curl -d works.
//
// The service API serves it at its root (where devnet's proxy put it), and a node can serve it
// alone on a second port, as chainweb-mining-client's on-demand worker did (MakeBlocksHandler).

// MakeBlocksFunc asks for blocks (mining.Miner.MakeBlocks).
type MakeBlocksFunc func(map[ledger.ChainID]uint64) error

var bodyUnit = []byte("[]")

// makeBlocks serves POST /make-blocks with ask.
func makeBlocks(ctx *fasthttp.RequestCtx, ask MakeBlocksFunc) {
	blocks, err := ParseMakeBlocks(ctx.PostBody())
	if err != nil {
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "invalid request body: "+err.Error())
		return
	}
	var asked *mining.BlocksAskedError
	switch err := ask(blocks); {
	case err == nil:
		ctx.SetStatusCode(fasthttp.StatusOK)
		ctx.Response.Header.SetContentType("text/plain")
		ctx.Response.SetBody(bodyUnit)
	case errors.Is(err, mining.ErrNotOnDemand):
		httpkit.WriteText(ctx, fasthttp.StatusNotFound, err.Error())
	case errors.As(err, &asked):
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "invalid request body: "+asked.Msg)
	default: // the node is stopping
		httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, "cannot ask for blocks: "+err.Error())
	}
}

// ParseMakeBlocks decodes a make-blocks body: a JSON object whose keys are decimal chain ids and
// whose values are non-negative integers. {} asks for nothing (devnet's readiness probe). The
// chains are checked against the network by the miner, not here (it ignores those the network
// does not have, with a warning).
func ParseMakeBlocks(body []byte) (map[ledger.ChainID]uint64, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]json.Number
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf(`want a JSON object of chain ids and block counts, like {"0":1,"3":2}: %v`, err)
	}
	if raw == nil {
		return nil, errors.New(`want a JSON object of chain ids and block counts, like {"0":1,"3":2}, not null`)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	out := make(map[ledger.ChainID]uint64, len(raw))
	for k, v := range raw {
		c, err := strconv.ParseUint(k, 10, 32)
		if err != nil || k != strconv.FormatUint(c, 10) {
			return nil, fmt.Errorf("%q is not a chain id (a decimal number)", k)
		}
		n, err := strconv.ParseUint(v.String(), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("chain %d: %s is not a block count (a non-negative integer)", c, v)
		}
		out[ledger.ChainID(c)] = n
	}
	return out, nil
}

// MakeBlocksHandler serves POST /make-blocks alone, as the mining client's on-demand worker
// did: any other path is a 404 with its text, another method a 405.
func MakeBlocksHandler(ask MakeBlocksFunc) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if string(ctx.Path()) != "/make-blocks" {
			httpkit.WriteText(ctx, fasthttp.StatusNotFound, "The on-demand worker's only endpoint is /make-block")
			return
		}
		switch string(ctx.Method()) {
		case fasthttp.MethodPost:
			makeBlocks(ctx, ask)
		case fasthttp.MethodOptions:
			ctx.Response.Header.Set("Allow", "POST")
			httpkit.WriteEmpty(ctx, fasthttp.StatusNoContent)
		default:
			ctx.Response.Header.Set("Allow", "POST")
			httpkit.WriteText(ctx, fasthttp.StatusMethodNotAllowed, "make-blocks takes POST")
		}
	}
}
