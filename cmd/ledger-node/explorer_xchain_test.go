package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// continuationsAnswer is GET …/chain/{chain}/pact/{pactIdHash}/continuations.
type continuationsAnswer struct {
	Items []struct {
		Height     uint64 `json:"height"`
		BlockHash  string `json:"blockHash"`
		RequestKey string `json:"requestKey"`
		Step       int64  `json:"step"`
		Result     string `json:"result"`
	} `json:"items"`
	Next *string `json:"next"`
}

// A real cross-chain transfer (chain 0 to chain 5) on a mining node: the target chain's index
// of continuations lists the attempt that failed and the step that completed it, the sender's
// and receiver's transfers carry the pact id, the explorer links both ends both ways in
// chromium, and the index is there after a restart.
func TestExplorerCrossChainLinks(t *testing.T) {
	ctx, pageErrors := browser(t)
	dir := t.TempDir()
	n := startMiningNode(t, dir)
	waitCut(t, n.url, 2)
	const source, target = 0, 5
	receiverKey := devtx.Key("sender01").PublicHex()

	step0 := devtx.CrossChainTransfer("sender00", "sender01", receiverKey, "1.75", fmt.Sprint(source), fmt.Sprint(target)).Build()
	if r, body := listenResult(t, n.url, source, step0); r.Result.Status != "success" {
		t.Fatalf("step 0: %s", body)
	}
	pact := step0.Hash.String() // a defpact started by a command has its request key as pact id
	contURL := fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/pact/%s/continuations", n.url, target, pact)
	if resp, err := http.Get(contURL); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("continuations before any: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	proof := fetchProof(t, n.url, source, step0.Hash, target)
	// An attempt without the proof fails; it is listed too, as failed.
	noProof := devtx.Continuation(pact, 1, "", fmt.Sprint(target), "sender02")
	noProof.Cont.Proof = nil
	if r, body := listenResult(t, n.url, target, noProof.Build()); r.Result.Status != "failure" {
		t.Fatalf("a continuation without its proof: %s", body)
	}
	step1 := devtx.Continuation(pact, 1, proof, fmt.Sprint(target), "sender02").Build()
	if r, body := listenResult(t, n.url, target, step1); r.Result.Status != "success" {
		t.Fatalf("step 1: %s", body)
	}
	var conts continuationsAnswer
	getJSON(t, contURL, "", &conts)
	if len(conts.Items) != 2 || conts.Items[0].Result != "failure" || conts.Items[1].RequestKey != step1.Hash.String() ||
		conts.Items[1].Result != "success" || conts.Items[1].Step != 1 || conts.Next != nil {
		t.Fatalf("continuations: %+v", conts)
	}

	// Both ends in the transfer index: the sender's first step names the target chain, the
	// receiver's credit the source chain; both the pact.
	type xitem struct {
		Chain      int    `json:"chain"`
		RequestKey string `json:"requestKey"`
		From, To   string
		CrossChain *struct {
			TargetChain string `json:"targetChain"`
			SourceChain string `json:"sourceChain"`
			PactID      string `json:"pactId"`
		} `json:"crossChain"`
	}
	findX := func(account, rk string) *xitem {
		t.Helper()
		var page struct{ Items []xitem }
		getJSON(t, n.url+"/chainweb/0.0/development/account/"+account+"/transfers?limit=100", "", &page)
		for _, it := range page.Items {
			if it.RequestKey == rk && it.CrossChain != nil {
				return &it
			}
		}
		return nil
	}
	if it := findX("sender00", pact); it == nil || it.Chain != source || it.CrossChain.TargetChain != fmt.Sprint(target) || it.CrossChain.PactID != pact {
		t.Fatalf("sender00's first step: %+v", it)
	}
	if it := findX("sender01", step1.Hash.String()); it == nil || it.Chain != target || it.CrossChain.SourceChain != fmt.Sprint(source) || it.CrossChain.PactID != pact {
		t.Fatalf("sender01's credit: %+v", it)
	}

	// In the browser: the first step's page links the continuation, which links back.
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/#/tx/"+pact)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#tx-continuation", short(step1.Hash.String()))
	if got := textOf(t, ctx, "#tx-continuation"); !strings.Contains(got, fmt.Sprintf("to chain %d", target)) || !strings.Contains(got, "success") {
		t.Fatalf("the first step's cross-chain row: %s", got)
	}
	// Its sender, receiver and amount are the TRANSFER_XCHAIN's, not the burn's.
	if from, to := textOf(t, ctx, "#tx-from"), textOf(t, ctx, "#tx-to"); from != "sender00" || to != "sender01" {
		t.Fatalf("the first step's from %q, to %q", from, to)
	}
	screenshot(t, ctx, "crosschain")
	click := func(sel string) {
		t.Helper()
		js := fmt.Sprintf(`(() => { const a = document.querySelector(%q); if (a) a.click(); return !!a; })()`, sel)
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil || !ok {
			t.Fatalf("no %s to click: %v", sel, err)
		}
	}
	waitURL := func(suffix string) {
		t.Helper()
		var loc string
		for end := hangguard.Deadline(); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			var err error
			if loc, err = chromedp.Run(ctx, chromedp.Location()); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(loc, suffix) {
				return
			}
		}
		t.Fatalf("at %s, want …%s", loc, suffix)
	}
	click("#tx-continuation a.mono")
	waitURL("#/tx/" + step1.Hash.String())
	waitText(t, ctx, "#tx-pact", fmt.Sprintf("from chain %d", source))
	if got := textOf(t, ctx, "#tx-pact"); !strings.Contains(got, pact) || !strings.Contains(got, "step 1") {
		t.Fatalf("the continuation's row: %s", got)
	}
	click("#tx-pact a.mono")
	waitURL("#/tx/" + pact)
	waitText(t, ctx, "#tx-continuation", short(step1.Hash.String()))

	// The account pages: the sender's row leads to the continuation, the receiver's to the
	// first step.
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/#/account/sender00")); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#transfers", fmt.Sprintf("to chain %d", target))
	click(fmt.Sprintf(`#transfers a.to-continuation[href="#/cont/%d/%s"]`, target, pact))
	waitURL("#/tx/" + step1.Hash.String())
	waitText(t, ctx, "#tx-pact", pact)
	if err := chromedp.Do(ctx, chromedp.Navigate(n.url+"/#/account/sender01")); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#transfers", fmt.Sprintf("from chain %d", source))
	click(fmt.Sprintf(`#transfers a.to-source[href="#/tx/%s"]`, pact))
	waitURL("#/tx/" + pact)
	waitText(t, ctx, "#tx-continuation", short(step1.Hash.String()))
	// A pact not continued on a chain says so.
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/#/cont/%d/%s", n.url, 3, pact))); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, ".notice", "has not been continued on chain 3")
	if errs := unexpectedErrors(pageErrors(), "/continuations"); len(errs) > 0 {
		t.Fatalf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}

	// After a restart the index still lists both.
	n.stop()
	again := startNodeOpts(t, nodeOptions{genesisTarget: testTarget(t), workers: 1}, "--data-dir", dir, "--mining", "off")
	defer again.stop()
	var after continuationsAnswer
	getJSON(t, strings.Replace(contURL, n.url, again.url, 1), "", &after)
	if b1, b2 := mustJSON(t, conts), mustJSON(t, after); b1 != b2 {
		t.Fatalf("after the restart: %s, was %s", b2, b1)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unexpectedErrors drops from a page's errors the 404s of the paths that answer 404 by design
// (a pact not continued yet, a payload the node lacks), which the browser logs as failed
// loads; every other error stays.
func unexpectedErrors(errs []string, paths404 ...string) []string {
	var out []string
next:
	for _, e := range errs {
		if strings.Contains(e, "status of 404") {
			for _, p := range paths404 {
				if strings.Contains(e, p) {
					continue next
				}
			}
		}
		out = append(out, e)
	}
	return out
}
