package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The transfers of an account (the explorer's account history), read from each chain's index
// of transfers (chain/transfers.go), which is kept with the Pact state and so rewound with
// forks:
//
//	GET /chainweb/0.0/{network}/account/{account}/transfers?limit=N&next=CURSOR
//
//	{"items":[{"chain":0,"height":12,"blockHash":"…","requestKey":"…","module":"coin",
//	  "from":"a","to":"b","amount":"1.5","crossChain":{"targetChain":"3","pactId":"…"} or
//	  {"sourceChain":"0","pactId":"…"} (the credit that completed one) or null}, …],
//	 "limit":N,"next":"CURSOR" or null}
//
// Items are newest first across all chains (height descending, then chain ascending, then
// newest first within a block); limit is the number of items returned, next the cursor of the
// next page (null on the last one). A cursor lists, for each chain that has more, how many of
// the account's transfers on it are left: "0:12,3:5". A fork between two pages may shift a
// page's boundary on the chains it rewound; the items are always those of the current heads.
// A request reads at most (limit+1) entries of each chain.

// TransferIndex reads the index of transfers of each chain (actors.Runtime.AccountTransfers).
type TransferIndex interface {
	AccountTransfers(c ledger.ChainID, account string, below uint64, n int) ([]actors.Transfer, error)
}

// Limits of the transfers endpoint.
const (
	maxTransfersLimit = 100 // a larger limit is clamped, a missing one means this
)

// transfersCursor is the position on each chain that has more: the count of the account's
// transfers on it not yet listed. A chain it does not name has none left.
type transfersCursor map[ledger.ChainID]uint64

// parseTransfersCursor parses "c:n,c:n,…" for the chains of v: each chain once, n >= 1.
func parseTransfersCursor(v *ledger.Version, b []byte) (transfersCursor, error) {
	if len(b) == 0 {
		return nil, errors.New("empty cursor")
	}
	if len(b) > 32*len(v.Chains())+16 {
		return nil, errors.New("cursor too long")
	}
	cur := transfersCursor{}
	for part := range bytes.SplitSeq(b, []byte(",")) {
		i := bytes.IndexByte(part, ':')
		if i < 0 {
			return nil, errors.New("missing ':' in cursor item " + strconv.Quote(string(part)))
		}
		c, ok := parseChainSegment(part[:i])
		if !ok || !v.HasChain(c) {
			return nil, errors.New("no chain " + strconv.Quote(string(part[:i])) + " in cursor item " + strconv.Quote(string(part)))
		}
		n, ok, _ := httpkit.ParseUint(part[i+1:])
		if !ok || n == 0 || (len(part) > i+2 && part[i+1] == '0') {
			return nil, errors.New("bad count in cursor item " + strconv.Quote(string(part)))
		}
		if _, dup := cur[c]; dup {
			return nil, errors.New("chain " + strconv.FormatUint(uint64(c), 10) + " twice in cursor")
		}
		cur[c] = n
	}
	return cur, nil
}

// appendText appends the cursor's wire form, chains in ascending order.
func (c transfersCursor) appendText(dst []byte) []byte {
	cs := make([]ledger.ChainID, 0, len(c))
	for ch := range c {
		cs = append(cs, ch)
	}
	slices.Sort(cs)
	for i, ch := range cs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendUint(dst, uint64(ch), 10)
		dst = append(dst, ':')
		dst = strconv.AppendUint(dst, c[ch], 10)
	}
	return dst
}

// checkAccount says what is wrong with an account name, "" when nothing is.
func checkAccount(a string) string {
	switch {
	case len(a) == 0:
		return "empty account name"
	case len(a) > actors.MaxAccountLen:
		return "account name longer than " + strconv.Itoa(actors.MaxAccountLen) + " bytes"
	case !utf8.ValidString(a):
		return "account name is not UTF-8"
	}
	for _, r := range a {
		if unicode.IsControl(r) {
			return "account name holds a control character"
		}
	}
	return ""
}

// transfersQuery is the parsed query of a transfers request.
type transfersQuery struct {
	limit  int
	cursor transfersCursor // nil: from the newest on every chain
}

// parseTransfersQuery reads limit and next, in that order.
func parseTransfersQuery(v *ledger.Version, args *fasthttp.Args) (transfersQuery, *httpkit.ParamError) {
	q := transfersQuery{limit: maxTransfersLimit}
	if b := args.Peek("limit"); b != nil {
		n, ok, overflow := httpkit.ParseUint(b)
		switch {
		case overflow:
		case !ok:
			return q, &httpkit.ParamError{Name: "limit", Reason: httpkit.UintReason(b, false)}
		case n < maxTransfersLimit:
			q.limit = int(n)
		}
	}
	if b := args.Peek("next"); b != nil {
		c, err := parseTransfersCursor(v, b)
		if err != nil {
			return q, &httpkit.ParamError{Name: "next", Reason: err.Error()}
		}
		q.cursor = c
	}
	return q, nil
}

type transferItem struct {
	Chain      ledger.ChainID `json:"chain"`
	Height     uint64         `json:"height"`
	BlockHash  string         `json:"blockHash"`
	RequestKey string         `json:"requestKey"`
	Module     string         `json:"module"`
	From       string         `json:"from"`
	To         string         `json:"to"`
	Amount     string         `json:"amount"`
	CrossChain *crossChain    `json:"crossChain"`
}

// crossChain is one end of a cross-chain transfer: the first step names its target chain, the
// credit that completed it its source chain; the pact id finds the other end (the target
// chain's continuations of it, continuations.go; the source chain's transaction of that
// request key). The pact id is "" in entries indexed before the index kept it.
type crossChain struct {
	TargetChain string `json:"targetChain,omitempty"`
	SourceChain string `json:"sourceChain,omitempty"`
	PactID      string `json:"pactId,omitempty"`
}

type transfersPage struct {
	Items []transferItem `json:"items"`
	Limit int            `json:"limit"`
	Next  *string        `json:"next"`
}

// transfersPageOf reads one page of account's transfers from idx.
func transfersPageOf(v *ledger.Version, idx TransferIndex, account string, q transfersQuery) (transfersPage, error) {
	type src struct {
		c  ledger.ChainID
		ts []actors.Transfer
		i  int
	}
	var srcs []*src
	for _, c := range v.Chains() {
		below := uint64(math.MaxUint64)
		if q.cursor != nil {
			n, ok := q.cursor[c]
			if !ok {
				continue
			}
			below = n
		}
		ts, err := idx.AccountTransfers(c, account, below, q.limit+1)
		if err != nil {
			return transfersPage{}, err
		}
		if len(ts) > 0 {
			srcs = append(srcs, &src{c: c, ts: ts})
		}
	}
	page := transfersPage{Items: []transferItem{}}
	for len(page.Items) < q.limit {
		var best *src
		for _, s := range srcs {
			if s.i == len(s.ts) {
				continue
			}
			if best == nil || s.ts[s.i].Height > best.ts[best.i].Height {
				best = s // srcs are in chain order: a tie keeps the lower chain
			}
		}
		if best == nil {
			break
		}
		t := best.ts[best.i]
		best.i++
		item := transferItem{Chain: best.c, Height: t.Height, BlockHash: t.BlockHash, RequestKey: t.RequestKey,
			Module: t.Module, From: t.From, To: t.To, Amount: t.Amount}
		if t.TargetChain != "" || t.SourceChain != "" {
			item.CrossChain = &crossChain{TargetChain: t.TargetChain, SourceChain: t.SourceChain, PactID: t.PactID}
		}
		page.Items = append(page.Items, item)
	}
	page.Limit = len(page.Items)
	next := transfersCursor{}
	for _, s := range srcs {
		if s.i < len(s.ts) {
			next[s.c] = s.ts[s.i].Index + 1
		}
	}
	if len(next) > 0 {
		n := string(next.appendText(nil))
		page.Next = &n
	}
	return page, nil
}

func (s *Service) getTransfers(ctx *fasthttp.RequestCtx, p params) {
	if why := checkAccount(p.text); why != "" {
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "Error parsing path parameter account failed: "+why)
		return
	}
	account := p.text
	q, perr := parseTransfersQuery(s.cfg.Version, ctx.QueryArgs())
	if perr != nil {
		perr.Write(ctx)
		return
	}
	page, err := transfersPageOf(s.cfg.Version, s.cfg.Transfers, account, q)
	if err != nil {
		s.internalError(ctx, err)
		return
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
