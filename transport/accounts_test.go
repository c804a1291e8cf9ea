package transport

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
)

// fakeTransfers is a TransferIndex of lists per chain and account, oldest first, read as
// chain.AccountTransfers reads the state's.
type fakeTransfers struct {
	lists map[ledger.ChainID]map[string][]actors.Transfer
	reads int // entries read
}

func (f *fakeTransfers) add(c ledger.ChainID, t actors.Transfer) {
	if f.lists == nil {
		f.lists = map[ledger.ChainID]map[string][]actors.Transfer{}
	}
	if f.lists[c] == nil {
		f.lists[c] = map[string][]actors.Transfer{}
	}
	accounts := []string{t.From}
	if t.To != t.From {
		accounts = append(accounts, t.To)
	}
	for _, a := range accounts {
		if a == "" {
			continue
		}
		t.Index = uint64(len(f.lists[c][a]))
		f.lists[c][a] = append(f.lists[c][a], t)
	}
}

func (f *fakeTransfers) AccountTransfers(c ledger.ChainID, account string, below uint64, n int) ([]actors.Transfer, error) {
	l := f.lists[c][account]
	if below == math.MaxUint64 || below > uint64(len(l)) {
		below = uint64(len(l))
	}
	var out []actors.Transfer
	for i := int(below) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, l[i])
	}
	f.reads += len(out)
	return out, nil
}

type transfersAnswer struct {
	Items []struct {
		Chain      int    `json:"chain"`
		Height     uint64 `json:"height"`
		BlockHash  string `json:"blockHash"`
		RequestKey string `json:"requestKey"`
		Module     string `json:"module"`
		From       string `json:"from"`
		To         string `json:"to"`
		Amount     string `json:"amount"`
		CrossChain *struct {
			TargetChain string `json:"targetChain"`
		} `json:"crossChain"`
	} `json:"items"`
	Limit int     `json:"limit"`
	Next  *string `json:"next"`
}

func TestAccountTransfers(t *testing.T) {
	idx := &fakeTransfers{}
	// alice: chain 0 at heights 1, 5, 9; chain 3 at 5 (cross-chain) and 7; bob receives two.
	idx.add(0, actors.Transfer{Height: 1, RequestKey: "r1", Module: "coin", From: "alice", To: "bob", Amount: "1.5"})
	idx.add(0, actors.Transfer{Height: 5, RequestKey: "r2", Module: "coin", From: "carol", To: "alice", Amount: "2"})
	idx.add(3, actors.Transfer{Height: 5, RequestKey: "r3", Module: "coin", From: "alice", To: "alice", Amount: "3.25", TargetChain: "0"})
	idx.add(3, actors.Transfer{Height: 7, RequestKey: "r4", Module: "free.tok", From: "alice", To: "bob", Amount: "4"})
	idx.add(0, actors.Transfer{Height: 9, RequestKey: "r5", Module: "coin", From: "alice", To: "dave", Amount: "0.000000000001"})
	f := newFixture(t, func(c *ServiceConfig) { c.Transfers = idx })

	get := func(account, query string) transfersAnswer {
		t.Helper()
		r := f.get("account/"+url.PathEscape(account)+"/transfers"+query).expect(t, http.StatusOK)
		if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Fatalf("Content-Type %q", r.header.Get("Content-Type"))
		}
		var a transfersAnswer
		if err := json.Unmarshal(r.body, &a); err != nil {
			t.Fatalf("%s: %v", r.body, err)
		}
		if !bytes.HasPrefix(r.body, []byte(`{"items":[`)) {
			t.Fatalf("answer does not start with items: %.60s", r.body)
		}
		return a
	}
	keys := func(a transfersAnswer) string {
		var ks []string
		for _, it := range a.Items {
			ks = append(ks, it.RequestKey)
		}
		return strings.Join(ks, " ")
	}

	// The whole list, newest first across chains (a tie at height 5: chain 0 first).
	all := get("alice", "")
	if got := keys(all); got != "r5 r4 r2 r3 r1" || all.Limit != 5 || all.Next != nil {
		t.Fatalf("alice: %q limit %d next %v", got, all.Limit, all.Next)
	}
	it := all.Items[3]
	if it.Chain != 3 || it.Height != 5 || it.Amount != "3.25" || it.CrossChain == nil || it.CrossChain.TargetChain != "0" {
		t.Fatalf("the cross-chain transfer: %+v", it)
	}
	if all.Items[0].CrossChain != nil || all.Items[1].Module != "free.tok" && all.Items[1].Module != "coin" {
		t.Fatalf("items: %+v", all.Items)
	}
	if !bytes.Contains(f.get("account/alice/transfers").body, []byte(`"crossChain":null`)) {
		t.Fatal("a transfer within a chain has no crossChain: null")
	}
	// Sender and receiver both list a transfer.
	if got := keys(get("bob", "")); got != "r4 r1" {
		t.Fatalf("bob: %q", got)
	}
	if got := keys(get("dave", "")); got != "r5" {
		t.Fatalf("dave: %q", got)
	}
	// An account without transfers: an empty page.
	if a := get("nobody", ""); len(a.Items) != 0 || a.Limit != 0 || a.Next != nil {
		t.Fatalf("nobody: %+v", a)
	}
	// A name with a '/' and a ':' (path-escaped) is one segment.
	idx.add(1, actors.Transfer{Height: 2, RequestKey: "r6", Module: "coin", From: "k:ab/c", To: "bob", Amount: "1"})
	if got := keys(get("k:ab/c", "")); got != "r6" {
		t.Fatalf("k:ab/c: %q", got)
	}

	// Paged two by two: the same items, in the same order.
	var paged []string
	query := "?limit=2"
	for range 10 {
		a := get("alice", query)
		if a.Limit != len(a.Items) || a.Limit > 2 {
			t.Fatalf("page limit %d with %d items", a.Limit, len(a.Items))
		}
		paged = append(paged, keys(a))
		if a.Next == nil {
			break
		}
		query = "?limit=2&next=" + url.QueryEscape(*a.Next)
	}
	if got := strings.Join(paged, " "); got != "r5 r4 r2 r3 r1" {
		t.Fatalf("paged: %q (%v)", got, paged)
	}
	// limit 0: no items, a cursor at the newest.
	if a := get("alice", "?limit=0"); len(a.Items) != 0 || a.Next == nil || *a.Next != "0:3,3:2" {
		t.Fatalf("limit 0: %+v next %v", a, a.Next)
	}
	// A limit above the maximum is clamped; the reads per chain are bounded by it.
	idx.reads = 0
	get("alice", "?limit=100000")
	if idx.reads > len(f.v.Chains())*(maxTransfersLimit+1) {
		t.Fatalf("%d entries read", idx.reads)
	}

	// Bad input: 400 with a reason.
	for _, c := range []struct{ path, reason string }{
		{"account/alice/transfers?limit=-1", "limit"},
		{"account/alice/transfers?limit=x", "limit"},
		{"account/alice/transfers?next=", "next"},
		{"account/alice/transfers?next=0", "next"},
		{"account/alice/transfers?next=0:0", "next"},
		{"account/alice/transfers?next=99:1", "next"},
		{"account/alice/transfers?next=0:1,0:2", "next"},
		{"account/alice/transfers?next=0:01", "next"},
		{"account/alice/transfers?next=inclusive:" + ledger.Hash{}.String(), "next"},
		{"account/" + strings.Repeat("a", actors.MaxAccountLen+1) + "/transfers", "longer than"},
		{"account/a%01b/transfers", "control"},
		{"account/a%ffb/transfers", "UTF-8"},
	} {
		r := f.get(c.path)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), c.reason) {
			t.Errorf("%s: %d %q, want 400 naming %q", c.path, r.status, r.body, c.reason)
		}
	}
	// The longest name is fine.
	get(strings.Repeat("a", actors.MaxAccountLen), "")
}

func TestAccountTransfersOff(t *testing.T) {
	f := newFixture(t)
	f.get("account/alice/transfers").expect(t, http.StatusNotFound)
}

func FuzzParseTransfersCursor(f *testing.F) {
	for _, s := range []string{"0:1", "0:12,3:5", "3:5,0:12", "", ":", "0:0", "0:1,0:1", "19:18446744073709551615", "20:1", "0:01", "\xff"} {
		f.Add([]byte(s))
	}
	v := ledger.Development
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseTransfersCursor(v, b)
		if err != nil {
			return
		}
		back := c.appendText(nil)
		c2, err := parseTransfersCursor(v, back)
		if err != nil || !maps.Equal(c, c2) {
			t.Fatalf("cursor %q re-encodes as %q (%v)", b, back, err)
		}
	})
}
