package transport

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// fixture is a running Service on 127.0.0.1:0 over a real store in t.TempDir(), holding a
// synthetic block tree with forks.
//
// Chain 0 of the development network:
//
//	g=m0 - m1 - … - m10 - m11 - … - m20 - m21 - … - m30      main line
//	                  \                \
//	                   a11 - a12 - … - a15   b21 - b22        forks
//	                          \
//	                           c13                           fork of a fork
//
// Chain 5 holds a short line n0..n3 (a block on another chain), chain 1 nothing. Block m25 has
// no stored payload (a header whose payload has not arrived).
type fixture struct {
	t      testing.TB
	v      *ledger.Version
	db     *store.DB
	svc    *Service
	base   string // http://127.0.0.1:port
	prefix string // base + /chainweb/0.0/<network>

	named    map[string]*ledger.Header
	byHash   map[ledger.Hash]*ledger.Header
	payloads map[ledger.Hash]*ledger.PayloadWithOutputs
	heads    []*ledger.Header
}

func newFixture(t testing.TB, configure ...func(*ServiceConfig)) *fixture {
	t.Helper()
	f := &fixture{
		t: t, v: ledger.Development,
		named:    map[string]*ledger.Header{},
		byHash:   map[ledger.Hash]*ledger.Header{},
		payloads: map[ledger.Hash]*ledger.PayloadWithOutputs{},
	}
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.db = db
	t.Cleanup(func() { db.Close() })

	f.genesis("m0", 0)
	f.line("m", 0, 1, 30)
	f.line("a", 0, 11, 15, "m10")
	f.line("b", 0, 21, 22, "m20")
	f.line("c", 0, 13, 13, "a12")
	f.genesis("n0", 5)
	f.line("n", 5, 1, 3)
	f.heads = []*ledger.Header{f.named["m30"], f.named["n3"]}

	for _, h := range f.byHash {
		if err := db.PutHeaders(h); err != nil {
			t.Fatal(err)
		}
		if h != f.named["m25"] {
			if err := db.PutPayload(f.payloads[h.PayloadHash]); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg := ServiceConfig{
		Version: f.v, Store: db, PackageVersion: "9.9.9-test", ServiceDate: "2030-01-01T00:00:00Z",
		Cut: func() *ledger.Cut { return ledger.NewCut(f.v, f.heads) },
	}
	for _, c := range configure {
		c(&cfg)
	}
	f.start(cfg)
	return f
}

// start runs a Service on a fresh loopback port and registers its shutdown. Every test ends by
// checking that nothing reached the 500 path.
func (f *fixture) start(cfg ServiceConfig) {
	t := f.t
	f.svc = NewService(cfg)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.svc.Serve(ln) }()
	f.base = "http://" + ln.Addr().String()
	f.prefix = f.base + "/chainweb/0.0/" + cfg.Version.Name
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangguard.Limit)
		defer cancel()
		if err := f.svc.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if n := f.svc.internalErrors.Load(); n != 0 {
			t.Errorf("%d requests reached the internal-error path", n)
		}
	})
}

func (f *fixture) add(name string, h *ledger.Header, p *ledger.PayloadWithOutputs) {
	h.PayloadHash = p.PayloadHash
	h.Seal()
	f.named[name] = h
	f.byHash[h.Hash] = h
	f.payloads[p.PayloadHash] = p
}

func testPayload(name string) *ledger.PayloadWithOutputs {
	return ledger.NewPayloadWithOutputs([]byte(`{"account":"`+name+`"}`), []byte(`{"coinbase":"`+name+`"}`),
		[]ledger.TxWithOutput{{Tx: []byte(`{"tx":"` + name + `"}`), Output: []byte(`{"out":"` + name + `"}`)}})
}

func (f *fixture) genesis(name string, c ledger.ChainID) {
	p := testPayload(name)
	f.add(name, ledger.GenesisHeader(f.v, c, p.PayloadHash), p)
}

// line adds blocks prefix+from … prefix+to on chain c, the first a child of parent (default:
// prefix+(from-1)).
func (f *fixture) line(prefix string, c ledger.ChainID, from, to int, parent ...string) {
	pname := prefix + strconv.Itoa(from-1)
	if len(parent) > 0 {
		pname = parent[0]
	}
	p := f.named[pname]
	for i := from; i <= to; i++ {
		name := prefix + strconv.Itoa(i)
		h := &ledger.Header{
			CreationTime: p.CreationTime + 30_000_000,
			Parent:       p.Hash,
			Target:       p.Target,
			ChainID:      c,
			Weight:       ledger.U256{p.Weight[0] + 1},
			Height:       p.Height + 1,
			Version:      f.v.Code,
			EpochStart:   p.EpochStart,
			Nonce:        uint64(len(name)) + uint64(name[0]),
		}
		for _, n := range f.v.GraphAt(h.Height).Neighbors(c) {
			h.Adjacents = append(h.Adjacents, ledger.Adjacent{Chain: n, Hash: sha256.Sum256([]byte(name + strconv.Itoa(int(n))))})
		}
		f.add(name, h, testPayload(name))
		p = h
	}
}

// chain returns the fixture's blocks of chain c in the index order: (height, raw hash).
func (f *fixture) chain(c ledger.ChainID) []*ledger.Header {
	var hs []*ledger.Header
	for _, h := range f.byHash {
		if h.ChainID == c {
			hs = append(hs, h)
		}
	}
	slices.SortFunc(hs, func(a, b *ledger.Header) int {
		return cmp.Or(cmp.Compare(a.Height, b.Height), bytes.Compare(a.Hash[:], b.Hash[:]))
	})
	return hs
}

// response is what a test request got back.
type response struct {
	status int
	header http.Header
	body   []byte
}

var testClient = &http.Client{Timeout: 20 * time.Second}

// do sends a request. A path starting with "/" is taken from the host root; any other path is
// relative to /chainweb/0.0/<network>/. hdr holds header name/value pairs.
func (f *fixture) do(method, path string, body []byte, hdr ...string) response {
	f.t.Helper()
	url := f.prefix + "/" + path
	if strings.HasPrefix(path, "/") {
		url = f.base + path
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := testClient.Do(req)
	if err != nil {
		f.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

func (f *fixture) get(path string, hdr ...string) response {
	return f.do(http.MethodGet, path, nil, hdr...)
}

// postJSON posts a JSON body with Content-Type application/json.
func (f *fixture) postJSON(path string, body any, hdr ...string) response {
	f.t.Helper()
	b, ok := body.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(body); err != nil {
			f.t.Fatal(err)
		}
	}
	return f.do(http.MethodPost, path, b, append([]string{"Content-Type", "application/json"}, hdr...)...)
}

func (r response) expect(t testing.TB, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %q", r.status, status, r.body)
	}
	return r
}

// page is a decoded list page.
type page struct {
	Limit int               `json:"limit"`
	Items []json.RawMessage `json:"items"`
	Next  *string           `json:"next"`
}

func (r response) page(t testing.TB) page {
	t.Helper()
	r.expect(t, http.StatusOK)
	if !bytes.HasPrefix(r.body, []byte(`{"limit":`)) {
		t.Fatalf("page does not start with limit: %.80s", r.body)
	}
	var p page
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("decode page: %v: %.200s", err, r.body)
	}
	if p.Items == nil {
		t.Fatalf("page without items array: %s", r.body)
	}
	if p.Limit != len(p.Items) {
		t.Fatalf("page limit %d but %d items", p.Limit, len(p.Items))
	}
	return p
}

// hashes decodes a page of hash strings.
func (p page) hashes(t testing.TB) []ledger.Hash {
	t.Helper()
	out := make([]ledger.Hash, len(p.Items))
	for i, it := range p.Items {
		if err := json.Unmarshal(it, &out[i]); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
	}
	return out
}

// notFoundBody checks a not-found body and returns its key and reason.
func (r response) notFound(t testing.TB) (key, reason string) {
	t.Helper()
	r.expect(t, http.StatusNotFound)
	if ct := r.header.Get("Content-Type"); ct != "application/json;charset=utf-8" {
		t.Fatalf("not-found Content-Type %q", ct)
	}
	var nf map[string]string
	if err := json.Unmarshal(r.body, &nf); err != nil || len(nf) != 2 {
		t.Fatalf("not-found body %q (%v)", r.body, err)
	}
	if !bytes.HasPrefix(r.body, []byte(`{"key":`)) {
		t.Fatalf("not-found keys not in alphabetical order: %s", r.body)
	}
	return nf["key"], nf["reason"]
}

func hashesOf(hs []*ledger.Header) []ledger.Hash {
	out := make([]ledger.Hash, len(hs))
	for i, h := range hs {
		out[i] = h.Hash
	}
	return out
}

func (f *fixture) names(hs []ledger.Hash) []string {
	byHash := map[ledger.Hash]string{}
	for n, h := range f.named {
		byHash[h.Hash] = n
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		if out[i] = byHash[h]; out[i] == "" {
			out[i] = "?" + h.String()
		}
	}
	return out
}

// quietLog discards what the code under test logs.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))
