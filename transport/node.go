package transport

import (
	"fmt"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// healthCheck serves GET /health-check (chainweb-api.md §8.1).
func (s *Service) healthCheck(ctx *fasthttp.RequestCtx, _ params) {
	httpkit.WriteText(ctx, fasthttp.StatusOK, "Health check OK.\n")
}

// getCut serves GET …/cut[?maxheight=N] on the service and the peer API: the node's current
// cut, or with maxheight the cut upstream's cutGetHandler gives (chainweb-api.md §8.3). N is a
// cut height (the sum of the chains' block heights); each chain is limited to block height
// ⌊N / chains⌋, chains counted in the graph in force at cut height N, and a chain above it is
// replaced by its ancestor at that height (limitedCut). So the answer is the current cut's best
// ancestor cut at or below about N, not a cut of height exactly N.
func (s *Service) getCut(ctx *fasthttp.RequestCtx, _ params) {
	if _, ok := acceptEncoding(ctx, offersJSON); !ok {
		return
	}
	maxHeight, hasMax, perr := httpkit.OptUint(ctx.QueryArgs(), "maxheight")
	if perr != nil {
		perr.Write(ctx)
		return
	}
	c := s.cfg.Cut()
	if c == nil {
		// Only possible before the node has assembled its first cut.
		httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, "The node has no cut yet.")
		return
	}
	if hasMax {
		var err error
		if c, err = limitedCut(s.db, c, maxHeight); err != nil {
			s.internalError(ctx, err)
			return
		}
	}
	buf := getBuf()
	out := c.AppendJSON((*buf)[:0])
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, out)
	putBuf(buf, out)
}

// blockHeightAtCutHeight is upstream's ⌊avgBlockHeightAtCutHeight⌋: cut height h divided by
// the number of chains of the graph in force at h. A graph that starts at block height b with
// k chains starts at cut height b·k (chainGraphsByCutHeight).
func blockHeightAtCutHeight(v *ledger.Version, h uint64) uint64 {
	chains := v.Graphs[len(v.Graphs)-1].Graph.Order()
	for _, e := range v.Graphs { // newest first
		if n := uint64(e.Graph.Order()); e.Height <= h/n {
			chains = int(n)
			break
		}
	}
	return h / uint64(chains)
}

// limitedCut is upstream's limitCut over the store: every chain of c above the block height
// that cut height maxHeight allows is replaced by its ancestor at that height; a chain whose
// genesis lies above it is dropped, and so is a chain that the graph at the lowest remaining
// block height does not have (projectChains). The ancestors come from store reads, walking
// parents by hash, never from an actor. c is returned as it is when no chain is above.
func limitedCut(db chainDB, c *ledger.Cut, maxHeight uint64) (*ledger.Cut, error) {
	bh := blockHeightAtCutHeight(c.Version, maxHeight)
	above := false
	for _, e := range c.Entries {
		above = above || e.Height > bh
	}
	if !above {
		return c, nil
	}
	heads := make([]*ledger.Header, 0, len(c.Entries))
	for _, e := range c.Entries {
		h, err := db.Header(e.Hash)
		if err != nil {
			return nil, fmt.Errorf("cut entry of chain %d: %w", e.Chain, err)
		}
		if h.Height > bh {
			if h, err = ancestorAtHeight(db, h, bh); err != nil {
				return nil, err
			}
			if h == nil {
				continue // the chain's genesis is above bh: no ancestor there
			}
		}
		heads = append(heads, h)
	}
	if len(heads) == 0 {
		return ledger.NewCut(c.Version, nil), nil // no chain has a block that low
	}
	low := heads[0].Height
	for _, h := range heads {
		low = min(low, h.Height)
	}
	g := c.Version.GraphAt(low)
	kept := heads[:0]
	for _, h := range heads {
		if g.Has(h.ChainID) {
			kept = append(kept, h)
		}
	}
	return ledger.NewCut(c.Version, kept), nil
}

// ancestorAtHeight finds h's ancestor at height bh (< h.Height), nil when the chain has no
// block there. Most heights hold one stored block, which must then be the ancestor (a stored
// block's ancestors are all stored), so one index read usually answers; a height with forks
// is settled by walking parents from h.
func ancestorAtHeight(db chainDB, h *ledger.Header, bh uint64) (*ledger.Header, error) {
	var only *ledger.Header
	n := 0
	err := db.ScanChain(h.ChainID, store.Position{Height: bh}, func(x *ledger.Header) bool {
		if x.Height != bh {
			return false
		}
		only = x
		n++
		return n < 2
	})
	if err != nil {
		return nil, err
	}
	switch n {
	case 0:
		return nil, nil
	case 1:
		return only, nil
	}
	return ancestorAt(db, h, bh)
}

// getInfo serves GET /info (interface.md "Node information", chainweb-api.md §8.2).
func (s *Service) getInfo(ctx *fasthttp.RequestCtx, _ params) {
	if _, ok := acceptEncoding(ctx, offersJSON); !ok {
		return
	}
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, s.info[s.currentGraph()])
}

// currentGraph is the chain graph in force at the current cut's highest block, which decides
// nodeChains (a syncing mainnet node below the 20-chain transition reports 10 chains).
func (s *Service) currentGraph() *ledger.Graph {
	if s.cfg.Cut == nil {
		return s.cfg.Version.LatestGraph()
	}
	c := s.cfg.Cut()
	if c == nil {
		return s.cfg.Version.GraphAt(0)
	}
	var top uint64
	for _, e := range c.Entries {
		top = max(top, e.Height)
	}
	return s.cfg.Version.GraphAt(top)
}

// infoJSON builds the /info object, keys in alphabetical order as upstream's generic encoding
// emits them. Chain lists follow upstream's hash-map order (clients should treat them as sets,
// but byte-level comparison with a real node is worth having). nodeServiceDate is kept although
// upstream 2.32 dropped it: the interface requires it, as a string or null (DECISIONS.md).
func (s *Service) infoJSON(current *ledger.Graph) []byte {
	v := s.cfg.Version
	chains := ledger.InHashMapOrder(current.Chains())
	b := make([]byte, 0, 4096)
	b = append(b, `{"nodeApiVersion":"`+apiVersion+`","nodeBlockDelay":`...)
	b = strconv.AppendInt(b, v.BlockDelay, 10)
	b = append(b, `,"nodeChains":[`...)
	for i, c := range chains {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendUint(b, uint64(c), 10)
		b = append(b, '"')
	}
	b = append(b, `],"nodeGenesisHeights":[`...)
	for i, c := range ledger.InHashMapOrder(v.Chains()) {
		if i > 0 {
			b = append(b, ',')
		}
		gh, _ := v.GenesisHeight(c)
		b = append(b, `["`...)
		b = strconv.AppendUint(b, uint64(c), 10)
		b = append(b, `",`...)
		b = strconv.AppendUint(b, gh, 10)
		b = append(b, ']')
	}
	history := appendGraphHistory(nil, v)
	b = append(b, `],"nodeGraphHistory":`...)
	b = append(b, history...)
	b = append(b, `,"nodeHistoricalChains":`...)
	b = append(b, history...)
	b = append(b, `,"nodeLatestBehaviorHeight":`...)
	b = strconv.AppendUint(b, v.LatestBehaviorHeight, 10)
	b = append(b, `,"nodeNumberOfChains":`...)
	b = strconv.AppendInt(b, int64(len(chains)), 10)
	b = append(b, `,"nodePackageVersion":`...)
	b = httpkit.AppendJSONString(b, s.cfg.PackageVersion)
	b = append(b, `,"nodeServiceDate":`...)
	if s.cfg.ServiceDate == "" {
		b = append(b, "null"...)
	} else {
		b = httpkit.AppendJSONString(b, s.cfg.ServiceDate)
	}
	b = append(b, `,"nodeVersion":`...)
	b = httpkit.AppendJSONString(b, v.Name)
	return append(b, '}')
}

// appendGraphHistory appends [[height, [[chain, [adjacent...]]...]]...], newest graph first,
// chains and their neighbours in upstream's hash-map order.
func appendGraphHistory(b []byte, v *ledger.Version) []byte {
	b = append(b, '[')
	for i, e := range v.Graphs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendUint(b, e.Height, 10)
		b = append(b, ",["...)
		for j, c := range ledger.InHashMapOrder(e.Graph.Chains()) {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendUint(b, uint64(c), 10)
			b = append(b, ",["...)
			for k, n := range ledger.InHashMapOrder(e.Graph.Neighbors(c)) {
				if k > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendUint(b, uint64(n), 10)
			}
			b = append(b, "]]"...)
		}
		b = append(b, "]]"...)
	}
	return append(b, ']')
}
