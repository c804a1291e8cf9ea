package transport

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// recordingNode is a PeerNode that remembers what the peer API handed it.
type recordingNode struct {
	mu     sync.Mutex
	offers []string
	peers  []string
	txs    int
}

func (n *recordingNode) OfferCut(c *ledger.Cut, origin string) {
	n.mu.Lock()
	n.offers = append(n.offers, origin)
	n.mu.Unlock()
}
func (n *recordingNode) Peers() []string { return []string{"127.0.0.1:1789", "not an address"} }
func (n *recordingNode) AddPeer(addr string) error {
	n.mu.Lock()
	n.peers = append(n.peers, addr)
	n.mu.Unlock()
	return nil
}
func (n *recordingNode) MempoolInsert(_ context.Context, _ ledger.ChainID, cmds []*api.Command) error {
	n.mu.Lock()
	n.txs += len(cmds)
	n.mu.Unlock()
	return nil
}
func (n *recordingNode) MempoolMember(_ ledger.ChainID, keys []api.Hash) []bool {
	return make([]bool, len(keys))
}
func (n *recordingNode) MempoolLookup(_ ledger.ChainID, keys []api.Hash) []*api.Command {
	return make([]*api.Command, len(keys))
}
func (n *recordingNode) MempoolPending(ledger.ChainID) []api.Hash { return []api.Hash{{1}} }

func newPeerFixture(t testing.TB) (*fixture, *Service, *recordingNode) {
	fx := newFixture(t)
	n := &recordingNode{}
	svc := NewPeerService(ServiceConfig{Version: fx.v, Store: fx.db,
		Cut: func() *ledger.Cut { return ledger.NewCut(fx.v, fx.heads) }}, PeerConfig{Node: n,
		Throttle: Throttle{Global: 1e6, PutPeer: 1e6, Mempool: 1e6}})
	return fx, svc, n
}

func do(h fasthttp.RequestHandler, method, uri, body string) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(uri)
	if body != "" {
		req.Header.SetContentType("application/json")
		req.SetBody([]byte(body))
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, nil, nil)
	h(&ctx)
	return &ctx
}

// The peer API's own endpoints: an announced cut reaches the node with its origin, a peer
// introduces itself, the mempool endpoints answer in shape, and the service API's routes that
// are not peer routes are absent.
func TestPeerEndpoints(t *testing.T) {
	fx, svc, n := newPeerFixture(t)
	h := svc.Handler()
	p := "/chainweb/0.0/development/"
	origin, _ := ParsePeerAddr("10.0.0.7:1790")
	cut := string(AppendCutWithOrigin(nil, ledger.NewCut(fx.v, fx.heads), origin))
	if c := do(h, "PUT", p+"cut", cut); c.Response.StatusCode() != 204 || len(n.offers) != 1 || n.offers[0] != "10.0.0.7:1790" {
		t.Fatalf("PUT cut: %d, offers %v", c.Response.StatusCode(), n.offers)
	}
	noOrigin := string(ledger.NewCut(fx.v, fx.heads).AppendJSON(nil))
	if c := do(h, "PUT", p+"cut", noOrigin); c.Response.StatusCode() != 400 || string(c.Response.Body()) != "Cut is missing an origin entry" {
		t.Errorf("PUT cut without origin: %d %s", c.Response.StatusCode(), c.Response.Body())
	}
	if c := do(h, "PUT", p+"cut/peer", `{"id":null,"address":{"hostname":"10.0.0.8","port":1789}}`); c.Response.StatusCode() != 204 ||
		len(n.peers) != 1 || n.peers[0] != "10.0.0.8:1789" {
		t.Errorf("PUT cut/peer: %d %v", c.Response.StatusCode(), n.peers)
	}
	if c := do(h, "GET", p+"cut/peer", ""); c.Response.StatusCode() != 200 ||
		!strings.Contains(string(c.Response.Body()), `"hostname":"127.0.0.1","port":1789`) ||
		strings.Contains(string(c.Response.Body()), "not an address") {
		t.Errorf("GET cut/peer: %d %s", c.Response.StatusCode(), c.Response.Body())
	}
	if c := do(h, "POST", p+"chain/0/mempool/member", `["`+api.Hash{2}.String()+`"]`); string(c.Response.Body()) != "[false]" {
		t.Errorf("member: %s", c.Response.Body())
	}
	if c := do(h, "POST", p+"chain/0/mempool/lookup", `["`+api.Hash{2}.String()+`"]`); string(c.Response.Body()) != `[{"tag":"Missing"}]` {
		t.Errorf("lookup: %s", c.Response.Body())
	}
	if c := do(h, "POST", p+"chain/0/mempool/getPending", ""); !strings.Contains(string(c.Response.Body()), api.Hash{1}.String()) {
		t.Errorf("getPending: %s", c.Response.Body())
	}
	for _, path := range []string{"chain/0/hash", "chain/0/block", "header/updates", "chain/0/pact/api/v1/send"} {
		if c := do(h, "GET", p+path, ""); c.Response.StatusCode() != 404 {
			t.Errorf("GET %s on the peer API: %d", path, c.Response.StatusCode())
		}
	}
	// Pages of 20 at most.
	if c := do(h, "GET", p+"chain/0/header?limit=50", ""); c.Response.StatusCode() != 200 ||
		!strings.Contains(string(c.Response.Body()), `"limit":20`) {
		t.Errorf("header page: %d %.80s", c.Response.StatusCode(), c.Response.Body())
	}
}

// The throttle answers 429 once a client's burst is spent, per class.
func TestPeerThrottle(t *testing.T) {
	fx := newFixture(t)
	svc := NewPeerService(ServiceConfig{Version: fx.v, Store: fx.db}, PeerConfig{Node: &recordingNode{},
		Throttle: Throttle{Global: 100, Mempool: 1}})
	h := svc.Handler()
	p := "/chainweb/0.0/development/chain/0/mempool/member"
	codes := map[int]int{}
	for range 10 {
		codes[do(h, "POST", p, "[]").Response.StatusCode()]++
	}
	if codes[200] != 4 || codes[429] != 6 { // a burst of 4 × 1/s
		t.Errorf("mempool class: %v", codes)
	}
	if c := do(h, "GET", "/chainweb/0.0/development/cut/peer", ""); c.Response.StatusCode() != 200 {
		t.Errorf("another class still passes: %d", c.Response.StatusCode())
	}
}

// FuzzPeerService: anything sent to the peer API gets a 4xx or a 2xx, never a 5xx.
func FuzzPeerService(f *testing.F) {
	fx, svc, _ := newPeerFixture(f)
	h := svc.Handler()
	origin, _ := ParsePeerAddr("10.0.0.7:1790")
	p := "/chainweb/0.0/development/"
	f.Add("PUT", p+"cut", string(AppendCutWithOrigin(nil, ledger.NewCut(fx.v, fx.heads), origin)))
	f.Add("PUT", p+"cut/peer", `{"id":null,"address":{"hostname":"h","port":1}}`)
	f.Add("PUT", p+"chain/0/mempool/insert", `[{"hash":"x","sigs":[],"cmd":"{}"}]`)
	f.Add("POST", p+"chain/0/mempool/member", `["AAAA"]`)
	f.Add("POST", p+"chain/0/mempool/lookup", `[]`)
	f.Add("POST", p+"chain/0/header/branch", `{"lower":[],"upper":[]}`)
	f.Fuzz(func(t *testing.T, method, uri, body string) {
		c := do(h, method, uri, body)
		if code := c.Response.StatusCode(); code >= 500 {
			t.Fatalf("%s %q %q: %d %s", method, uri, body, code, c.Response.Body())
		}
		if n := svc.InternalErrors(); n != 0 {
			t.Fatalf("%d internal errors", n)
		}
	})
}
