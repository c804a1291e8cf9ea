package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// fakeContinuations is a ContinuationIndex of lists per chain and pact, oldest first, read as
// chain.PactContinuations reads the state's.
type fakeContinuations map[ledger.ChainID]map[api.Hash][]actors.Continuation

func (f fakeContinuations) PactContinuations(c ledger.ChainID, pact api.Hash, from uint64, n int) ([]actors.Continuation, bool, error) {
	l := f[c][pact]
	if from >= uint64(len(l)) || n <= 0 {
		return nil, false, nil
	}
	end := min(uint64(len(l)), from+uint64(n))
	return l[from:end], end < uint64(len(l)), nil
}

type continuationsAnswer struct {
	Items []struct {
		Height     uint64 `json:"height"`
		BlockHash  string `json:"blockHash"`
		RequestKey string `json:"requestKey"`
		Step       int64  `json:"step"`
		Rollback   bool   `json:"rollback"`
		Result     string `json:"result"`
	} `json:"items"`
	Limit int     `json:"limit"`
	Next  *string `json:"next"`
}

func TestPactContinuations(t *testing.T) {
	pact := api.Hash{1, 2, 3}
	var list []actors.Continuation
	for i, rk := range []string{"r-failed", "r-step1", "r-replay"} {
		list = append(list, actors.Continuation{Height: uint64(10 + i), BlockHash: "b" + rk, RequestKey: rk, Step: 1,
			OK: rk == "r-step1", Index: uint64(i)})
	}
	idx := fakeContinuations{7: {pact: list}}
	f := newFixture(t, func(c *ServiceConfig) { c.Continuations = idx })
	path := "chain/7/pact/" + pact.String() + "/continuations"

	get := func(query string) continuationsAnswer {
		t.Helper()
		r := f.get(path+query).expect(t, http.StatusOK)
		if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Fatalf("Content-Type %q", r.header.Get("Content-Type"))
		}
		var a continuationsAnswer
		if err := json.Unmarshal(r.body, &a); err != nil {
			t.Fatalf("%s: %v", r.body, err)
		}
		return a
	}
	all := get("")
	if len(all.Items) != 3 || all.Limit != 3 || all.Next != nil {
		t.Fatalf("all: %+v", all)
	}
	if it := all.Items[1]; it.RequestKey != "r-step1" || it.Result != "success" || it.Height != 11 || it.Step != 1 || it.BlockHash != "br-step1" {
		t.Fatalf("the successful step: %+v", it)
	}
	if all.Items[0].Result != "failure" || all.Items[2].Result != "failure" {
		t.Fatalf("the failed ones: %+v", all.Items)
	}
	// Paging: two, then from the cursor.
	first := get("?limit=2")
	if len(first.Items) != 2 || first.Next == nil || *first.Next != "2" {
		t.Fatalf("first page: %+v", first)
	}
	if rest := get("?next=" + *first.Next); len(rest.Items) != 1 || rest.Items[0].RequestKey != "r-replay" || rest.Next != nil {
		t.Fatalf("the rest: %+v", rest)
	}
	if past := get("?next=3"); len(past.Items) != 0 || past.Next != nil {
		t.Fatalf("past the end: %+v", past)
	}

	// Unknown: 404 with a reason, on another chain or for another pact.
	for _, p := range []string{"chain/0/pact/" + pact.String() + "/continuations", "chain/7/pact/" + api.Hash{9}.String() + "/continuations"} {
		r := f.get(p)
		if r.status != http.StatusNotFound || !strings.Contains(string(r.body), "no continuation of pact") {
			t.Errorf("%s: %d %q", p, r.status, r.body)
		}
	}
	// Bad input: 400 with a reason.
	for _, c := range []struct{ path, reason string }{
		{"chain/7/pact/nothash/continuations", "pactIdHash"},
		{"chain/7/pact/" + strings.Repeat("!", 43) + "/continuations", "pactIdHash"},
		{path + "?limit=x", "limit"},
		{path + "?next=", "next"},
		{path + "?next=-1", "next"},
		{path + "?next=01", "next"},
		{path + "?next=99999999999999999999999", "next"},
	} {
		r := f.get(c.path)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), c.reason) {
			t.Errorf("%s: %d %q, want 400 naming %q", c.path, r.status, r.body, c.reason)
		}
	}
	// An unknown chain is the router's 404, as on every chain route.
	f.get("chain/99/pact/"+pact.String()+"/continuations").expect(t, http.StatusNotFound)
}

func TestPactContinuationsOff(t *testing.T) {
	f := newFixture(t)
	f.get("chain/0/pact/"+api.Hash{1}.String()+"/continuations").expect(t, http.StatusNotFound)
}

func FuzzParseContinuationsQuery(f *testing.F) {
	for _, s := range []string{"", "limit=3", "next=2", "limit=3&next=7", "next=", "next=01", "limit=-1", "next=18446744073709551616", "next=\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var args fasthttp.Args
		args.ParseBytes(b)
		q, perr := parseContinuationsQuery(&args)
		if perr != nil {
			if perr.Reason == "" {
				t.Fatalf("%q: a 400 without a reason", b)
			}
			return
		}
		if q.limit < 0 || q.limit > maxContinuationsLimit {
			t.Fatalf("%q: limit %d", b, q.limit)
		}
	})
}
