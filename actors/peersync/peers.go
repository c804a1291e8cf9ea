package peersync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// The peer table (issue 30). A peer is an address this node connects to and hands on to every
// other node, so an address enters the table only once the node has called it back and it
// answered as a node of this network and genesis; until then it is a candidate, asked once,
// never served. The table is bounded (Config.MaxPeers); each peer has a score that its
// failures lower (a timeout, an answer that is too large or does not decode, an invalid block)
// and its answers raise. A failing peer is left alone for a while that grows with its failures
// (backoff); one whose score falls too low, or that served an invalid block, is banned for a
// period that doubles with each ban; a peer that has been failing for long is dropped, and
// makes room for candidates. The configured peers (seeds) are never dropped, only backed off.
//
// A peer's id is the fingerprint of its certificate (transport/peercert.go). A peer given with
// an id (a seed "ID@HOST:PORT", an entry of a peer list, PUT cut/peer) must present that
// certificate: its client refuses any other at the handshake (ErrPeerIdentity), and the peer is
// refused with one log line saying so. One given without an id is taken with any certificate,
// whose fingerprint is then its id, listed with it, and updated when it changes (a peer that
// makes a new certificate at each start, as chainweb-node does by default, stays usable).

// peerEntry is one peer of the table.
type peerEntry struct {
	addr string
	// id is the peer id it was given with ("" when none): its certificate must have it.
	id       string
	p        Peer
	seed     bool // from the configuration: never dropped
	verified bool // called back and answered as a node of this network and genesis
	score    int
	fails    int // failures since the last answer
	backoff  time.Time
	banned   time.Time
	bans     int // bans so far: each doubles the next
	lastOK   time.Time
	added    time.Time
	// idRefused: its certificate was refused for its id, which was logged (once).
	idRefused bool
}

// Bounds and prices of the peer table.
const (
	// maxCandidates bounds the addresses waiting to be called back; more are dropped.
	maxCandidates = 256
	// recheckAfter is how long a candidate that failed its call-back is not asked again.
	recheckAfter = 10 * time.Minute
	// maxRejected bounds the remembered failed candidates (the oldest are forgotten).
	maxRejected = 4096
	// verifyTimeout bounds a call-back; verifyWorkers run at once.
	verifyTimeout = 10 * time.Second
	verifyWorkers = 4
	// maxScore caps a peer's credit; banScore is the score at which it is banned.
	maxScore = 10
	banScore = -10
	// maxBackoff caps the wait after failures; maxBan a ban.
	maxBackoff = 5 * time.Minute
	maxBan     = time.Hour
	// deadAfter: a peer that has not answered for this long, failing meanwhile, is dropped.
	deadAfter = 10 * time.Minute
	deadFails = 5
)

// penalty is what a failure costs a peer's score.
func penalty(err error) int {
	switch {
	case errors.Is(err, ErrPeerTooLarge):
		return 5
	case errors.Is(err, ErrPeerAnswer), errors.Is(err, ErrPeerIdentity):
		return 3
	default: // timeouts, refused connections: perhaps only a bad moment
		return 1
	}
}

// isInvalidBlock reports whether err says a peer served an invalid block (not one that is only
// early, or whose parents are missing).
func isInvalidBlock(err error) bool {
	var ve *pow.ValidationError
	return errors.As(err, &ve) && !ve.Ephemeral || errors.Is(err, chain.ErrInvalidPayload)
}

// splitInfo splits a peer info "[ID@]HOST:PORT" (checked by whoever made it) into its id and
// address.
func splitInfo(info string) (id, addr string) {
	if id, addr, ok := strings.Cut(info, "@"); ok {
		return id, addr
	}
	return "", info
}

// joinInfo is the peer info of addr with id.
func joinInfo(id, addr string) string {
	if id == "" {
		return addr
	}
	return id + "@" + addr
}

// addSeed puts a configured peer "[ID@]HOST:PORT" in the table (unverified until its call-back
// answers).
func (s *Syncer) addSeed(info string) {
	id, addr := splitInfo(info)
	if addr == "" || addr == s.cfg.Self {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.table[addr]; ok {
		return
	}
	s.table[addr] = &peerEntry{addr: addr, id: id, p: s.cfg.Dial(addr, id), seed: true, added: time.Now()}
	s.queueCandidate(addr, id)
	if id != "" {
		s.log.Info("peer added", "peer", addr, "peerId", id, "configured", true)
	} else {
		s.log.Info("peer added", "peer", addr, "configured", true)
	}
}

// AddPeer takes a peer "[ID@]HOST:PORT" offered by PUT cut/peer: an address the policy refuses
// is an error (the peer API answers 400 with it); any other becomes a candidate, which enters
// the table once it answers a call-back (with the certificate its id names, if it has one). A
// peer dropped for another genesis is refused with the reason.
func (s *Syncer) AddPeer(info string) error {
	id, addr := splitInfo(info)
	if addr == s.cfg.Self || id != "" && id == s.cfg.SelfID {
		return fmt.Errorf("not a peer address: %s is this node's own peer API", addr)
	}
	if s.cfg.Policy != nil {
		if err := s.cfg.Policy(addr); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if why, ok := s.foreign[addr]; ok {
		return errors.New(why)
	}
	s.queueCandidate(addr, id)
	return nil
}

// learn takes a peer "[ID@]HOST:PORT" from a peer's list: as AddPeer, silently.
func (s *Syncer) learn(info string) {
	id, addr := splitInfo(info)
	if addr == "" || addr == s.cfg.Self || id != "" && id == s.cfg.SelfID || s.cfg.Policy != nil && s.cfg.Policy(addr) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.foreign[addr]; ok {
		return
	}
	s.queueCandidate(addr, id)
}

// queueCandidate queues addr (with the id it was given, if any) for a call-back, unless it is
// in the table already (and verified), queued, or failed one lately. A candidate refused for
// its certificate is remembered with its id: the same address offered without one, or with
// the right one, is still called back, so that a peer list naming a good peer with a wrong id
// does not keep the good peer out. The caller holds mu.
func (s *Syncer) queueCandidate(addr, id string) {
	if e, ok := s.table[addr]; ok && e.verified {
		return
	}
	info := joinInfo(id, addr)
	if s.candSet[info] || len(s.cands) >= maxCandidates {
		return
	}
	if at, ok := s.rejected[info]; ok && time.Since(at) < recheckAfter {
		return
	}
	s.cands = append(s.cands, info)
	s.candSet[info] = true
	s.wakeVerifier()
}

// wakeVerifier wakes a call-back worker, if one waits.
func (s *Syncer) wakeVerifier() {
	select {
	case s.verifyWake <- struct{}{}:
	default:
	}
}

// verifyLoop is one of verifyWorkers goroutines that call the candidates back: several, so that
// addresses that never answer (each waits verifyTimeout) hold up the others less.
func (s *Syncer) verifyLoop() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		var info string
		if len(s.cands) > 0 {
			info, s.cands = s.cands[0], s.cands[1:]
			delete(s.candSet, info)
			if len(s.cands) > 0 {
				s.wakeVerifier() // another worker takes the next
			}
		}
		s.mu.Unlock()
		if info == "" {
			select {
			case <-s.quit:
				return
			case <-s.verifyWake:
			}
			continue
		}
		id, addr := splitInfo(info)
		s.mu.Lock()
		e := s.table[addr]
		s.mu.Unlock()
		var p Peer
		if e != nil {
			p = e.p
		} else {
			p = s.cfg.Dial(addr, id)
		}
		ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
		err := s.verify(ctx, p)
		cancel()
		if s.stopped() {
			return
		}
		if err == nil && s.cfg.SelfID != "" && p.ID() == s.cfg.SelfID {
			err = fmt.Errorf("%s is this node itself: its certificate is this node's", addr)
		}
		if err != nil {
			if errors.Is(err, ErrPeerIdentity) {
				if e == nil {
					s.log.Warn("peer refused: its certificate is not the one its peer id names", "peer", addr, "peerId", id, "err", err)
				}
			} else {
				s.log.Debug("peer candidate refused", "peer", addr, "err", err)
			}
			s.mu.Lock()
			if len(s.rejected) >= maxRejected {
				clear(s.rejected) // forgetting them costs one call-back each, later
			}
			s.rejected[info] = time.Now()
			s.mu.Unlock()
			var fg *foreignGenesisError
			if errors.As(err, &fg) {
				s.dropForeign(addr, fg.Error())
			} else if e != nil {
				s.bad(addr, err)
			}
			continue
		}
		s.admit(addr, p)
	}
}

// verify calls p back: it must answer its cut, of this network, and the genesis block of its
// chain 0 must be this node's.
func (s *Syncer) verify(ctx context.Context, p Peer) error {
	c, err := p.Cut(ctx)
	if err != nil {
		return err
	}
	if c.Version == nil || c.Version.Name != s.rt.Version().Name {
		return fmt.Errorf("%w: its cut is not of network %s", ErrPeerAnswer, s.rt.Version().Name)
	}
	genesis := pow.Heads(s.rt.Genesis())
	for _, e := range c.Entries {
		ours := genesis.At(e.Chain)
		if ours == nil {
			continue
		}
		hs, err := p.BranchRange(ctx, e.Chain, nil, []ledger.Hash{e.Hash}, ours.Height, ours.Height)
		if err != nil {
			return err
		}
		if len(hs) != 1 || hs[0].Height != ours.Height || hs[0].ChainID != e.Chain {
			return fmt.Errorf("%w: not one genesis header of chain %d", ErrPeerAnswer, e.Chain)
		}
		if hs[0].Hash != ours.Hash {
			if err := s.checkGenesis(p.Addr(), hs); err != nil {
				return err // says what differs (on the development network: the block delay)
			}
			return &foreignGenesisError{msg: fmt.Sprintf("peer %s has a different genesis: its genesis block of chain %d is %s", p.Addr(), e.Chain, hs[0].Hash)}
		}
		return nil // one chain's genesis names the network's parameters
	}
	return fmt.Errorf("%w: its cut has no chain of this network", ErrPeerAnswer)
}

// admit puts a verified peer in the table, making room by dropping a dead or failing one if it
// is full.
func (s *Syncer) admit(addr string, p Peer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if e, ok := s.table[addr]; ok {
		if !e.verified {
			e.verified = true
			s.log.Info("peer verified", "peer", addr, "peerId", e.p.ID())
		}
		e.lastOK = now
		return
	}
	if len(s.table) >= s.cfg.MaxPeers && !s.evictOne(now) {
		s.log.Debug("peer table full: candidate not taken", "peer", addr)
		return
	}
	s.table[addr] = &peerEntry{addr: addr, p: p, verified: true, added: now, lastOK: now}
	s.log.Info("peer added", "peer", addr, "peerId", p.ID())
}

// evictOne drops a dead peer, or else the lowest-scored peer below 0, to make room; seeds stay.
// The caller holds mu.
func (s *Syncer) evictOne(now time.Time) bool {
	var worst *peerEntry
	for _, e := range s.table {
		if e.seed {
			continue
		}
		if s.dead(e, now) {
			worst = e
			break
		}
		if e.score < 0 && (worst == nil || e.score < worst.score) {
			worst = e
		}
	}
	if worst == nil {
		return false
	}
	s.removePeer(worst.addr, "making room")
	return true
}

// dead reports whether a peer has been failing for deadAfter. The caller holds mu.
func (s *Syncer) dead(e *peerEntry, now time.Time) bool {
	last := e.lastOK
	if last.IsZero() {
		last = e.added
	}
	return e.fails >= deadFails && now.Sub(last) > deadAfter
}

// removePeer drops a peer and what it offered. The caller holds mu.
func (s *Syncer) removePeer(addr, why string) {
	delete(s.table, addr)
	delete(s.offers, addr)
	delete(s.cuts, addr)
	s.log.Info("peer dropped", "peer", addr, "why", why)
}

// sweep drops the peers that have been failing for long (not the seeds).
func (s *Syncer) sweep() {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for addr, e := range s.table {
		if !e.seed && s.dead(e, now) {
			s.removePeer(addr, fmt.Sprintf("no answer for %v", deadAfter))
		}
	}
}

// reverify queues a configured peer that answers but was not verified yet (it was down when the
// node started) for its call-back, so that it is listed once it passes.
func (s *Syncer) reverify(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.table[addr]; ok && !e.verified {
		s.queueCandidate(addr, e.id)
	}
}

// good records an answer of addr; credit raises its score, which only blocks it delivered do:
// a peer that answers polls but never delivers the cuts it offers earns nothing by them.
func (s *Syncer) good(addr string, credit bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.table[addr]; ok {
		e.fails, e.lastOK = 0, time.Now()
		e.backoff = time.Time{}
		if credit {
			e.score = min(e.score+1, maxScore)
		}
	}
}

// undelivered records that addr offered a heavier cut and did not deliver it: it costs at
// least half a ban, so that a peer that advertises cuts it never serves (it hangs, answers
// garbage or too much, or lacks the blocks) is banned at its second offer.
func (s *Syncer) undelivered(addr string, err error) {
	if isInvalidBlock(err) {
		s.ban(addr, err)
		return
	}
	s.penalize(addr, err, max(penalty(err), -banScore/2))
}

// bad records a failure of addr: its score drops by the failure's penalty, and it is left alone
// for a while that doubles with each failure in a row; an invalid block, or a score at banScore,
// bans it. A peer whose certificate is not the one its id names is said so once, at ERROR: it
// is a configured peer (a candidate never enters the table), which the operator must correct.
func (s *Syncer) bad(addr string, err error) {
	if isInvalidBlock(err) {
		s.ban(addr, err)
		return
	}
	if errors.Is(err, ErrPeerIdentity) {
		s.mu.Lock()
		e, ok := s.table[addr]
		first := ok && !e.idRefused
		if first {
			e.idRefused = true
		}
		s.mu.Unlock()
		if first {
			s.log.Error("peer refused: its certificate is not the one its peer id names; it is not used until it presents that certificate",
				"peer", addr, "peerId", e.id, "err", err)
		}
	}
	s.penalize(addr, err, penalty(err))
}

// penalize lowers addr's score by cost and backs it off, banning it at banScore.
func (s *Syncer) penalize(addr string, err error, cost int) {
	s.mu.Lock()
	e, ok := s.table[addr]
	if !ok {
		s.mu.Unlock()
		return
	}
	e.fails++
	e.score -= cost
	e.backoff = time.Now().Add(min(time.Second<<min(e.fails, 20), maxBackoff))
	low := e.score <= banScore
	s.mu.Unlock()
	if low {
		s.ban(addr, fmt.Errorf("its score fell to %d; last: %w", banScore, err))
	}
}

// ban ignores addr for banFor, doubled for each earlier ban (at most maxBan); its offers go.
func (s *Syncer) ban(addr string, err error) {
	s.mu.Lock()
	e, ok := s.table[addr]
	if !ok {
		s.mu.Unlock()
		return
	}
	d := min(banFor<<min(e.bans, 10), maxBan)
	e.bans++
	e.banned = time.Now().Add(d)
	e.score = 0
	delete(s.offers, addr)
	s.mu.Unlock()
	s.log.Warn("peer ignored for a while", "peer", addr, "for", d, "err", err)
}

// usable reports whether e may be asked now. The caller holds mu.
func usable(e *peerEntry, now time.Time) bool {
	return !now.Before(e.banned) && !now.Before(e.backoff)
}

// Peers lists the verified peers that are not banned: what this node serves to others.
func (s *Syncer) Peers() []string {
	return s.listed(func(a string, _ *peerEntry) string { return a })
}

// PeerInfos lists the verified peers that are not banned as peer infos "ID@HOST:PORT" (without
// the id where none is known yet): what the peer API serves to others (GET cut/peer).
func (s *Syncer) PeerInfos() []string {
	return s.listed(func(a string, e *peerEntry) string { return joinInfo(e.p.ID(), a) })
}

// listed is each verified, unbanned peer as text, sorted.
func (s *Syncer) listed(text func(addr string, e *peerEntry) string) []string {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.table))
	for a, e := range s.table {
		if e.verified && !now.Before(e.banned) {
			out = append(out, text(a, e))
		}
	}
	slices.Sort(out)
	return out
}

// KnownPeer reports whether addr is in the table and not banned: a cut announced with it as the
// origin is taken (as upstream, only from known peers).
func (s *Syncer) KnownPeer(addr string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.table[addr]
	return ok && !time.Now().Before(e.banned)
}

// livePeers are the peers that may be asked now.
func (s *Syncer) livePeers() []Peer {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Peer, 0, len(s.table))
	for _, e := range s.table {
		if usable(e, now) {
			out = append(out, e.p)
		}
	}
	return out
}

// peer returns addr's client if it may be asked now.
func (s *Syncer) peer(addr string) Peer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.table[addr]; ok && usable(e, time.Now()) {
		return e.p
	}
	return nil
}
