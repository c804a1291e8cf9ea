package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

const testMinerKey = "368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca"

// testTarget needs about 64 hashes per block: the in-process node mines hundreds of blocks a
// second even under the race detector, so the tests wait on the braid, not on luck.
func testTarget(t testing.TB) *ledger.U256 {
	tg, err := pow.TargetFromDifficulty(ledger.U256{64})
	if err != nil {
		t.Fatal(err)
	}
	return &tg
}

// get fetches url with an Accept header and returns the body; non-200 fails the test.
func get(t *testing.T, url, accept string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return body
}

// fetchCut reads GET …/cut.
func fetchCut(t *testing.T, base string) *ledger.Cut {
	t.Helper()
	c, _, err := ledger.DecodeCutJSON(get(t, base+"/chainweb/0.0/development/cut", ""))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitCut polls the cut until every chain is at least at height low.
func waitCut(t *testing.T, base string, low uint64) *ledger.Cut {
	t.Helper()
	var c *ledger.Cut
	if !hangguard.Wait(func() bool {
		c = fetchCut(t, base)
		l, _ := cutRange(c)
		return l >= low && len(c.Entries) == 20
	}) {
		l, h := cutRange(c)
		t.Fatalf("%s: the chains are at heights %d–%d", hangguard.Failure(fmt.Sprintf("every chain at height %d", low)), l, h)
	}
	return c
}

// fetchHeaders reads every header of chain c through the paged header list (base64url JSON).
func fetchHeaders(t *testing.T, base string, c ledger.ChainID) []*ledger.Header {
	t.Helper()
	var out []*ledger.Header
	url := fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/header?limit=360", base, c)
	next := ""
	for {
		var page struct {
			Items []string `json:"items"`
			Next  *string  `json:"next"`
		}
		if err := json.Unmarshal(get(t, url+next, ""), &page); err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			h, err := ledger.DecodeHeaderB64(it)
			if err != nil {
				t.Fatalf("chain %d: %v", c, err)
			}
			out = append(out, h)
		}
		if page.Next == nil {
			return out
		}
		next = "&next=" + *page.Next
	}
}

// checkServedBraid fetches every header over HTTP and checks the braid: each block's parent and
// adjacent parents are served, the adjacent parents at the parent's height, and each block
// passes every validation rule against them. It also checks the other two header encodings of
// each cut head, and that the cut is braided. It returns the headers by hash.
func checkServedBraid(t *testing.T, base string, v *ledger.Version, cut *ledger.Cut) map[ledger.Hash]*ledger.Header {
	t.Helper()
	all := map[ledger.Hash]*ledger.Header{}
	for _, c := range v.Chains() {
		for _, h := range fetchHeaders(t, base, c) {
			all[h.Hash] = h
		}
	}
	now := time.Now().UnixMicro()
	for _, h := range all {
		if h.Height == 0 {
			continue
		}
		p := all[h.Parent]
		if p == nil {
			t.Fatalf("chain %d height %d: parent not served", h.ChainID, h.Height)
		}
		var adj []*ledger.Header
		for _, a := range h.Adjacents {
			x := all[a.Hash]
			if x == nil || x.ChainID != a.Chain || x.Height != h.Height-1 {
				t.Fatalf("chain %d height %d: adjacent parent on chain %d missing or not at height %d", h.ChainID, h.Height, a.Chain, h.Height-1)
			}
			adj = append(adj, x)
		}
		if err := pow.Validate(v, h, p, adj, now); err != nil {
			t.Fatalf("served block fails validation: %v", err)
		}
	}
	heads := make(pow.Heads, 20)
	for _, e := range cut.Entries {
		h := all[e.Hash]
		if h == nil || h.Height != e.Height {
			t.Fatalf("cut head of chain %d not served", e.Chain)
		}
		heads[e.Chain] = h
		url := fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/header/%s", base, e.Chain, e.Hash)
		if raw := get(t, url, "application/octet-stream"); !bytes.Equal(raw, h.Bytes()) {
			t.Fatalf("chain %d: octet-stream header differs from the listed one", e.Chain)
		}
		obj, err := ledger.DecodeHeaderObject(get(t, url, "application/json;blockheader-encoding=object"))
		if err != nil || obj.Hash != h.Hash {
			t.Fatalf("chain %d: object header: %v", e.Chain, err)
		}
	}
	if err := pow.CheckBraided(heads); err != nil {
		t.Fatalf("served cut: %v", err)
	}
	return all
}

// TestNodeMinesAllChains runs a development node with mining on and checks, through the service
// API, that all 20 chains grow in a braid of valid blocks carrying the miner's data, that the
// status line reports, and that a restart resumes on the stored cut.
func TestNodeMinesAllChains(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--block-delay", "2s", "--miner-account", "alice", "--miner-key", testMinerKey}
	opts := nodeOptions{genesisTarget: testTarget(t), workers: 2, statusEvery: 50 * time.Millisecond}
	n := startNodeOpts(t, opts, args...)
	waitCut(t, n.url, 3)
	// Freeze the store (stop the miner and the actors; the service API keeps serving), so that
	// the chains fetched one after the other show one consistent braid.
	n.node.rt.Stop()
	cut := fetchCut(t, n.url)
	v := n.node.version
	all := checkServedBraid(t, n.url, v, cut)
	if len(all) < 20*4 {
		t.Fatalf("%d headers served", len(all))
	}

	// Every mined block carries the empty payload with the configured miner data.
	head := all[cut.Entries[7].Hash]
	var p ledger.PayloadWithOutputs
	url := fmt.Sprintf("%s/chainweb/0.0/development/chain/7/payload/%s/outputs", n.url, head.PayloadHash)
	if err := json.Unmarshal(get(t, url, ""), &p); err != nil {
		t.Fatal(err)
	}
	if string(p.MinerData) != string(ledger.MinerData("alice", testMinerKey)) || len(p.Transactions) != 0 || p.Verify() != nil {
		t.Fatalf("payload of a mined block: miner data %s, %d transactions", p.MinerData, len(p.Transactions))
	}
	var info struct {
		BlockDelay int64 `json:"nodeBlockDelay"`
	}
	json.Unmarshal(get(t, n.url+"/info", ""), &info)
	if info.BlockDelay != 2_000_000 {
		t.Fatalf("/info nodeBlockDelay %d, want 2 s in µs", info.BlockDelay)
	}
	time.Sleep(120 * time.Millisecond) // at least one status line
	n.stop()
	if s := n.out.String(); !strings.Contains(s, "mining all 20 chains with proof of work, block delay 2s") {
		t.Fatalf("node output lacks the mining banner:\n%s", s)
	}
	if s := n.log.String(); !strings.Contains(s, "msg=status cutHeight=") || !strings.Contains(s, " megaHashesPerSecond=") ||
		!strings.Contains(s, " pending=") {
		t.Fatalf("the node's log lacks a status line with the hash rate:\n%s", s)
	}

	// Stop wrote the heads of the last cut; a restart without mining serves exactly that cut.
	last := n.node.rt.Cut()
	again := startNodeOpts(t, opts, append(args, "--mining", "off")...)
	defer again.stop()
	if got := fetchCut(t, again.url); got.ID() != last.ID() || got.Height != last.Height {
		t.Fatalf("resumed cut height %d, stopped at %d", got.Height, last.Height)
	}
}

// A data directory created with one block delay is refused with another, naming the flag and
// the delay it was created with.
func TestBlockDelayMismatch(t *testing.T) {
	dir := t.TempDir()
	n := startNodeArgs(t, "--data-dir", dir, "--block-delay", "2s", "--mining", "off")
	n.stop()
	var stderr bytes.Buffer
	code := run([]string{"--data-dir", dir, "--block-delay", "3s", "--service-port", "0", "--p2p-port", "0"}, io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "--block-delay 2s") || !strings.Contains(stderr.String(), "another block delay") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
