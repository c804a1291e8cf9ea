package main

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ledgernode/ledger-node/ledger"
)

// importedChain5 decodes the chain 5 vector's headers (360 real mainnet headers, 6 of them
// fork siblings): the tip, the main chain (the tip and its ancestors in the set) and the
// orphans.
func importedChain5(t *testing.T) (tip *ledger.Header, main map[ledger.Hash]bool, orphans []*ledger.Header) {
	t.Helper()
	byHash := map[ledger.Hash]*ledger.Header{}
	for _, b64 := range chain5VectorB64(t) {
		h, err := ledger.DecodeHeaderB64(b64)
		if err != nil {
			t.Fatal(err)
		}
		byHash[h.Hash] = h
		if tip == nil || h.Height > tip.Height {
			tip = h
		}
	}
	main = map[ledger.Hash]bool{}
	for h := tip; h != nil; h = byHash[h.Parent] {
		main[h.Hash] = true
	}
	for _, h := range byHash {
		if !main[h.Hash] {
			orphans = append(orphans, h)
		}
	}
	return tip, main, orphans
}

// The explorer on a node filled by `ledger-node import-headers` alone: real mainnet headers of
// chain 5 with their real fork siblings, and no payloads. The home page lists the tips (no
// block ever arrives on its stream), the chain page shows the tip and marks the real orphans,
// and a block page renders its header and says the payload is missing. No stand-in for the
// page's fetch: every answer is the node's.
func TestExplorerOnImportedHeaders(t *testing.T) {
	ctx, pageErrors := browser(t)
	dir := t.TempDir()
	if code := run(importArgs(dir, chain5Vector), io.Discard, io.Discard); code != 0 {
		t.Fatalf("import exit %d", code)
	}
	base := startNode(t, "--network", "mainnet01", "--data-dir", dir)
	tip, main, orphans := importedChain5(t)
	if len(orphans) != 6 {
		t.Fatalf("the vector has %d orphans, want 6", len(orphans))
	}

	// The home page: the recent list holds the tips, chain 5's the newest.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#chain-19"))); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#recent table", short(tip.Hash.String()))
	if got := textOf(t, ctx, "#chain-5 .height"); got != "2,111,762" {
		t.Fatalf("chain 5's tile says %q", got)
	}
	screenshot(t, ctx, "imported-home")

	// The chain page: the tip first, no orphan among the newest 20 (the last sibling is 39 below).
	go2 := func(hash string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(location.hash = %q, true)`, hash))); err != nil {
			t.Fatal(err)
		}
	}
	rowsJS := `Array.from(document.querySelectorAll('#blocks tbody tr')).map(r => (r.classList.contains('orphan') ? 'orphan ' : '') + r.querySelector('a').getAttribute('href'))`
	go2("#/chain/5")
	waitText(t, ctx, "h1", "Chain 5")
	waitText(t, ctx, "#blocks table", short(tip.Hash.String()))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](rowsJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 20 || rows[0] != "#/block/5/"+tip.Hash.String() {
		t.Fatalf("chain page rows %v, want the tip first of 20", rows)
	}
	for _, r := range rows {
		if strings.HasPrefix(r, "orphan") {
			t.Fatalf("an orphan among the newest blocks: %v", rows)
		}
	}

	// Each window that holds a sibling marks exactly the real orphans in it.
	for _, o := range orphans {
		top := o.Height + 5
		go2(fmt.Sprintf("#/chain/5/%d", top))
		waitText(t, ctx, "h1", "Chain 5")
		waitText(t, ctx, "main", fmt.Sprintf("Blocks %s to %s", commas(top-19), commas(top)))
		waitText(t, ctx, "#blocks", "orphan")
		rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](rowsJS))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			hash := r[strings.LastIndexByte(r, '/')+1:]
			h, err := ledger.ParseHash(hash)
			if err != nil {
				t.Fatalf("row %q: %v", r, err)
			}
			if marked := strings.HasPrefix(r, "orphan"); marked == main[h] {
				t.Fatalf("window up to %d: row %q marked orphan %v, on the main chain %v", top, r, marked, main[h])
			}
		}
		if !strings.Contains(strings.Join(rows, " "), "orphan #/block/5/"+o.Hash.String()) {
			t.Fatalf("window up to %d lacks the orphan %s: %v", top, o.Hash, rows)
		}
	}
	screenshot(t, ctx, "imported-chain")

	// A block page without its payload: the header, and a notice instead of the transactions.
	for _, h := range []*ledger.Header{tip, orphans[0]} {
		go2(fmt.Sprintf("#/block/5/%s", h.Hash))
		waitText(t, ctx, "h1", fmt.Sprintf("Block %d of chain 5", h.Height))
		waitText(t, ctx, ".notice", "not the payload")
		if page := textOf(t, ctx, "main"); !strings.Contains(page, h.Hash.String()) || !strings.Contains(page, h.PayloadHash.String()) {
			t.Fatalf("block page without payload: %s", page)
		}
	}
	screenshot(t, ctx, "imported-block")
	if errs := unexpectedErrors(pageErrors(), "/payload/"); len(errs) > 0 {
		t.Fatalf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
}

// commas writes n with thousands separators, as the page's fmtNum does.
func commas(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
