package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/transport"
)

// hostilePeer is a fake peer that passes the node's call-back (it serves the genesis block the
// node asks for) and then announces a cut far heavier than the honest one, whose blocks it
// never delivers: it hangs, answers garbage, a tampered header, or an answer too large.
type hostilePeer struct {
	addr    string
	asked   atomic.Int64 // branch queries beyond the call-back's
	stop    chan struct{}
	forged  *ledger.Cut
	version *ledger.Version
}

func startHostilePeer(t *testing.T, behaviour string, v *ledger.Version, genesis []*ledger.Header, honest *ledger.Header) *hostilePeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hostilePeer{addr: ln.Addr().String(), stop: make(chan struct{}), version: v}
	var fake ledger.Hash
	copy(fake[:], behaviour)
	h.forged = &ledger.Cut{Version: v, Entries: []ledger.CutEntry{{Chain: 0, Height: honest.Height + 1000, Hash: fake}}, Height: 1_000_000}
	h.forged.Weight[3] = 1 // 2^192: heavier than any real cut
	tampered := honest.Clone()
	tampered.Nonce++ // its hash no longer matches: a peer that tampers with what it relays
	prefix := "/chainweb/0.0/" + v.Name
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix+"/cut", func(w http.ResponseWriter, _ *http.Request) { w.Write(h.forged.AppendJSON(nil)) })
	mux.HandleFunc("PUT "+prefix+"/cut/peer", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })
	mux.HandleFunc("PUT "+prefix+"/cut", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })
	mux.HandleFunc("GET "+prefix+"/cut/peer", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"limit":0,"items":[],"next":null}`))
	})
	mux.HandleFunc("POST "+prefix+"/chain/{chain}/header/branch", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("maxheight") == "0" {
			var c int
			fmt.Sscan(r.PathValue("chain"), &c)
			fmt.Fprintf(w, `{"limit":1,"items":["%s"],"next":null}`, ledger.EncodeB64(genesis[c].AppendBinary(nil)))
			return
		}
		h.asked.Add(1)
		switch behaviour {
		case "hang":
			select {
			case <-h.stop:
			case <-r.Context().Done():
			}
		case "garbage":
			w.Write([]byte(`{"limit":1,"items":[{{{{ not json`))
		case "tamper":
			fmt.Fprintf(w, `{"limit":1,"items":["%s"],"next":null}`, ledger.EncodeB64(tampered.AppendBinary(nil)))
		case "oversized":
			w.Write([]byte(`{"limit":1,"next":null,"items":["`))
			w.Write(bytes.Repeat([]byte("A"), 9<<20)) // past the 8 MiB a page of headers may take
			w.Write([]byte(`"]}`))
		}
	})
	srv := &http.Server{Handler: mux}
	servePeerTLS(t, srv, ln) // a peer API speaks HTTPS
	t.Cleanup(func() {
		close(h.stop)
		srv.Close()
	})
	return h
}

// announce PUTs the hostile peer's forged cut to the node at p2p until stop closes.
func (h *hostilePeer) announce(p2p string) {
	origin, _ := transport.ParsePeerAddr(h.addr)
	body := transport.AppendCutWithOrigin(nil, h.forged, origin)
	c := &http.Client{Timeout: 5 * time.Second}
	for {
		select {
		case <-h.stop:
			return
		case <-time.After(100 * time.Millisecond): // wallclock: the announcements' pace
		}
		req, _ := http.NewRequest("PUT", "https://"+p2p+"/chainweb/0.0/"+h.version.Name+"/cut", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := c.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
}

// TestHostilePeers is issue 30's: a follower of an honest miner, with four peers that announce
// a far heavier cut and then hang, answer garbage, tamper with headers or answer too much, and a
// client forging the origin of an announcement, keeps following the honest miner to within 60
// cut heights; reserved addresses are refused with the reason, and a peer that never answers the
// call-back is never listed.
func TestHostilePeers(t *testing.T) {
	t.Parallel() // mostly waits on other processes and peers: it overlaps with the other slow ones
	tg, err := pow.TargetFromDifficulty(ledger.U256{1 << 17})
	if err != nil {
		t.Fatal(err)
	}
	opts := nodeOptions{genesisTarget: &tg, workers: 1}
	a := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--miner-key", devMinerKey)
	f := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--mining", "off", "--peer", a.p2p)
	v := f.node.version
	waitCut(t, f.url, 2)

	// Addresses that are never a peer's: 400, saying why.
	for _, addr := range []string{"169.254.169.254:80", "0.0.0.0:1789", "224.0.0.1:1789", "255.255.255.255:1789",
		"[fe80::1]:1789", "[ff02::1]:1789", "240.0.0.1:1789", f.p2p} {
		info, err := transport.ParsePeerAddr(addr)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(info)
		if why := putPeerAPI(t, f.p2p, v, "cut/peer", body, 400); !strings.Contains(why, "not a peer address") {
			t.Errorf("PUT cut/peer %s: %q", addr, why)
		}
	}
	// A peer that never answers its call-back: taken (204), never listed.
	dead, _ := net.Listen("tcp", "127.0.0.1:0")
	deadAddr := dead.Addr().String()
	dead.Close()
	info, _ := transport.ParsePeerAddr(deadAddr)
	body, _ := json.Marshal(info)
	putPeerAPI(t, f.p2p, v, "cut/peer", body, 204)

	// The hostile peers introduce themselves, are called back and listed, then announce.
	head := fetchCut(t, a.url).Entries[0]
	honest, err := a.node.db.Header(head.Hash)
	if err != nil {
		t.Fatal(err)
	}
	var hostile []*hostilePeer
	for _, b := range []string{"hang", "garbage", "tamper", "oversized"} {
		h := startHostilePeer(t, b, v, f.node.genesis, honest)
		info, _ := transport.ParsePeerAddr(h.addr)
		body, _ := json.Marshal(info)
		putPeerAPI(t, f.p2p, v, "cut/peer", body, 204)
		waitListed(t, f.p2p, v, h.addr)
		go h.announce(f.p2p)
		hostile = append(hostile, h)
	}
	// A forged origin: a cut from 127.0.0.2 naming the honest peer as its origin.
	forger := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a self-signed peer certificate
	origin, _ := transport.ParsePeerAddr(a.p2p)
	req, _ := http.NewRequest("PUT", "https://"+f.p2p+"/chainweb/0.0/"+v.Name+"/cut",
		bytes.NewReader(transport.AppendCutWithOrigin(nil, hostile[0].forged, origin)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := forger.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	why, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(why), "is not the address the announcement came from") {
		t.Errorf("a forged origin: %d %q", resp.StatusCode, why)
	}

	// The follower keeps up with the honest miner while the hostile peers announce: each round,
	// it reaches the miner's cut of the round's start, less 60, within a hang guard.
	for round := range 5 {
		target := fetchCut(t, a.url).Height
		deadline := time.Now().Add(time.Minute)
		for {
			got := fetchCut(t, f.url).Height
			if got+60 >= target {
				t.Logf("round %d: the miner at %d, the follower at %d", round, target, got)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the follower is at cut height %d a minute after the miner was at %d", round, got, target)
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(2 * time.Second)
	}
	for _, h := range hostile {
		if h.asked.Load() == 0 {
			t.Errorf("hostile peer %s was never asked for its cut's blocks: the test did not test it", h.addr)
		}
	}
	if listed := listedPeers(t, f.p2p, v); slices.Contains(listed, deadAddr) {
		t.Errorf("the peer that never answered is listed: %v", listed)
	}
	if e := f.node.svc.InternalErrors() + f.node.peerSvc.InternalErrors(); e != 0 {
		t.Errorf("%d internal errors", e)
	}
}
