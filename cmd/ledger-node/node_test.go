package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/txexec"
)

// startNode runs a node on a free loopback port until the test ends and returns its base URL.
func startNode(t *testing.T, args ...string) string {
	t.Helper()
	n := startNodeArgs(t, args...)
	t.Cleanup(n.stop)
	return n.url
}

// getJSON fetches url (see get) and decodes the body into v.
func getJSON(t *testing.T, url string, accept string, v any) {
	t.Helper()
	if err := json.Unmarshal(get(t, url, accept), v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestServeImportedMainnetHeaders is the README example: import the 360 real chain-5 headers,
// start the node, and read them back in one page in the documented order.
func TestServeImportedMainnetHeaders(t *testing.T) {
	dir := t.TempDir()
	if code := run(importArgs(dir, chain5Vector), io.Discard, io.Discard); code != 0 {
		t.Fatalf("import exit %d", code)
	}
	base := startNode(t, "--network", "mainnet01", "--data-dir", dir)

	var page struct {
		Limit int      `json:"limit"`
		Items []string `json:"items"`
		Next  *string  `json:"next"`
	}
	getJSON(t, base+"/chainweb/0.0/mainnet01/chain/5/header?limit=360", "", &page)
	if page.Limit != 360 || len(page.Items) != 360 {
		t.Fatalf("page limit %d, %d items", page.Limit, len(page.Items))
	}
	want := map[string]bool{}
	for _, h := range chain5VectorB64(t) {
		want[h] = true
	}
	var prev *ledger.Header
	for i, item := range page.Items {
		if !want[item] {
			t.Fatalf("item %d is not byte-identical to any vector header", i)
		}
		h, err := ledger.DecodeHeaderB64(item)
		if err != nil {
			t.Fatal(err)
		}
		// Ascending height; fork siblings at one height in raw hash byte order.
		if prev != nil && (h.Height < prev.Height || h.Height == prev.Height && bytes.Compare(prev.Hash[:], h.Hash[:]) >= 0) {
			t.Fatalf("item %d out of order", i)
		}
		prev = h
	}
	// The page ends at the last header of the chain, so next is null.
	if page.Next != nil {
		t.Fatalf("next = %q after the last header", *page.Next)
	}

	var cut struct {
		Hashes   map[string]struct{ Height uint64 } `json:"hashes"`
		Instance string                             `json:"instance"`
	}
	getJSON(t, base+"/chainweb/0.0/mainnet01/cut", "", &cut)
	if cut.Instance != "mainnet01" || cut.Hashes["5"].Height != 2111762 {
		t.Fatalf("cut after import: %+v", cut)
	}
}

// TestDevelopmentNodeStartsAndResumes: the first start writes 20 genesis blocks; a restart on the
// same directory serves the same cut without rewriting anything. Mining is off, so nothing else
// moves the cut.
func TestDevelopmentNodeStartsAndResumes(t *testing.T) {
	dir := t.TempDir()
	type cutJSON struct {
		Hashes map[string]struct {
			Height uint64
			Hash   string
		} `json:"hashes"`
		ID string `json:"id"`
	}
	var first cutJSON
	func() {
		base := startNodeScoped(t, dir)
		getJSON(t, base.url+"/chainweb/0.0/development/cut", "", &first)
		var info map[string]any
		getJSON(t, base.url+"/info", "", &info)
		if info["nodeVersion"] != "development" || info["nodeNumberOfChains"] != float64(20) ||
			info["nodePackageVersion"] != packageVersion {
			t.Fatalf("/info: %v", info)
		}
		if _, ok := info["nodeServiceDate"]; !ok {
			t.Fatal("/info lacks nodeServiceDate")
		}
		// Each genesis block is served with its payload.
		var blocks struct {
			Items []struct {
				Header             map[string]any `json:"header"`
				PayloadWithOutputs map[string]any `json:"payloadWithOutputs"`
			} `json:"items"`
		}
		getJSON(t, base.url+"/chainweb/0.0/development/chain/7/block", "", &blocks)
		if len(blocks.Items) != 1 || blocks.Items[0].PayloadWithOutputs == nil ||
			blocks.Items[0].Header["hash"] != first.Hashes["7"].Hash {
			t.Fatalf("chain 7 blocks: %+v", blocks)
		}
		base.stop()
	}()
	if len(first.Hashes) != 20 {
		t.Fatalf("genesis cut has %d chains", len(first.Hashes))
	}
	genesis := devGenesis(t, nodeVersion(DefaultConfig(), nil)) // the default 30 s block delay's genesis target
	for c := 0; c < 20; c++ {
		want := genesis[c].Hash.String()
		if e := first.Hashes[fmt.Sprint(c)]; e.Height != 0 || e.Hash != want {
			t.Fatalf("chain %d: %+v, want genesis %s", c, e, want)
		}
	}
	base := startNodeScoped(t, dir)
	defer base.stop()
	var second cutJSON
	getJSON(t, base.url+"/chainweb/0.0/development/cut", "", &second)
	if second.ID != first.ID {
		t.Fatalf("cut changed across restart: %s -> %s", first.ID, second.ID)
	}
	var hashes struct{ Items []string }
	getJSON(t, base.url+"/chainweb/0.0/development/chain/0/hash", "", &hashes)
	if !slices.Equal(hashes.Items, []string{first.Hashes["0"].Hash}) {
		t.Fatalf("chain 0 after restart: %v", hashes.Items)
	}
}

type scopedNode struct {
	url  string
	p2p  string // the peer API's HOST:PORT; empty when the node runs no peer API
	node *node
	out  *syncbuf.Buffer // what the node printed
	log  *syncbuf.Buffer // what the node logged (its status lines among it)
	stop func()
}

// startNodeScoped runs a development node that does not mine on dir until stop is called.
func startNodeScoped(t *testing.T, dir string) scopedNode {
	t.Helper()
	return startNodeArgs(t, "--data-dir", dir, "--mining", "off")
}

// startNodeArgs runs a node with the given flags on a free loopback port until stop is called.
func startNodeArgs(t *testing.T, args ...string) scopedNode {
	t.Helper()
	return startNodeOpts(t, nodeOptions{}, args...)
}

// startNodeOpts is startNodeArgs with wiring options. Set LEDGER_NODE_TEST_LOG to see the
// nodes' logs on stderr.
func startNodeOpts(t *testing.T, opts nodeOptions, args ...string) scopedNode {
	t.Helper()
	logTo := io.Discard
	if os.Getenv("LEDGER_NODE_TEST_LOG") != "" {
		logTo = os.Stderr
	}
	return startLoggedNode(t, opts, logTo, args...)
}

// startLoggedNode is startNodeOpts with the node's log written to log too, with the level and
// format args configure.
func startLoggedNode(t *testing.T, opts nodeOptions, log io.Writer, args ...string) scopedNode {
	t.Helper()
	cfg, _, err := loadConfig(append([]string{"--service-port", "0", "--p2p-port", "0"}, args...), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logged := new(syncbuf.Buffer)
	if opts.peerKey == nil {
		opts.peerKey = testPeerKey // upstream's RSA-4096 takes a second or more to make
	}
	n, err := openNodeWith(cfg, newLogger(cfg, io.MultiWriter(log, logged)), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	out := new(syncbuf.Buffer)
	go func() { done <- n.serve(ctx, out) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
			n.close()
		})
	}
	t.Cleanup(stop) // a test that fails before stopping does not leak a mining node
	sn := scopedNode{url: "http://" + n.ln.Addr().String(), node: n, out: out, log: logged, stop: stop}
	if n.peerLn != nil {
		sn.p2p = n.peerLn.Addr().String()
	}
	return sn
}

// devGenesis returns the development genesis headers of version v, computed as a node computes
// them (actors.MakeGenesis): from the payloads the contracts' genesis produces.
func devGenesis(t testing.TB, v *ledger.Version) []*ledger.Header {
	t.Helper()
	g, err := actors.MakeGenesis(txexec.New(txexec.Config{}), v)
	if err != nil {
		t.Fatal(err)
	}
	return g.Headers
}
