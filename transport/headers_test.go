package transport

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

func TestHeaderByHashEncodings(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"m0", "m12", "a13", "c13", "n2"} {
		want := f.named[name]
		path := "chain/" + strconv.Itoa(int(want.ChainID)) + "/header/" + want.Hash.String()

		plain := f.get(path).expect(t, http.StatusOK)
		if ct := plain.header.Get("Content-Type"); ct != "application/json;charset=utf-8" {
			t.Fatalf("Content-Type %q", ct)
		}
		var s string
		if err := json.Unmarshal(plain.body, &s); err != nil {
			t.Fatal(err)
		}
		fromB64, err := ledger.DecodeHeaderB64(s)
		if err != nil {
			t.Fatal(err)
		}

		obj := f.get(path, "Accept", ledger.ObjectMediaType).expect(t, http.StatusOK)
		if ct := obj.header.Get("Content-Type"); ct != ledger.ObjectMediaType {
			t.Fatalf("object Content-Type %q", ct)
		}
		fromObj, err := ledger.DecodeHeaderObject(obj.body)
		if err != nil {
			t.Fatalf("object: %v: %s", err, obj.body)
		}

		bin := f.get(path, "Accept", "application/octet-stream").expect(t, http.StatusOK)
		if ct := bin.header.Get("Content-Type"); ct != "application/octet-stream" {
			t.Fatalf("binary Content-Type %q", ct)
		}
		fromBin, err := ledger.DecodeHeader(bin.body)
		if err != nil {
			t.Fatal(err)
		}
		for enc, h := range map[string]*ledger.Header{"b64": fromB64, "object": fromObj, "binary": fromBin} {
			if !bytes.Equal(h.Bytes(), want.Bytes()) {
				t.Errorf("%s %s: decoded header differs from the stored one", name, enc)
			}
		}
		// What picks which encoding.
		for accept, wantCT := range map[string]string{
			"*/*":                            "application/json;charset=utf-8",
			"application/*":                  "application/json;charset=utf-8",
			"application/json":               "application/json;charset=utf-8",
			"application/json;charset=utf-8": "application/json;charset=utf-8",
			"text/html, */*;q=0.1":           "application/json;charset=utf-8",
			"application/json;q=0.5, application/octet-stream":  "application/octet-stream",
			"*/*, application/json;q=0":                         "application/octet-stream",
			"application/json; blockheader-encoding=object;q=1": ledger.ObjectMediaType,
		} {
			r := f.get(path, "Accept", accept).expect(t, http.StatusOK)
			if ct := r.header.Get("Content-Type"); ct != wantCT {
				t.Errorf("Accept %q: Content-Type %q, want %q", accept, ct, wantCT)
			}
		}
	}
	for _, accept := range []string{"text/html", "application/xml", "application/json;blockheader-encoding=binary", "image/*", "nonsense", "application/octet-stream;q=0", "text/html, image/*;q=0.5"} {
		r := f.get("chain/0/header/"+f.named["m1"].Hash.String(), "Accept", accept).expect(t, http.StatusNotAcceptable)
		// Servant's 406 is empty; ours says what was asked for and what there is.
		want := "cannot produce any of the accepted media types: " + accept +
			"; available: application/json, application/json;blockheader-encoding=object, application/octet-stream"
		if string(r.body) != want || r.header.Get("Content-Type") != "text/plain;charset=utf-8" {
			t.Errorf("406 body %q (%s), want %q", r.body, r.header.Get("Content-Type"), want)
		}
	}
	// Header lists offer JSON and object encodings; hash and block lists JSON only.
	for path, accept := range map[string]string{
		"chain/0/header": "application/octet-stream", "chain/0/hash": ledger.ObjectMediaType,
		"chain/0/block": ledger.ObjectMediaType, "chain/0/hash?limit=1": "application/octet-stream",
	} {
		f.get(path, "Accept", accept).expect(t, http.StatusNotAcceptable)
	}
	// Unknown or elsewhere: the not-found body.
	for _, c := range []struct{ path, key string }{
		{"chain/0/header/" + ledger.Hash{42}.String(), ledger.Hash{42}.String()},
		{"chain/0/header/" + f.named["n1"].Hash.String(), f.named["n1"].Hash.String()},
		{"chain/5/header/" + f.named["m1"].Hash.String(), f.named["m1"].Hash.String()},
	} {
		for _, accept := range []string{"", ledger.ObjectMediaType, "application/octet-stream"} {
			if key, reason := f.get(c.path, "Accept", accept).notFound(t); key != c.key || reason != "key not found" {
				t.Errorf("%s: %q %q", c.path, key, reason)
			}
		}
	}
	// A malformed hash capture is a 400 with the parser's message.
	for _, bad := range []string{"abc", strings.Repeat("A", 44), strings.Repeat("*", 43), "branch"} {
		r := f.get("chain/0/header/"+bad).expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(string(r.body), "Error parsing path parameter blockHash failed: ") {
			t.Errorf("%q: %q", bad, r.body)
		}
	}
}

// TestMainnetChain5Vector serves the 360 real chain-5 mainnet headers (6 of them fork siblings)
// and checks the header list against them byte for byte.
func TestMainnetChain5Vector(t *testing.T) {
	raw, err := os.ReadFile("../testdata/vectors/mainnet01-chain5-headers.json")
	if err != nil {
		t.Fatal(err)
	}
	var vec struct {
		Count   int `json:"count"`
		Headers []struct {
			Height uint64 `json:"height"`
			Binary string `json:"binary_b64url"`
			Hash   string `json:"blockHash_b64url"`
		} `json:"headers"`
	}
	if err := json.Unmarshal(raw, &vec); err != nil {
		t.Fatal(err)
	}
	if vec.Count != 360 || len(vec.Headers) != 360 {
		t.Fatalf("vector holds %d headers", len(vec.Headers))
	}
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	wantBytes := map[ledger.Hash][]byte{}
	var hs []*ledger.Header
	for _, v := range vec.Headers {
		b, err := ledger.DecodeB64(v.Binary)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ledger.DecodeHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		if h.Hash.String() != v.Hash || h.Height != v.Height {
			t.Fatalf("vector record %s does not decode to itself", v.Hash)
		}
		wantBytes[h.Hash] = b
		hs = append(hs, h)
	}
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t}
	f.start(ServiceConfig{Version: ledger.Mainnet01, Store: db, PackageVersion: "test"})

	p := f.get("chain/5/header?limit=360").page(t)
	if len(p.Items) != 360 || p.Next != nil {
		t.Fatalf("%d items, next %v", len(p.Items), p.Next)
	}
	var prev *ledger.Header
	seen := map[ledger.Hash]bool{}
	for i, it := range p.Items {
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			t.Fatal(err)
		}
		b, err := ledger.DecodeB64(s)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ledger.DecodeHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, wantBytes[h.Hash]) {
			t.Fatalf("item %d (%s) differs from the vector's bytes", i, h.Hash)
		}
		if prev != nil && cmp.Or(cmp.Compare(prev.Height, h.Height), bytes.Compare(prev.Hash[:], h.Hash[:])) >= 0 {
			t.Fatalf("item %d (height %d) not after item %d (height %d) in (height, raw hash) order", i, h.Height, i-1, prev.Height)
		}
		seen[h.Hash] = true
		prev = h
	}
	if len(seen) != 360 {
		t.Fatalf("%d distinct headers served", len(seen))
	}
	// The fork siblings are there: 354 heights for 360 headers.
	heights := map[uint64]bool{}
	for _, h := range hs {
		heights[h.Height] = true
	}
	if len(heights) != 354 {
		t.Fatalf("%d heights", len(heights))
	}
	// And the object encoding of the first header is the vector's object form.
	var first struct {
		Obj json.RawMessage `json:"firstHeaderObject"`
	}
	json.Unmarshal(raw, &first)
	want, err := ledger.DecodeHeaderObject(first.Obj)
	if err != nil {
		t.Fatal(err)
	}
	got := f.get("chain/5/header/"+want.Hash.String(), "Accept", ledger.ObjectMediaType).expect(t, http.StatusOK)
	h, err := ledger.DecodeHeaderObject(got.body)
	if err != nil || !slices.Equal(h.Bytes(), want.Bytes()) {
		t.Fatalf("object form: %v", err)
	}
}
