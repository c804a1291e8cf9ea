package transport

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// listCase is one GET list endpoint in one encoding.
type listCase struct {
	name   string
	path   string // relative, without query
	accept string
}

var getLists = []listCase{
	{"hash", "chain/0/hash", ""},
	{"header", "chain/0/header", ""},
	{"header-object", "chain/0/header", ledger.ObjectMediaType},
	{"block", "chain/0/block", ""},
}

func (f *fixture) getPage(lc listCase, query string) page {
	f.t.Helper()
	var hdr []string
	if lc.accept != "" {
		hdr = []string{"Accept", lc.accept}
	}
	r := f.get(lc.path+"?"+query, hdr...)
	if lc.accept != "" && r.status == http.StatusOK {
		if ct := r.header.Get("Content-Type"); ct != lc.accept {
			f.t.Fatalf("%s: Content-Type %q, want %q", lc.name, ct, lc.accept)
		}
	}
	return r.page(f.t)
}

// itemHash extracts the block hash of a page item of any list kind.
func itemHash(t *testing.T, item json.RawMessage) ledger.Hash {
	t.Helper()
	switch item[0] {
	case '"':
		var s string
		if err := json.Unmarshal(item, &s); err != nil {
			t.Fatal(err)
		}
		if len(s) == ledger.HashB64Len {
			h, err := ledger.ParseHash(s)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		h, err := ledger.DecodeHeaderB64(s)
		if err != nil {
			t.Fatalf("header item: %v", err)
		}
		return h.Hash
	case '{':
		var blk struct {
			Header  json.RawMessage `json:"header"`
			Payload json.RawMessage `json:"payloadWithOutputs"`
		}
		if err := json.Unmarshal(item, &blk); err != nil {
			t.Fatal(err)
		}
		obj := []byte(item)
		if blk.Header != nil {
			obj = blk.Header
		}
		h, err := ledger.DecodeHeaderObject(obj)
		if err != nil {
			t.Fatalf("object item: %v: %s", err, obj)
		}
		return h.Hash
	}
	t.Fatalf("unexpected item %s", item)
	return ledger.Hash{}
}

func itemHashes(t *testing.T, items []json.RawMessage) []ledger.Hash {
	out := make([]ledger.Hash, len(items))
	for i, it := range items {
		out[i] = itemHash(t, it)
	}
	return out
}

// withPayload drops the blocks whose payload is not stored: they are not blocks yet.
func (f *fixture) withPayload(hs []*ledger.Header) []*ledger.Header {
	return slices.DeleteFunc(slices.Clone(hs), func(h *ledger.Header) bool { return h == f.named["m25"] })
}

func (f *fixture) expectedList(lc listCase, hs []*ledger.Header) []ledger.Hash {
	if strings.HasSuffix(lc.path, "/block") || strings.HasSuffix(lc.path, "/block/branch") {
		hs = f.withPayload(hs)
	}
	return hashesOf(hs)
}

func filterHeight(hs []*ledger.Header, lo, hi uint64) []*ledger.Header {
	var out []*ledger.Header
	for _, h := range hs {
		if h.Height >= lo && h.Height <= hi {
			out = append(out, h)
		}
	}
	return out
}

func TestListOrderingAndContent(t *testing.T) {
	f := newFixture(t)
	all := f.chain(0)
	for _, lc := range getLists {
		t.Run(lc.name, func(t *testing.T) {
			p := f.getPage(lc, "")
			if p.Next != nil {
				t.Fatalf("next %q on a page holding the whole chain", *p.Next)
			}
			got, want := itemHashes(t, p.Items), f.expectedList(lc, all)
			if !slices.Equal(got, want) {
				t.Fatalf("order:\n got %v\nwant %v", f.names(got), f.names(want))
			}
		})
	}
	// Items carry the stored data, not just the right hashes.
	p := f.getPage(getLists[1], "minheight=13&maxheight=13")
	for _, it := range p.Items {
		var s string
		json.Unmarshal(it, &s)
		h, _ := ledger.DecodeHeaderB64(s)
		if !bytes.Equal(h.Bytes(), f.byHash[h.Hash].Bytes()) {
			t.Fatalf("header item differs from stored header %s", h.Hash)
		}
	}
	p = f.getPage(getLists[3], "minheight=3&maxheight=3")
	var blk struct {
		Header  json.RawMessage           `json:"header"`
		Payload ledger.PayloadWithOutputs `json:"payloadWithOutputs"`
	}
	if len(p.Items) != 1 {
		t.Fatalf("%d blocks at height 3", len(p.Items))
	}
	if err := json.Unmarshal(p.Items[0], &blk); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(p.Items[0], []byte(`{"header":{`)) {
		t.Fatalf("block item key order: %.40s", p.Items[0])
	}
	if blk.Payload.PayloadHash != f.named["m3"].PayloadHash || blk.Payload.Verify() != nil {
		t.Fatalf("block payload %s does not match m3", blk.Payload.PayloadHash)
	}
}

// collect follows next cursors from the first page until next is null.
func (f *fixture) collect(t *testing.T, fetch func(query string) page, limit int, extra string) []json.RawMessage {
	t.Helper()
	var items []json.RawMessage
	q := "limit=" + strconv.Itoa(limit) + extra
	for range 1000 {
		p := fetch(q)
		if len(p.Items) > limit {
			t.Fatalf("page of %d items for limit %d", len(p.Items), limit)
		}
		items = append(items, p.Items...)
		if p.Next == nil {
			return items
		}
		if !strings.HasPrefix(*p.Next, "inclusive:") {
			t.Fatalf("next %q is not inclusive", *p.Next)
		}
		if len(p.Items) < limit {
			t.Fatalf("short page (%d of %d) with next %q", len(p.Items), limit, *p.Next)
		}
		q = "limit=" + strconv.Itoa(limit) + extra + "&next=" + url.QueryEscape(*p.Next)
	}
	t.Fatal("paging did not terminate")
	return nil
}

func TestListPagingEqualsOnePage(t *testing.T) {
	f := newFixture(t)
	for _, lc := range getLists {
		for _, extra := range []string{"", "&minheight=9&maxheight=22"} {
			whole := f.getPage(lc, strings.TrimPrefix(extra, "&"))
			for _, limit := range []int{1, 2, 3, 7, 50} {
				got := f.collect(t, func(q string) page { return f.getPage(lc, q) }, limit, extra)
				if len(got) != len(whole.Items) {
					t.Fatalf("%s limit %d%s: %d items paged, %d in one page", lc.name, limit, extra, len(got), len(whole.Items))
				}
				for i := range got {
					if !bytes.Equal(got[i], whole.Items[i]) {
						t.Fatalf("%s limit %d%s: item %d differs", lc.name, limit, extra, i)
					}
				}
			}
		}
	}
}

func TestListMinMaxHeight(t *testing.T) {
	f := newFixture(t)
	all := f.chain(0)
	hashes := getLists[0]
	for _, c := range []struct {
		query  string
		lo, hi uint64
	}{
		{"minheight=11&maxheight=13", 11, 13},
		{"minheight=20", 20, 30},
		{"maxheight=30", 0, 30},
		{"maxheight=0", 0, 0},
		{"minheight=13&maxheight=13", 13, 13},
		{"minheight=14&maxheight=13", 14, 13},
	} {
		got := f.getPage(hashes, c.query).hashes(t)
		if want := hashesOf(filterHeight(all, c.lo, c.hi)); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", c.query, f.names(got), f.names(want))
		}
	}
	if p := f.getPage(hashes, "minheight=31"); len(p.Items) != 0 || p.Next != nil {
		t.Errorf("minheight above the tip: %d items, next %v", len(p.Items), p.Next)
	}
	// DECISIONS.md: a maxheight above the highest block stops the list at the tip, as upstream
	// (@kadena/client-utils asks for maxheight = tip + 1), and the page's next is null: it
	// reached the last item (DECISIONS.md).
	tip := hashesOf(filterHeight(all, 28, 30))
	for _, lc := range getLists {
		for _, q := range []string{"minheight=28&maxheight=31", "minheight=28&maxheight=18446744073709551615"} {
			p := f.getPage(lc, q)
			got := make([]ledger.Hash, len(p.Items))
			for i, it := range p.Items {
				got[i] = itemHash(t, it)
			}
			if !slices.Equal(got, tip) {
				t.Errorf("%s %s:\n got %v\nwant %v", lc.name, q, f.names(got), f.names(tip))
			}
			if p.Next != nil {
				t.Errorf("%s %s: next %v, want null", lc.name, q, *p.Next)
			}
		}
	}
	// A range with no block at all stays a 404 naming the maxheight: above the tip, or on a
	// chain without blocks.
	for _, c := range []struct{ path, key, reason string }{
		{"chain/0/hash?minheight=31&maxheight=40", "40", "minheight 31 is above the highest block of chain 0, at height 30"},
		{"chain/0/block?minheight=99&maxheight=99", "99", "minheight 99 is above"},
		{"chain/1/hash?maxheight=0", "0", "chain 1 has no blocks"},
	} {
		key, reason := f.get(c.path).notFound(t)
		if key != c.key || !strings.Contains(reason, c.reason) {
			t.Errorf("%s: key %q reason %q", c.path, key, reason)
		}
	}
	if p := f.get("chain/1/header").page(t); len(p.Items) != 0 || p.Next != nil {
		t.Errorf("empty chain: %d items, next %v", len(p.Items), p.Next)
	}
}

func orDefault(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestListLimitZero(t *testing.T) {
	f := newFixture(t)
	all := f.chain(0)
	for _, lc := range getLists {
		p := f.getPage(lc, "limit=0")
		if len(p.Items) != 0 || p.Limit != 0 || p.Next == nil || *p.Next != "inclusive:"+all[0].Hash.String() {
			t.Errorf("%s limit=0: %+v", lc.name, p)
		}
		p = f.getPage(lc, "limit=0&minheight=12")
		if want := "inclusive:" + filterHeight(all, 12, 99)[0].Hash.String(); p.Next == nil || *p.Next != want {
			t.Errorf("%s limit=0&minheight=12: next %v, want %s", lc.name, p.Next, want)
		}
		if p = f.getPage(lc, "limit=0&minheight=99"); p.Next != nil {
			t.Errorf("%s limit=0 with nothing matching: next %q", lc.name, *p.Next)
		}
	}
	m7 := f.named["m7"].Hash.String()
	if p := f.getPage(getLists[0], "limit=0&next=inclusive:"+m7); p.Next == nil || *p.Next != "inclusive:"+m7 {
		t.Errorf("limit=0 with a cursor: next %v", p.Next)
	}
}

func TestListLimitClampAndDefault(t *testing.T) {
	f := newFixture(t)
	// A long line on chain 2: more blocks than a header page may hold.
	f.genesis("z0", 2)
	f.line("z", 2, 1, 400)
	for i := 0; i <= 400; i++ {
		h := f.named["z"+strconv.Itoa(i)]
		if err := f.db.PutHeaders(h); err != nil {
			t.Fatal(err)
		}
		if err := f.db.PutPayload(f.payloads[h.PayloadHash]); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path string
		n    int
	}{
		{"chain/2/header", 360}, {"chain/2/header?limit=100000", 360}, {"chain/2/block?limit=361", 360},
		{"chain/2/hash", 401}, {"chain/2/hash?limit=99999999999999999999999999", 401},
		{"chain/2/header?limit=17", 17},
	} {
		p := f.get(c.path).page(t)
		if len(p.Items) != c.n {
			t.Errorf("%s: %d items, want %d", c.path, len(p.Items), c.n)
		}
		if (c.n < 401) != (p.Next != nil) {
			t.Errorf("%s: next %v", c.path, p.Next)
		}
	}
}

func TestListCursors(t *testing.T) {
	f := newFixture(t)
	all := f.chain(0)
	hashes := getLists[0]
	m10 := f.named["m10"]
	i := slices.Index(all, m10)

	got := f.getPage(hashes, "limit=3&next=exclusive:"+m10.Hash.String()).hashes(t)
	if want := hashesOf(all[i+1 : i+4]); !slices.Equal(got, want) {
		t.Errorf("exclusive cursor: got %v want %v", f.names(got), f.names(want))
	}
	got = f.getPage(hashes, "limit=3&next=inclusive:"+m10.Hash.String()).hashes(t)
	if want := hashesOf(all[i : i+3]); !slices.Equal(got, want) {
		t.Errorf("inclusive cursor: got %v want %v", f.names(got), f.names(want))
	}
	// A cursor below minheight: nothing left.
	if p := f.getPage(hashes, "minheight=11&next=inclusive:"+m10.Hash.String()); len(p.Items) != 0 || p.Next != nil {
		t.Errorf("cursor below minheight: %d items, next %v", len(p.Items), p.Next)
	}
	// Malformed cursors are 400 with servant's wording.
	for _, bad := range []string{"foo", "inclusive:abc", "sideways:" + m10.Hash.String(), "inclusive:", ":", "inclusive:" + m10.Hash.String() + "x"} {
		r := f.get("chain/0/hash?next="+url.QueryEscape(bad)).expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(string(r.body), "Error parsing query parameter next failed: ") {
			t.Errorf("next=%q: body %q", bad, r.body)
		}
		if ct := r.header.Get("Content-Type"); ct != "text/plain;charset=utf-8" {
			t.Errorf("next=%q: Content-Type %q", bad, ct)
		}
	}
	// Well-formed but unknown, or on another chain: 404 naming the hash.
	unknown := ledger.Hash{1, 2, 3}
	for _, h := range []ledger.Hash{unknown, f.named["n1"].Hash} {
		for _, lc := range getLists {
			key, reason := f.get(lc.path + "?next=inclusive:" + h.String()).notFound(t)
			if key != h.String() || reason != "key not found" {
				t.Errorf("%s unknown cursor: key %q reason %q", lc.name, key, reason)
			}
		}
	}
}

func TestQueryParamErrors(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ query, name string }{
		{"limit=abc", "limit"}, {"limit=-1", "limit"}, {"limit=", "limit"}, {"limit=1.5", "limit"},
		{"minheight=x", "minheight"}, {"minheight=-3", "minheight"},
		{"maxheight=1e3", "maxheight"}, {"maxheight=99999999999999999999999", "maxheight"},
	} {
		r := f.get("chain/0/header?"+c.query).expect(t, http.StatusBadRequest)
		if want := "Error parsing query parameter " + c.name + " failed: "; !strings.HasPrefix(string(r.body), want) {
			t.Errorf("%s: body %q", c.query, r.body)
		}
	}
	// Unknown parameters are ignored, as servant ignores them.
	f.get("chain/0/hash?color=blue").page(t)
}
