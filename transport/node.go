package transport

import (
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
)

// healthCheck serves GET /health-check (chainweb-api.md §8.1).
func (s *Service) healthCheck(ctx *fasthttp.RequestCtx, _ params) {
	writeText(ctx, fasthttp.StatusOK, "Health check OK.\n")
}

// getCut serves GET …/cut: the node's current cut. The optional maxheight of upstream (a cut
// height to rewind to) is not supported yet; the parameter is ignored.
func (s *Service) getCut(ctx *fasthttp.RequestCtx, _ params) {
	if _, ok := acceptEncoding(ctx, offersJSON); !ok {
		return
	}
	c := s.cfg.Cut()
	if c == nil {
		// Only possible before the node has assembled its first cut.
		writeText(ctx, fasthttp.StatusServiceUnavailable, "The node has no cut yet.")
		return
	}
	buf := getBuf()
	out := c.AppendJSON((*buf)[:0])
	writeJSON(ctx, fasthttp.StatusOK, out)
	putBuf(buf, out)
}

// getInfo serves GET /info (interface.md "Node information", chainweb-api.md §8.2).
func (s *Service) getInfo(ctx *fasthttp.RequestCtx, _ params) {
	if _, ok := acceptEncoding(ctx, offersJSON); !ok {
		return
	}
	writeJSON(ctx, fasthttp.StatusOK, s.info[s.currentGraph()])
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
	b = appendJSONString(b, s.cfg.PackageVersion)
	b = append(b, `,"nodeServiceDate":`...)
	if s.cfg.ServiceDate == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, s.cfg.ServiceDate)
	}
	b = append(b, `,"nodeVersion":`...)
	b = appendJSONString(b, v.Name)
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
