package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/api"
)

// The node's bounds on request-triggered evaluation, end to end: /local's gas limit is capped,
// and heavy /local requests take at most the evaluation slots while health checks, header
// reads and mining go on; a request that finds no slot in time gets a 503 with the reason.

// localGas posts code to chain 0's /local and returns the status and the result's gas and
// error message.
func localGas(t *testing.T, base, code string, limit uint64) (int, int64, string) {
	t.Helper()
	c := devtx.Cmd{Code: code, GasLimit: limit, Signers: []*api.KeyPair{devtx.Key("sender00")},
		Caps: [][]api.SigCapability{{{Name: "coin.GAS"}}}}.Build()
	status, body := post(t, pactURL(base, 0, "local"), c.JSON())
	if status != http.StatusOK {
		return status, 0, string(body)
	}
	var r struct {
		Gas    int64
		Result struct{ Error struct{ Message string } }
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("local: %v: %s", err, body)
	}
	return status, r.Gas, r.Result.Error.Message
}

func TestLocalGasFiguresAndCap(t *testing.T) {
	n := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off", "--local-gas-limit", "4000")
	defer n.stop()
	for _, tc := range []struct {
		code string
		gas  int64
	}{
		{"(+ 1 2)", 1},                  // 130 mg
		{"(fold (+) 0 [1 2 3 4 5])", 2}, // 1,750 mg, chainweb's applyLocal figure
	} {
		if status, g, msg := localGas(t, n.url, tc.code, 1000); status != 200 || g != tc.gas {
			t.Errorf("%s: %d, gas %d, %s; want %d gas", tc.code, status, g, msg, tc.gas)
		}
	}
	// A billion asked for, 4,000 given.
	status, g, msg := localGas(t, n.url, "(fold (+) 0 (enumerate 1 1000000))", 1_000_000_000)
	if status != 200 || g != 4000 || !strings.HasPrefix(msg, `Gas limit "4000"exceeded`) {
		t.Errorf("capped local: %d gas %d %q", status, g, msg)
	}
}

// Six heavy locals (each spends the whole 150,000 gas of the default cap, some tenths of a
// second) against one evaluation slot that a request waits 300 ms for: at least one runs, the
// ones that cannot get the slot in time get a 503 with the reason, and meanwhile the health
// check and the cut answer promptly and the miner keeps mining.
func TestHeavyLocalsLeaveTheNodeResponsive(t *testing.T) {
	// A mining node (startMiningNode's settings) with one evaluation slot.
	n := startNodeOpts(t, nodeOptions{genesisTarget: testTarget(t), workers: 1},
		"--data-dir", t.TempDir(), "--miner-key", devMinerKey, "--eval-slots", "1", "--eval-wait", "300ms",
		"--local-time-limit", "1m") // under the race detector on a busy machine, past 1.875 s
	defer n.stop()
	start := fetchCut(t, n.url).Height

	const heavy = "(fold (lambda (a x) (+ a x)) 0 (enumerate 1 1000000))"
	type answer struct {
		status int
		gas    int64
		msg    string
	}
	answers := make(chan answer, 6)
	var wg sync.WaitGroup
	var heavyRan atomic.Bool // a heavy local has finished its evaluation
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, g, m := localGas(t, n.url, heavy, 150000)
			if s == 200 {
				heavyRan.Store(true)
			}
			answers <- answer{s, g, m}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	// While they run: the health check and the cut, every 50 ms. What counts is order, not
	// time: probes answered before any heavy local finished its evaluation.
	probes, before := 0, 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(50 * time.Millisecond): // wallclock: the probes' pace
		}
		resp, err := http.Get(n.url + "/health-check")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("health check: %d", resp.StatusCode)
		}
		fetchCut(t, n.url)
		if !heavyRan.Load() {
			before++
		}
		probes++
	}
	close(answers)
	ran, busy := 0, 0
	for a := range answers {
		switch {
		case a.status == 200 && a.gas == 150000:
			ran++
		case a.status == http.StatusServiceUnavailable && strings.Contains(a.msg, "The node is busy"):
			busy++
		default:
			t.Errorf("heavy local: %d gas %d %q", a.status, a.gas, a.msg)
		}
	}
	t.Logf("%d ran, %d turned away; %d probes, %d answered before a heavy local finished", ran, busy, probes, before)
	if ran == 0 || busy == 0 {
		t.Errorf("%d ran, %d turned away: want both", ran, busy)
	}
	if before == 0 {
		t.Errorf("no health check and cut read was answered while the heavy locals ran (%d probes)", probes)
	}
	// Mining went on.
	hangguard.Until(t, "a block mined after the heavy locals", func() bool { return fetchCut(t, n.url).Height > start })
}

// A transaction built to cost far more CPU than its gas (Pact 5 charges mod a flat price) is
// bounded in time: /local answers 400 with the reason once the bound passes, and a mining node
// leaves it out of its blocks and badlists it, while the transactions sent with it are mined.
func TestSlowTransactionBounded(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	defer n.stop()
	const slowCode = `(let ((x (^ 3 100000)) (y (^ 7 20000))) (fold (lambda (a i) (mod x y)) 0 (enumerate 1 20000)))`
	slow := devtx.Cmd{Code: slowCode, Sender: "sender01", Signers: []*api.KeyPair{devtx.Key("sender01")}, GasLimit: 150_000}.Build()
	status, body := post(t, pactURL(n.url, 0, "local"), slow.JSON())
	if status != http.StatusBadRequest || !strings.Contains(string(body), "ran longer than this node's bound of 1.875s") {
		t.Fatalf("slow local: %d %s, want 400 with the bound", status, body)
	}
	fast := devtx.Cmd{Code: `(+ 1 2)`, Signers: []*api.KeyPair{devtx.Key("sender00")}}.Build()
	send(t, n.url, 0, slow, fast)
	if r, _ := listenResult(t, n.url, 0, fast); r.Result.Status != "success" {
		t.Fatalf("the transaction sent with the slow one: %+v", r)
	}
	deadline := hangguard.Deadline()
	for {
		r, ok := pollOne(t, n.url, 0, slow)
		if ok {
			if !strings.Contains(string(r), "badlisted") {
				t.Fatalf("the slow transaction: %s, want it badlisted", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(hangguard.Failure("the slow transaction mined or badlisted"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
