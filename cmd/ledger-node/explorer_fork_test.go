package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
)

// The explorer on a development node that holds real fork siblings with their payloads: node B
// mines blocks of its own, then syncs a heavier chain from node A and keeps its blocks as
// orphans. The chain page shows the cut's tip and marks exactly B's own blocks orphan, and an
// orphan's block page renders with its payload. Everything is the node's own answers.
func TestExplorerOnForkedNode(t *testing.T) {
	ctx, pageErrors := browser(t)
	opts := nodeOptions{genesisTarget: testTarget(t), workers: 1}
	dirA, dirB := t.TempDir(), t.TempDir()
	b := startNodeOpts(t, opts, "--data-dir", dirB, "--miner-key", devMinerKey)
	waitCut(t, b.url, 2)
	b.stop()
	b = startNodeOpts(t, opts, "--data-dir", dirB, "--mining", "off")
	own := fetchHeaders(t, b.url, 0) // B's chain 0: genesis and its own blocks, no fork yet
	b.stop()
	var top uint64
	orphan := map[ledger.Hash]bool{}
	for _, h := range own {
		if h.Height > 0 {
			orphan[h.Hash] = true
			top = max(top, h.Height)
		}
	}

	a := startNodeOpts(t, opts, "--data-dir", dirA, "--miner-key", devMinerKey)
	// Heavier on every chain, and high enough that a window of 20 heights holds 20 blocks of
	// the main chain besides B's: more headers than a window's heights (the page once cut the
	// list at 20 headers and dropped the newest).
	waitCut(t, a.url, max(top+3, 20))
	a.stop()
	a = startNodeOpts(t, opts, "--data-dir", dirA, "--mining", "off")
	target := fetchCut(t, a.url)
	b = startNodeOpts(t, opts, "--data-dir", dirB, "--mining", "off", "--peer", a.p2p)
	hangguard.Until(t, "B on A's cut", func() bool { return fetchCut(t, b.url).ID() == target.ID() })
	tip := target.Entries[0].Hash

	go2 := func(hash string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(b.url+"/"+hash)); err != nil {
			t.Fatal(err)
		}
	}
	rowsJS := `Array.from(document.querySelectorAll('#blocks tbody tr')).map(r => (r.classList.contains('orphan') ? 'orphan ' : '') + r.querySelector('a').getAttribute('href'))`
	go2("#/chain/0")
	waitText(t, ctx, "#blocks table", short(tip.String()))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](rowsJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || rows[0] != "#/block/0/"+tip.String() {
		t.Fatalf("chain page rows %v, want the tip %s first", rows, tip)
	}

	// The window of heights 0 to 19, B's own blocks among them: each marked orphan, every
	// other block not, the window's top block first.
	go2("#/chain/0/19")
	waitText(t, ctx, "main", fmt.Sprintf("Blocks 0 to 19 (%d orphaned", len(orphan)))
	rows, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](rowsJS))
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, r := range rows {
		h, err := ledger.ParseHash(r[strings.LastIndexByte(r, '/')+1:])
		if err != nil {
			t.Fatalf("row %q: %v", r, err)
		}
		isOrphan := strings.HasPrefix(r, "orphan")
		if isOrphan != orphan[h] {
			t.Fatalf("row %q: marked orphan %v, B's own block %v (rows %v)", r, isOrphan, orphan[h], rows)
		}
		if isOrphan {
			marked++
		}
	}
	if marked != len(orphan) || len(rows) != 20+len(orphan) || strings.HasPrefix(rows[0], "orphan") {
		t.Fatalf("%d of %d orphans marked in %d rows: %v", marked, len(orphan), len(rows), rows)
	}
	screenshot(t, ctx, "fork-chain")

	// An orphan's page: its header and its payload (the coinbase), no missing-payload notice.
	for h := range orphan {
		go2(fmt.Sprintf("#/block/0/%s", h))
		waitText(t, ctx, "main", "Coinbase")
		if page := textOf(t, ctx, "main"); !strings.Contains(page, h.String()) || strings.Contains(page, "not the payload") {
			t.Fatalf("orphan's block page: %s", page)
		}
		break
	}
	if errs := pageErrors(); len(errs) > 0 {
		t.Fatalf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
}
