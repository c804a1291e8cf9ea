package transport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
)

// badRequest is one request a client or operator might get wrong, and the status it must get.
type badRequest struct {
	method, target string // target is sent as is on the request line: no client cleans it
	ctype, accept  string
	body           string
	declared       int // a Content-Length to declare instead of sending body (for 413)
	status         int
}

// TestEveryBadRequestHasAReason sends several hundred bad requests to the service API, the
// peer API and `pact -s` over real connections and checks that each gets the 4xx it should,
// with a body that says why (text/plain, or the not-found JSON with its reason), and that none
// gets a 5xx (issue 19: 53 of 343 such requests used to get an empty 4xx, so clients threw
// Error("")).
func TestEveryBadRequestHasAReason(t *testing.T) {
	e, err := server.Open(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	f := newFixture(t, func(c *ServiceConfig) {
		c.Contract = func(ledger.ChainID) contracthttp.API { return e }
		c.Backup = &fakeBackups{states: map[string]string{}}
	})
	peer, peerAddr := servePeer(t, f)
	pactS, pactSBase := servePactS(t, e)

	api := "/chainweb/0.0/development/"
	m1 := f.named["m1"]
	hash, payload := m1.Hash.String(), m1.PayloadHash.String()
	unknown := ledger.Hash{1}.String()
	slashes := strings.Repeat("%2F", 43)
	const big = 3 << 20

	// Route kinds of the service API: GET routes with {chain}, POST routes with {chain} and
	// JSON bodies, and the rest.
	getRoutes := []string{"hash", "header", "block", "header/" + hash, "payload/" + payload, "payload/" + payload + "/outputs"}
	postRoutes := []string{"hash/branch", "header/branch", "block/branch", "payload/batch", "payload/outputs/batch",
		"pact/api/v1/send", "pact/api/v1/poll", "pact/api/v1/listen", "pact/api/v1/local",
		"contract/api/v1/send", "contract/api/v1/poll", "contract/api/v1/local", "pact/spv"}
	badChains := []string{"20", "-1", "abc", "99999999999999999999", "05", "%20", "1e1", "0x1", "%2F0"}

	var svc []badRequest
	for _, c := range badChains {
		for _, r := range getRoutes {
			svc = append(svc, badRequest{method: "GET", target: api + "chain/" + c + "/" + r, status: 404})
		}
		for _, r := range postRoutes {
			svc = append(svc, badRequest{method: "POST", target: api + "chain/" + c + "/" + r, ctype: "application/json", body: "{}", status: 404})
		}
	}
	for _, prefix := range []string{"/chainweb/0.0/mainnet01/", "/chainweb/0.0/testnet04/", "/chainweb/0.1/development/",
		"/chainweb/1/development/", "/chainweb/0.0/Development/", "/chainweb/0.0/development%2F/"} {
		for _, r := range []string{"cut", "chain/0/hash", "chain/0/header/" + hash} {
			svc = append(svc, badRequest{method: "GET", target: prefix + r, status: 404})
		}
	}
	for _, p := range []string{"/", "/nope", "/chainweb", "/chainweb/0.0", "/info/x", "/health-check/x", "/INFO",
		api + "nope", api + "chain", api + "chain/0", api + "chain/0/nope", api + "chain/0/hash/x/y",
		api + "chain/0/payload", api + "chain/0/pact/api/v1", api + "chain/0/pact/api/v1/nope", api + "chain/0/pact/api/v2/send",
		api + "header/updates", api + "check-backup", api + "check-backup/x", api + "check-backup/01",
		api + "check-backup/7", api + strings.Repeat("a/", 20),
		// No path normalization: "//", "." and ".." are segments no route has, and "%2F" is a
		// byte of its segment.
		api + "chain/0//hash", "//info", api + "chain/0/./hash", api + "chain/0/../0/hash", "/x/../info",
		api + "chain/0/hash%2Fbranch", api + "cut%2F", api + "chain%2F0%2Fhash",
	} {
		svc = append(svc, badRequest{method: "GET", target: p, status: 404})
	}
	// Unknown keys: the not-found JSON.
	for _, r := range []string{"header/" + unknown, "payload/" + unknown, "payload/" + unknown + "/outputs"} {
		svc = append(svc, badRequest{method: "GET", target: api + "chain/0/" + r, status: 404})
	}
	// Malformed hash captures, %2F among them (upstream: the hash parser's message, 400).
	for _, h := range []string{slashes, "%2F%2F", "x", strings.Repeat("A", 42), strings.Repeat("A", 44), "branch%2F", "%00" + hash[3:]} {
		svc = append(svc, badRequest{method: "GET", target: api + "chain/0/header/" + h, status: 400},
			badRequest{method: "GET", target: api + "chain/0/payload/" + h, status: 400},
			badRequest{method: "GET", target: api + "chain/0/payload/" + h + "/outputs", status: 400})
	}
	// Accept headers no route can satisfy, on each route kind that negotiates.
	for _, a := range []string{"application/foo", "text/html", "image/*", "application/json;q=0", "nonsense"} {
		for _, r := range getRoutes {
			svc = append(svc, badRequest{method: "GET", target: api + "chain/0/" + r, accept: a, status: 406})
		}
		for _, r := range []string{"hash/branch", "header/branch", "block/branch", "payload/batch", "payload/outputs/batch"} {
			svc = append(svc, badRequest{method: "POST", target: api + "chain/0/" + r, ctype: "application/json", body: `{"upper":[]}`, accept: a, status: 406})
		}
		svc = append(svc, badRequest{method: "GET", target: api + "cut", accept: a, status: 406},
			badRequest{method: "GET", target: "/info", accept: a, status: 406})
	}
	// Wrong methods.
	for _, r := range getRoutes {
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
			svc = append(svc, badRequest{method: m, target: api + "chain/0/" + r, status: 405})
		}
	}
	for _, r := range postRoutes {
		// servant's priorities: "branch" and "batch" are also tried as the hash of the GET
		// route beside them, and a malformed capture (400) beats a wrong method (405).
		want := 405
		if r == "header/branch" || r == "payload/batch" {
			want = 400
		}
		svc = append(svc, badRequest{method: "GET", target: api + "chain/0/" + r, status: want},
			badRequest{method: "PUT", target: api + "chain/0/" + r, status: want})
	}
	svc = append(svc, badRequest{method: "POST", target: api + "cut", status: 405},
		badRequest{method: "PUT", target: api + "cut", status: 405}, // PUT cut is the peer API's
		badRequest{method: "POST", target: "/info", status: 405},
		badRequest{method: "DELETE", target: "/health-check", status: 405},
		badRequest{method: "GET", target: api + "make-backup", status: 405},
		badRequest{method: "POST", target: api + "check-backup/7", status: 405})
	// Bad query parameters.
	for _, q := range []string{"limit=x", "limit=-1", "limit=1.5", "limit=", "next=garbage",
		"next=inclusive:x", "minheight=x", "maxheight=-3", "minheight=99999999999999999999"} {
		for _, r := range []string{"hash", "header", "block"} {
			svc = append(svc, badRequest{method: "GET", target: api + "chain/0/" + r + "?" + q, status: 400})
		}
	}
	for _, q := range []string{"height=x", "height=-1", "height=99999999999999999999"} {
		svc = append(svc, badRequest{method: "GET", target: api + "chain/0/payload/" + payload + "?" + q, status: 400})
	}
	// Bad bodies, missing or wrong Content-Types, oversized bodies, on every POST route kind.
	for _, r := range postRoutes {
		target := api + "chain/0/" + r
		svc = append(svc,
			badRequest{method: "POST", target: target, ctype: "application/json", body: "{", status: 400},
			badRequest{method: "POST", target: target, ctype: "application/json", body: `"x"`, status: 400},
			badRequest{method: "POST", target: target, body: "{}", status: 415},
			badRequest{method: "POST", target: target, ctype: "text/plain", body: "{}", status: 415},
			badRequest{method: "POST", target: target, ctype: "application/json", declared: big, status: 413})
	}

	// The peer API.
	p2p := []badRequest{}
	peerGets := []string{"header", "header/" + hash, "payload/" + payload, "payload/" + payload + "/outputs"}
	peerPosts := []string{"header/branch", "payload/batch", "payload/outputs/batch", "mempool/member", "mempool/lookup", "mempool/getPending"}
	for _, c := range badChains {
		for _, r := range peerGets {
			p2p = append(p2p, badRequest{method: "GET", target: api + "chain/" + c + "/" + r, status: 404})
		}
		for _, r := range peerPosts {
			p2p = append(p2p, badRequest{method: "POST", target: api + "chain/" + c + "/" + r, ctype: "application/json", body: "[]", status: 404})
		}
		p2p = append(p2p, badRequest{method: "PUT", target: api + "chain/" + c + "/mempool/insert", ctype: "application/json", body: "[]", status: 404})
	}
	for _, r := range []string{"chain/0/hash", "chain/0/block", "header/updates", "chain/0/pact/api/v1/send", "make-backup", "nope"} {
		p2p = append(p2p, badRequest{method: "GET", target: api + r, status: 404})
	}
	p2p = append(p2p, badRequest{method: "GET", target: "/chainweb/0.0/mainnet01/cut", status: 404},
		badRequest{method: "GET", target: api + "cut%2Fpeer", status: 404},
		badRequest{method: "GET", target: api + "cut//peer", status: 404},
		badRequest{method: "GET", target: api + "chain/0/header/" + slashes, status: 400},
		badRequest{method: "GET", target: api + "chain/0/header/" + unknown, status: 404},
		badRequest{method: "GET", target: api + "cut", accept: "application/foo", status: 406},
		badRequest{method: "GET", target: api + "chain/0/header", accept: "application/xml", status: 406},
		badRequest{method: "POST", target: api + "cut", status: 405},
		badRequest{method: "DELETE", target: api + "cut/peer", status: 405},
		badRequest{method: "GET", target: api + "chain/0/mempool/insert", status: 405},
		badRequest{method: "GET", target: api + "chain/0/header?limit=x", status: 400})
	cut := string(AppendCutWithOrigin(nil, ledger.NewCut(f.v, f.heads), mustPeer(t, "10.9.9.9:1789")))
	peerEntry := func(host, port string) string {
		return `{"id":null,"address":{"hostname":"` + host + `","port":` + port + `}}`
	}
	for _, b := range []struct {
		method, path, body string
		status             int
	}{
		{"PUT", "cut", cut, 401}, // an origin this node does not know
		{"PUT", "cut", "{", 400},
		{"PUT", "cut", "[]", 400},
		{"PUT", "cut", string(ledger.NewCut(f.v, f.heads).AppendJSON(nil)), 400}, // no origin
		{"PUT", "cut", strings.Replace(cut, `"hostname":"10.9.9.9"`, `"hostname":"a\r\nb"`, 1), 400},
		{"PUT", "cut", strings.Replace(cut, `"port":1789`, `"port":0`, 1), 400},
		{"PUT", "cut", strings.Replace(cut, `"development"`, `"mainnet01"`, 1), 400},
		{"PUT", "cut/peer", "{", 400},
		{"PUT", "cut/peer", "null", 400},
		{"PUT", "cut/peer", peerEntry("a\\r\\nb", "1"), 400},
		{"PUT", "cut/peer", peerEntry("a\\u0000b", "1"), 400},
		{"PUT", "cut/peer", peerEntry(strings.Repeat("9", 300), "1"), 400},
		{"PUT", "cut/peer", peerEntry(strings.Repeat("9", 10000), "1"), 413},
		{"PUT", "cut/peer", peerEntry("a.org", "70000"), 400},
		{"PUT", "cut/peer", peerEntry("a.org", "0"), 400},
		{"PUT", "cut/peer", peerEntry("a.org", "-5"), 400},
		{"PUT", "cut/peer", peerEntry("a..org", "1"), 400},
		{"PUT", "cut/peer", peerEntry("1.2.3", "1"), 400},
		{"PUT", "cut/peer", peerEntry("[::1]", "1"), 400},
		{"PUT", "chain/0/mempool/insert", "{", 400},
		{"PUT", "chain/0/mempool/insert", `[{"hash":"x"}]`, 400},
		{"POST", "chain/0/mempool/member", `["x"]`, 400},
		{"POST", "chain/0/mempool/lookup", `{}`, 400},
		{"POST", "chain/0/header/branch", `{"upper":["x"]}`, 400},
		{"POST", "chain/0/payload/batch", `{"x":1}`, 400},
	} {
		p2p = append(p2p, badRequest{method: b.method, target: api + b.path, ctype: "application/json", body: b.body, status: b.status})
	}
	for _, r := range []string{"cut", "cut/peer", "chain/0/mempool/insert"} {
		p2p = append(p2p, badRequest{method: "PUT", target: api + r, body: "{}", status: 415},
			badRequest{method: "PUT", target: api + r, ctype: "application/json", declared: big, status: 413})
	}

	// pact -s.
	pact := []badRequest{}
	for _, op := range []string{"send", "poll", "listen", "local", "private", "verify", "spv"} {
		pact = append(pact,
			badRequest{method: "GET", target: "/api/v1/" + op, status: 405},
			badRequest{method: "PUT", target: "/api/v1/" + op, status: 405},
			badRequest{method: "POST", target: "/api/v1/" + op, ctype: "application/json", body: "{", status: 400},
			badRequest{method: "POST", target: "/api/v1/" + op, ctype: "application/json", body: "[1]", status: 400},
			badRequest{method: "POST", target: "/api/v1/" + op, body: "{}", status: 415},
			badRequest{method: "POST", target: "/api/v1/" + op, ctype: "application/json", declared: big, status: 413},
			badRequest{method: "POST", target: "/api/v1/" + op + "%2F", ctype: "application/json", body: "{}", status: 404},
			badRequest{method: "POST", target: "/api/v1//" + op, ctype: "application/json", body: "{}", status: 404},
			badRequest{method: "POST", target: "/api/v1/x/../" + op, ctype: "application/json", body: "{}", status: 404})
	}
	for _, p := range []string{"/", "/api", "/api/v1", "/api/v1/nope", "/api/v2/send", "/chainweb/0.0/development/cut",
		"/version/x", "/api%2Fv1/send", "//version"} {
		pact = append(pact, badRequest{method: "GET", target: p, status: 404})
	}
	pact = append(pact, badRequest{method: "POST", target: "/version", status: 405},
		badRequest{method: "GET", target: "/version?x=" + strings.Repeat("a", 20000), status: 431})
	svc = append(svc, badRequest{method: "GET", target: "/info?x=" + strings.Repeat("a", 20000), status: 431})
	p2p = append(p2p, badRequest{method: "GET", target: api + "cut?x=" + strings.Repeat("a", 20000), status: 431})

	count := 0
	for _, s := range []struct {
		name string
		addr string
		reqs []badRequest
	}{
		{"service API", strings.TrimPrefix(f.base, "http://"), svc},
		{"peer API", peerAddr, p2p},
		{"pact -s", strings.TrimPrefix(pactSBase, "http://"), pact},
	} {
		for _, r := range s.reqs {
			count++
			status, ctype, body := sendRaw(t, s.addr, r)
			if len(body) > 300 {
				body = body[:300] + "…"
			}
			what := s.name + ": " + r.method + " " + r.target
			if r.accept != "" {
				what += " (Accept: " + r.accept + ")"
			}
			if status >= 500 {
				t.Errorf("%s: %d %q", what, status, body)
				continue
			}
			if status != r.status {
				t.Errorf("%s: %d %q, want %d", what, status, body, r.status)
			}
			checkReason(t, what, status, ctype, body)
		}
	}
	t.Logf("%d bad requests, each answered with its 4xx and a reason", count)
	if count < 300 {
		t.Errorf("only %d requests", count)
	}
	if n := peer.InternalErrors() + pactS.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}

// checkReason checks that a 4xx body says why: a text/plain sentence, or the not-found JSON
// body with a non-empty reason.
func checkReason(t *testing.T, what string, status int, ctype, body string) {
	t.Helper()
	switch {
	case status < 400 || status > 499:
		t.Errorf("%s: status %d", what, status)
	case strings.HasPrefix(ctype, "text/plain"):
		if len(strings.TrimSpace(body)) < 8 {
			t.Errorf("%s: %d with the reason %q", what, status, body)
		}
	case strings.HasPrefix(ctype, "application/json"):
		// The not-found body, or the branch-limit JSON string.
		if !strings.Contains(body, `"reason":"`) && !strings.HasPrefix(body, `"`) || strings.Contains(body, `"reason":""`) {
			t.Errorf("%s: %d with JSON %q", what, status, body)
		}
	default:
		t.Errorf("%s: %d with Content-Type %q and body %q", what, status, ctype, body)
	}
}

// sendRaw sends r on a fresh connection, bytes as written, and reads the response.
func sendRaw(t *testing.T, addr string, r badRequest) (status int, ctype, body string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(hangguard.Deadline())
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n", r.method, r.target)
	if r.ctype != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", r.ctype)
	}
	if r.accept != "" {
		fmt.Fprintf(&b, "Accept: %s\r\n", r.accept)
	}
	switch {
	case r.declared > 0:
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", r.declared)
	case r.body != "" || r.method == "POST" || r.method == "PUT":
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(r.body), r.body)
	default:
		b.WriteString("\r\n")
	}
	go io.WriteString(conn, b.String()) // the server may answer before reading everything
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.target, err)
	}
	defer res.Body.Close()
	rb, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), string(rb)
}

// servePeer runs a peer API over f's store on 127.0.0.1:0, with a throttle that lets a test's
// hundreds of requests through.
func servePeer(t *testing.T, f *fixture) (*Service, string) {
	t.Helper()
	svc := NewPeerService(ServiceConfig{Version: f.v, Store: f.db, Cut: func() *ledger.Cut { return ledger.NewCut(f.v, f.heads) }},
		PeerConfig{Node: &recordingNode{}, Throttle: Throttle{Global: 1e6, PutPeer: 1e6, Mempool: 1e6}})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangguard.Limit)
		defer cancel()
		svc.Shutdown(ctx)
		<-done
	})
	return svc, ln.Addr().String()
}

func mustPeer(t *testing.T, addr string) PeerInfo {
	t.Helper()
	p, err := ParsePeerAddr(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// servePactS serves `pact -s`'s server over api on a loopback port until the test ends.
func servePactS(t *testing.T, api contracthttp.API) (*contracthttp.ContractServer, string) {
	t.Helper()
	srv := contracthttp.NewContractServer(contracthttp.ContractServerConfig{API: api, Version: "pact version 5.4", Logger: quietLog})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangguard.Limit)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return srv, "http://" + ln.Addr().String()
}
