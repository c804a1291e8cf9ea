package transport

import (
	"context"
	"encoding/json"
	"net"
	"slices"
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
func (n *recordingNode) PeerInfos() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string{"127.0.0.1:1789", "not an address"}, n.peers...)
}
func (n *recordingNode) KnownPeer(addr string) bool { return slices.Contains(n.PeerInfos(), addr) }
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

// doFrom is do for a client at address ip.
func doFrom(h fasthttp.RequestHandler, ip, method, uri, body string) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(uri)
	req.Header.SetContentType("application/json")
	req.SetBody([]byte(body))
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}, nil)
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
	// As upstream: a cut from an origin this node does not know is refused, and the origin is
	// not learned as a peer.
	if c := do(h, "PUT", p+"cut", cut); c.Response.StatusCode() != 401 || string(c.Response.Body()) != "Unknown peer" ||
		len(n.offers) != 0 || len(n.peers) != 0 {
		t.Fatalf("PUT cut from an unknown peer: %d %q, offers %v, peers %v", c.Response.StatusCode(), c.Response.Body(), n.offers, n.peers)
	}
	if c := do(h, "PUT", p+"cut/peer", `{"id":null,"address":{"hostname":"10.0.0.7","port":1790}}`); c.Response.StatusCode() != 204 {
		t.Fatalf("PUT cut/peer: %d %s", c.Response.StatusCode(), c.Response.Body())
	}
	if c := do(h, "PUT", p+"cut", cut); c.Response.StatusCode() != 204 || len(n.offers) != 1 || n.offers[0] != "10.0.0.7:1790" {
		t.Fatalf("PUT cut: %d, offers %v", c.Response.StatusCode(), n.offers)
	}
	// The origin must be where the announcement comes from: from another address, a known
	// peer named as the origin is a forgery (a 400 saying so); from its own, it passes.
	if c := doFrom(h, "10.0.0.9", "PUT", p+"cut", cut); c.Response.StatusCode() != 400 ||
		!strings.Contains(string(c.Response.Body()), "is not the address the announcement came from (10.0.0.9)") || len(n.offers) != 1 {
		t.Fatalf("PUT cut naming another origin: %d %q, offers %v", c.Response.StatusCode(), c.Response.Body(), n.offers)
	}
	if c := doFrom(h, "10.0.0.7", "PUT", p+"cut", cut); c.Response.StatusCode() != 204 || len(n.offers) != 2 {
		t.Fatalf("PUT cut from its origin: %d %q, offers %v", c.Response.StatusCode(), c.Response.Body(), n.offers)
	}
	noOrigin := string(ledger.NewCut(fx.v, fx.heads).AppendJSON(nil))
	if c := do(h, "PUT", p+"cut", noOrigin); c.Response.StatusCode() != 400 || string(c.Response.Body()) != "Cut is missing an origin entry" {
		t.Errorf("PUT cut without origin: %d %s", c.Response.StatusCode(), c.Response.Body())
	}
	if c := do(h, "PUT", p+"cut/peer", `{"id":null,"address":{"hostname":"10.0.0.8","port":1789}}`); c.Response.StatusCode() != 204 ||
		len(n.peers) != 2 || n.peers[1] != "10.0.0.8:1789" {
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

// PUT cut/peer takes only a host name or IP address with a port in range, and says what is
// wrong with anything else; nothing refused reaches the node.
func TestPutPeerValidation(t *testing.T) {
	_, svc, n := newPeerFixture(t)
	h := svc.Handler()
	p := "/chainweb/0.0/development/cut/peer"
	entry := func(host, port string) string {
		b, _ := json.Marshal(host)
		return `{"id":null,"address":{"hostname":` + string(b) + `,"port":` + port + `}}`
	}
	for _, c := range []struct{ body, want string }{
		{entry("node.example.org", "1789"), ""},
		{entry("node-1.example.org.", "1"), ""},
		{entry("10.0.0.9", "65535"), ""},
		{entry("::1", "1789"), ""},
		{entry("localhost", "443"), ""},
		{`{"id":"5cbl0j5o6Bq8ZbOnNZ1ZxhHBj2BUS_5uRLRU-tCNzgI","address":{"hostname":"a.b","port":1}}`, ""},
		{entry("evil\r\nX-Injected: 1", "1789"), "has a character that is not a letter, digit, hyphen, dot or colon"},
		{entry(strings.Repeat("1", 10000), "1789"), "Request body too large to be processed. The maximum size is 1024 bytes"},
		{entry(strings.Repeat("1", 300), "1789"), "the host name is 300 bytes long; at most 253 are allowed"},
		{entry(strings.Repeat("1", 200), "1789"), "has a label of 200 bytes; at most 63 are allowed"},
		{entry("12345", "1789"), "is neither an IPv4 address nor a host name"},
		{entry(strings.Repeat("a", 64)+".org", "1789"), "has a label of 64 bytes; at most 63 are allowed"},
		{entry(strings.Repeat("a.", 127)+"ab", "1789"), "at most 253 are allowed"},
		{entry("", "1789"), "the host name is empty"},
		{entry("a..b", "1789"), "has an empty label"},
		{entry("-a.org", "1789"), "starts or ends with a hyphen"},
		{entry("256.1.1.1", "1789"), "is neither an IPv4 address nor a host name"},
		{entry("[::1]", "1789"), "has a character that is not a letter, digit, hyphen, dot or colon: '['"},
		{entry("fe80::1%eth0", "1789"), "has a character that is not a letter, digit, hyphen, dot or colon: '%'"},
		{entry("1:2:3", "1789"), "host 1:2:3 is not an IPv6 address"},
		{entry("a.org", "1e3"), "port 1e3 is not a number in 1–65535"},
		{entry("a_b.org", "1789"), "not a letter, digit, hyphen, dot or colon"},
		{entry("a.org", "0"), "port 0 is not a number in 1–65535"},
		{entry("a.org", "65536"), "port 65536 is not a number in 1–65535"},
		{entry("a.org", "-1"), "port -1 is not a number in 1–65535"},
		{entry("a.org", "1.5"), "port 1.5 is not a number in 1–65535"},
		{entry("a.org", strings.Repeat("9", 800)), "is not a number in 1–65535"},
		{entry("a.org", `"1789"`), `is not a number in 1–65535`},
		{`{"id":null,"address":{"hostname":"a.org"}}`, "its port is missing"},
		{`{"id":null}`, "the address, its hostname or its port is missing"},
		{`{"id":"a\nb","address":{"hostname":"a.org","port":1}}`, "is not a certificate fingerprint"},
		{`{"id":"` + strings.Repeat("x", 42) + `","address":{"hostname":"a.org","port":1}}`, "is not a certificate fingerprint"},
		{`{"id":"` + strings.Repeat("x", 129) + `","address":{"hostname":"a.org","port":1}}`, "the peer id is 129 bytes long"},
		{entry("a.org", "1") + ` {}`, "there is more after it"},
		{`[]`, `a peer is {"id": null`},
		{`{"id":null,"address":{"hostname":"a.org","port":1}` + strings.Repeat(" ", 1024) + `}`, "Request body too large"},
	} {
		n.peers = nil
		r := do(h, "PUT", p, c.body)
		code, body := r.Response.StatusCode(), string(r.Response.Body())
		if c.want == "" {
			if code != 204 || len(n.peers) != 1 {
				t.Errorf("%.60s: %d %q, peers %v", c.body, code, body, n.peers)
			}
			continue
		}
		if code/100 != 4 || !strings.Contains(body, c.want) || len(n.peers) != 0 {
			t.Errorf("%.60s: %d %q, want a 4xx with %q (peers %v)", c.body, code, body, c.want, n.peers)
		}
		if strings.ContainsAny(body, "\r\n") {
			t.Errorf("%.60s: the reason repeats a control character: %q", c.body, body)
		}
	}
}

// FuzzDecodePeerInfo: whatever a peer entry holds, what passes is a host and port that
// ParsePeerAddr reads back to the same entry (so a node never serves an address it would refuse).
func FuzzDecodePeerInfo(f *testing.F) {
	f.Add(`{"id":null,"address":{"hostname":"a.org","port":1789}}`)
	f.Add(`{"id":"x","address":{"hostname":"::1","port":1}}`)
	f.Add(`{"id":null,"address":{"hostname":"1.2.3.4","port":65535}}`)
	f.Fuzz(func(t *testing.T, body string) {
		p, err := DecodePeerInfo([]byte(body))
		if err != nil {
			return
		}
		q, err := ParsePeerAddr(p.String())
		if err != nil || q.Address != p.Address {
			t.Fatalf("%q passed as %s but reads back as %+v, %v", body, p, q, err)
		}
		for _, c := range []byte(p.Address.Hostname) {
			if c < 0x21 || c > 0x7e {
				t.Fatalf("%q: host %q has a control or non-ASCII byte", body, p.Address.Hostname)
			}
		}
	})
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
	// A client on this machine is not throttled: the nodes of a network on one machine share
	// the loopback address.
	for _, ip := range []string{"127.0.0.1", "127.3.4.5", "::1"} {
		for i := range 10 {
			c := doFrom(h, ip, "POST", p, "[]")
			if code := c.Response.StatusCode(); code != 200 {
				t.Fatalf("loopback client %s, request %d: %d", ip, i, code)
			}
		}
	}
	// Unless loopback clients are to be limited too (a node behind a proxy on its machine).
	strict := NewPeerService(ServiceConfig{Version: fx.v, Store: fx.db}, PeerConfig{Node: &recordingNode{},
		Throttle: Throttle{Global: 100, Mempool: 1, Loopback: true}}).Handler()
	codes = map[int]int{}
	for range 6 {
		codes[doFrom(strict, "127.0.0.1", "POST", p, "[]").Response.StatusCode()]++
	}
	if codes[200] != 4 || codes[429] != 2 {
		t.Errorf("loopback client with Loopback set: %v", codes)
	}
	// Other clients are counted apart, each with its own burst.
	for _, ip := range []string{"10.0.0.7", "192.0.2.1"} {
		codes := map[int]int{}
		for range 6 {
			codes[doFrom(h, ip, "POST", p, "[]").Response.StatusCode()]++
		}
		if codes[200] != 4 || codes[429] != 2 {
			t.Errorf("client %s: %v", ip, codes)
		}
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

// The peer API offers headers as base64url JSON (and one header as binary), never in the
// object encoding, as upstream's (chainweb-api.md §4.2): asking for it is a 406 that names what
// is offered, while the service API serves it.
func TestPeerAPIHasNoObjectHeaders(t *testing.T) {
	fx, peer, _ := newPeerFixture(t)
	svc := NewService(ServiceConfig{Version: fx.v, Store: fx.db})
	p := "/chainweb/0.0/development/chain/0/"
	hash := fx.heads[0].Hash.String()
	get := func(s *Service, path, accept string) *fasthttp.RequestCtx {
		var req fasthttp.Request
		req.Header.SetMethod("GET")
		req.SetRequestURI(p + path)
		req.Header.Set("Accept", accept)
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, nil, nil)
		s.Handler()(&ctx)
		return &ctx
	}
	const object = "application/json;blockheader-encoding=object"
	for _, path := range []string{"header", "header/" + hash} {
		c := get(peer, path, object)
		body := string(c.Response.Body())
		_, available, _ := strings.Cut(body, "available: ")
		if c.Response.StatusCode() != 406 || !strings.HasPrefix(available, "application/json") || strings.Contains(available, "object") {
			t.Errorf("peer API GET %s in the object encoding: %d %q", path, c.Response.StatusCode(), body)
		}
		if c := get(peer, path, "application/json"); c.Response.StatusCode() != 200 {
			t.Errorf("peer API GET %s as JSON: %d %s", path, c.Response.StatusCode(), c.Response.Body())
		}
		if c := get(svc, path, object); c.Response.StatusCode() != 200 || !strings.Contains(string(c.Response.Body()), `"chainId"`) {
			t.Errorf("service API GET %s in the object encoding: %d %.100s", path, c.Response.StatusCode(), c.Response.Body())
		}
	}
	if c := get(peer, "header/"+hash, "application/octet-stream"); c.Response.StatusCode() != 200 || len(c.Response.Body()) < 210 {
		t.Errorf("peer API GET header/{hash} as binary: %d, %d bytes", c.Response.StatusCode(), len(c.Response.Body()))
	}
}

// GET /config is served at the root of the peer API, with the body the node gave, as JSON; not
// under /chainweb/0.0/…, not on the service API, and not at all without a body.
func TestPeerConfigRoute(t *testing.T) {
	fx := newFixture(t)
	body := []byte(`{"chainwebVersion":"development"}`)
	svc := NewPeerService(ServiceConfig{Version: fx.v, Store: fx.db}, PeerConfig{Node: &recordingNode{},
		Throttle: Throttle{Global: 1e6, PutPeer: 1e6, Mempool: 1e6}, Config: body})
	ctx := do(svc.Handler(), "GET", "/config", "")
	if ctx.Response.StatusCode() != 200 || string(ctx.Response.Body()) != string(body) ||
		!strings.HasPrefix(string(ctx.Response.Header.ContentType()), "application/json") {
		t.Fatalf("GET /config: %d %q %s", ctx.Response.StatusCode(), ctx.Response.Header.ContentType(), ctx.Response.Body())
	}
	if got := do(svc.Handler(), "GET", "/chainweb/0.0/development/config", "").Response.StatusCode(); got != 404 {
		t.Errorf("GET /chainweb/0.0/development/config: %d, want 404", got)
	}
	if got := do(svc.Handler(), "POST", "/config", "{}").Response.StatusCode(); got != 405 {
		t.Errorf("POST /config: %d, want 405", got)
	}
	none := NewPeerService(ServiceConfig{Version: fx.v, Store: fx.db}, PeerConfig{Node: &recordingNode{}})
	if got := do(none.Handler(), "GET", "/config", "").Response.StatusCode(); got != 404 {
		t.Errorf("GET /config without a body: %d, want 404", got)
	}
	service := NewService(ServiceConfig{Version: fx.v, Store: fx.db})
	if got := do(service.Handler(), "GET", "/config", "").Response.StatusCode(); got != 404 {
		t.Errorf("GET /config on the service API: %d, want 404", got)
	}
}
