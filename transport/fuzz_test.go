package transport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
)

// The request parsers take client bytes as they come; none may panic, and what they accept must
// round-trip.

func FuzzParseCursor(f *testing.F) {
	h := ledger.Hash{1, 2, 3}.String()
	for _, s := range []string{"inclusive:" + h, "exclusive:" + h, "inclusive:", ":", "foo", "inclusive:" + h + "x", "\xff:\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseCursor(b)
		if err != nil {
			return
		}
		if back := c.appendText(nil); !bytes.Equal(back, b) {
			t.Fatalf("cursor %q re-encodes as %q", b, back)
		}
	})
}

func FuzzParseBranchBody(f *testing.F) {
	h := ledger.Hash{9}.String()
	for _, s := range []string{`{}`, `{"upper":["` + h + `"]}`, `{"lower":null,"upper":["` + h + `","` + h + `"]}`, `[]`, `{"upper":[1]}`, `{"upper":`, ``, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		bb, err := parseBranchBody(b)
		if err != nil {
			return
		}
		for _, l := range [][]ledger.Hash{bb.lower, bb.upper} {
			seen := map[ledger.Hash]bool{}
			for _, x := range l {
				if seen[x] {
					t.Fatalf("duplicate bound after parsing %q", b)
				}
				seen[x] = true
			}
		}
	})
}

func FuzzParsePayloadBatch(f *testing.F) {
	h := ledger.Hash{9}.String()
	for _, s := range []string{`[]`, `["` + h + `"]`, `{"hashes":["` + h + `"],"heights":[1]}`, `{"hashes":["` + h + `"]}`, `{}`, `"x"`, `[1]`, ``} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if limit < 0 || limit > 5000 {
			return
		}
		hs, err := parsePayloadBatch(b, limit)
		if err != nil {
			if err != errBatchBody {
				t.Fatalf("error %v is not the batch error", err)
			}
			return
		}
		if len(hs) > limit {
			t.Fatalf("%d hashes over limit %d", len(hs), limit)
		}
	})
}

func FuzzParseListQuery(f *testing.F) {
	h := ledger.Hash{4}.String()
	for _, s := range []string{"", "limit=3", "limit=0&next=inclusive:" + h, "minheight=1&maxheight=2", "limit=99999999999999999999999", "limit=-1", "next=%ff", "maxheight=&minheight"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args fasthttp.Args
		args.Parse(s)
		q, err := parseListQuery(&args, 360)
		if err != nil {
			if err.Name == "" || err.Reason == "" {
				t.Fatalf("empty parameter error for %q", s)
			}
			return
		}
		if q.limit < 0 || q.limit > 360 {
			t.Fatalf("limit %d for %q", q.limit, s)
		}
	})
}

func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"", "*/*", "application/json", ledger.ObjectMediaType, "application/octet-stream;q=0.5, */*;q=0.1", "text/html", ";;,,", "a/b;q=2", "*/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, offers := range [][]encoding{offersJSON, offersHeaderList, offersHeaderByHash} {
			e, ok := negotiate([]byte(s), offers)
			if ok && !containsEnc(offers, e) {
				t.Fatalf("Accept %q picked %d, not offered", s, e)
			}
		}
	})
}

func containsEnc(es []encoding, e encoding) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// FuzzRoute feeds arbitrary paths and methods through the router: a route is found or a
// 400/405/404 decided with a reason, never a panic. Percent-encoding every byte of every
// segment changes nothing (each segment is decoded on its own), and encoding a path's slashes
// never finds a route the path does not have.
func FuzzRoute(f *testing.F) {
	r := newRouter(ledger.Development)
	nop := func(*fasthttp.RequestCtx, params) {}
	for _, p := range []string{"/info", "chain/{chain}/header/{blockHash}", "chain/{chain}/header/branch", "chain/{chain}/payload/{payloadHash}/outputs"} {
		r.handle(fasthttp.MethodGet, p, nop)
	}
	for _, s := range []string{"/info", "/chainweb/0.0/development/chain/0/header/branch", "//", "/chainweb/0.0/development/chain/19/payload/" + ledger.Hash{}.String() + "/outputs/",
		"/chainweb/0.0/development/chain/0/header/%2F%2F", "/chainweb/0.0/development/chain/%30/header/branch", "/x/../info", "/%"} {
		f.Add("GET", s)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		var p params
		rt, m := r.lookup([]byte(method), []byte(path), &p)
		if rt != nil && !r.version.HasChain(p.chain) {
			t.Fatalf("routed %q to chain %d", path, p.chain)
		}
		if rt == nil && m.badCapture == "" && !m.wrongMethod && m.notFound == "" {
			t.Fatalf("%s %q: a 404 without a reason", method, path)
		}
		r.allowedMethods([]byte(path))
		if !strings.HasPrefix(path, "/") || strings.Contains(path, "%") {
			return
		}
		var enc, slashes strings.Builder
		for i := 0; i < len(path); i++ {
			if path[i] == '/' {
				enc.WriteByte('/')
			} else {
				fmt.Fprintf(&enc, "%%%02X", path[i])
			}
			if path[i] == '/' && i > 0 {
				slashes.WriteString("%2F")
			} else {
				slashes.WriteByte(path[i])
			}
		}
		var q params
		if rt2, _ := r.lookup([]byte(method), []byte(enc.String()), &q); rt2 != rt || rt != nil && q != p {
			t.Fatalf("%q and its encoding %q route differently", path, enc.String())
		}
		if rt3, _ := r.lookup([]byte(method), []byte(slashes.String()), &q); rt3 != nil && strings.Count(strings.Trim(path, "/"), "/") > 0 {
			t.Fatalf("%q routed with its slashes encoded (%q)", path, slashes.String())
		}
	})
}

// FuzzService drives the whole handler in-process with arbitrary requests over the fixture's
// store: whatever a client sends, the answer is never a 5xx (which would mean a bug) and always
// carries the common headers.
func FuzzService(f *testing.F) {
	fx := newFixture(f)
	h := fx.svc.Handler()
	m30 := fx.named["m30"].Hash.String()
	m3 := fx.named["m3"].Hash.String()
	seeds := []struct{ method, uri, accept, ctype, body string }{
		{"GET", "/info", "", "", ""},
		{"GET", "/chainweb/0.0/development/chain/0/header/" + m30, "application/json;blockheader-encoding=object", "", ""},
		{"GET", "/chainweb/0.0/development/chain/0/block?limit=2&next=inclusive:" + m3, "", "", ""},
		{"GET", "/chainweb/0.0/development/chain/0/hash?minheight=3&maxheight=9", "*/*", "", ""},
		{"POST", "/chainweb/0.0/development/chain/0/header/branch?limit=1", "", "application/json", `{"upper":["` + m30 + `"],"lower":["` + m3 + `"]}`},
		{"POST", "/chainweb/0.0/development/chain/0/block/branch?maxheight=12", "", "application/json", `{"upper":["` + m30 + `"]}`},
		{"POST", "/chainweb/0.0/development/chain/0/payload/outputs/batch", "", "application/json", `{"hashes":["` + m3 + `"],"heights":[3]}`},
		{"HEAD", "/chainweb/0.0/development/cut", "", "", ""},
		{"GET", "/chainweb/0.0/development/cut?maxheight=240", "", "", ""},
		{"GET", "/chainweb/0.0/development/chain/0/block?minheight=28&maxheight=31", "", "", ""},
		{"OPTIONS", "/chainweb/0.0/development/chain/0/hash/branch", "", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.uri, s.accept, s.ctype, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, method, uri, accept, ctype string, body []byte) {
		var req fasthttp.Request
		req.Header.SetMethod(method)
		req.SetRequestURI(uri)
		req.Header.Set("Accept", accept)
		req.Header.SetContentType(ctype)
		req.SetBody(body)
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, nil, nil)
		h(&ctx)
		code := ctx.Response.StatusCode()
		if code >= 500 {
			t.Fatalf("%s %q: status %d: %s", method, uri, code, ctx.Response.Body())
		}
		if code >= 400 && len(ctx.Response.Body()) == 0 {
			t.Fatalf("%s %q: %d without a reason", method, uri, code)
		}
		if len(ctx.Response.Header.Peek("X-Server-Timestamp")) == 0 || len(ctx.Response.Header.Peek("X-Ledger-Node-Version")) == 0 {
			t.Fatalf("%s %q: common headers missing", method, uri)
		}
		if n := fx.svc.internalErrors.Load(); n != 0 {
			t.Fatalf("%d internal errors", n)
		}
	})
}

func FuzzParseMakeBlocks(f *testing.F) {
	for _, s := range []string{`{}`, `{"0":1,"3":2}`, `{"0":-1}`, `{"x":1}`, `{"01":1}`, `{"0":1e3}`, `null`, `[]`, `{"0":1}{}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		blocks, err := ParseMakeBlocks(b)
		if err != nil {
			return
		}
		// What is accepted re-encodes to a body that parses to the same request.
		var enc strings.Builder
		enc.WriteString("{")
		first := true
		for c, n := range blocks {
			if !first {
				enc.WriteString(",")
			}
			first = false
			fmt.Fprintf(&enc, `"%d":%d`, c, n)
		}
		enc.WriteString("}")
		back, err := ParseMakeBlocks([]byte(enc.String()))
		if err != nil || fmt.Sprint(back) != fmt.Sprint(blocks) {
			t.Fatalf("%q → %v re-parses as %v, %v", b, blocks, back, err)
		}
	})
}
