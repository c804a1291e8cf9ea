package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors/peersync"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/transport"
)

// A network of three nodes on loopback (issue "A network of nodes"): one mines, transactions
// sent to any node reach it and are mined, the others sync and execute the blocks; a node
// stopped for a while catches up after its restart; and all three end on the same cut with
// the same result for every transaction.
func TestThreeNodes(t *testing.T) {
	t.Parallel() // mostly waits on other processes and peers: it overlaps with the other slow ones
	// About 2^17 hashes a block: a few dozen blocks a second, so that the followers, which
	// fetch and re-execute every block within the peer API's rate limit, keep up.
	tg, err := pow.TargetFromDifficulty(ledger.U256{1 << 17})
	if err != nil {
		t.Fatal(err)
	}
	opts := nodeOptions{genesisTarget: &tg, workers: 1}
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	a := startNodeOpts(t, opts, "--data-dir", dirA, "--miner-key", devMinerKey)
	b := startNodeOpts(t, opts, "--data-dir", dirB, "--mining", "off", "--peer", a.p2p)
	c := startNodeOpts(t, opts, "--data-dir", dirC, "--mining", "off", "--peer", a.p2p)
	t0 := time.Now()
	waitCut(t, b.url, 2)
	waitCut(t, c.url, 2)
	t.Logf("b and c synced in %v", time.Since(t0))

	// C goes away; transactions sent to B and A are mined meanwhile.
	c.stop()
	tx1 := devtx.Transfer("sender00", "sender01", "1.5", "0").Build()
	tx2 := devtx.Transfer("sender02", "sender03", "2.5", "1").Build()
	send(t, b.url, 0, tx1)
	send(t, a.url, 1, tx2)
	waitResult(t, a, 0, tx1)
	waitResult(t, b, 1, tx2)
	t.Logf("relayed transactions mined and synced at %v", time.Since(t0))

	// C comes back, catches up, and takes a transaction of its own.
	c = startNodeOpts(t, opts, "--data-dir", dirC, "--mining", "off", "--peer", a.p2p)
	waitResult(t, c, 0, tx1)
	waitResult(t, c, 1, tx2)
	tx3 := devtx.Transfer("sender04", "sender05", "3.5", "2").Build()
	send(t, c.url, 2, tx3)
	waitResult(t, a, 2, tx3)
	t.Logf("c caught up and relayed at %v", time.Since(t0))

	// Mining stops: A restarts without it, and all three settle on one cut.
	a.stop()
	a = startNodeOpts(t, opts, "--data-dir", dirA, "--mining", "off", "--peer", b.p2p, "--peer", c.p2p)
	deadline := time.Now().Add(60 * time.Second)
	for {
		ca, cb, cc := fetchCut(t, a.url), fetchCut(t, b.url), fetchCut(t, c.url)
		if ca.ID() == cb.ID() && cb.ID() == cc.ID() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cuts differ after a minute: heights %d, %d, %d", ca.Height, cb.Height, cc.Height)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("one cut at %v", time.Since(t0))
	for i, tx := range []*api.Command{tx1, tx2, tx3} {
		ra, _ := pollOne(t, a.url, i, tx)
		rb, _ := pollOne(t, b.url, i, tx)
		rc, _ := pollOne(t, c.url, i, tx)
		if ra == nil || !bytes.Equal(ra, rb) || !bytes.Equal(rb, rc) {
			t.Errorf("tx %d: results differ:\n%s\n%s\n%s", i+1, ra, rb, rc)
		}
		if r := decodeResult(t, ra); r.Result.Status != "success" {
			t.Errorf("tx %d failed: %s", i+1, ra)
		}
	}
	for name, n := range map[string]scopedNode{"a": a, "b": b, "c": c} {
		if e := n.node.svc.InternalErrors() + n.node.peerSvc.InternalErrors(); e != 0 {
			t.Errorf("node %s: %d internal errors", name, e)
		}
	}
}

// waitResult polls chain ch of node n until tx has a result.
func waitResult(t *testing.T, n scopedNode, ch int, tx *api.Command) []byte {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if r, ok := pollOne(t, n.url, ch, tx); ok {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("no result for %s on chain %d of %s after a minute (cut height %d)", tx.Hash, ch, n.url, fetchCut(t, n.url).Height)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fakePeer serves a peer API whose chain 0 branch is one forged block on the victim's genesis:
// a peer that lies. It announces a cut far heavier than anything real.
type fakePeer struct {
	addr     string
	branches atomic.Int64
}

func startFakePeer(t *testing.T, v *ledger.Version, genesis, forged *ledger.Header, payload *ledger.PayloadWithOutputs) *fakePeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakePeer{addr: ln.Addr().String()}
	cut := &ledger.Cut{Version: v, Entries: []ledger.CutEntry{{Chain: 0, Height: forged.Height, Hash: forged.Hash}},
		Height: 1_000_000}
	cut.Weight[3] = 1 // 2^192: heavier than any real cut
	prefix := "/chainweb/0.0/" + v.Name
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix+"/cut", func(w http.ResponseWriter, _ *http.Request) {
		w.Write(cut.AppendJSON(nil))
	})
	mux.HandleFunc("PUT "+prefix+"/cut/peer", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })
	mux.HandleFunc("GET "+prefix+"/cut/peer", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"limit":0,"items":[],"next":null}`))
	})
	mux.HandleFunc("POST "+prefix+"/chain/0/header/branch", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("maxheight") == "0" {
			// The node's call-back asks for the genesis block: it is the node's own, so the
			// peer passes as one of its network.
			fmt.Fprintf(w, `{"limit":1,"items":["%s"],"next":null}`, ledger.EncodeB64(genesis.AppendBinary(nil)))
			return
		}
		f.branches.Add(1)
		fmt.Fprintf(w, `{"limit":1,"items":["%s"],"next":null}`, ledger.EncodeB64(forged.AppendBinary(nil)))
	})
	mux.HandleFunc("POST "+prefix+"/chain/0/payload/outputs/batch", func(w http.ResponseWriter, _ *http.Request) {
		b, _ := json.Marshal([]*ledger.PayloadWithOutputs{payload})
		w.Write(b)
	})
	srv := &http.Server{Handler: mux}
	servePeerTLS(t, srv, ln) // a peer API speaks HTTPS
	t.Cleanup(func() { srv.Close() })
	return f
}

// A peer serving an invalid block is refused and the node keeps its cut: a block with a wrong
// hash, and a block whose payload does not execute to the outputs it claims.
func TestInvalidPeerIsRefused(t *testing.T) {
	opts := nodeOptions{genesisTarget: testTarget(t), workers: 1}
	n := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--mining", "off")
	v := n.node.version
	g := n.node.genesis[0]
	var adj []*ledger.Header
	for _, ch := range v.GraphAt(0).Neighbors(0) {
		adj = append(adj, n.node.genesis[ch])
	}
	// A payload with a coinbase output nobody's execution produces.
	payload := ledger.NewPayloadWithOutputs(ledger.MinerData("k:"+devMinerKey, devMinerKey),
		[]byte(`{"gas":0,"result":{"status":"success","data":"forged"}}`), nil)

	badPayload, err := newBlock(v, g, adj, payload.PayloadHash)
	if err != nil {
		t.Fatal(err)
	}
	badHash := badPayload.Clone()
	badHash.Hash[0] ^= 1

	before := fetchCut(t, n.url)
	for name, blk := range map[string]*ledger.Header{"wrong hash": badHash, "invalid payload": badPayload} {
		f := startFakePeer(t, v, g, blk, payload)
		// The fake peer introduces itself (a cut from an unknown origin is refused, as
		// upstream refuses it), the node calls it back and lists it, then it announces its cut.
		info, _ := transport.ParsePeerAddr(f.addr)
		self, _ := json.Marshal(info)
		putPeerAPI(t, n.p2p, v, "cut/peer", self, 204)
		waitListed(t, n.p2p, v, f.addr)
		putPeerAPI(t, n.p2p, v, "cut", appendOrigin(t, f.addr, blk, v), 204)
		deadline := hangguard.Deadline()
		for f.branches.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if f.branches.Load() == 0 {
			t.Fatalf("%s: the node never asked the peer for its blocks", name)
		}
		time.Sleep(200 * time.Millisecond)
		if ok, _ := n.node.db.HasHeader(blk.Hash); ok && name == "invalid payload" {
			t.Errorf("%s: the block was stored", name)
		}
		if after := fetchCut(t, n.url); after.ID() != before.ID() {
			t.Errorf("%s: the cut changed to height %d", name, after.Height)
		}
	}
	if e := n.node.svc.InternalErrors() + n.node.peerSvc.InternalErrors(); e != 0 {
		t.Errorf("%d internal errors", e)
	}
}

// putPeerAPI PUTs body to the peer API at p2p and checks the status.
func putPeerAPI(t *testing.T, p2p string, v *ledger.Version, path string, body []byte, want int) string {
	t.Helper()
	req, _ := http.NewRequest("PUT", "https://"+p2p+"/chainweb/0.0/"+v.Name+"/"+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("PUT %s: %d %s, want %d", path, resp.StatusCode, b, want)
	}
	return string(b)
}

// listedPeers reads the peer list the node at p2p serves.
func listedPeers(t *testing.T, p2p string, v *ledger.Version) []string {
	t.Helper()
	var page struct {
		Items []transport.PeerInfo `json:"items"`
	}
	getJSON(t, "https://"+p2p+"/chainweb/0.0/"+v.Name+"/cut/peer", "application/json", &page)
	var out []string
	for _, it := range page.Items {
		out = append(out, it.String())
	}
	return out
}

// waitListed waits until the node at p2p lists addr as a peer: it called it back (a hang
// guard of 30 s).
func waitListed(t *testing.T, p2p string, v *ledger.Version, addr string) {
	t.Helper()
	deadline := hangguard.Deadline()
	for !slices.Contains(listedPeers(t, p2p, v), addr) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (its list: %v)", hangguard.Failure("the node listing "+addr), listedPeers(t, p2p, v))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// newBlock mines the next block on parent with payload hash ph.
func newBlock(v *ledger.Version, parent *ledger.Header, adj []*ledger.Header, ph ledger.Hash) (*ledger.Header, error) {
	h, err := pow.NewHeader(v, parent, adj, ph, time.Now().Add(-time.Second).UnixMicro(), 0, 0)
	if err != nil {
		return nil, err
	}
	for !pow.CheckPow(h) {
		h.Nonce++
	}
	h.Seal()
	return h, nil
}

// appendOrigin is a PUT cut body announcing a cut headed by blk on chain 0, from addr.
func appendOrigin(t *testing.T, addr string, blk *ledger.Header, v *ledger.Version) []byte {
	t.Helper()
	o, err := transport.ParsePeerAddr(addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &ledger.Cut{Version: v, Entries: []ledger.CutEntry{{Chain: 0, Height: blk.Height, Hash: blk.Hash}}, Height: 1_000_000}
	c.Weight[3] = 1
	return transport.AppendCutWithOrigin(nil, c, o)
}

// Catch-up is pipelined by height windows (a window inserting while the next is fetched), and
// falls back to whole branches when this node's own blocks fork below the peer's: a fresh node
// and a node that mined a fork of its own both end on the miner's cut.
func TestCatchUpInWindowsAndAcrossAFork(t *testing.T) {
	t.Parallel() // mostly waits on other processes and peers: it overlaps with the other slow ones
	opts := nodeOptions{genesisTarget: testTarget(t), workers: 1}
	dirA, dirB := t.TempDir(), t.TempDir()
	a := startNodeOpts(t, opts, "--data-dir", dirA, "--miner-key", devMinerKey)
	// B mines a few blocks of its own, unaware of A: a fork from the genesis blocks up.
	b := startNodeOpts(t, opts, "--data-dir", dirB, "--miner-key", devMinerKey)
	waitCut(t, b.url, 3)
	b.stop()
	waitCut(t, a.url, 12) // 240 blocks and more: several windows
	a.stop()
	a = startNodeOpts(t, opts, "--data-dir", dirA, "--mining", "off")
	target := fetchCut(t, a.url)

	// Windows of 100 blocks: 5 heights of the 20 chains.
	small := opts
	small.syncWindow = 100
	c := startLoggedNode(t, small, io.Discard, "--data-dir", t.TempDir(), "--mining", "off", "--peer", a.p2p, "--log-level", "debug")
	b = startLoggedNode(t, small, io.Discard, "--data-dir", dirB, "--mining", "off", "--peer", a.p2p, "--log-level", "debug")
	for name, n := range map[string]scopedNode{"fresh": c, "forked": b} {
		deadline := time.Now().Add(60 * time.Second)
		for fetchCut(t, n.url).ID() != target.ID() {
			if time.Now().After(deadline) {
				t.Fatalf("%s node at cut height %d after a minute, want the miner's %d", name, fetchCut(t, n.url).Height, target.Height)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if log := c.log.String(); strings.Contains(log, "whole branches") || !strings.Contains(log, "caught up") {
		t.Errorf("the fresh node did not catch up window by window:\n%s", lastLines(log, 20))
	}
	if log := b.log.String(); !strings.Contains(log, "fetching whole branches") {
		t.Errorf("the forked node did not fall back to whole branches:\n%s", lastLines(log, 20))
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// countingPeer counts the branch queries a peer is asked; a lying one leaves the top header
// out of every answer, a slow one takes its time over each, and one short of payloads serves
// only the first payload a request asks for.
type countingPeer struct {
	peersync.Peer
	branches      *atomic.Int64
	lies          *atomic.Int64 // answers altered by a lying peer
	lie           bool
	slow          time.Duration
	shortPayloads bool
}

func (p countingPeer) Payloads(ctx context.Context, c ledger.ChainID, hashes []ledger.Hash) (map[ledger.Hash]*ledger.PayloadWithOutputs, error) {
	if p.shortPayloads && len(hashes) > 1 {
		hashes = hashes[:1]
	}
	return p.Peer.Payloads(ctx, c, hashes)
}

func (p countingPeer) BranchRange(ctx context.Context, c ledger.ChainID, lower, upper []ledger.Hash, minHeight, maxHeight uint64) ([]*ledger.Header, error) {
	p.branches.Add(1)
	select {
	case <-time.After(p.slow):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	hs, err := p.Peer.BranchRange(ctx, c, lower, upper, minHeight, maxHeight)
	if p.lie && err == nil && len(hs) > 1 {
		// It answers the one-header query of the call-back that verifies it truly, so
		// that it is a helper whichever comes first, its verification or the catch-up.
		hs = hs[1:]
		p.lies.Add(1)
	}
	return hs, err
}

// A node catching up fetches windows from every peer that holds the cut, not only from the
// one whose cut it adopts: each peer answers a client only 50 requests a second. A helper
// that serves an incomplete branch is dropped at once and its window fetched from the origin,
// and so is one whose window does not insert (it lacks payloads) once part of it is inserted;
// a helper that is slow does not hold the catch-up back: the origin fetches its windows too.
func TestCatchUpFromSeveralPeers(t *testing.T) {
	t.Parallel() // mostly waits on other processes and peers: it overlaps with the other slow ones
	opts := nodeOptions{genesisTarget: testTarget(t), workers: 1}
	dirA, dirB := t.TempDir(), t.TempDir()
	a := startNodeOpts(t, opts, "--data-dir", dirA, "--miner-key", devMinerKey)
	waitCut(t, a.url, 12) // 240 blocks and more
	a.stop()
	if err := os.CopyFS(dirB, os.DirFS(dirA)); err != nil {
		t.Fatal(err)
	}
	a = startNodeOpts(t, opts, "--data-dir", dirA, "--mining", "off")
	b := startNodeOpts(t, opts, "--data-dir", dirB, "--mining", "off")
	target := fetchCut(t, a.url)
	if got := fetchCut(t, b.url); got.ID() != target.ID() {
		t.Fatalf("the copied store serves cut height %d, the original %d", got.Height, target.Height)
	}
	// The two cuts weigh the same: the origin is the peer of the first address.
	origin, helper := a.p2p, b.p2p
	if helper < origin {
		origin, helper = helper, origin
	}
	for _, helperIs := range []string{"honest", "lying", "slow", "short of payloads"} {
		counts := map[string]*atomic.Int64{origin: new(atomic.Int64), helper: new(atomic.Int64)}
		lies := new(atomic.Int64)
		small := opts
		small.syncWindow = 40 // two heights of the 20 chains
		small.wrapPeer = func(addr string, p peersync.Peer) peersync.Peer {
			cp := countingPeer{Peer: p, branches: counts[addr], lies: lies}
			if cp.branches == nil {
				return p
			}
			if addr == helper {
				cp.lie, cp.shortPayloads = helperIs == "lying", helperIs == "short of payloads"
				if helperIs == "slow" {
					// A window (20 queries) takes a minute; the whole catch-up from the
					// origin alone takes a few seconds.
					cp.slow = 3 * time.Second
				}
			}
			return cp
		}
		c := startLoggedNode(t, small, io.Discard, "--data-dir", t.TempDir(), "--mining", "off",
			"--peer", a.p2p, "--peer", b.p2p, "--log-level", "info")
		t0 := time.Now()
		deadline := t0.Add(45 * time.Second)
		for fetchCut(t, c.url).ID() != target.ID() {
			if time.Now().After(deadline) {
				t.Fatalf("%s helper: at cut height %d after 45 s, want %d\n%s", helperIs, fetchCut(t, c.url).Height, target.Height, lastLines(c.log.String(), 20))
			}
			time.Sleep(50 * time.Millisecond)
		}
		took := time.Since(t0)
		// The node serves the cut as soon as the last window is inserted; the syncer logs that
		// it caught up a moment later (on a loaded machine, after the test would have stopped
		// it): wait for that line.
		for !strings.Contains(c.log.String(), `msg="caught up"`) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		c.stop()
		log := c.log.String()
		o, h := counts[origin].Load(), counts[helper].Load()
		t.Logf("%s helper: caught up in %v; branch queries: origin %d, helper %d", helperIs, took.Round(time.Millisecond), o, h)
		switch {
		case !strings.Contains(log, "helpers=1"):
			t.Errorf("%s helper: the catch-up did not start with the other peer as a helper:\n%s", helperIs, lastLines(log, 20))
		case helperIs == "honest" && (o < 20 || h < 20 || strings.Contains(log, "helper dropped")):
			// A window is one query per chain: each peer fetched at least one.
			t.Errorf("honest helper: the origin was asked %d branch queries and the helper %d:\n%s", o, h, lastLines(log, 20))
		case helperIs == "lying" && (lies.Load() < 1 || lies.Load() > 4 || !strings.Contains(log, "catch-up helper dropped") || !strings.Contains(log, "incomplete branch")):
			// A window's queries go four at a time, and the first answer that lies ends them:
			// it lies four times at most (the one-header answers, which it cannot shorten
			// without lying about genesis, it answers truly).
			t.Errorf("lying helper: asked %d branch queries, %d answered with a lie (want four at most, then dropped):\n%s", h, lies.Load(), lastLines(log, 20))
		case !strings.Contains(log, fmt.Sprintf("msg=\"caught up\" component=sync peer=%s blocks=%d ", origin, target.Height)):
			// Every block counted once, those of a window inserted again from the origin too.
			t.Errorf("%s helper: the catch-up did not report %d blocks caught up:\n%s", helperIs, target.Height, lastLines(log, 20))
		case helperIs == "short of payloads" && (!strings.Contains(log, "has no payload") || !strings.Contains(log, ","+helper+"=0")):
			t.Errorf("helper short of payloads: not dropped, or a window of its used:\n%s", lastLines(log, 20))
		case helperIs == "slow" && !strings.Contains(log, ","+helper+"=0"):
			t.Errorf("slow helper: caught up in %v, want the origin to fetch the slow windows and no window of the helper's used:\n%s",
				took, lastLines(log, 20))
		}
	}
}
