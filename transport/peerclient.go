package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// PeerClient calls another node's peer API. Everything it returns was checked as far as it can
// be without the node's state: headers decode and their hashes match, payloads match their
// hashes. Whether they are valid blocks is the chain actors' and executors' business.
type PeerClient struct {
	addr    string // host:port
	base    string // http://host:port/chainweb/0.0/<network>
	version *ledger.Version
	client  *fasthttp.Client
	timeout time.Duration
}

// NewPeerClient makes a client of the peer API at addr ("host:port").
func NewPeerClient(addr string, v *ledger.Version, timeout time.Duration) *PeerClient {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return &PeerClient{addr: addr, base: "http://" + addr + "/chainweb/0.0/" + v.Name, version: v,
		client: &fasthttp.Client{NoDefaultUserAgentHeader: true, MaxResponseBodySize: 64 << 20}, timeout: timeout}
}

// Addr is the peer's address.
func (p *PeerClient) Addr() string { return p.addr }

// do sends a request and returns the body of a 2xx answer. A 429 (the peer's rate limit) is
// waited out and retried, with a growing pause, until ctx ends: a node catching up asks faster
// than a peer answers one client, and must pace itself rather than give up.
func (p *PeerClient) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	pause := 100 * time.Millisecond
	for {
		b, retry, err := p.once(ctx, method, path, body)
		if !retry {
			return b, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

func (p *PeerClient) once(ctx context.Context, method, path string, body []byte) ([]byte, bool, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(p.base + path)
	req.Header.SetMethod(method)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	timeout := p.timeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(d))
	}
	if timeout <= 0 {
		return nil, false, ctx.Err()
	}
	if err := p.client.DoTimeout(req, resp, timeout); err != nil {
		return nil, false, fmt.Errorf("peer %s: %s %s: %w", p.addr, method, path, err)
	}
	if code := resp.StatusCode(); code < 200 || code > 299 {
		err := fmt.Errorf("%w: peer %s: %s %s: %d %s", errPeer, p.addr, method, path, code, trimPeerText(resp.Body()))
		return nil, code == fasthttp.StatusTooManyRequests, err
	}
	return append([]byte(nil), resp.Body()...), false, nil
}

// Cut reads the peer's cut.
func (p *PeerClient) Cut(ctx context.Context) (*ledger.Cut, error) {
	b, err := p.do(ctx, fasthttp.MethodGet, "/cut", nil)
	if err != nil {
		return nil, err
	}
	c, _, err := ledger.DecodeCutJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%w: peer %s: %v", errPeer, p.addr, err)
	}
	return c, nil
}

// PutCut announces cut c, whose blocks can be fetched from origin ("host:port").
func (p *PeerClient) PutCut(ctx context.Context, c *ledger.Cut, origin string) error {
	o, err := ParsePeerAddr(origin)
	if err != nil {
		return err
	}
	// Once: an announcement the peer's rate limit refused is stale by the time it could be
	// sent again, and the next cut change sends a newer one.
	_, _, err = p.once(ctx, fasthttp.MethodPut, "/cut", AppendCutWithOrigin(nil, c, o))
	return err
}

// Peers reads the peer's list of peers.
func (p *PeerClient) Peers(ctx context.Context) ([]string, error) {
	b, err := p.do(ctx, fasthttp.MethodGet, "/cut/peer", nil)
	if err != nil {
		return nil, err
	}
	var page struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, fmt.Errorf("%w: peer %s: peer list: %v", errPeer, p.addr, err)
	}
	// Entries are checked as PUT cut/peer checks them: a peer's list is untrusted input, and
	// what this node learns from it, it serves to others.
	out := make([]string, 0, len(page.Items))
	for _, raw := range page.Items {
		if it, err := DecodePeerInfo(raw); err == nil {
			out = append(out, it.String())
		}
	}
	return out, nil
}

// AddPeer introduces self ("host:port") to the peer.
func (p *PeerClient) AddPeer(ctx context.Context, self string) error {
	info, err := ParsePeerAddr(self)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(info)
	_, err = p.do(ctx, fasthttp.MethodPut, "/cut/peer", b)
	return err
}

// Branch returns the headers of chain c that are ancestors of an upper bound and of no lower
// bound (descending by height, as the peer pages them), following every page.
func (p *PeerClient) Branch(ctx context.Context, c ledger.ChainID, lower, upper []ledger.Hash) ([]*ledger.Header, error) {
	return p.BranchRange(ctx, c, lower, upper, 0, ^uint64(0))
}

// BranchRange is Branch limited to the heights minHeight to maxHeight (the branch query's
// minheight and maxheight).
func (p *PeerClient) BranchRange(ctx context.Context, c ledger.ChainID, lower, upper []ledger.Hash, minHeight, maxHeight uint64) ([]*ledger.Header, error) {
	body, _ := json.Marshal(struct {
		Lower []ledger.Hash `json:"lower"`
		Upper []ledger.Hash `json:"upper"`
	}{lower, upper})
	var query []string
	if minHeight > 0 {
		query = append(query, "minheight="+strconv.FormatUint(minHeight, 10))
	}
	if maxHeight != ^uint64(0) {
		query = append(query, "maxheight="+strconv.FormatUint(maxHeight, 10))
	}
	var out []*ledger.Header
	next := ""
	for {
		path := "/chain/" + strconv.FormatUint(uint64(c), 10) + "/header/branch"
		q := query
		if next != "" {
			q = append(q[:len(q):len(q)], "next="+url.QueryEscape(next))
		}
		if len(q) > 0 {
			path += "?" + strings.Join(q, "&")
		}
		b, err := p.do(ctx, fasthttp.MethodPost, path, body)
		if err != nil {
			return nil, err
		}
		var page struct {
			Items []string `json:"items"`
			Next  *string  `json:"next"`
		}
		if err := json.Unmarshal(b, &page); err != nil {
			return nil, fmt.Errorf("%w: peer %s: branch page: %v", errPeer, p.addr, err)
		}
		for _, it := range page.Items {
			h, err := ledger.DecodeHeaderB64(it)
			if err != nil {
				return nil, fmt.Errorf("%w: peer %s: header: %v", errPeer, p.addr, err)
			}
			if h.ChainID != c {
				return nil, fmt.Errorf("%w: peer %s: a header of chain %d in chain %d's branch", errPeer, p.addr, h.ChainID, c)
			}
			out = append(out, h)
		}
		if page.Next == nil || len(page.Items) == 0 {
			return out, nil
		}
		next = *page.Next
	}
}

// Payloads fetches payloads with outputs of chain c (at most PeerPayloadBatchLimit); those the
// peer lacks are missing from the result, and each one matches its hashes.
func (p *PeerClient) Payloads(ctx context.Context, c ledger.ChainID, hashes []ledger.Hash) (map[ledger.Hash]*ledger.PayloadWithOutputs, error) {
	body, _ := json.Marshal(hashes)
	b, err := p.do(ctx, fasthttp.MethodPost, "/chain/"+strconv.FormatUint(uint64(c), 10)+"/payload/outputs/batch", body)
	if err != nil {
		return nil, err
	}
	var ps []*ledger.PayloadWithOutputs
	if err := json.Unmarshal(b, &ps); err != nil {
		return nil, fmt.Errorf("%w: peer %s: payloads: %v", errPeer, p.addr, err)
	}
	out := make(map[ledger.Hash]*ledger.PayloadWithOutputs, len(ps))
	for _, x := range ps {
		if x == nil {
			continue
		}
		if err := x.Verify(); err != nil {
			return nil, fmt.Errorf("%w: peer %s: payload %s: %v", errPeer, p.addr, x.PayloadHash, err)
		}
		out[x.PayloadHash] = x
	}
	return out, nil
}

// InsertTxs relays transactions to the peer's mempool of chain c.
func (p *PeerClient) InsertTxs(ctx context.Context, c ledger.ChainID, cmds []*api.Command) error {
	b := []byte{'['}
	for i, cmd := range cmds {
		if i > 0 {
			b = append(b, ',')
		}
		b = cmd.AppendJSON(b)
	}
	_, err := p.do(ctx, fasthttp.MethodPut, "/chain/"+strconv.FormatUint(uint64(c), 10)+"/mempool/insert", append(b, ']'))
	return err
}
