package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// A follower started with another block delay than its peer has another genesis (on the
// development network the genesis target follows the block delay). It must drop the peer with
// one ERROR that says which block delay the peer was probably started with, instead of warning
// about an invalid block every minute while it stays at height 0 (issue 19).
func TestPeerWithAnotherGenesisIsDropped(t *testing.T) {
	t.Parallel() // mostly waits on other processes and peers: it overlaps with the other slow ones
	// The genesis targets stand in the ratio pow.DevGenesisTarget gives them (target ∝ 1/delay),
	// at difficulties a test mines in no time: the leader's 5s target is 6 times the
	// follower's 30s one.
	leaderTarget, err := pow.TargetFromDifficulty(ledger.U256{64})
	if err != nil {
		t.Fatal(err)
	}
	followerTarget, err := pow.TargetFromDifficulty(ledger.U256{6 * 64})
	if err != nil {
		t.Fatal(err)
	}
	leader := startNodeOpts(t, nodeOptions{genesisTarget: &leaderTarget, workers: 1},
		"--data-dir", t.TempDir(), "--miner-key", devMinerKey, "--block-delay", "5s")
	waitCut(t, leader.url, 2)

	log := new(syncbuf.Buffer)
	follower := startLoggedNode(t, nodeOptions{genesisTarget: &followerTarget, workers: 1}, log,
		"--data-dir", t.TempDir(), "--mining", "off", "--block-delay", "30s", "--peer", leader.p2p)
	const want = "has a different genesis: it was probably started with --block-delay 5s (ours: 30s)"
	deadline := hangguard.Deadline()
	for !strings.Contains(log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no ERROR %q after 30 s; log:\n%s", want, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Two poll rounds later: still one ERROR, no invalid-block warnings, no peer, height 0.
	time.Sleep(2*2*time.Second + 500*time.Millisecond)
	out := log.String()
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "level=ERROR") {
			t.Log(l)
		}
	}
	if n := strings.Count(out, "level=ERROR"); n != 1 {
		t.Errorf("%d ERROR lines, want 1:\n%s", n, out)
	}
	if strings.Contains(out, "invalid block") {
		t.Errorf("the follower still warns of invalid blocks:\n%s", out)
	}
	if !strings.Contains(out, "peer="+leader.p2p) {
		t.Errorf("the ERROR does not name the peer %s:\n%s", leader.p2p, out)
	}
	resp, err := http.Get("https://" + follower.p2p + "/chainweb/0.0/development/cut/peer")
	if err != nil {
		t.Fatal(err)
	}
	var peers struct{ Items []json.RawMessage }
	json.NewDecoder(resp.Body).Decode(&peers)
	resp.Body.Close()
	if len(peers.Items) != 0 {
		t.Errorf("the follower still lists %d peers", len(peers.Items))
	}
	if h := fetchCut(t, follower.url).Height; h != 0 {
		t.Errorf("follower at height %d", h)
	}
	// The dropped peer cannot introduce itself again; the refusal says why.
	req, _ := http.NewRequest(http.MethodPut, "https://"+follower.p2p+"/chainweb/0.0/development/cut/peer",
		strings.NewReader(`{"id":null,"address":{"hostname":"`+strings.Split(leader.p2p, ":")[0]+`","port":`+strings.Split(leader.p2p, ":")[1]+`}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	buf := make([]byte, 512)
	n, _ := resp.Body.Read(buf)
	body.Write(buf[:n])
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body.String(), want) {
		t.Errorf("PUT cut/peer of the dropped peer: %d %q", resp.StatusCode, body.String())
	}
}
