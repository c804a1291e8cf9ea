package transport

import (
	"bytes"
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// ancestry returns h and all its stored ancestors.
func (f *fixture) ancestry(h *ledger.Header) []*ledger.Header {
	var out []*ledger.Header
	for ; h != nil; h = f.byHash[h.Parent] {
		out = append(out, h)
	}
	return out
}

// branchModel is the branch query by brute force: ancestors-or-self of some upper bound (each
// first moved to its ancestor at maxheight, dropped when lower) and of no lower bound, at or
// above minheight, by descending height then ascending raw hash.
func (f *fixture) branchModel(lower, upper []string, minH uint64, maxH *uint64) []ledger.Hash {
	excluded := map[ledger.Hash]bool{}
	for _, n := range lower {
		for _, a := range f.ancestry(f.named[n]) {
			excluded[a.Hash] = true
		}
	}
	in := map[ledger.Hash]*ledger.Header{}
	for _, n := range upper {
		u := f.named[n]
		if maxH != nil {
			if u.Height < *maxH {
				continue
			}
			for u.Height > *maxH {
				u = f.byHash[u.Parent]
			}
		}
		for _, a := range f.ancestry(u) {
			if !excluded[a.Hash] && a.Height >= minH {
				in[a.Hash] = a
			}
		}
	}
	hs := make([]*ledger.Header, 0, len(in))
	for _, h := range in {
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b *ledger.Header) int {
		return cmp.Or(cmp.Compare(b.Height, a.Height), bytes.Compare(a.Hash[:], b.Hash[:]))
	})
	return hashesOf(hs)
}

func (f *fixture) bounds(lower, upper []string) map[string][]string {
	body := map[string][]string{}
	if lower != nil {
		body["lower"] = nil
		for _, n := range lower {
			body["lower"] = append(body["lower"], f.named[n].Hash.String())
		}
	}
	if upper != nil {
		body["upper"] = nil
		for _, n := range upper {
			body["upper"] = append(body["upper"], f.named[n].Hash.String())
		}
	}
	return body
}

var branchLists = []listCase{
	{"hash", "chain/0/hash/branch", ""},
	{"header", "chain/0/header/branch", ""},
	{"header-object", "chain/0/header/branch", ledger.ObjectMediaType},
	{"block", "chain/0/block/branch", ""},
}

func (f *fixture) branchPage(lc listCase, query string, body any) page {
	f.t.Helper()
	var hdr []string
	if lc.accept != "" {
		hdr = []string{"Accept", lc.accept}
	}
	return f.postJSON(lc.path+"?"+query, body, hdr...).page(f.t)
}

func TestBranchSemantics(t *testing.T) {
	f := newFixture(t)
	u64 := func(v uint64) *uint64 { return &v }
	cases := []struct {
		name         string
		lower, upper []string
		minH         uint64
		maxH         *uint64
	}{
		{"one upper", nil, []string{"m30"}, 0, nil},
		{"upper and lower", []string{"m10"}, []string{"m30"}, 0, nil},
		{"forks", []string{"m5"}, []string{"a15", "b22", "m30"}, 0, nil},
		{"fork of a fork", []string{"a12"}, []string{"c13", "a15"}, 0, nil},
		{"lower on another fork", []string{"m30"}, []string{"a15"}, 0, nil},
		{"lower above upper", []string{"a15"}, []string{"a13", "c13"}, 0, nil},
		{"duplicate upper", nil, []string{"m30", "m30", "m30"}, 0, nil},
		{"minheight", nil, []string{"m30", "b22"}, 19, nil},
		{"maxheight moves uppers down", nil, []string{"m30", "a15"}, 0, u64(12)},
		{"maxheight drops lower uppers", nil, []string{"a13", "m30"}, 0, u64(14)},
		{"maxheight drops every upper", nil, []string{"a13"}, 0, u64(14)},
		{"maxheight at an upper", []string{"m2"}, []string{"b22"}, 3, u64(22)},
		{"lower equals upper", []string{"m30"}, []string{"m30"}, 0, nil},
		{"no upper", []string{"m3"}, nil, 0, nil},
		{"empty body", nil, nil, 0, nil},
	}
	for _, c := range cases {
		query := "minheight=" + strconv.FormatUint(c.minH, 10)
		if c.maxH != nil {
			query += "&maxheight=" + strconv.FormatUint(*c.maxH, 10)
		}
		body := f.bounds(c.lower, c.upper)
		want := f.branchModel(c.lower, c.upper, c.minH, c.maxH)
		for _, lc := range branchLists {
			p := f.branchPage(lc, query, body)
			if p.Next != nil {
				t.Fatalf("%s/%s: next %q on a complete page", c.name, lc.name, *p.Next)
			}
			got := itemHashes(t, p.Items)
			wantKind := want
			if lc.name == "block" {
				wantKind = slices.DeleteFunc(slices.Clone(want), func(h ledger.Hash) bool { return h == f.named["m25"].Hash })
			}
			if !slices.Equal(got, wantKind) {
				t.Errorf("%s/%s:\n got %v\nwant %v", c.name, lc.name, f.names(got), f.names(wantKind))
				continue
			}
			for _, limit := range []int{1, 2, 5} {
				paged := f.collect(t, func(q string) page { return f.branchPage(lc, q, body) }, limit, "&"+query)
				if !slices.Equal(itemHashes(t, paged), wantKind) {
					t.Errorf("%s/%s: paging by %d differs from one page", c.name, lc.name, limit)
				}
			}
		}
	}
	// The body keys are optional and may be null; other keys are ignored.
	p := f.branchPage(branchLists[0], "", []byte(`{"upper":["`+f.named["m2"].Hash.String()+`"],"lower":null,"x":1}`))
	if got := f.names(p.hashes(t)); !slices.Equal(got, []string{"m2", "m1", "m0"}) {
		t.Errorf("null lower: %v", got)
	}
}

func TestBranchCursors(t *testing.T) {
	f := newFixture(t)
	body := f.bounds(nil, []string{"m30", "a15", "b22"})
	all := f.branchModel(nil, []string{"m30", "a15", "b22"}, 0, nil)
	hashes := branchLists[0]
	// exclusive starts right after the cursor; a cursor outside the branch marks its position.
	a13 := f.named["a13"].Hash
	i := slices.Index(all, a13)
	if got := f.branchPage(hashes, "limit=2&next=exclusive:"+a13.String(), body).hashes(t); !slices.Equal(got, all[i+1:i+3]) {
		t.Errorf("exclusive: %v", f.names(got))
	}
	c13 := f.named["c13"].Hash // same height as a13 and m13, not in this branch
	got := f.branchPage(hashes, "limit=40&next=inclusive:"+c13.String(), body).hashes(t)
	j := slices.IndexFunc(all, func(h ledger.Hash) bool {
		b := f.byHash[h]
		return b.Height < 13 || (b.Height == 13 && bytes.Compare(h[:], c13[:]) > 0)
	})
	if !slices.Equal(got, all[j:]) {
		t.Errorf("cursor outside the branch: %v, want %v", f.names(got), f.names(all[j:]))
	}
	if p := f.branchPage(hashes, "minheight=14&next=inclusive:"+a13.String(), body); len(p.Items) != 0 || p.Next != nil {
		t.Errorf("cursor below minheight: %+v", p)
	}
	if p := f.branchPage(hashes, "limit=0", body); p.Next == nil || *p.Next != "inclusive:"+all[0].String() {
		t.Errorf("limit=0: next %v", p.Next)
	}
	key, reason := f.postJSON(hashes.path+"?next=inclusive:"+f.named["n1"].Hash.String(), body).notFound(t)
	if key != f.named["n1"].Hash.String() || reason != "key not found" {
		t.Errorf("cursor on another chain: %q %q", key, reason)
	}
	r := f.postJSON(hashes.path+"?next=inclusive:nope", body).expect(t, http.StatusBadRequest)
	if !strings.HasPrefix(string(r.body), "Error parsing query parameter next failed: ") {
		t.Errorf("malformed cursor: %q", r.body)
	}
}

func randomHashes(n int, seed byte) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = ledger.Hash{seed, byte(i), byte(i >> 8), 7}.String()
	}
	return out
}

func TestBranchErrors(t *testing.T) {
	f := newFixture(t)
	m30 := f.named["m30"].Hash.String()
	const upperMsg = `"upper branch bound limit exceeded. Only 32 values are supported."`
	const lowerMsg = `"lower branch bound limit exceeded. Only 32 values are supported."`
	for _, lc := range branchLists {
		path := lc.path
		// Bound limits count distinct hashes; upper is checked first.
		for _, c := range []struct {
			body map[string][]string
			want string
		}{
			{map[string][]string{"upper": randomHashes(33, 1)}, upperMsg},
			{map[string][]string{"upper": {m30}, "lower": randomHashes(33, 2)}, lowerMsg},
			{map[string][]string{"upper": randomHashes(40, 1), "lower": randomHashes(40, 2)}, upperMsg},
		} {
			r := f.postJSON(path, c.body).expect(t, http.StatusBadRequest)
			if string(r.body) != c.want {
				t.Errorf("%s: body %s, want %s", path, r.body, c.want)
			}
		}
		dups := slices.Repeat([]string{m30}, 40)
		f.postJSON(path, map[string][]string{"upper": dups, "lower": slices.Repeat([]string{ledger.Hash{9}.String()}, 40)}).page(t)
		// 32 distinct bounds are fine (the unknown lower ones are ignored).
		f.postJSON(path, map[string][]string{"upper": {m30}, "lower": randomHashes(32, 3)}).page(t)

		// Unknown upper bound (or one on another chain): 404 naming it.
		for _, h := range []string{ledger.Hash{5}.String(), f.named["n2"].Hash.String()} {
			key, reason := f.postJSON(path, map[string][]string{"upper": {m30, h}}).notFound(t)
			if key != h || reason != "key not found" {
				t.Errorf("%s unknown upper: %q %q", path, key, reason)
			}
		}
		// maxheight above the chain's highest block is no error: every upper bound lies below
		// it, so upstream's quirk drops them all and the branch is empty.
		if p := f.postJSON(path+"?maxheight=31", map[string][]string{"upper": {m30}}).page(t); len(p.Items) != 0 || p.Next != nil {
			t.Errorf("%s maxheight above the tip: %d items, next %v", path, len(p.Items), p.Next)
		}
		// Malformed bodies: 400 with the decoder's message.
		for _, b := range []string{`{"upper":`, `[]`, `"x"`, `{"upper":["short"]}`, `{"upper":[1]}`, `{"upper":{}}`, ``, `null`, `{} x`} {
			r := f.postJSON(path, []byte(b)).expect(t, http.StatusBadRequest)
			if len(r.body) == 0 || r.header.Get("Content-Type") != "text/plain;charset=utf-8" {
				t.Errorf("%s body %q: %q (%s)", path, b, r.body, r.header.Get("Content-Type"))
			}
		}
		// JSON bodies only.
		body := []byte(`{"upper":["` + m30 + `"]}`)
		f.do(http.MethodPost, path, body).expect(t, http.StatusUnsupportedMediaType)
		f.do(http.MethodPost, path, body, "Content-Type", "text/plain").expect(t, http.StatusUnsupportedMediaType)
		f.do(http.MethodPost, path, body, "Content-Type", "application/json; charset=utf-8").page(t)
	}
	// Octet-stream is offered by no list; object encoding only by header lists.
	r := f.postJSON("chain/0/header/branch", map[string][]string{}, "Accept", "application/octet-stream").expect(t, http.StatusNotAcceptable)
	if want := "cannot produce any of the accepted media types: application/octet-stream; available: application/json, application/json;blockheader-encoding=object"; string(r.body) != want {
		t.Errorf("406 body %q, want %q", r.body, want)
	}
	f.postJSON("chain/0/hash/branch", map[string][]string{}, "Accept", ledger.ObjectMediaType).expect(t, http.StatusNotAcceptable)
	f.postJSON("chain/0/block/branch", map[string][]string{}, "Accept", ledger.ObjectMediaType).expect(t, http.StatusNotAcceptable)
}
