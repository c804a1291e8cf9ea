package transport

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/connguard"
)

// serveRaw runs one raw HTTP request through h as fasthttp would hand it over and returns the
// response.
func serveRaw(t *testing.T, h fasthttp.RequestHandler, raw string) *fasthttp.Response {
	t.Helper()
	var req fasthttp.Request
	if err := req.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 50123}, nil)
	h(&ctx)
	var resp fasthttp.Response
	ctx.Response.CopyTo(&resp)
	return &resp
}

// headerLines lists a response's header lines but the two that follow the clock.
func headerLines(r *fasthttp.Response) []string {
	var out []string
	for k, v := range r.Header.All() {
		if k := string(k); k != "Date" && k != "X-Server-Timestamp" {
			out = append(out, k+": "+string(v))
		}
	}
	slices.Sort(out)
	return out
}

// TestFastPathSameAnswers: the requests the hot route's fast path takes, and the near misses it
// leaves to the general lookup, are answered byte for byte as the general lookup alone answers
// them (status, headers, body), and the fast path does take the plain ones.
func TestFastPathSameAnswers(t *testing.T) {
	f := newFixture(t)
	fast := NewService(ServiceConfig{Version: f.v, Store: f.db, PackageVersion: "test"})
	general := NewService(ServiceConfig{Version: f.v, Store: f.db, PackageVersion: "test"})
	if fast.router.hot == nil || fast.router.hot.pattern != hotPattern {
		t.Fatal("the service API has no fast route")
	}
	general.router.hot = nil

	m12 := f.named["m12"].Hash.String()
	n2 := f.named["n2"].Hash.String()
	unknown := ledger.Hash{1, 2, 3}.String()
	pre := "/chainweb/0.0/" + f.v.Name
	pctFirst := fmt.Sprintf("%%%02X", m12[0]) + m12[1:]
	cases := []struct {
		method, path, accept string
		taken                bool // the fast path answers
	}{
		{"GET", pre + "/chain/0/header/" + m12, "", true},
		{"HEAD", pre + "/chain/0/header/" + m12, "", true},
		{"GET", pre + "/chain/0/header/" + m12, "application/octet-stream", true},
		{"GET", pre + "/chain/0/header/" + m12, "application/json;blockheader-encoding=object", true},
		{"GET", pre + "/chain/0/header/" + m12, "text/html", true}, // 406
		{"GET", pre + "/chain/5/header/" + n2, "", true},
		{"GET", pre + "/chain/5/header/" + m12, "", true}, // another chain's header: 404
		{"GET", pre + "/chain/1/header/" + unknown, "", true},
		{"GET", pre + "/chain/0/header/" + m12 + "?x=1", "", true}, // the path is what routes
		{"GET", pre + "/chain/0/header/" + m12 + "/", "", false},
		{"GET", pre + "/chain/0/header/" + pctFirst, "", false},
		{"GET", pre + "/chain/0/header/" + m12 + "/x", "", false},
		{"GET", pre + "/chain/0/header/" + m12[:42], "", false},
		{"GET", pre + "/chain/0/header/" + m12 + "A", "", false},
		{"GET", pre + "/chain/0/header/" + strings.Replace(m12, m12[:1], "*", 1), "", false},
		{"GET", pre + "/chain/0/header/branch", "", false},
		{"GET", pre + "/chain/05/header/" + m12, "", false},
		{"GET", pre + "/chain/99/header/" + m12, "", false},
		{"GET", pre + "/chain//header/" + m12, "", false},
		{"GET", pre + "/chain/0//header/" + m12, "", false},
		{"GET", pre + "/chain/0/headers/" + m12, "", false},
		{"GET", "/chainweb/0.0/mainnet01/chain/0/header/" + m12, "", false},
		{"GET", "/chainweb/0.1/" + f.v.Name + "/chain/0/header/" + m12, "", false},
		{"POST", pre + "/chain/0/header/" + m12, "", false},
		{"PUT", pre + "/chain/0/header/" + m12, "", false},
		{"OPTIONS", pre + "/chain/0/header/" + m12, "", false},
	}
	for _, c := range cases {
		raw := c.method + " " + c.path + " HTTP/1.1\r\nHost: node.example:1848\r\n"
		if c.accept != "" {
			raw += "Accept: " + c.accept + "\r\n"
		}
		raw += "\r\n"
		var p params
		var req fasthttp.Request
		req.SetRequestURI(c.path)
		taken := fast.router.fastLookup([]byte(c.method), req.URI().PathOriginal(), &p) != nil
		if taken != c.taken {
			t.Errorf("%s %s: fast path taken %v, want %v", c.method, c.path, taken, c.taken)
		}
		a, b := serveRaw(t, fast.Handler(), raw), serveRaw(t, general.Handler(), raw)
		if a.StatusCode() != b.StatusCode() || !bytes.Equal(a.Body(), b.Body()) ||
			!slices.Equal(headerLines(a), headerLines(b)) {
			t.Errorf("%s %s (Accept %q):\nfast    %d %q %q\ngeneral %d %q %q", c.method, c.path, c.accept,
				a.StatusCode(), headerLines(a), a.Body(), b.StatusCode(), headerLines(b), b.Body())
		}
	}
	if fast.InternalErrors() != 0 || general.InternalErrors() != 0 {
		t.Fatal("5xx answers")
	}
}

// TestHeaderByHashResponse pins the hot route's response as clients see it: status, every
// header line, and the body, the common headers included.
func TestHeaderByHashResponse(t *testing.T) {
	f := newFixture(t)
	svc := NewService(ServiceConfig{Version: f.v, Store: f.db, PackageVersion: "1.2.3"})
	h := f.named["m12"]
	before := time.Now().Unix()
	r := serveRaw(t, svc.Handler(), "GET /chainweb/0.0/"+f.v.Name+"/chain/0/header/"+h.Hash.String()+" HTTP/1.1\r\nHost: x\r\n\r\n")
	after := time.Now().Unix()
	want := []string{
		"Access-Control-Allow-Origin: *",
		"Content-Type: application/json;charset=utf-8",
		"X-Chainweb-Node-Version: 1.2.3",
		"X-Ledger-Node-Version: 1.2.3",
		"X-Peer-Addr: 192.0.2.7:50123",
	}
	if r.StatusCode() != 200 || !slices.Equal(headerLines(r), want) || string(r.Body()) != `"`+h.B64()+`"` {
		t.Fatalf("%d %q %s", r.StatusCode(), headerLines(r), r.Body())
	}
	var ts int64
	if _, err := fmt.Sscan(string(r.Header.Peek("X-Server-Timestamp")), &ts); err != nil || ts < before || ts > after {
		t.Fatalf("X-Server-Timestamp %q, want a second in [%d, %d]", r.Header.Peek("X-Server-Timestamp"), before, after)
	}
}

// The fast path's route is still counted for the metrics, under its own class, with the
// status it answered.
func TestFastPathCounted(t *testing.T) {
	rs := NewRequestStats()
	f := newFixture(t, func(c *ServiceConfig) { c.Requests = rs })
	pre := "/chainweb/0.0/" + f.v.Name + "/chain/"
	for _, path := range []string{
		pre + "0/header/" + f.named["m12"].Hash.String(),
		pre + "0/header/" + f.named["m13"].Hash.String(),
		pre + "5/header/" + f.named["m13"].Hash.String(), // another chain's: 404
	} {
		serveRaw(t, f.svc.Handler(), "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	got := map[int]uint64{}
	for _, rc := range rs.Snapshot() {
		if rc.Method == "GET" && rc.Route == hotPattern {
			for _, s := range rc.Statuses {
				got[s.Status] = s.Count
			}
			if rc.Latency.Count != 3 {
				t.Errorf("latency histogram holds %d requests, want 3", rc.Latency.Count)
			}
		}
	}
	if got[200] != 2 || got[404] != 1 || len(got) != 2 {
		t.Fatalf("counted %v, want 2 × 200 and 1 × 404", got)
	}
}

// pickHot keeps off the fast path when a route registered earlier could take its requests.
func TestPickHotShadowed(t *testing.T) {
	nop := func(*fasthttp.RequestCtx, params) {}
	for _, c := range []struct {
		earlier []string // GET patterns registered first
		hot     bool
	}{
		{nil, true},
		{[]string{"chain/{chain}/header", "chain/{chain}/header/branch", "chain/{chain}/hash/{blockHash}"}, true},
		{[]string{"chain/{chain}/header/{otherHash}"}, false},
		{[]string{"chain/{chain}/{thingHash}/{blockHash}"}, false},
		{[]string{"chain/0/header/{blockHash}"}, false},
		{[]string{"chain/{chain}/header/" + ledger.Hash{9}.String()}, false},
		{[]string{"chain/{chain}/header/{account}"}, false},
	} {
		r := newRouter(ledger.Development)
		for _, p := range c.earlier {
			r.handle(fasthttp.MethodGet, p, nop)
		}
		r.handle(fasthttp.MethodPost, "chain/{chain}/header/{postHash}", nop) // another method: no shadow
		r.handle(fasthttp.MethodGet, hotPattern, nop)
		r.pickHot(hotPattern)
		if (r.hot != nil) != c.hot {
			t.Errorf("after %q: fast route %v, want %v", c.earlier, r.hot != nil, c.hot)
		}
	}
}

// X-Peer-Addr comes from the connection, formatted once when it was accepted: each connection
// reports its own client address on every request it carries, guarded or not.
func TestPeerAddrPerConnection(t *testing.T) {
	f := newFixture(t)
	for _, guarded := range []bool{false, true} {
		svc := NewService(ServiceConfig{Version: f.v, Store: f.db, PackageVersion: "test"})
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var served net.Listener = ln
		if guarded {
			served = connguard.GuardListener(ln, connguard.ConnLimits{Max: 10, PerAddress: 2}, "test", quietLog)
		}
		go svc.Serve(served)
		path := "/chainweb/0.0/" + f.v.Name + "/chain/0/header/" + f.named["m3"].Hash.String()
		for range 2 {
			c, err := net.Dial("tcp4", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			for range 2 { // two requests on one connection
				if _, err := c.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
					t.Fatal(err)
				}
				var resp fasthttp.Response
				if err := resp.Read(br); err != nil {
					t.Fatal(err)
				}
				if got := string(resp.Header.Peek("X-Peer-Addr")); resp.StatusCode() != 200 || got != c.LocalAddr().String() {
					t.Errorf("guarded %v: %d, X-Peer-Addr %q, want %q", guarded, resp.StatusCode(), got, c.LocalAddr())
				}
			}
			c.Close()
		}
		svc.Shutdown(hangguard.Context(t))
	}
}
