package peersync

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
)

// Peer sync: nodes tell one another of their cuts (cut gossip), and a node that hears of a
// heavier cut fetches the blocks it lacks from the peer that has them (branch queries for the
// headers, payload batches), validates everything as it validates its own blocks (the chain
// actors check the headers with every pow rule, the executors re-execute the payloads) and lets
// the cut actor adopt the heavier cut. Transactions sent to one node are relayed to the others'
// mempools. Peers come from the configuration and are learned from the peers' lists.

// The kinds of a peer's failures, which its client wraps (transport.PeerClient) and peer sync
// scores (peers.go).
var (
	// ErrPeerTimeout: the peer did not answer in time.
	ErrPeerTimeout = errors.New("peer timed out")
	// ErrPeerTooLarge: the peer's answer was larger than its kind allows.
	ErrPeerTooLarge = errors.New("peer's answer too large")
	// ErrPeerAnswer: the peer answered something else than the peer API promises (an error
	// status, a body that does not decode or check).
	ErrPeerAnswer = errors.New("peer answered badly")
	// ErrPeerUnreachable: the peer could not be reached (refused, reset, not resolved, or an
	// address the policy refuses).
	ErrPeerUnreachable = errors.New("peer unreachable")
	// ErrPeerIdentity: the peer's certificate is not the one its peer id names (the handshake
	// was refused before anything was asked).
	ErrPeerIdentity = errors.New("peer certificate does not match its peer id")
)

// Peer is another node's peer API (transport.PeerClient).
type Peer interface {
	Addr() string
	// ID is the peer's id, the fingerprint of its certificate: the one it must prove, or the
	// one it presented last ("" before it was asked anything).
	ID() string
	Cut(ctx context.Context) (*ledger.Cut, error)
	PutCut(ctx context.Context, c *ledger.Cut, origin string) error
	Peers(ctx context.Context) ([]string, error)
	AddPeer(ctx context.Context, self string) error
	Branch(ctx context.Context, c ledger.ChainID, lower, upper []ledger.Hash) ([]*ledger.Header, error)
	// BranchRange is Branch limited to the heights minHeight to maxHeight.
	BranchRange(ctx context.Context, c ledger.ChainID, lower, upper []ledger.Hash, minHeight, maxHeight uint64) ([]*ledger.Header, error)
	Payloads(ctx context.Context, c ledger.ChainID, hashes []ledger.Hash) (map[ledger.Hash]*ledger.PayloadWithOutputs, error)
	InsertTxs(ctx context.Context, c ledger.ChainID, cmds []*api.Command) error
}

// Config configures peer sync.
type Config struct {
	// Self is this node's peer API address ("host:port"), announced to peers; SelfID its peer
	// id (the fingerprint of its certificate), announced with it.
	Self   string
	SelfID string
	// Seeds are the peers to start from, as peer infos "[ID@]HOST:PORT": a seed with an id is
	// taken only if its certificate has that fingerprint.
	Seeds []string
	// Dial makes the client of the peer at addr ("host:port"); id, when not empty, is the peer
	// id its certificate must have (a client that meets another refuses it with
	// ErrPeerIdentity).
	Dial func(addr, id string) Peer
	// Poll is how often every peer's cut and peer list are read (DefaultPoll if zero).
	Poll time.Duration
	// Policy says why an address offered as a peer (PUT cut/peer, a peer's list) cannot be
	// one; nil takes every address (transport.AddressPolicy.Check).
	Policy func(addr string) error
	// MaxPeers bounds the peers kept (DefaultMaxPeers if zero).
	MaxPeers int
	// Window is how many blocks a catch-up fetches before inserting them, one window fetching
	// while the one before is inserted (DefaultWindow if zero).
	Window int
	Logger *slog.Logger
}

// Defaults of Config.
const (
	DefaultPoll     = 2 * time.Second
	DefaultMaxPeers = 64
	// announceGap bounds how often this node announces its cut to one peer, whatever its block
	// rate: the peer's rate limit (50 requests/s per address) must hold with room for block
	// fetches. announceGapCatchingUp is the gap during a catch-up; announceTimeout bounds one
	// announcement.
	announceGap           = 50 * time.Millisecond
	announceGapCatchingUp = time.Second
	announceTimeout       = 5 * time.Second
	// banFor is how long a peer that served an invalid block is left alone the first time
	// (each ban doubles it: peers.go).
	banFor = time.Minute
	// pollTimeout bounds one peer's poll (its cut, introduction and list).
	pollTimeout = 5 * time.Second
	// maxLearnedPerList bounds the addresses taken from one peer's list each poll.
	maxLearnedPerList = 64
	// payloadBatch is the payloads fetched per request (the peer API's limit).
	payloadBatch = 100
	// branchFetchers bounds the requests one catch-up sends a peer at once (branches, payload
	// batches of different chains): fewAtATime.
	branchFetchers = 4
)

// Syncer runs peer sync for a runtime. It is the node side of the peer API
// (transport.PeerNode).
type Syncer struct {
	rt  Node
	cfg Config
	log *slog.Logger

	mu sync.Mutex
	// table is the peer table (peers.go), by address ("host:port"); cands the candidates
	// waiting to be called back, as peer infos "[ID@]HOST:PORT", candSet the same as a set,
	// rejected the candidates (peer infos) whose call-back failed lately.
	table      map[string]*peerEntry
	cands      []string
	candSet    map[string]bool
	rejected   map[string]time.Time
	verifyWake chan struct{}
	// foreign are peers dropped for a genesis other than ours, with the reason: such a peer
	// can never serve a block this node accepts, so it is not learned again while this node
	// runs.
	foreign map[string]string
	// offers are cuts announced by peers, the newest per peer, until one is taken.
	offers map[string]*ledger.Cut
	// cuts are the latest cut each peer told of: a catch-up asks peers whose cut reaches the
	// one it adopts to help fetch it.
	cuts map[string]*ledger.Cut
	wake chan struct{}

	announce chan struct{}
	quit     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup

	// For the metrics: a catch-up is running; blocks fetched from peers and inserted.
	syncing   atomic.Bool
	fetched   atomic.Uint64
	attempted atomic.Uint64 // blocks handed to Insert, inserted or not
	// heldByWrites is 1 while the fetcher waits for writes to succeed again (writehealth.go).
	heldByWrites atomic.Int32
	// behind is set while a catch-up runs towards a cut at least behindBy cut heights above
	// this node's; progressAt is when it started or last inserted a block (UnixNano). The miner
	// pauses meanwhile (CatchingUp).
	behind     atomic.Bool
	progressAt atomic.Int64
}

const (
	// behindBy is how far (in cut height) a peer's cut must be above this node's for the node
	// to count as behind while it catches up. Peers announce their cuts as they change, so
	// a node that keeps up is a few blocks behind its peers all the time: pausing the miner for
	// those catch-ups would stop it for good on a busy network. A node this far behind (one
	// block per chain) was stopped, cut off, or mining a fork of its own.
	behindBy = 20
	// catchUpStall is how long a catch-up may go without inserting a block before the miner
	// stops waiting for it: a peer that stalls or lies cannot stop this node's mining longer.
	catchUpStall = 2 * time.Second
)

// CatchingUp reports whether the node is behind: it is inserting the blocks of a cut at least
// behindBy cut heights above its own, and inserted one (or started) within catchUpStall. The
// miner pauses meanwhile: a block found on the cut the catch-up is about to leave behind would
// only be an orphan, and mining on regardless is how a node that is behind keeps extending a
// fork of its own.
func (s *Syncer) CatchingUp() bool {
	return s.behind.Load() && time.Since(time.Unix(0, s.progressAt.Load())) < catchUpStall
}

// Stats is peer sync's state, for the metrics.
type Stats struct {
	Peers, Banned int  // known peers, of which ignored for a while for serving an invalid block
	Syncing       bool // fetching the blocks of a heavier cut now
	Fetched       uint64
	// Attempted counts the blocks sync handed to the chain actors, inserted or not (a write
	// failure among them).
	Attempted uint64
	// HeldByWrites says the fetcher waits for writes to succeed again: it fetches nothing and
	// writes nothing meanwhile.
	HeldByWrites bool
}

// Stats returns peer sync's state.
func (s *Syncer) Stats() Stats {
	st := Stats{Syncing: s.syncing.Load(), Fetched: s.fetched.Load(), Attempted: s.attempted.Load(),
		HeldByWrites: s.heldByWrites.Load() > 0}
	now := time.Now()
	s.mu.Lock()
	st.Peers = len(s.table)
	for _, e := range s.table {
		if now.Before(e.banned) {
			st.Banned++
		}
	}
	s.mu.Unlock()
	return st
}

// Start starts peer sync over r: it introduces this node to the seeds, then keeps its cut in
// step with the peers' until Stop. It is attached to r (actors.Part): r tells it of each new cut
// and of the transactions /send accepts, asks it whether the node is catching up (the miner
// waits meanwhile), and r.Stop stops it.
func Start(r Node, cfg Config) *Syncer {
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.MaxPeers <= 0 {
		cfg.MaxPeers = DefaultMaxPeers
	}
	if cfg.Logger == nil {
		cfg.Logger = r.Logger()
	}
	s := &Syncer{rt: r, cfg: cfg, log: cfg.Logger.With("component", "sync"),
		table: map[string]*peerEntry{}, candSet: map[string]bool{}, rejected: map[string]time.Time{},
		verifyWake: make(chan struct{}, 1), offers: map[string]*ledger.Cut{}, cuts: map[string]*ledger.Cut{},
		foreign: map[string]string{}, wake: make(chan struct{}, 1), announce: make(chan struct{}, 1),
		quit: make(chan struct{})}
	for _, a := range cfg.Seeds {
		s.addSeed(a)
	}
	s.wg.Add(3 + verifyWorkers)
	go s.fetchLoop()
	go s.pollLoop()
	go s.announceLoop()
	for range verifyWorkers {
		go s.verifyLoop()
	}
	r.Attach(s)
	return s
}

// selfInfo is this node's peer info, "ID@HOST:PORT" (without the id when it has none).
func (s *Syncer) selfInfo() string {
	if s.cfg.SelfID == "" {
		return s.cfg.Self
	}
	return s.cfg.SelfID + "@" + s.cfg.Self
}

// Stop ends peer sync and waits for it. The runtime's Stop calls it; calling it again does
// nothing.
func (s *Syncer) Stop() {
	s.stopOnce.Do(func() {
		close(s.quit)
		s.wg.Wait()
	})
}

func (s *Syncer) stopped() bool {
	select {
	case <-s.quit:
		return true
	default:
		return false
	}
}

// OfferCut takes a cut a peer announced; the fetch loop looks at it. The origin is not learned
// as a peer here: the peer API only passes on cuts from known peers, as upstream's does.
func (s *Syncer) OfferCut(c *ledger.Cut, origin string) {
	s.mu.Lock()
	s.recordOffer(c, origin)
	s.mu.Unlock()
	s.wakeFetcher()
}

// offerCuts offers the cuts polled from several peers at once: all are recorded before the
// fetcher wakes, so that a catch-up it starts knows every peer that can help (offered one by
// one, the first could start a catch-up before the others' cuts are known).
func (s *Syncer) offerCuts(cuts []*ledger.Cut, origins []string) {
	s.mu.Lock()
	for i, c := range cuts {
		if c != nil {
			s.recordOffer(c, origins[i])
		}
	}
	s.mu.Unlock()
	s.wakeFetcher()
}

// recordOffer notes cut c offered by origin. The caller holds mu.
func (s *Syncer) recordOffer(c *ledger.Cut, origin string) {
	if _, ok := s.foreign[origin]; ok {
		return
	}
	if prev := s.offers[origin]; prev == nil || c.Weight.Cmp(prev.Weight) > 0 {
		s.offers[origin] = c
	}
	if _, known := s.table[origin]; known {
		s.cuts[origin] = c
	}
}

// wakeFetcher wakes the fetch loop, if it waits.
func (s *Syncer) wakeFetcher() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// CutChanged is the cut actor's notice (actors.Part): every peer's announcer sends the new cut.
func (s *Syncer) CutChanged(*actors.CutView) {
	select {
	case s.announce <- struct{}{}:
	default:
	}
}

// announceLoop passes each change of the cut on to one announcer per live peer, as chainweb's
// cut sync sessions push every new cut: a block mined here reaches the peers after one round trip,
// not after a pause. An announcer sends the newest cut once its last announcement is answered,
// at most every announceGap, so a slow peer costs no other peer anything and is sent no backlog.
func (s *Syncer) announceLoop() {
	defer s.wg.Done()
	announcers := map[string]chan struct{}{}
	defer func() {
		for _, ch := range announcers {
			close(ch)
		}
	}()
	for {
		select {
		case <-s.quit:
			return
		case <-s.announce:
		}
		live := map[string]bool{}
		for _, p := range s.livePeers() {
			live[p.Addr()] = true
			ch, ok := announcers[p.Addr()]
			if !ok {
				ch = make(chan struct{}, 1)
				announcers[p.Addr()] = ch
				s.wg.Add(1)
				go s.announcer(p, ch)
			}
			select {
			case ch <- struct{}{}:
			default: // it sends the newest cut when it is ready
			}
		}
		for a, ch := range announcers {
			if !live[a] {
				close(ch) // a peer dropped or ignored for now
				delete(announcers, a)
			}
		}
	}
}

// announcer sends peer p this node's cut each time ch says it changed, until ch is closed.
func (s *Syncer) announcer(p Peer, ch chan struct{}) {
	defer s.wg.Done()
	for {
		select {
		case <-s.quit:
			return
		case _, ok := <-ch:
			if !ok {
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), announceTimeout)
		if err := p.PutCut(ctx, s.rt.Cut(), s.selfInfo()); err != nil {
			s.log.Debug("announce cut", "peer", p.Addr(), "err", err)
		}
		cancel()
		// A node catching up keeps announcing what it has, so that its peers converge on it
		// as it does on theirs, but less often: each announcement spends some of the request
		// rate the peer it fetches from allows it.
		gap := announceGap
		if s.syncing.Load() {
			gap = announceGapCatchingUp
		}
		select {
		case <-s.quit:
			return
		case <-time.After(gap):
		}
	}
}

// pollLoop reads every peer's cut and peer list now and then: announcements can be lost, and a
// node that starts late or was stopped learns what it missed.
func (s *Syncer) pollLoop() {
	defer s.wg.Done()
	var introMu sync.Mutex
	introduced := map[string]bool{}
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		// Every peer is asked at once, each with its deadline: one that hangs holds up no
		// other. Every peer's cut is read before any is offered: a catch-up takes the peers
		// whose cut reaches the one it adopts as helpers, so those must be known when it
		// starts.
		live := s.livePeers()
		cuts := make([]*ledger.Cut, len(live))
		lists := make([][]string, len(live))
		var wg sync.WaitGroup
		for i, p := range live {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
				defer cancel()
				c, err := p.Cut(ctx)
				if err != nil {
					s.bad(p.Addr(), err)
					return
				}
				if c.Version == nil || c.Version.Name != s.rt.Version().Name {
					s.bad(p.Addr(), fmt.Errorf("%w: its cut is not of network %s", ErrPeerAnswer, s.rt.Version().Name))
					return
				}
				cuts[i] = c
				s.good(p.Addr(), false)
				s.reverify(p.Addr())
				introMu.Lock()
				intro := !introduced[p.Addr()] && s.cfg.Self != ""
				introMu.Unlock()
				if intro {
					ok := p.AddPeer(ctx, s.selfInfo()) == nil
					introMu.Lock()
					introduced[p.Addr()] = ok
					introMu.Unlock()
				}
				if more, err := p.Peers(ctx); err == nil {
					lists[i] = more[:min(len(more), maxLearnedPerList)]
				} else {
					s.bad(p.Addr(), err)
				}
			}()
		}
		wg.Wait()
		addrs := make([]string, len(live))
		for i, p := range live {
			addrs[i] = p.Addr()
		}
		s.offerCuts(cuts, addrs)
		for i := range live {
			for _, a := range lists[i] {
				s.learn(a)
			}
		}
		s.sweep()
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
	}
}

// fetchLoop adopts the heaviest offered cut, one peer at a time.
func (s *Syncer) fetchLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.quit:
			return
		case <-s.wake:
		}
		for {
			// No blocks are fetched while the store cannot write (writehealth.go); the
			// offers wait, and the next poll refreshes them.
			s.rt.WaitWritable(s.quit, &s.heldByWrites)
			origin, c := s.takeOffer()
			if c == nil {
				break
			}
			before := s.fetched.Load()
			err := s.syncFrom(origin, c)
			var fg *foreignGenesisError
			switch {
			case err == nil:
				// Credit for blocks delivered, not for cuts this node had already.
				s.good(origin, s.fetched.Load() > before)
			case s.stopped(), errors.Is(err, actors.ErrWriteFailed), errors.Is(err, actors.ErrStopped), errors.Is(err, actors.ErrExecutorStopped):
				// (the write health logs write failures; a stop is no news)
			case errors.As(err, &fg):
				s.dropForeign(origin, fg.Error())
			case isInvalidBlock(err):
				s.ban(origin, fmt.Errorf("it served an invalid block: %w", err))
			default:
				// It offered a cut it does not deliver (it timed out, answered too much or
				// garbage, or lacks the blocks): it is left alone for a while, and the next
				// offer is another peer's.
				s.log.Info("sync from peer stopped", "peer", origin, "err", err)
				s.undelivered(origin, err)
			}
		}
	}
}

// takeOffer removes and returns the heaviest offer heavier than the current cut.
func (s *Syncer) takeOffer() (string, *ledger.Cut) {
	cur := s.rt.Cut()
	s.mu.Lock()
	defer s.mu.Unlock()
	var best string
	var bc *ledger.Cut
	for a, c := range s.offers {
		if c.Weight.Cmp(cur.Weight) <= 0 {
			delete(s.offers, a)
			continue
		}
		if e, ok := s.table[a]; !ok || !usable(e, time.Now()) {
			delete(s.offers, a)
			continue
		}
		// Of equally heavy cuts, the one of the first peer by address: the choice of origin
		// does not change with map order from one offer to the next.
		if bc == nil {
			best, bc = a, c
		} else if w := c.Weight.Cmp(bc.Weight); w > 0 || w == 0 && a < best {
			best, bc = a, c
		}
	}
	if bc != nil {
		delete(s.offers, best)
	}
	return best, bc
}

// syncFrom fetches, validates and inserts the blocks of cut c that this node lacks.
//
// A catch-up is pipelined: the blocks come in windows of heights (syncWindow blocks over the
// chains), and while one window's blocks are validated and inserted, the next windows' headers
// and payloads are fetched, from the origin and from other peers that hold the cut
// (syncwindows.go). The peer API answers a client 50 requests a second, 20 headers a page, so
// fetching every header first (as a branch per chain) left validation idle for most of a long
// catch-up. A chain whose blocks fork below this node's head cannot be fetched by height from
// its head up; that sync fetches whole branches instead (syncBranches), from the origin alone.
func (s *Syncer) syncFrom(origin string, c *ledger.Cut) error {
	p := s.peer(origin)
	if p == nil {
		return fmt.Errorf("peer %s is not in the table or is left alone for now", origin)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	var todo []ledger.CutEntry
	for _, e := range c.Entries {
		if ok, err := s.rt.Store().HasHeader(e.Hash); err != nil {
			return err
		} else if !ok {
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	s.progressAt.Store(time.Now().UnixNano())
	s.syncing.Store(true)
	if cur := s.rt.Cut(); c.Height >= cur.Height+behindBy {
		s.behind.Store(true)
	}
	defer func() {
		s.behind.Store(false)
		s.syncing.Store(false)
		s.CutChanged(nil) // announce the cut the catch-up reached
	}()
	heads := s.rt.View().Heads
	err := s.syncWindows(ctx, origin, p, c, todo, heads)
	if !errors.Is(err, errForkBelowHead) {
		return err
	}
	s.log.Debug("sync: a branch forks below this node's head; fetching whole branches", "peer", origin)
	// The heavier cut forks from this node's: its own miner would only extend the fork that is
	// being left behind, and each block it adds there makes the peer's cut, fetched as it was,
	// less likely to still be the heavier once inserted. Two miners on two forks that both
	// mined on through their catch-ups could swap leads forever (issue 38).
	s.behind.Store(true)
	return s.syncBranches(ctx, origin, p, c, todo, heads)
}

// sortForInsert orders blocks parents before children, and a block after the blocks of its
// height on other chains that it names as adjacent parents (those are one height below); it
// drops duplicates.
func sortForInsert(blocks []*ledger.Header) []*ledger.Header {
	slices.SortFunc(blocks, func(a, b *ledger.Header) int {
		return cmp.Or(cmp.Compare(a.Height, b.Height), cmp.Compare(a.ChainID, b.ChainID))
	})
	return slices.CompactFunc(blocks, func(a, b *ledger.Header) bool { return a.Hash == b.Hash })
}

// insertWindow validates and inserts a window's blocks in order; those already stored pass.
func (s *Syncer) insertWindow(origin string, w fetchedWindow, prog *progress) error {
	for _, h := range w.blocks {
		if s.stopped() {
			return actors.ErrStopped
		}
		if ok, _ := s.rt.Store().HasHeader(h.Hash); ok {
			prog.step()
			continue
		}
		pl := w.payloads[h.PayloadHash]
		if pl == nil {
			if ok, _ := s.rt.Store().HasPayload(h.PayloadHash); !ok {
				return fmt.Errorf("peer %s has no payload %s for block %d of chain %d", origin, h.PayloadHash, h.Height, h.ChainID)
			}
		}
		s.attempted.Add(1)
		if err := s.rt.Insert(h, pl); err != nil {
			return fmt.Errorf("block %d of chain %d (%s): %w", h.Height, h.ChainID, h.Hash, err)
		}
		s.fetched.Add(1)
		s.progressAt.Store(time.Now().UnixNano())
		prog.step()
	}
	return nil
}

// syncBranches is the catch-up of a fork: every chain's whole branch between this node's head
// and the peer's is fetched first, then the blocks are inserted window by window.
func (s *Syncer) syncBranches(ctx context.Context, origin string, p Peer, c *ledger.Cut, todo []ledger.CutEntry, heads pow.Heads) error {
	var missing []*ledger.Header
	t0 := time.Now()
	// The chains' branches are fetched a few at a time: one after the other, a fork of every
	// chain took as many round trips as chains before the first block could be inserted.
	branches := make([][]*ledger.Header, len(todo))
	err := fewAtATime(ctx, len(todo), func(ctx context.Context, i int) error {
		e := todo[i]
		var lower []ledger.Hash
		if h := heads.At(e.Chain); h != nil {
			lower = []ledger.Hash{h.Hash}
		}
		hs, err := p.Branch(ctx, e.Chain, lower, []ledger.Hash{e.Hash})
		if err == nil {
			err = s.checkGenesis(origin, hs)
		}
		branches[i] = hs
		return err
	})
	if err != nil {
		return err
	}
	for _, hs := range branches {
		for _, h := range hs {
			if ok, _ := s.rt.Store().HasHeader(h.Hash); !ok {
				missing = append(missing, h)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	missing = sortForInsert(missing)
	prog := newProgress(s.log, origin, len(missing), c.Height, t0, 0)
	for start := 0; start < len(missing); start += s.window() {
		window := missing[start:min(start+s.window(), len(missing))]
		payloads, err := s.fetchPayloads(ctx, p, window)
		if err != nil {
			return err
		}
		if err := s.insertWindow(origin, fetchedWindow{blocks: window, payloads: payloads}, prog); err != nil {
			return err
		}
	}
	prog.done()
	return nil
}

// foreignGenesisError is a peer whose chain starts from another genesis block than ours.
type foreignGenesisError struct{ msg string }

func (e *foreignGenesisError) Error() string { return e.msg }

// checkGenesis looks for a genesis block among headers a peer served that this node lacks. The
// branch from our head to the peer's only reaches down to a genesis height when the two chains
// share no block: the peer's genesis is not ours. Such a peer made a network of its own (on the
// development network: another --block-delay, which sets the genesis target), and every block
// it serves would fail validation, so it is worth one clear message rather than a warning about
// invalid blocks every minute.
func (s *Syncer) checkGenesis(origin string, hs []*ledger.Header) error {
	v := s.rt.Version()
	for _, h := range hs {
		if !v.IsGenesisHeight(h.ChainID, h.Height) {
			continue
		}
		if ok, err := s.rt.Store().HasHeader(h.Hash); err != nil || ok {
			continue
		}
		ours := v.GenesisTarget(h.ChainID)
		msg := fmt.Sprintf("peer %s has a different genesis: its genesis block of chain %d is %s", origin, h.ChainID, h.Hash)
		switch {
		case h.Target != ours && v.Name == ledger.Development.Name && delayForTarget(v, h.Target) > 0:
			msg = fmt.Sprintf("peer %s has a different genesis: it was probably started with --block-delay %v (ours: %v)",
				origin, delayForTarget(v, h.Target), time.Duration(v.BlockDelay)*time.Microsecond)
		case h.Target != ours:
			msg += fmt.Sprintf(", with genesis target %s (ours: %s)", h.Target.BEHex(), ours.BEHex())
		default:
			msg += ", on another network or another genesis payload"
		}
		return &foreignGenesisError{msg: msg}
	}
	return nil
}

// delayForTarget estimates the block delay a development network with genesis target t was
// made with. The node derives its genesis target as (2^256 − 1) / (hashes per block), with the
// hashes per block proportional to the block delay (pow/devnet.go), so the delays
// of two genesis targets are in the inverse ratio of the targets: d = ours × T_ours / t. The
// result is rounded to the millisecond, as --block-delay values are; it is 0 when no block delay
// of a day or less (or under a millisecond) fits, i.e. the genesis was not made that way.
func delayForTarget(v *ledger.Version, t ledger.U256) time.Duration {
	ours := v.GenesisTarget(v.Chains()[0])
	if t.IsZero() || ours.IsZero() {
		return 0
	}
	q := new(big.Float).Quo(new(big.Float).SetInt(ours.Big()), new(big.Float).SetInt(t.Big()))
	us, _ := q.Mul(q, big.NewFloat(float64(v.BlockDelay))).Float64()
	d := (time.Duration(min(us, float64(48*time.Hour/time.Microsecond))) * time.Microsecond).Round(time.Millisecond)
	if d < time.Millisecond || d > 24*time.Hour {
		return 0
	}
	return d
}

// dropForeign forgets a peer with another genesis, says so once, and refuses it from now on.
func (s *Syncer) dropForeign(origin, why string) {
	s.mu.Lock()
	_, known := s.foreign[origin]
	s.foreign[origin] = why
	delete(s.table, origin)
	delete(s.offers, origin)
	delete(s.cuts, origin)
	s.mu.Unlock()
	if !known {
		s.log.Error(why+"; dropped: it cannot serve blocks this node accepts", "peer", origin)
	}
}

// fetchPayloads fetches the payloads of blocks: per chain, in full batches (the blocks of a
// window in height order alternate between chains, so batching them as they come would send
// a batch of five per chain).
func (s *Syncer) fetchPayloads(ctx context.Context, p Peer, blocks []*ledger.Header) (map[ledger.Hash]*ledger.PayloadWithOutputs, error) {
	byChain := map[ledger.ChainID][]ledger.Hash{}
	seen := map[ledger.Hash]bool{}
	for _, h := range blocks {
		if seen[h.PayloadHash] {
			continue // the same payload (an empty block's, say) on several blocks
		}
		seen[h.PayloadHash] = true
		if ok, _ := s.rt.Store().HasPayload(h.PayloadHash); !ok {
			byChain[h.ChainID] = append(byChain[h.ChainID], h.PayloadHash)
		}
	}
	type batch struct {
		c      ledger.ChainID
		hashes []ledger.Hash
	}
	var batches []batch
	for c, hashes := range byChain {
		for start := 0; start < len(hashes); start += payloadBatch {
			batches = append(batches, batch{c, hashes[start:min(start+payloadBatch, len(hashes))]})
		}
	}
	got := make([]map[ledger.Hash]*ledger.PayloadWithOutputs, len(batches))
	if err := fewAtATime(ctx, len(batches), func(ctx context.Context, i int) (err error) {
		got[i], err = fetchBatch(ctx, p, batches[i].c, batches[i].hashes)
		return err
	}); err != nil {
		return nil, err
	}
	out := map[ledger.Hash]*ledger.PayloadWithOutputs{}
	for i := range batches {
		for k, v := range got[i] {
			out[k] = v
		}
	}
	return out, nil
}

// progress prints a catch-up's progress: blocks, blocks/s and the time left.
type progress struct {
	log      *slog.Logger
	peer     string
	total    int
	n        int
	start    time.Time
	last     time.Time
	loud     bool
	cutTotal uint64
}

// newProgress starts the report of a catch-up from peer and helpers other peers that began at
// start (its header fetching included in the rates).
func newProgress(log *slog.Logger, peer string, total int, cutHeight uint64, start time.Time, helpers int) *progress {
	p := &progress{log: log, peer: peer, total: total, start: start, last: time.Now(), loud: total >= 100, cutTotal: cutHeight}
	if p.loud {
		log.Info("catching up from peer", "peer", peer, "blocks", total, "peerCutHeight", cutHeight, "helpers", helpers)
	}
	return p
}

func (p *progress) step() {
	p.n++
	if !p.loud || time.Since(p.last) < 2*time.Second {
		return
	}
	p.last = time.Now()
	rate := float64(p.n) / time.Since(p.start).Seconds()
	eta := time.Duration(float64(p.total-p.n)/rate) * time.Second
	p.log.Info("catching up", "peer", p.peer, "blocks", fmt.Sprintf("%d/%d", p.n, p.total),
		"blocksPerSecond", fmt.Sprintf("%.0f", rate), "eta", eta.Round(time.Second))
}

// done reports the end of the catch-up, with attrs (key, value, ...) of its own.
func (p *progress) done(attrs ...any) {
	if p.loud {
		el := time.Since(p.start)
		p.log.Info("caught up", append([]any{"peer", p.peer, "blocks", p.n, "in", el.Round(time.Millisecond),
			"blocksPerSecond", fmt.Sprintf("%.0f", float64(p.n)/el.Seconds())}, attrs...)...)
	}
}

// TxsSent is /send's notice (actors.TxWatcher): the transactions sent to this node are
// relayed to the peers' mempools.
func (s *Syncer) TxsSent(c ledger.ChainID, cmds []*api.Command, _ []api.Hash) { s.relay(c, cmds) }

// relay passes transactions sent to this node on to the peers' mempools.
func (s *Syncer) relay(c ledger.ChainID, cmds []*api.Command) {
	for _, p := range s.livePeers() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := p.InsertTxs(ctx, c, cmds); err != nil {
				s.log.Debug("relay transactions", "peer", p.Addr(), "err", err)
			}
		}()
	}
}

// MempoolInsert takes transactions a peer relays: each one that passes every check is pending
// here too (they are not relayed again: the sender relays to every peer it knows).
func (s *Syncer) MempoolInsert(ctx context.Context, c ledger.ChainID, cmds []*api.Command) error {
	x, ok := s.rt.Executor(c)
	if !ok {
		return nil
	}
	for _, cmd := range cmds {
		if x.Mempool().Status(cmd.Hash) != mempool.Missing || x.Contains(cmd.Hash) {
			continue
		}
		if _, err := x.Mempool().Insert(ctx, []*api.Command{cmd}); err != nil {
			if _, rejected := mempool.IsRejection(err); !rejected {
				return err
			}
		}
	}
	return nil
}

// MempoolMember reports which keys are pending on chain c.
func (s *Syncer) MempoolMember(c ledger.ChainID, keys []api.Hash) []bool {
	out := make([]bool, len(keys))
	if x, ok := s.rt.Executor(c); ok {
		for i, k := range keys {
			out[i] = x.Mempool().Status(k) == mempool.Pending
		}
	}
	return out
}

// MempoolLookup returns the pending transactions with these keys on chain c.
func (s *Syncer) MempoolLookup(c ledger.ChainID, keys []api.Hash) []*api.Command {
	out := make([]*api.Command, len(keys))
	if x, ok := s.rt.Executor(c); ok {
		for i, e := range x.Mempool().Lookup(keys) {
			if e.Tx != nil {
				out[i] = e.Tx.Command
			}
		}
	}
	return out
}

// MempoolPending lists chain c's pending keys.
func (s *Syncer) MempoolPending(c ledger.ChainID) []api.Hash {
	x, ok := s.rt.Executor(c)
	if !ok {
		return nil
	}
	return x.Mempool().PendingKeys()
}

// fetchBatch fetches one batch of chain c's payloads; an answer too large for the client's
// bound is asked again in halves (large blocks are rare, and honest), down to one payload, whose
// answer too large is the peer's failure.
func fetchBatch(ctx context.Context, p Peer, c ledger.ChainID, hashes []ledger.Hash) (map[ledger.Hash]*ledger.PayloadWithOutputs, error) {
	got, err := p.Payloads(ctx, c, hashes)
	if !errors.Is(err, ErrPeerTooLarge) || len(hashes) < 2 {
		return got, err
	}
	half := len(hashes) / 2
	a, err := fetchBatch(ctx, p, c, hashes[:half])
	if err != nil {
		return nil, err
	}
	b, err := fetchBatch(ctx, p, c, hashes[half:])
	if err != nil {
		return nil, err
	}
	for k, v := range b {
		a[k] = v
	}
	return a, nil
}

// fewAtATime runs f(ctx, 0) to f(ctx, n-1), branchFetchers at a time: the requests of one
// catch-up to one peer, which one after the other cost a round trip per chain. After the first
// failure it starts no more and cancels those running (a peer that lies is asked little), and it
// returns that failure once all have returned.
func fewAtATime(ctx context.Context, n int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, branchFetchers)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for i := range n {
		sem <- struct{}{}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(ctx, i); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err() // the caller's context ended before every call started
	}
	return first
}

// BestPeerCut returns the height of the heaviest cut the known peers offered last (polled or
// announced), and false when no known peer offered one yet.
func (s *Syncer) BestPeerCut() (height uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best *ledger.Cut
	for origin, c := range s.cuts {
		if _, known := s.table[origin]; known && c != nil && (best == nil || c.Weight.Cmp(best.Weight) > 0) {
			best = c
		}
	}
	if best == nil {
		return 0, false
	}
	return best.Height, true
}
