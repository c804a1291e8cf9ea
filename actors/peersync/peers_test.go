package peersync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// stubPeer is a Peer whose answers a test sets: its cut, and the header its branch queries
// return (the genesis the call-back asks for).
type stubPeer struct {
	addr    string
	id      string // the fingerprint of the certificate it presents
	cut     *ledger.Cut
	genesis *ledger.Header
	err     error
}

func (p *stubPeer) Addr() string { return p.addr }
func (p *stubPeer) ID() string   { return p.id }
func (p *stubPeer) Cut(context.Context) (*ledger.Cut, error) {
	return p.cut, p.err
}
func (p *stubPeer) PutCut(context.Context, *ledger.Cut, string) error { return nil }
func (p *stubPeer) Peers(context.Context) ([]string, error)           { return nil, nil }
func (p *stubPeer) AddPeer(context.Context, string) error             { return nil }
func (p *stubPeer) Branch(context.Context, ledger.ChainID, []ledger.Hash, []ledger.Hash) ([]*ledger.Header, error) {
	return nil, errors.New("not asked")
}
func (p *stubPeer) BranchRange(_ context.Context, c ledger.ChainID, _, _ []ledger.Hash, lo, hi uint64) ([]*ledger.Header, error) {
	if p.err != nil {
		return nil, p.err
	}
	return []*ledger.Header{p.genesis}, nil
}
func (p *stubPeer) Payloads(context.Context, ledger.ChainID, []ledger.Hash) (map[ledger.Hash]*ledger.PayloadWithOutputs, error) {
	return nil, nil
}
func (p *stubPeer) InsertTxs(context.Context, ledger.ChainID, []*api.Command) error { return nil }

// tableNode is the development network with the given genesis headers and store; the rest of
// Node is not there (a call panics).
type tableNode struct {
	Node
	db      *store.DB
	genesis []*ledger.Header
}

func (n *tableNode) Version() *ledger.Version  { return ledger.Development }
func (n *tableNode) Genesis() []*ledger.Header { return n.genesis }
func (n *tableNode) Store() *store.DB          { return n.db }

// tableSyncer is a Syncer with a peer table and nothing running, over the development network
// with genesis g on chain 0.
func tableSyncer(t *testing.T, g *ledger.Header, maxPeers int, dial func(addr, id string) Peer) *Syncer {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rt := &tableNode{db: db, genesis: []*ledger.Header{g}}
	return &Syncer{rt: rt, cfg: Config{MaxPeers: maxPeers, Dial: dial, Self: "127.0.0.1:1789"},
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), table: map[string]*peerEntry{}, candSet: map[string]bool{},
		rejected: map[string]time.Time{}, verifyWake: make(chan struct{}, 1), offers: map[string]*ledger.Cut{},
		cuts: map[string]*ledger.Cut{}, foreign: map[string]string{}, quit: make(chan struct{})}
}

// An offered peer is a candidate until its call-back answers as a node of this network and
// genesis; only then is it listed and are its cuts taken. One of another genesis, or that does
// not answer, is never listed.
func TestPeerCallBack(t *testing.T) {
	g := ledger.GenesisHeader(ledger.Development, 0, ledger.Hash{1})
	other := ledger.GenesisHeader(ledger.Development, 0, ledger.Hash{2})
	cut := &ledger.Cut{Version: ledger.Development, Entries: []ledger.CutEntry{{Chain: 0, Hash: ledger.Hash{9}}}}
	peers := map[string]*stubPeer{
		"10.0.0.1:1789": {addr: "10.0.0.1:1789", cut: cut, genesis: g},
		"10.0.0.2:1789": {addr: "10.0.0.2:1789", cut: cut, genesis: other},
		"10.0.0.3:1789": {addr: "10.0.0.3:1789", err: fmt.Errorf("%w: connection refused", ErrPeerUnreachable)},
	}
	s := tableSyncer(t, g, 10, func(a, _ string) Peer { return peers[a] })
	s.cfg.Policy = func(a string) error {
		if a == "169.254.169.254:80" {
			return errors.New("not a peer address: link-local")
		}
		return nil
	}
	if err := s.AddPeer("169.254.169.254:80"); err == nil {
		t.Fatal("the policy's refusal was not passed on")
	}
	if err := s.AddPeer("127.0.0.1:1789"); err == nil {
		t.Fatal("the node's own address was taken")
	}
	for a := range peers {
		if err := s.AddPeer(a); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Peers(); len(got) != 0 || s.KnownPeer("10.0.0.1:1789") {
		t.Fatalf("candidates listed or known before their call-back: %v", got)
	}
	s.wg.Add(1)
	go s.verifyLoop()
	deadline := time.Now().Add(time.Minute)
	pending := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, failed := s.rejected["10.0.0.3:1789"]
		_, foreign := s.foreign["10.0.0.2:1789"]
		return len(s.cands) > 0 || !failed || !foreign
	}
	for len(s.Peers()) == 0 || pending() {
		if time.Now().After(deadline) {
			t.Fatal("hang guard: the call-backs did not end")
		}
		time.Sleep(time.Millisecond)
	}
	close(s.quit)
	s.wg.Wait()
	if got := s.Peers(); len(got) != 1 || got[0] != "10.0.0.1:1789" || !s.KnownPeer("10.0.0.1:1789") {
		t.Fatalf("listed %v, want the one peer of this genesis", got)
	}
	if _, ok := s.foreign["10.0.0.2:1789"]; !ok {
		t.Error("the peer of another genesis is not remembered as such")
	}
	if err := s.AddPeer("10.0.0.2:1789"); err == nil {
		t.Error("the peer of another genesis was taken again")
	}
	if _, ok := s.rejected["10.0.0.3:1789"]; !ok || s.KnownPeer("10.0.0.3:1789") {
		t.Error("the peer that did not answer is not remembered, or is known")
	}
	// Offered again soon after, the failed candidate is not called back again.
	s.AddPeer("10.0.0.3:1789")
	if len(s.cands) != 0 {
		t.Errorf("a candidate that just failed queued again: %v", s.cands)
	}
}

// Failures back a peer off for longer each time; a peer that offers a cut it does not deliver
// is banned at its second; bans double; answers clear the backoff, and only delivered blocks
// raise the score.
func TestPeerScores(t *testing.T) {
	g := ledger.GenesisHeader(ledger.Development, 0, ledger.Hash{1})
	s := tableSyncer(t, g, 10, nil)
	s.table["a"] = &peerEntry{addr: "a", p: &stubPeer{addr: "a"}, verified: true, added: time.Now()}
	e := s.table["a"]
	timeout := fmt.Errorf("%w: slow", ErrPeerTimeout)
	s.bad("a", timeout)
	if e.score != -1 || e.fails != 1 || !time.Now().Before(e.backoff) || len(s.livePeers()) != 0 {
		t.Fatalf("after a timeout: %+v", e)
	}
	first := time.Until(e.backoff)
	s.bad("a", timeout)
	if second := time.Until(e.backoff); second <= first {
		t.Fatalf("the backoff did not grow: %v then %v", first, second)
	}
	s.good("a", false)
	if e.fails != 0 || !e.backoff.IsZero() || e.score != -2 || len(s.livePeers()) != 1 {
		t.Fatalf("an answer: %+v", e)
	}
	s.good("a", true)
	if e.score != -1 {
		t.Fatalf("delivered blocks: score %d", e.score)
	}
	// Offering a cut and not delivering it: banned at the second time.
	s.undelivered("a", timeout)
	if !e.banned.IsZero() {
		t.Fatalf("banned at the first undelivered cut: %+v", e)
	}
	s.undelivered("a", timeout)
	if !time.Now().Before(e.banned) || s.KnownPeer("a") || len(s.Peers()) != 0 {
		t.Fatalf("not banned at the second undelivered cut: %+v", e)
	}
	firstBan := time.Until(e.banned)
	// An invalid block bans at once, for twice as long as the ban before.
	e.banned = time.Time{}
	s.bad("a", &pow.ValidationError{Rule: pow.IncorrectPow})
	if got := time.Until(e.banned); got < firstBan*3/2 {
		t.Fatalf("second ban %v, first %v: not doubled", got, firstBan)
	}
}

// The table is bounded: a verified candidate takes the place of a dead peer, or of the worst one
// below zero, never of a configured peer; a full table of good peers takes no more.
func TestPeerTableBounded(t *testing.T) {
	g := ledger.GenesisHeader(ledger.Development, 0, ledger.Hash{1})
	s := tableSyncer(t, g, 3, nil)
	now := time.Now()
	s.table["seed"] = &peerEntry{addr: "seed", seed: true, score: -9, added: now}
	s.table["good"] = &peerEntry{addr: "good", verified: true, score: 5, added: now, lastOK: now}
	s.table["dead"] = &peerEntry{addr: "dead", verified: true, fails: deadFails, added: now.Add(-2 * deadAfter),
		lastOK: now.Add(-2 * deadAfter)}
	s.admit("new1", &stubPeer{addr: "new1"})
	if _, ok := s.table["dead"]; ok || s.table["new1"] == nil {
		t.Fatalf("the dead peer did not make room: %v", keys(s.table))
	}
	s.admit("new2", &stubPeer{addr: "new2"})
	if s.table["new2"] != nil || len(s.table) != 3 {
		t.Fatalf("a full table of peers not below zero took another: %v", keys(s.table))
	}
	s.table["good"].score = -3
	s.admit("new2", &stubPeer{addr: "new2"})
	if s.table["good"] != nil || s.table["new2"] == nil || s.table["seed"] == nil {
		t.Fatalf("want the failing peer replaced, the seed kept: %v", keys(s.table))
	}
	// The sweep drops dead peers, but not configured ones.
	for _, e := range s.table {
		e.fails, e.lastOK = deadFails, now.Add(-2*deadAfter)
	}
	s.sweep()
	if len(s.table) != 1 || s.table["seed"] == nil {
		t.Fatalf("after the sweep: %v", keys(s.table))
	}
}

func keys(m map[string]*peerEntry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A peer offered with an id must present the certificate of that fingerprint: one that
// presents another is refused (and remembered with that id only), never listed; offered
// without an id, the same address is taken and listed with the id it presented. A configured
// peer whose certificate is not its id's is logged once at ERROR and never verified.
func TestPeerIdentity(t *testing.T) {
	g := ledger.GenesisHeader(ledger.Development, 0, ledger.Hash{1})
	cut := &ledger.Cut{Version: ledger.Development, Entries: []ledger.CutEntry{{Chain: 0, Hash: ledger.Hash{9}}}}
	const real, wrong = "REAL", "WRONG"
	// The stub plays the client's check: asked for an id other than its certificate's, it
	// refuses as transport.PeerClient does at the handshake.
	dial := func(a, id string) Peer {
		if id != "" && id != real {
			return &stubPeer{addr: a, id: id, err: fmt.Errorf("%w: peer %s presented %s, not %s", ErrPeerIdentity, a, real, id)}
		}
		return &stubPeer{addr: a, id: real, cut: cut, genesis: g}
	}
	s := tableSyncer(t, g, 10, dial)
	var logged bytes.Buffer
	s.log = slog.New(slog.NewTextHandler(&logged, nil))
	if err := s.AddPeer(wrong + "@10.0.0.1:1789"); err != nil {
		t.Fatal(err)
	}
	s.wg.Add(1)
	go s.verifyLoop()
	waitFor := func(what string, done func() bool) {
		t.Helper()
		deadline := hangguard.Deadline()
		for !done() {
			if time.Now().After(deadline) {
				t.Fatal(hangguard.Failure(what))
			}
			time.Sleep(time.Millisecond)
		}
	}
	rejected := func(info string) func() bool {
		return func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			_, ok := s.rejected[info]
			return ok
		}
	}
	waitFor("the call-back of the peer with the wrong id", rejected(wrong+"@10.0.0.1:1789"))
	if got := s.PeerInfos(); len(got) != 0 || s.KnownPeer("10.0.0.1:1789") {
		t.Fatalf("a peer whose certificate is not its id's was taken: %v", got)
	}
	if !strings.Contains(logged.String(), "peer refused: its certificate is not the one its peer id names") {
		t.Errorf("no log line says why the peer was refused:\n%s", logged.String())
	}
	// The same address without an id, and with its right id, is still called back.
	s.AddPeer("10.0.0.1:1789")
	s.AddPeer(real + "@10.0.0.2:1789")
	waitFor("the call-backs of the peers", func() bool { return len(s.PeerInfos()) == 2 })
	if got := s.PeerInfos(); !slices.Equal(got, []string{real + "@10.0.0.1:1789", real + "@10.0.0.2:1789"}) {
		t.Errorf("listed %v, want both with the id of their certificate", got)
	}
	// A configured peer with a wrong id: refused at every poll, said once.
	s.addSeed(wrong + "@10.0.0.3:1789")
	waitFor("the seed's call-back", rejected(wrong+"@10.0.0.3:1789"))
	for range 3 {
		s.bad("10.0.0.3:1789", fmt.Errorf("%w: again", ErrPeerIdentity))
	}
	close(s.quit)
	s.wg.Wait()
	if n := strings.Count(logged.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d ERROR lines for the configured peer with a wrong id, want 1:\n%s", n, logged.String())
	}
	if slices.ContainsFunc(s.PeerInfos(), func(p string) bool { return strings.Contains(p, "10.0.0.3") }) {
		t.Error("the configured peer with a wrong id is listed")
	}
}

// The sync lag is measured against the heaviest cut a peer still in the table offered.
func TestBestPeerCut(t *testing.T) {
	s := &Syncer{table: map[string]*peerEntry{}, cuts: map[string]*ledger.Cut{}}
	if _, ok := s.BestPeerCut(); ok {
		t.Fatal("a best peer cut with no peer")
	}
	s.table["a:1"], s.table["b:1"] = &peerEntry{}, &peerEntry{}
	s.cuts["a:1"] = &ledger.Cut{Height: 40, Weight: ledger.U256{400}}
	s.cuts["b:1"] = &ledger.Cut{Height: 30, Weight: ledger.U256{500}} // heavier, lower
	s.cuts["gone:1"] = &ledger.Cut{Height: 90, Weight: ledger.U256{900}}
	if h, ok := s.BestPeerCut(); !ok || h != 30 {
		t.Fatalf("best peer cut height %d %v, want 30 (the heaviest of the known peers')", h, ok)
	}
}
