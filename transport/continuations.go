package transport

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The continuations of a pact on one chain, read from the chain's index of continuations by
// pact id (chain/continuations.go), which is kept with the Pact state and so rewound with
// forks. The explorer follows a cross-chain transfer with it: the transfer's pact id is its
// first step's request key, and the target chain lists the step that completed it.
//
//	GET /chainweb/0.0/{network}/chain/{chain}/pact/{pactIdHash}/continuations?limit=N&next=I
//
//	{"items":[{"height":12,"blockHash":"…","requestKey":"…","step":1,"rollback":false,
//	  "result":"success" or "failure"}, …],
//	 "limit":N,"next":"I" or null}
//
// Items are oldest first (block order); next is the index of the first item of the next page.
// A pact id that is not a base64url hash is a 400; one the chain has no continuation of is a
// 404 (the first page only: a next past the end is an empty page).

// ContinuationIndex reads the index of continuations of each chain
// (actors.Runtime.PactContinuations).
type ContinuationIndex interface {
	PactContinuations(c ledger.ChainID, pact api.Hash, from uint64, n int) ([]actors.Continuation, bool, error)
}

// maxContinuationsLimit bounds a page: a larger limit is clamped, a missing one means this.
const maxContinuationsLimit = 100

// continuationsQuery is the parsed query of a continuations request.
type continuationsQuery struct {
	limit int
	from  uint64
}

// parseContinuationsQuery reads limit and next, in that order.
func parseContinuationsQuery(args *fasthttp.Args) (continuationsQuery, *httpkit.ParamError) {
	q := continuationsQuery{limit: maxContinuationsLimit}
	if b := args.Peek("limit"); b != nil {
		n, ok, overflow := httpkit.ParseUint(b)
		switch {
		case overflow:
		case !ok:
			return q, &httpkit.ParamError{Name: "limit", Reason: httpkit.UintReason(b, false)}
		case n < maxContinuationsLimit:
			q.limit = int(n)
		}
	}
	if b := args.Peek("next"); b != nil {
		n, ok, overflow := httpkit.ParseUint(b)
		if !ok {
			return q, &httpkit.ParamError{Name: "next", Reason: httpkit.UintReason(b, overflow)}
		}
		if len(b) > 1 && b[0] == '0' {
			return q, &httpkit.ParamError{Name: "next", Reason: "leading zero in " + strconv.Quote(string(b))}
		}
		q.from = n
	}
	return q, nil
}

type continuationItem struct {
	Height     uint64 `json:"height"`
	BlockHash  string `json:"blockHash"`
	RequestKey string `json:"requestKey"`
	Step       int64  `json:"step"`
	Rollback   bool   `json:"rollback"`
	Result     string `json:"result"`
}

type continuationsPage struct {
	Items []continuationItem `json:"items"`
	Limit int                `json:"limit"`
	Next  *string            `json:"next"`
}

func (s *Service) getContinuations(ctx *fasthttp.RequestCtx, p params) {
	q, perr := parseContinuationsQuery(ctx.QueryArgs())
	if perr != nil {
		perr.Write(ctx)
		return
	}
	pact := api.Hash(p.hash)
	cs, more, err := s.cfg.Continuations.PactContinuations(p.chain, pact, q.from, q.limit)
	if err != nil {
		s.internalError(ctx, err)
		return
	}
	if len(cs) == 0 && q.from == 0 && q.limit > 0 {
		httpkit.WriteText(ctx, fasthttp.StatusNotFound, "no continuation of pact "+pact.String()+" on chain "+
			strconv.FormatUint(uint64(p.chain), 10))
		return
	}
	page := continuationsPage{Items: make([]continuationItem, len(cs)), Limit: len(cs)}
	for i, c := range cs {
		result := "failure"
		if c.OK {
			result = "success"
		}
		page.Items[i] = continuationItem{Height: c.Height, BlockHash: c.BlockHash, RequestKey: c.RequestKey,
			Step: c.Step, Rollback: c.Rollback, Result: result}
	}
	if more {
		next := strconv.FormatUint(cs[len(cs)-1].Index+1, 10)
		page.Next = &next
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(page); err != nil {
		s.internalError(ctx, err)
		return
	}
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
