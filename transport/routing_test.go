package transport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
)

func TestRoutingNotFound(t *testing.T) {
	f := newFixture(t)
	const api = "/chainweb/0.0/development/"
	const chains = ": this network has chains 0–19"
	// Servant answers these with an empty 404; ours says why (issue 19): a client's error then
	// has a message. Relative paths are under /chainweb/0.0/development/.
	for path, want := range map[string]string{
		"/":                                      "no route for GET /",
		"/nope":                                  "no route for GET /nope",
		"/chainweb":                              "no route for GET /chainweb: the API's paths start with " + api,
		"/chainweb/0.0":                          "no route for GET /chainweb/0.0: the API's paths start with " + api,
		"/chainweb/0.0/development":              "no route for GET /chainweb/0.0/development",
		"/chainweb/0.0/mainnet01/chain/0/hash":   "no route for GET /chainweb/0.0/mainnet01/chain/0/hash: unknown network mainnet01: this node serves development (" + api + ")",
		"/chainweb/0.1/development/chain/0/hash": "no route for GET /chainweb/0.1/development/chain/0/hash: unknown API version 0.1: this node serves " + api,
		"chain/20/hash":                          "unknown chain 20" + chains,
		"chain/99/header":                        "unknown chain 99" + chains,
		"chain/99999999999999999999/header":      "unknown chain 99999999999999999999" + chains,
		"chain/abc/hash":                         "chain abc is not a chain id" + chains,
		"chain/05/hash":                          "chain 05 is not a chain id (no leading zeros)" + chains,
		"chain/-1/hash":                          "chain -1 is not a chain id" + chains,
		"chain/%20/hash":                         `chain " " is not a chain id` + chains,
		"chain//hash":                            "no route for GET " + api + "chain//hash: empty path segment (paths are not normalized: // is not /)",
		"chain/0":                                "no route for GET " + api + "chain/0",
		"chain/0/nope":                           "no route for GET " + api + "chain/0/nope",
		"chain/0/hash/branch/x":                  "no route for GET " + api + "chain/0/hash/branch/x",
		"chain/0/payload":                        "no route for GET " + api + "chain/0/payload",
		"cut/x":                                  "no route for GET " + api + "cut/x",
		"info":                                   "no route for GET " + api + "info",
		"/info/x":                                "no route for GET /info/x",
		"/health-check/now":                      "no route for GET /health-check/now",
		"chain/0/header/" + strings.Repeat("A", 43) + "/x": "no route for GET " + api + "chain/0/header/" + strings.Repeat("A", 43) + "/x",
		api + "chain/0/a/b/c/d/e/f/g/h/i/j/k":              "no route for GET " + api + "chain/0/a/b/c/d/e/f/g/h/i/j/k: more than 12 path segments",
		// No normalization: "." and ".." are segments like any other, "%2F" is a byte of its segment.
		"chain/0/../0/hash":                       "no route for GET " + api + "chain/0/../0/hash",
		"chain/0/./hash":                          "no route for GET " + api + "chain/0/./hash",
		"chain/0/hash%2Fx":                        "no route for GET " + api + "chain/0/hash%2Fx",
		"chain%2F0/hash":                          "no route for GET " + api + "chain%2F0/hash",
		"/chainweb//0.0/development/chain/0/hash": "no route for GET /chainweb//0.0/development/chain/0/hash: empty path segment (paths are not normalized: // is not /)",
	} {
		r := f.get(path)
		if r.status != http.StatusNotFound || string(r.body) != want || r.header.Get("Content-Type") != "text/plain;charset=utf-8" {
			t.Errorf("%s: %d %q (Content-Type %q), want 404 %q", path, r.status, r.body, r.header.Get("Content-Type"), want)
		}
	}
	// A trailing slash is ignored, as servant ignores it.
	f.get("/info/").expect(t, http.StatusOK)
	f.get("chain/0/hash/").page(t)
	// A percent-encoded letter is that letter (Warp decodes each segment).
	f.get("chain/0/h%61sh").page(t)
}

// TestEncodedSlashIsNotASeparator: "%2F" inside a segment belongs to that segment, so 43 of
// them are a malformed block hash (400), never the header list at …/header/ (which fasthttp's
// normalized path would have routed to).
func TestEncodedSlashIsNotASeparator(t *testing.T) {
	f := newFixture(t)
	r := f.get("chain/0/header/"+strings.Repeat("%2F", 43)).expect(t, http.StatusBadRequest)
	if !strings.HasPrefix(string(r.body), "Error parsing path parameter blockHash failed: ") {
		t.Errorf("body %q", r.body)
	}
	r = f.get("chain/0/header/"+strings.Repeat("%2F", 2)).expect(t, http.StatusBadRequest)
	if !strings.HasPrefix(string(r.body), "Error parsing path parameter blockHash failed: ") {
		t.Errorf("body %q", r.body)
	}
	// The same hash written with a percent-encoded character is the same hash.
	h := f.named["m1"].Hash.String()
	enc := "%" + strconv.FormatInt(int64(h[0]), 16) + h[1:]
	f.get("chain/0/header/"+enc).expect(t, http.StatusOK)
}

func TestRoutingMethodAndCaptureErrors(t *testing.T) {
	f := newFixture(t)
	m1 := f.named["m1"]
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodPost, "chain/0/hash", "GET, HEAD"},
		{http.MethodGet, "chain/0/hash/branch", "POST"},
		{http.MethodPut, "/info", "GET, HEAD"},
		{http.MethodDelete, "chain/0/header/" + m1.Hash.String(), "GET, HEAD"},
		{http.MethodGet, "chain/0/payload/batch", ""}, // "batch" is tried as a hash: 400, below
		{http.MethodPost, "cut", "GET, HEAD"},
		{http.MethodGet, "chain/0/payload/outputs/batch", "POST"},
	} {
		r := f.do(c.method, c.path, nil)
		if c.allow == "" {
			continue
		}
		want := "method " + c.method + " is not allowed on "
		if !strings.HasPrefix(c.path, "/") {
			want += "/chainweb/0.0/development/"
		}
		want += c.path + "; allowed: " + c.allow
		if r.status != http.StatusMethodNotAllowed || string(r.body) != want {
			t.Errorf("%s %s: %d %q, want 405 %q", c.method, c.path, r.status, r.body, want)
		}
		if got := r.header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
	}
	// servant's priorities: a malformed capture (400) beats a wrong method (405).
	for _, c := range []struct{ method, path, param string }{
		{http.MethodGet, "chain/0/header/branch", "blockHash"},
		{http.MethodGet, "chain/0/payload/batch", "payloadHash"},
		{http.MethodPost, "chain/0/header/xyz", "blockHash"},
		{http.MethodGet, "chain/0/payload/xyz/outputs", "payloadHash"},
	} {
		r := f.do(c.method, c.path, nil).expect(t, http.StatusBadRequest)
		if want := "Error parsing path parameter " + c.param + " failed: "; !strings.HasPrefix(string(r.body), want) {
			t.Errorf("%s %s: %q", c.method, c.path, r.body)
		}
	}
}

func TestHeadAndOptions(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/info", "/health-check", "cut", "chain/0/hash", "chain/0/header/" + f.named["m3"].Hash.String()} {
		get := f.get(path).expect(t, http.StatusOK)
		head := f.do(http.MethodHead, path, nil).expect(t, http.StatusOK)
		if len(head.body) != 0 {
			t.Errorf("HEAD %s has a body", path)
		}
		if head.header.Get("Content-Length") != strconv.Itoa(len(get.body)) && path != "cut" {
			t.Errorf("HEAD %s: Content-Length %q, GET body %d bytes", path, head.header.Get("Content-Length"), len(get.body))
		}
	}
	r := f.do(http.MethodOptions, "chain/0/header/branch", nil,
		"Origin", "https://example.org", "Access-Control-Request-Method", "POST").expect(t, http.StatusNoContent)
	if got := r.header.Get("Access-Control-Allow-Methods"); got != "POST, OPTIONS" {
		t.Errorf("preflight methods %q", got)
	}
	if r.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Errorf("preflight headers %v", r.header)
	}
	f.do(http.MethodOptions, "chain/0/nope", nil).expect(t, http.StatusNotFound)
}

// checkCommon checks the headers every response must carry.
func checkCommon(t *testing.T, what string, h http.Header, peer string) {
	t.Helper()
	if got := h.Get("X-Peer-Addr"); got != peer {
		t.Errorf("%s: x-peer-addr %q, want %q", what, got, peer)
	}
	ts, err := strconv.ParseInt(h.Get("X-Server-Timestamp"), 10, 64)
	if err != nil || ts < time.Now().Unix()-60 || ts > time.Now().Unix()+60 {
		t.Errorf("%s: x-server-timestamp %q", what, h.Get("X-Server-Timestamp"))
	}
	if h.Get("X-Ledger-Node-Version") != "9.9.9-test" || h.Get("X-Chainweb-Node-Version") != "9.9.9-test" {
		t.Errorf("%s: version headers %q %q", what, h.Get("X-Ledger-Node-Version"), h.Get("X-Chainweb-Node-Version"))
	}
	if h.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("%s: no CORS origin header", what)
	}
}

// rawRequest sends bytes on a fresh connection and reads one response; it returns the response
// and the connection's local address (what the server should report as x-peer-addr).
func (f *fixture) rawRequest(req []byte) (*http.Response, []byte, string) {
	f.t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.base, "http://"))
	if err != nil {
		f.t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(hangguard.Deadline())
	go conn.Write(req) // the server may answer before reading everything
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		f.t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	return res, body, conn.LocalAddr().String()
}

func TestCommonHeadersOnEveryResponse(t *testing.T) {
	f := newFixture(t)
	m30 := f.named["m30"].Hash.String()
	hashPath := "/chainweb/0.0/development/chain/0/header/" + m30
	big := 3 << 20
	for _, c := range []struct {
		name   string
		status int
		req    string
	}{
		{"200", 200, "GET " + hashPath + " HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"200 info", 200, "GET /info HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"204 preflight", 204, "OPTIONS /info HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"400", 400, "GET /chainweb/0.0/development/chain/0/hash?limit=x HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"404 route", 404, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"404 key", 404, "GET /chainweb/0.0/development/chain/0/header/" + ledger.Hash{1}.String() + " HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"405", 405, "DELETE /info HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"406", 406, "GET " + hashPath + " HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"},
		{"415", 415, "POST /chainweb/0.0/development/chain/0/hash/branch HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"},
		{"413", 413, fmt.Sprintf("POST /chainweb/0.0/development/chain/0/hash/branch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", big)},
		{"400 bad request line", 400, "GET\r\n\r\n"},
		{"431 huge request line", 431, "GET /info?x=" + strings.Repeat("a", 20000) + " HTTP/1.1\r\nHost: x\r\n\r\n"},
	} {
		res, body, local := f.rawRequest([]byte(c.req))
		if res.StatusCode != c.status {
			t.Errorf("%s: status %d (%q)", c.name, res.StatusCode, body)
			continue
		}
		checkCommon(t, c.name, res.Header, local)
	}
}

func TestBodyTooLarge(t *testing.T) {
	f := newFixture(t)
	path := "/chainweb/0.0/development/chain/0/hash/branch"
	want := func(n string) string {
		return "Request body too large to be processed. The maximum size is 2097152 bytes; your request body was " + n
	}
	// Declared length over the limit: refused before the body is read.
	big := 2<<20 + 1
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, big)
	res, body, local := f.rawRequest([]byte(req))
	if res.StatusCode != 413 || string(body) != want(strconv.Itoa(big)+" bytes.") {
		t.Errorf("413: %d %q", res.StatusCode, body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/plain;charset=utf-8" {
		t.Errorf("413 Content-Type %q", ct)
	}
	checkCommon(t, "413", res.Header, local)
	// Chunked: the size is only known once the limit is crossed.
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", path)
	chunk := bytes.Repeat([]byte(" "), 64<<10)
	for range 40 {
		fmt.Fprintf(&b, "%x\r\n%s\r\n", len(chunk), chunk)
	}
	b.WriteString("0\r\n\r\n")
	res, body, local = f.rawRequest(b.Bytes())
	if res.StatusCode != 413 || string(body) != want("split into chunks, whose total size is unknown, but exceeded the limit.") {
		t.Errorf("chunked 413: %d %q", res.StatusCode, body)
	}
	checkCommon(t, "chunked 413", res.Header, local)
	// Expect: 100-continue with a declared size over the limit: refused before any body is sent.
	req = fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", path, big)
	res, body, local = f.rawRequest([]byte(req))
	if res.StatusCode != 413 || string(body) != want(strconv.Itoa(big)+" bytes.") {
		t.Errorf("100-continue 413: %d %q", res.StatusCode, body)
	}
	checkCommon(t, "100-continue 413", res.Header, local)
	// Within the limit, 100-continue proceeds as usual.
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(hangguard.Deadline())
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", path)
	br := bufio.NewReader(conn)
	if cont, err := http.ReadResponse(br, nil); err != nil || cont.StatusCode != http.StatusContinue {
		t.Fatalf("100-continue: %v %v", cont, err)
	}
	conn.Write([]byte("{}"))
	if final, err := http.ReadResponse(br, nil); err != nil || final.StatusCode != http.StatusOK {
		t.Fatalf("after 100-continue: %v %v", final, err)
	}
	// Exactly at the limit is fine (and then just a malformed JSON body).
	ok := f.postJSON("chain/0/hash/branch", bytes.Repeat([]byte(" "), 2<<20))
	ok.expect(t, http.StatusBadRequest)
	// A small chunked body is read normally.
	var sb bytes.Buffer
	fmt.Fprintf(&sb, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", path)
	if res, body, _ := f.rawRequest(sb.Bytes()); res.StatusCode != 200 {
		t.Errorf("small chunked body: %d %q", res.StatusCode, body)
	}
}

// TestShutdownBeforeServe: a Shutdown that wins the race with Serve still stops it (Serve
// returns at once instead of serving forever).
func TestShutdownBeforeServe(t *testing.T) {
	f := newFixture(t)
	svc := NewService(ServiceConfig{Version: ledger.Mainnet01, Store: f.db})
	if err := svc.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ln) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve after Shutdown: %v", err)
		}
	case <-hangguard.After():
		t.Fatal(hangguard.Failure("Serve's return after Shutdown"))
	}
}
