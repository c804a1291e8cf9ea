package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"golang.org/x/crypto/blake2s"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// The explorer page in a real browser (issue 17): headless Chromium, Debian's package, which
// `make test` installs where it is missing.

// chromiumPath finds the browser: $CHROMIUM, then chromium on the PATH. Without one the test
// skips, unless LEDGER_NODE_REQUIRE_BROWSER is set (make test sets it), when it fails.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("LEDGER_NODE_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium found (make test installs Debian's chromium package)")
	}
	t.Skip("no chromium: install Debian's chromium package, or run make test, which does")
	return ""
}

// browser starts headless Chromium and returns a context to drive it and the errors its pages
// reported (exceptions, console.error, failed loads), collected as they come.
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 1000), chromedp.Flag("disable-gpu", true))
	var mu sync.Mutex
	var errs []string
	listen := func(ev any) { // runs on the tab's reader: record and return
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			errs = append(errs, fmt.Sprintf("exception: %s %+v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value))
				}
				errs = append(errs, "console."+string(e.Type)+": "+strings.Join(parts, " "))
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				errs = append(errs, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		}
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), errs...)
	}
}

// screenshot saves the page to $LEDGER_NODE_SCREENSHOTS/name.png when that is set (the PNGs in
// docs/explorer were made so), else to the test's temporary directory.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("LEDGER_NODE_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 gives a PNG, less a JPEG
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// textOf waits (up to 15 s) for an element matching sel and returns its text. It reads the text
// in the page in one step: the live parts of the page are replaced as blocks arrive, so a node
// found in one protocol call may be gone by the next.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.innerText : null; })()`, sel)
	for end := hangguard.Deadline(); ; time.Sleep(50 * time.Millisecond) {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[*string](js))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		if s != nil {
			return *s
		}
		if time.Now().After(end) {
			t.Fatalf("no %s on the page", sel)
		}
	}
}

// waitText waits (up to 15 s) until the element sel's text contains want: a page rendered
// after a change of the URL's fragment replaces the previous one asynchronously.
func waitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	var got string
	for end := hangguard.Deadline(); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if got = textOf(t, ctx, sel); strings.Contains(got, want) {
			return
		}
	}
	t.Fatalf("%s says %q, want %q in it", sel, got, want)
}

func TestExplorerInBrowser(t *testing.T) {
	ctx, pageErrors := browser(t)
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 2)

	// A transfer to find on its pages.
	cmd := devtx.Transfer("sender00", "sender01", "2.5", "0").Build()
	send(t, n.url, 0, cmd)
	rk := cmd.Hash.String()
	res := waitMined(t, n.url, 0, cmd)

	// The braid: 20 chains whose heights rise within 10 s.
	heightsJS := `Array.from(document.querySelectorAll('#braid .chain .height')).map(e => Number(e.dataset.height))`
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/"), chromedp.WaitVisible(chromedp.CSS("#chain-19"))); err != nil {
		t.Fatal(err)
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](heightsJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 20 {
		t.Fatalf("%d chains on the page, want 20", len(first))
	}
	rose := false
	for end := hangguard.Deadline(); time.Now().Before(end) && !rose; time.Sleep(200 * time.Millisecond) {
		now, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](heightsJS))
		if err != nil {
			t.Fatal(err)
		}
		rose = sumInts(now) > sumInts(first)
	}
	if !rose {
		t.Fatalf("%s: %v", hangguard.Failure("the chains' heights rising on the page"), first)
	}
	textOf(t, ctx, "#recent table") // live blocks listed
	// Transactions per second per chain: a transfer mined while the page is open shows on its
	// chain's tile.
	send(t, n.url, 0, devtx.Transfer("sender00", "sender02", "0.5", "0").Build())
	tpsUp := false
	for end := hangguard.Deadline(); time.Now().Before(end) && !tpsUp; time.Sleep(100 * time.Millisecond) {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`Number(document.querySelector('#chain-0 .tps').dataset.tps)`))
		if err != nil {
			t.Fatal(err)
		}
		tpsUp = v > 0
	}
	if !tpsUp {
		t.Errorf("%s: chain 0 says %s", hangguard.Failure("chain 0's tx/s above 0"), textOf(t, ctx, "#chain-0 .tps"))
	}
	screenshot(t, ctx, "home")

	// The page's BLAKE2s, which signs nothing but hashes local's commands, against Go's.
	for _, in := range []string{"", "abc", strings.Repeat("x", 64), strings.Repeat("y", 200)} {
		js := fmt.Sprintf(`b64url(blake2s(new TextEncoder().encode(%q)))`, in)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatal(err)
		}
		sum := blake2s.Sum256([]byte(in))
		if want := base64.RawURLEncoding.EncodeToString(sum[:]); got != want {
			t.Errorf("blake2s(%d bytes) in the page %s, want %s", len(in), got, want)
		}
	}

	// A block from the recent list opens its page. The list is redrawn at every block, so the
	// link is found and clicked in one step in the page.
	clicked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`(() => { const a = document.querySelector('#recent a.mono'); if (a) a.click(); return !!a; })()`))
	if err != nil || !clicked {
		t.Fatalf("no recent block to click: %v", err)
	}
	waitText(t, ctx, "h1", "Block ")

	// The transfer's block lists it with its result and events.
	blockURL := fmt.Sprintf("%s/#/block/0/%s", n.url, res.MetaData.BlockHash)
	if err := chromedp.Do(ctx, chromedp.Navigate(blockURL)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#transactions", rk[:10])
	txs := textOf(t, ctx, "#transactions table")
	for _, want := range []string{rk[:10], "sender00", "success", "TRANSFER"} {
		if !strings.Contains(txs, want) {
			t.Errorf("block page's transactions lack %q: %s", want, txs)
		}
	}
	screenshot(t, ctx, "block")

	// The transaction page: result, events, block, confirmations.
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/#/tx/"+rk)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "h1", "Transaction")
	events := textOf(t, ctx, "#events table")
	if !strings.Contains(events, `coin.TRANSFER(sender00, sender01, 2.5)`) {
		t.Errorf("transaction page's events: %s", events)
	}
	page := textOf(t, ctx, "main")
	for _, want := range []string{"success", res.MetaData.BlockHash, fmt.Sprintf("at height %d", res.MetaData.BlockHeight)} {
		if !strings.Contains(page, want) {
			t.Errorf("transaction page lacks %q: %s", want, page)
		}
	}
	if c := textOf(t, ctx, "#confirmations"); c == "" || c == "NaN" {
		t.Errorf("confirmations %q", c)
	}
	// The command's and the transfer's details (issue 34).
	for sel, want := range map[string]string{
		"#tx-from": "sender00", "#tx-to": "sender01", "#tx-amount": "2.5", "#tx-ttl": "3600",
		"#code": `(coin.transfer "sender00" "sender01" 2.5)`, "#signers": devtx.Key("sender00").PublicHex(),
	} {
		if got := textOf(t, ctx, sel); !strings.Contains(got, want) {
			t.Errorf("transaction page's %s says %q, want %q in it", sel, got, want)
		}
	}
	for _, want := range []string{"gas limit", "gas price", "fee", "nonce", "creation time"} {
		if page := textOf(t, ctx, "main"); !strings.Contains(page, want) {
			t.Errorf("transaction page lacks %q", want)
		}
	}
	// Pending → mined without a reload: a stand-in for fetch holds the transaction back (poll
	// does not know it, the status lists it as pending) until the test lets it through.
	hold := fmt.Sprintf(`(() => {
	  const real = window.fetch, rk = %q;
	  window.__hold = true;
	  window.fetch = async (url, opts) => {
	    if (window.__hold && String(url).endsWith('/poll') && opts && String(opts.body).includes(rk)) {
	      return new Response('{}', { headers: { 'Content-Type': 'application/json' } });
	    }
	    if (window.__hold && String(url) === '/explorer/status') {
	      const st = await (await real(url, opts)).json();
	      st.pendingKeys = (st.pendingKeys || []).concat([{ chain: '0', reqKey: rk }]);
	      return new Response(JSON.stringify(st), { headers: { 'Content-Type': 'application/json' } });
	    }
	    return real(url, opts);
	  };
	  location.hash = '#/tx/' + rk + '/';
	  return true;
	})()`, rk)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](hold)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, ".notice", "Pending in the mempool of chain 0")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.__hold = false, true)`)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#tx-amount", "2.5")

	// Confirmations rise live as blocks of its chain come, without a reload.
	c0 := textOf(t, ctx, "#confirmations")
	waitChange := func() bool {
		for end := hangguard.Deadline(); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if c := textOf(t, ctx, "#confirmations"); c != c0 {
				return true
			}
		}
		return false
	}
	if !waitChange() {
		t.Errorf("%s: confirmations stayed %s", hangguard.Failure("confirmations rising"), c0)
	}
	screenshot(t, ctx, "transaction")

	// The account page: a balance on every chain, chain 0's as the node's local says.
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/#/account/sender01")); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "h1", "sender01")
	textOf(t, ctx, "#balances table")
	balances, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#balances td.balance')).map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(balances) != 20 {
		t.Fatalf("%d balances, want one per chain", len(balances))
	}
	want := balanceAt(t, n.url, "sender01", 0)
	if got := mustDecimal(t, normalDecimal(balances[0])); got.Cmp(want) != 0 {
		t.Errorf("chain 0 balance on the page %s, local says %s", balances[0], want)
	}
	// The receiver's transfers, from the node's transfer index (issue 34).
	waitText(t, ctx, "#transfers", short(rk))
	if got := textOf(t, ctx, "#transfers table"); !strings.Contains(got, "sender00") || !strings.Contains(got, "2.5") {
		t.Errorf("account page's transfers: %s", got)
	}
	screenshot(t, ctx, "account")

	// The search box: a request key leads to its transaction, a block hash to its block.
	search := func(q, wantHash string) {
		t.Helper()
		var loc string
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#q"), q), chromedp.Click(chromedp.CSS("#search button"))); err != nil {
			t.Fatal(err)
		}
		for end := hangguard.Deadline(); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			var err error
			if loc, err = chromedp.Run(ctx, chromedp.Location()); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(loc, wantHash) {
				return
			}
		}
		t.Errorf("search %s ended at %s, want %s", q, loc, wantHash)
	}
	search(rk, "#/tx/"+rk)
	search(res.MetaData.BlockHash, fmt.Sprintf("#/block/0/%s", res.MetaData.BlockHash))
	search("nobody-has-this", "#/account/nobody-has-this")
	waitText(t, ctx, ".notice", "No chain of this node has this account")

	// What the node does not have is said, not an error.
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/#/block/0/"+strings.Repeat("A", 43))); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, ".notice", "This node has no block")
	// Readable numbers: separators, and difficulty (2^256-1 over the little-endian target) for a
	// target of 2^240 is 65,535 (issue 34).
	for js, want := range map[string]string{
		`fmtNum(1234567)`: "1,234,567",
		`(() => { const b = new Uint8Array(32); b[30] = 1; return fmtNum(difficulty(b64url(b))); })()`: "65,535",
	} {
		if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js)); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", js, got, err, want)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(blockURL)); err != nil {
		t.Fatal(err)
	}
	if d := textOf(t, ctx, "#difficulty"); d == "" || d == "?" || strings.Trim(d, "0123456789,") != "" {
		t.Errorf("block page's difficulty %q", d)
	}
	// Search by height lists the blocks at that height on every chain.
	search("1", "#/height/1")
	waitText(t, ctx, "h1", "Height 1")
	if links, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#heights a[href^="#/block/"]').length`)); err != nil || links != 20 {
		t.Errorf("height 1 lists %d blocks (%v), want one per chain", links, err)
	}
	// Paging a chain: the window up to height 2, on the main chain, with a link to newer blocks.
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/#/chain/0/2")); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "main", "Blocks 0 to 2")
	heights, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#blocks tbody tr:not(.orphan) td:first-child')).map(e => e.textContent)`))
	if err != nil || strings.Join(heights, " ") != "2 1 0" {
		t.Errorf("chain 0 up to 2: main-chain heights %v (%v)", heights, err)
	}
	textOf(t, ctx, "#pager a.newer")
	// The block time chart: one point per gap between the window's main-chain blocks.
	if pts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => { const l = document.querySelector('#block-times polyline'); return l ? l.points.numberOfItems : -1; })()`)); err != nil || pts != 2 {
		t.Errorf("block time chart of heights 0 to 2 has %d points (%v), want 2", pts, err)
	}

	// At 400 px no page scrolls sideways (issue 34).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 900)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ frag, h1 string }{{"#/", "cut height"}, {"#/chain/0", "Chain 0"},
		{"#/block/0/" + res.MetaData.BlockHash, "Block "}, {"#/tx/" + rk, "Transaction"},
		{"#/account/sender01", "sender01"}, {"#/search/" + strings.Repeat("Q", 43), "Transaction"}} {
		frag := p.frag
		if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/"+frag)); err != nil {
			t.Fatal(err)
		}
		if frag == "#/" {
			waitText(t, ctx, "main", p.h1)
		} else {
			waitText(t, ctx, "main h1", p.h1)
		}
		if frag == "#/account/sender01" {
			waitText(t, ctx, "h1", "sender01")
			waitText(t, ctx, "#transfers", short(rk))
		}
		if frag == "#/" {
			textOf(t, ctx, "#recent table")
		}
		widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]`))
		if err != nil {
			t.Fatal(err)
		}
		if widths[0] > widths[1] {
			screenshot(t, ctx, "narrow-overflow")
			t.Errorf("%s at 400 px: scrollWidth %d > clientWidth %d", frag, widths[0], widths[1])
		}
	}
	if errs := pageErrors(); len(errs) > 0 {
		t.Fatalf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
}

func sumInts(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// normalDecimal writes an integer balance with ".0", as eval.ParseDecimal wants a decimal.
func normalDecimal(s string) string {
	if !strings.Contains(s, ".") {
		return s + ".0"
	}
	return s
}

// The page is served at / by default, with its status document, and not at all with
// --explorer=false.
func TestExplorerServedAndOff(t *testing.T) {
	on := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off")
	page := get(t, on.url+"/", "")
	if !strings.Contains(string(page), "/explorer/app.js") {
		t.Fatalf("GET / is not the page: %.200s", page)
	}
	var st struct {
		Mining  string         `json:"mining"`
		Pending map[string]int `json:"pending"`
	}
	getJSON(t, on.url+"/explorer/status", "", &st)
	if st.Mining != "off" || len(st.Pending) != 20 {
		t.Fatalf("status %+v", st)
	}
	off := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off", "--explorer=false")
	for _, path := range []string{"/", "/explorer/app.js", "/explorer/status"} {
		resp, err := http.Get(off.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("--explorer=false: GET %s answers %d", path, resp.StatusCode)
		}
	}
}

// The four bugs of issue 34, on a node that mined a few blocks and then runs without mining, so
// that a sent transaction stays pending and no block comes from the stream (as on a node that
// only imported headers). Fork siblings and a missing payload are made by a stand-in for fetch
// in the page.
func TestExplorerIssue34Bugs(t *testing.T) {
	ctx, pageErrors := browser(t)
	dir := t.TempDir()
	miner := startMiningNode(t, dir)
	waitCut(t, miner.url, 2)
	miner.stop()
	n := startNodeOpts(t, nodeOptions{genesisTarget: testTarget(t), workers: 1}, "--data-dir", dir, "--mining", "off")
	var cut struct {
		Hashes map[string]struct {
			Hash   string `json:"hash"`
			Height int    `json:"height"`
		} `json:"hashes"`
	}
	getJSON(t, n.url+"/chainweb/0.0/development/cut", "", &cut)
	tip := cut.Hashes["0"].Hash

	// The home page lists blocks though the stream brings none: it does not wait forever.
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/"), chromedp.WaitVisible(chromedp.CSS("#chain-19"))); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#recent table", short(tip))

	// A transaction sent while the page is open shows in the mempool panel when the panel
	// refreshes (it printed [object HTMLTableElement],[object HTMLParagraphElement]).
	cmd := devtx.Transfer("sender00", "sender01", "1.25", "0").Build()
	send(t, n.url, 0, cmd)
	rk := cmd.Hash.String()
	waitText(t, ctx, "#mempool", short(rk))
	if mp := textOf(t, ctx, "#mempool"); strings.Contains(mp, "[object") {
		t.Fatalf("mempool panel: %s", mp)
	}
	if got := textOf(t, ctx, "#mempool table"); !strings.Contains(got, "0") {
		t.Fatalf("mempool counts: %s", got)
	}

	// Searching a pending request key opens its transaction page, which says it is pending; an
	// unknown one opens the transaction page too, which says not found (both opened accounts).
	search := func(q, want string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#q"), q), chromedp.Click(chromedp.CSS("#search button"))); err != nil {
			t.Fatal(err)
		}
		var loc string
		for end := hangguard.Deadline(); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			var err error
			if loc, err = chromedp.Run(ctx, chromedp.Location()); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(loc, want) {
				return
			}
		}
		t.Fatalf("search %s ended at %s, want %s", q, loc, want)
	}
	search(rk, "#/tx/"+rk)
	waitText(t, ctx, ".notice", "Pending in the mempool of chain 0")
	unknown := strings.Repeat("Q", 43)
	search(unknown, "#/tx/"+unknown)
	waitText(t, ctx, ".notice", "Not found")

	// Stand-ins: the header range of chain 0 gets 25 fork siblings ahead of the real headers,
	// served with the limit and next cursor as the node pages them; payloads answer 404.
	stub := `(() => {
	  const real = window.fetch;
	  window.fetch = async (url, opts) => {
	    const u = new URL(url, location.href);
	    if (/\/chain\/0\/header$/.test(u.pathname) && u.searchParams.has('minheight')) {
	      const limit = Number(u.searchParams.get('limit') || 1e9), start = Number(u.searchParams.get('next') || 0);
	      const q = new URLSearchParams(u.searchParams); q.delete('limit'); q.delete('next');
	      const all = await (await real(u.pathname + '?' + q, opts)).json();
	      const fakes = [];
	      for (let i = 0; i < 25; i++) fakes.push(Object.assign({}, all.items[0], { hash: ('sibling' + i).padEnd(43, 'x'), parent: 'y'.repeat(43) }));
	      const items = fakes.concat(all.items), page = items.slice(start, start + limit);
	      const next = start + limit < items.length ? String(start + limit) : null;
	      return new Response(JSON.stringify({ limit: page.length, items: page, next }), { headers: { 'Content-Type': 'application/json' } });
	    }
	    if (u.pathname.includes('/payload/')) return new Response('not found', { status: 404 });
	    return real(url, opts);
	  };
	  return true;
	})()`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](stub)); err != nil {
		t.Fatal(err)
	}

	// The chain page shows the tip though its window holds more siblings than the limit, and
	// marks the siblings as orphans.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(location.hash = '#/chain/0', true)`)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "h1", "Chain 0")
	rows := textOf(t, ctx, "#blocks table")
	if !strings.Contains(rows, short(tip)) {
		t.Fatalf("chain page lacks the tip %s:\n%s", tip, rows)
	}
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('#blocks tbody tr')).map(r => r.classList.contains('orphan') ? 'orphan' : r.querySelector('a').getAttribute('href'))`))
	if err != nil {
		t.Fatal(err)
	}
	orphans := 0
	for _, m := range marks {
		if m == "orphan" {
			orphans++
		}
	}
	if len(marks) != 25+min(cut.Hashes["0"].Height+1, 20) || marks[0] != "#/block/0/"+tip || orphans != 25 {
		t.Fatalf("chain page rows %v, want the tip first and 25 orphans", marks)
	}
	if got := textOf(t, ctx, "#blocks"); strings.Count(got, "orphan") != 25 {
		t.Fatalf("orphan markers on the page: %s", got)
	}

	// A block whose payload the node lacks shows its header and says the payload is missing.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(location.hash = '#/block/0/%s', true)`, tip))); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, ".notice", "not the payload")
	if page := textOf(t, ctx, "main"); !strings.Contains(page, tip) || !strings.Contains(page, fmt.Sprintf("Block %d of chain 0", cut.Hashes["0"].Height)) {
		t.Fatalf("block page without payload: %s", page)
	}
	if errs := pageErrors(); len(errs) > 0 {
		t.Fatalf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
}

// short is the page's abbreviation of a hash.
func short(h string) string {
	if len(h) > 16 {
		return h[:10] + "…" + h[len(h)-4:]
	}
	return h
}
