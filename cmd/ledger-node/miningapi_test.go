package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/blake2s"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
)

// The mining API driven by an external miner written from the protocol alone
// (chainweb-mining-and-config.md §1.2–1.6, §2.2): it shares no code with the node's miner.

const otherMinerKey = "6be2f485a7af75fedb4b7f153a903f7e6000ca4aa501179c91a2450b777bd2a7"

// extMiner is a chainweb-mining-client as the fact sheet describes it.
type extMiner struct {
	t      *testing.T
	api    string // …/chainweb/0.0/development
	body   []byte // the miner JSON
	client *http.Client
}

func newExtMiner(t *testing.T, base, account, key string) *extMiner {
	body, _ := json.Marshal(map[string]any{"account": account, "public-keys": []string{key}, "predicate": "keys-all"})
	return &extMiner{t: t, api: base + "/chainweb/0.0/development", body: body,
		client: &http.Client{Timeout: 60 * time.Second}}
}

func (m *extMiner) do(method, path, contentType string, body []byte) (int, []byte) {
	m.t.Helper()
	req, err := http.NewRequest(method, m.api+path, bytes.NewReader(body))
	if err != nil {
		m.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// work asks for work, on chain (a suggestion) when chain ≥ 0.
func (m *extMiner) work(chain int) (int, []byte) {
	m.t.Helper()
	path := "/mining/work"
	if chain >= 0 {
		path += fmt.Sprintf("?chain=%d", chain)
	}
	return m.do("GET", path, "application/json", m.body)
}

// mustWork is work that must succeed, checked against the layout of §1.4.
func (m *extMiner) mustWork(chain int) []byte {
	m.t.Helper()
	status, w := m.work(chain)
	if status != 200 {
		m.t.Fatalf("GET mining/work: %d %s", status, w)
	}
	checkWorkLayout(m.t, w)
	return w
}

// solved posts a solution: the 286 header bytes after the 36-byte prefix.
func (m *extMiner) solved(b []byte) (int, []byte) {
	m.t.Helper()
	return m.do("POST", "/mining/solved", "", b) // the mining client sets no content type
}

func checkWorkLayout(t *testing.T, w []byte) {
	t.Helper()
	if len(w) != 322 {
		t.Fatalf("work is %d bytes, want 322", len(w))
	}
	if !bytes.Equal(w[0:4], w[258:262]) {
		t.Fatalf("chain id %x at 0, %x at 258", w[0:4], w[258:262])
	}
	if !bytes.Equal(w[4:36], w[194:226]) {
		t.Fatalf("target %x at 4, %x at 194", w[4:36], w[194:226])
	}
	if !bytes.Equal(w[314:322], make([]byte, 8)) {
		t.Fatalf("nonce %x, want 0", w[314:322])
	}
	ct := time.UnixMicro(int64(binary.LittleEndian.Uint64(w[44:52])))
	if d := time.Since(ct); d < 0 || d > time.Minute {
		t.Fatalf("creation time %v is not now", ct)
	}
	if n := binary.LittleEndian.Uint16(w[84:86]); n != 3 {
		t.Fatalf("%d adjacent hashes", n)
	}
}

func workChain(w []byte) uint32   { return binary.LittleEndian.Uint32(w[0:4]) }
func workHeight(w []byte) uint64  { return binary.LittleEndian.Uint64(w[294:302]) }
func workPayload(w []byte) []byte { return w[226:258] }

// meets reports whether the BLAKE2s-256 of hdr, read as a little-endian number, is at most the
// little-endian target.
func meets(hdr, target []byte) bool {
	h := blake2s.Sum256(hdr)
	for i := 31; i >= 0; i-- {
		if h[i] != target[i] {
			return h[i] < target[i]
		}
	}
	return true
}

// solve searches nonces (bytes 278..285 of the header) from 0 until the PoW meets the target;
// with bad it returns the first nonce that does not.
func solve(t *testing.T, w []byte, bad bool) []byte {
	t.Helper()
	hdr := bytes.Clone(w[36:])
	target := w[4:36]
	for nonce := uint64(0); nonce < 1<<24; nonce++ {
		binary.LittleEndian.PutUint64(hdr[278:], nonce)
		if meets(hdr, target) != bad {
			return hdr
		}
	}
	t.Fatal("no nonce found")
	return nil
}

// sseLines reads an event stream's lines into a channel until the body ends.
func sseLines(resp *http.Response) <-chan string {
	out := make(chan string, 1024)
	go func() {
		defer close(out)
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				out <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// openStream opens a GET event stream with a body and returns its response.
func openStream(t *testing.T, url string, body []byte) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func chainBytes(c uint32) []byte { return binary.LittleEndian.AppendUint32(nil, c) }

// waitLine waits for a line containing want on lines.
func waitLine(t *testing.T, lines <-chan string, want string, what string) {
	t.Helper()
	deadline := hangguard.After()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s: the stream ended before %q", what, want)
			}
			if strings.Contains(l, want) {
				return
			}
		case <-deadline:
			t.Fatalf("%s: %s", what, hangguard.Failure(fmt.Sprintf("%q", want)))
		}
	}
}

func TestMiningAPIExternalMiner(t *testing.T) {
	opts := nodeOptions{genesisTarget: testTarget(t)}
	n := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--mining", "off", "--enable-mining-coordination",
		"--mining-public-key", testMinerKey, "--mining-public-key", otherMinerKey,
		"--mining-request-limit", "4", "--mining-update-stream-limit", "3")
	alice := newExtMiner(t, n.url, "k:"+testMinerKey, testMinerKey)
	bob := newExtMiner(t, n.url, "k:"+otherMinerKey, otherMinerKey)

	// Refusals first, while the work cache is empty.
	stranger := newExtMiner(t, n.url, "k:"+strings.Repeat("ab", 32), strings.Repeat("ab", 32))
	if status, body := stranger.work(-1); status != 403 || string(body) != "Unauthorized Miner: k:"+strings.Repeat("ab", 32) {
		t.Fatalf("unknown miner: %d %s", status, body)
	}
	// The same account with another predicate is another miner.
	sneaky := newExtMiner(t, n.url, "k:"+testMinerKey, testMinerKey)
	sneaky.body = bytes.Replace(sneaky.body, []byte("keys-all"), []byte("keys-any"), 1)
	if status, _ := sneaky.work(-1); status != 403 {
		t.Fatalf("known account and key with another predicate: %d", status)
	}
	if status, body := alice.do("GET", "/mining/work", "", alice.body); status != 415 {
		t.Fatalf("work without a content type: %d %s", status, body)
	}
	if status, body := alice.do("GET", "/mining/work", "application/json", []byte(`{"account":"x"}`)); status != 400 {
		t.Fatalf("miner without keys: %d %s", status, body)
	}

	// Take work, watch its chain, solve it, submit it.
	w := alice.mustWork(0)
	c := workChain(w)
	updates := openStream(t, alice.api+"/mining/updates", chainBytes(c))
	if updates.StatusCode != 200 || updates.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("mining/updates: %d %s", updates.StatusCode, updates.Header.Get("Content-Type"))
	}
	mineEvents := sseLines(updates)
	headers := openStream(t, alice.api+"/header/updates", nil)
	headerEvents := sseLines(headers)
	time.Sleep(100 * time.Millisecond) // let both streams subscribe before the block

	// A wrong nonce first: 400, and the work is gone from the cache.
	if status, body := alice.solved(solve(t, w, true)); status != 400 || string(body) != "Invalid solved work: Invalid POW hash" {
		t.Fatalf("bad nonce: %d %s", status, body)
	}
	w = alice.mustWork(int(c))
	if workChain(w) != c {
		t.Fatalf("suggested chain %d, got work on %d", c, workChain(w))
	}
	if status, body := alice.solved(append(solve(t, w, false), 0)); status != 400 || !strings.HasPrefix(string(body), "Decoding error: ") {
		t.Fatalf("287 bytes: %d %s", status, body)
	}
	sol := solve(t, w, false)
	if status, body := alice.solved(sol); status != 200 || len(body) != 0 {
		t.Fatalf("solution: %d %q", status, body)
	}
	if status, body := alice.solved(sol); status != 404 || string(body) != "No associated Payload" {
		t.Fatalf("resubmission: %d %s", status, body)
	}

	// The block is the head of its chain in the cut, is served byte for byte, and reached the
	// header stream and the mining update stream.
	cut := fetchCut(t, n.url)
	head := cut.Entries[c]
	if head.Height != workHeight(w) {
		t.Fatalf("chain %d at height %d after the block at %d", c, head.Height, workHeight(w))
	}
	served := get(t, fmt.Sprintf("%s/chain/%d/header/%s", alice.api, c, head.Hash), "application/octet-stream")
	if !bytes.Equal(served[:286], sol) {
		t.Fatal("the served header is not the solution")
	}
	// Its coinbase pays the miner who asked for the work.
	var payload ledger.PayloadWithOutputs
	ph := base64.RawURLEncoding.EncodeToString(workPayload(w))
	if err := json.Unmarshal(get(t, fmt.Sprintf("%s/chain/%d/payload/%s/outputs", alice.api, c, ph), ""), &payload); err != nil {
		t.Fatal(err)
	}
	if want := ledger.MinerData("k:"+testMinerKey, testMinerKey); !bytes.Equal(payload.MinerData, want) {
		t.Fatalf("miner data %s, want %s", payload.MinerData, want)
	}
	waitLine(t, headerEvents, head.Hash.String(), "header/updates")
	waitLine(t, mineEvents, "event:New Cut", "mining/updates")

	// A stale solution: bob's work on a chain, then alice's block on the same parent. Bob's
	// is an orphan: 200, and the cut keeps alice's.
	wb := bob.mustWork(-1)
	c = workChain(wb)
	wa := alice.mustWork(int(c))
	if workChain(wa) != c || bytes.Equal(workPayload(wa), workPayload(wb)) {
		t.Fatalf("work on chains %d and %d for two miners, same payload %v", workChain(wa), workChain(wb), bytes.Equal(workPayload(wa), workPayload(wb)))
	}
	if status, body := alice.solved(solve(t, wa, false)); status != 200 {
		t.Fatalf("alice's solution: %d %s", status, body)
	}
	mined := fetchCut(t, n.url).Entries[c]
	if status, body := bob.solved(solve(t, wb, false)); status != 200 || len(body) != 0 {
		t.Fatalf("stale solution: %d %q", status, body)
	}
	if now := fetchCut(t, n.url).Entries[c]; now.Hash != mined.Hash {
		t.Fatalf("chain %d: the stale solution replaced the head", c)
	}

	// Update streams: the limit is 3, so two can be open; the third gets 503. A body that is
	// not a chain id gets 400.
	updates.Body.Close()
	time.Sleep(100 * time.Millisecond) // the closed stream gives its slot back
	openStream(t, alice.api+"/mining/updates", chainBytes(1))
	openStream(t, alice.api+"/mining/updates", chainBytes(2))
	third := openStream(t, alice.api+"/mining/updates", chainBytes(3))
	if b, _ := io.ReadAll(third.Body); third.StatusCode != 503 || string(b) != "No more update streams available currently. Retry later." {
		t.Fatalf("third stream: %d %s", third.StatusCode, b)
	}
	if status, body := alice.do("GET", "/mining/updates", "", []byte{1, 0, 0}); status != 400 {
		t.Fatalf("3-byte updates body: %d %s", status, body)
	}

	// Over the limit: with more than 4 pieces of work out, 503.
	for i := 0; ; i++ {
		status, body := alice.work(i % 20)
		if status == 503 {
			if string(body) != "Too many work requests" {
				t.Fatalf("over the limit: %s", body)
			}
			break
		}
		if status != 200 || i == 100 {
			t.Fatalf("work request %d: %d %s", i, status, body)
		}
	}
	if got := n.node.svc.InternalErrors(); got != 0 {
		t.Fatalf("%d internal errors", got)
	}
}

// Off by default: /mining/* is not there.
func TestMiningAPIOffByDefault(t *testing.T) {
	n := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off")
	m := newExtMiner(t, n.url, "k:"+testMinerKey, testMinerKey)
	if status, _ := m.work(-1); status != 404 {
		t.Fatalf("mining/work on a node without coordination: %d", status)
	}
}
