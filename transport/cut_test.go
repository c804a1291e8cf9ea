package transport

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// blockHeightAtCutHeight divides a cut height by the chain count of the graph in force at that
// cut height, as upstream's avgBlockHeightAtCutHeight does: recap-development has 10 chains
// below block height 60 and 20 from there, so its 20-chain graph starts at cut height 1200;
// mainnet's starts at 852054 × 20.
func TestBlockHeightAtCutHeight(t *testing.T) {
	for _, c := range []struct {
		v      *ledger.Version
		cut    uint64
		height uint64
	}{
		{ledger.Development, 0, 0},
		{ledger.Development, 19, 0},
		{ledger.Development, 20, 1},
		{ledger.Development, 419, 20},
		{ledger.RecapDevelopment, 1199, 119}, // still 10 chains
		{ledger.RecapDevelopment, 1200, 60},  // 20 chains from here
		{ledger.RecapDevelopment, 1219, 60},
		{ledger.Mainnet01, 852054*20 - 1, 1704107},
		{ledger.Mainnet01, 852054 * 20, 852054},
		{ledger.Mainnet01, 1<<64 - 1, (1<<64 - 1) / 20},
	} {
		if got := blockHeightAtCutHeight(c.v, c.cut); got != c.height {
			t.Errorf("%s cut height %d: block height %d, want %d", c.v.Name, c.cut, got, c.height)
		}
	}
}

// GET cut?maxheight=N on the service and the peer API: N is a cut height, each chain is
// limited to block height ⌊N/20⌋ on the fixture's 20-chain network, and a chain above that is
// replaced by the ancestor of its cut block at that height, on the cut's own fork.
func TestCutMaxHeight(t *testing.T) {
	f, peer, _ := newPeerFixture(t)
	peerGet := func(query string) (int, []byte) {
		ctx := do(peer.Handler(), "GET", "/chainweb/0.0/development/cut"+query, "")
		return ctx.Response.StatusCode(), ctx.Response.Body()
	}
	n := f.named
	for _, c := range []struct {
		name  string
		heads []string // the node's current cut
		query string
		want  []string // the cut expected back
	}{
		{"no maxheight", []string{"m30", "n3"}, "", []string{"m30", "n3"}},
		{"maxheight above the cut", []string{"m30", "n3"}, "?maxheight=10000", []string{"m30", "n3"}},
		{"at the cut's own limit", []string{"m30", "n3"}, "?maxheight=600", []string{"m30", "n3"}},
		{"one chain limited", []string{"m30", "n3"}, "?maxheight=400", []string{"m20", "n3"}},
		{"rounded down", []string{"m30", "n3"}, "?maxheight=419", []string{"m20", "n3"}},
		{"a height with a fork", []string{"m30", "n3"}, "?maxheight=240", []string{"m12", "n3"}},
		{"a cut on a fork", []string{"a15", "n3"}, "?maxheight=240", []string{"a12", "n3"}},
		{"a fork of a fork", []string{"c13", "n3"}, "?maxheight=220", []string{"a11", "n3"}},
		{"both chains limited", []string{"m30", "n3"}, "?maxheight=40", []string{"m2", "n2"}},
		{"genesis", []string{"m30", "n3"}, "?maxheight=0", []string{"m0", "n0"}},
	} {
		f.heads = f.heads[:0]
		for _, h := range c.heads {
			f.heads = append(f.heads, n[h])
		}
		var wantHeads []*ledger.Header
		var height uint64
		for _, h := range c.want {
			wantHeads = append(wantHeads, n[h])
			height += n[h].Height
		}
		want := ledger.NewCut(f.v, wantHeads).AppendJSON(nil)

		r := f.get("cut"+c.query).expect(t, http.StatusOK)
		if !bytes.Equal(r.body, want) {
			t.Errorf("%s: service cut\n got %s\nwant %s", c.name, r.body, want)
		}
		got, _, err := ledger.DecodeCutJSON(r.body)
		if err != nil || got.Height != height {
			t.Errorf("%s: cut height %v (%v), want %d", c.name, got, err, height)
		}
		if status, body := peerGet(c.query); status != http.StatusOK || !bytes.Equal(body, want) {
			t.Errorf("%s: peer cut %d\n got %s\nwant %s", c.name, status, body, want)
		}
	}

	// A maxheight that is not a non-negative integer is a 400 with the reason, on both APIs.
	for _, q := range []string{"x", "-1", "1.5", "", "99999999999999999999999"} {
		r := f.get("cut?maxheight="+q).expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(string(r.body), "Error parsing query parameter maxheight failed: ") {
			t.Errorf("maxheight=%q: %q", q, r.body)
		}
		if status, body := peerGet("?maxheight=" + q); status != http.StatusBadRequest || !bytes.Equal(body, r.body) {
			t.Errorf("peer maxheight=%q: %d %q", q, status, body)
		}
	}
}
