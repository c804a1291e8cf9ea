package mining

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// The mining coordinator: the state behind the mining API (GET …/mining/work, POST
// …/mining/solved, GET …/mining/updates; chainweb-mining-and-config.md §1) that lets external
// miners mine this node's chains. It keeps
//
//   - primed work: for every configured miner and chain, the payload of the next block on the
//     chain's head in the best cut, paying that miner, rebuilt when the head moves and refreshed
//     every PayloadRefreshDelay with new pending transactions (a goroutine, prime);
//   - the work cache: the payloads of the work handed out, by payload hash, so that a solved
//     header (which carries only the payload hash) finds its payload. Entries older than
//     workCacheTTL are pruned; a solution deletes its entry whatever becomes of it;
//   - the update-stream slots.
//
// Requests read it under a mutex and never wait for an actor, except a solution, which goes to
// its chain actor through Runtime.Insert as the built-in miner's do.

// Defaults of CoordinationConfig, chainweb-node's.
const (
	DefaultWorkLimit           = 1200
	DefaultUpdateStreamLimit   = 2000
	DefaultUpdateStreamTimeout = 240 * time.Second
	DefaultPayloadRefreshDelay = 15 * time.Second
	// DefaultWorkWait bounds how long a work request waits for a chain that can be mined.
	// Upstream waits without bound; a request that never ends holds its connection for good,
	// so here it ends with ErrNoWork, well within any client's patience (the mining client
	// gives up after 1 s by default and asks again).
	DefaultWorkWait = 30 * time.Second
)

const (
	// workCacheTTL is how long handed-out work stays solvable (upstream's 5 minutes).
	workCacheTTL = 5 * time.Minute
	// pruneEvery is how often the work cache is pruned (upstream's 30 s).
	pruneEvery = 30 * time.Second
	// retryPrime is how long priming waits after a failed build before trying again.
	retryPrime = time.Second
)

// CoordinationConfig configures the mining coordinator.
type CoordinationConfig struct {
	// Miners may ask for work; a request's miner must equal one of them (MinerInfo.Same).
	Miners []MinerInfo
	// Limit: with more than this many entries in the work cache, Work answers
	// ErrTooManyWorkRequests (upstream's default is DefaultWorkLimit).
	Limit int
	// UpdateStreamLimit bounds the open update streams to UpdateStreamLimit − 1, as upstream
	// (whose default is DefaultUpdateStreamLimit).
	UpdateStreamLimit int
	// UpdateStreamTimeout is an update stream's lifetime, ±10% (DefaultUpdateStreamTimeout when
	// zero).
	UpdateStreamTimeout time.Duration
	// PayloadRefreshDelay is how often primed work is rebuilt with new pending transactions
	// (DefaultPayloadRefreshDelay when zero).
	PayloadRefreshDelay time.Duration
	// WorkWait bounds a work request's wait for a minable chain (DefaultWorkWait when zero).
	WorkWait time.Duration
}

// MinerInfo is a miner as the mining API names it: the reward account and its keyset.
type MinerInfo struct {
	Account    string   `json:"account"`
	PublicKeys []string `json:"public-keys"`
	Predicate  string   `json:"predicate"`
}

// key identifies a miner as upstream's Set of miners compares them: the account, the predicate
// and the set of keys (order and repetitions do not matter).
func (m MinerInfo) key() string {
	keys := slices.Clone(m.PublicKeys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	return m.Account + "\x00" + m.Predicate + "\x00" + strings.Join(keys, "\x00")
}

// Same reports whether m and o are the same miner: account, predicate and set of keys.
func (m MinerInfo) Same(o MinerInfo) bool { return m.key() == o.key() }

// MinerData is the miner-data JSON of the blocks m mines, in upstream's key order, with the keys
// sorted and without repetitions as upstream's keyset holds them (ledger.MinerData's bytes for a
// keys-all miner with one key).
func (m MinerInfo) MinerData() []byte {
	keys := slices.Clone(m.PublicKeys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	return ledger.MinerDataWith(m.Account, m.Predicate, keys)
}

// The coordinator's answers that the mining API turns into status codes.
var (
	ErrTooManyWorkRequests = errors.New("Too many work requests")
	ErrNoAssociatedPayload = errors.New("No associated Payload")
	ErrTooManyStreams      = errors.New("No more update streams available currently. Retry later.")
	// ErrNoWork: no chain became minable within CoordinationConfig.WorkWait.
	ErrNoWork = errors.New("no work: no chain can be mined yet; retry later")
	// ErrCoordinatorStopped: the node is shutting down.
	ErrCoordinatorStopped = errors.New("the mining coordinator has stopped")
)

// UnauthorizedError is Work's answer to a miner that is not configured.
type UnauthorizedError struct{ Account string }

func (e *UnauthorizedError) Error() string { return "Unauthorized Miner: " + e.Account }

// InvalidSolvedError is Solve's answer to a solution that is not a valid block.
type InvalidSolvedError struct{ Reason string }

func (e *InvalidSolvedError) Error() string { return "Invalid solved work: " + e.Reason }

// Work is a piece of work for an external miner: a header without a nonce (0), created now.
type Work struct {
	Header *ledger.Header
}

// workKind is the state of primed work, upstream's WorkState.
type workKind uint8

const (
	workStale        workKind = iota // the head moved: the payload is being rebuilt
	workReady                        // payload ready to mine on parent
	workAlreadyMined                 // a solution on parent was accepted: nothing to mine until it moves
)

// primedWork is the next block of one chain for one miner.
type primedWork struct {
	kind    workKind
	parent  *ledger.Header // the head it is built on (stale: the head it waits to build on)
	payload *ledger.PayloadWithOutputs
}

// cachedWork is a payload handed out, for the solution to find.
type cachedWork struct {
	miner   int // index into Coordinator.miners
	payload *ledger.PayloadWithOutputs
	added   time.Time
}

// Coordinator is the mining API's state. Its methods are safe for concurrent use.
type Coordinator struct {
	rt      Node
	v       *ledger.Version
	cfg     CoordinationConfig
	miners  []MinerInfo
	data    [][]byte       // each miner's miner data
	allowed map[string]int // MinerInfo.key → index
	chains  []ledger.ChainID
	now     func() time.Time
	log     *slog.Logger
	// build makes miner i's payload on parent: c.payload, replaced in tests.
	build func(i int, parent *ledger.Header) (*ledger.PayloadWithOutputs, error)

	mu      sync.Mutex
	cache   map[ledger.Hash]cachedWork
	primed  [][]primedWork // [miner][chain id]
	changed chan struct{}  // closed and replaced whenever primed work changes

	streams atomic.Int64 // stream slots left (upstream's counter)
	// Counts since the last prune, logged then (upstream's MiningStats).
	refused403, refused503 atomic.Int64

	quit chan struct{}
	stop sync.Once
	wg   sync.WaitGroup
}

// StartCoordinator primes work for every configured miner on every chain of rt's cut and keeps
// it current until Stop.
func StartCoordinator(rt Node, cfg CoordinationConfig) *Coordinator {
	c := newCoordinator(rt, cfg)
	c.wg.Add(1)
	go c.prime()
	return c
}

// newCoordinator is StartCoordinator without priming.
func newCoordinator(rt Node, cfg CoordinationConfig) *Coordinator {
	if cfg.UpdateStreamTimeout <= 0 {
		cfg.UpdateStreamTimeout = DefaultUpdateStreamTimeout
	}
	if cfg.PayloadRefreshDelay <= 0 {
		cfg.PayloadRefreshDelay = DefaultPayloadRefreshDelay
	}
	if cfg.WorkWait <= 0 {
		cfg.WorkWait = DefaultWorkWait
	}
	c := &Coordinator{
		rt: rt, v: rt.Version(), cfg: cfg, allowed: map[string]int{}, chains: rt.Version().Chains(),
		now: rt.Now, log: rt.Logger().With("component", "mining-coordinator"),
		cache: map[ledger.Hash]cachedWork{}, changed: make(chan struct{}), quit: make(chan struct{}),
	}
	for _, m := range cfg.Miners {
		if _, dup := c.allowed[m.key()]; dup {
			continue
		}
		c.allowed[m.key()] = len(c.miners)
		c.miners = append(c.miners, m)
		c.data = append(c.data, m.MinerData())
	}
	width := 0
	for _, ch := range c.chains {
		width = max(width, int(ch)+1)
	}
	c.primed = make([][]primedWork, len(c.miners))
	for i := range c.primed {
		c.primed[i] = make([]primedWork, width)
	}
	c.streams.Store(int64(cfg.UpdateStreamLimit))
	c.build = c.payload
	return c
}

// Stop ends priming; work requests and update streams waiting end too.
func (c *Coordinator) Stop() {
	c.stop.Do(func() {
		close(c.quit)
		c.wg.Wait()
	})
}

func (c *Coordinator) stopped() bool {
	select {
	case <-c.quit:
		return true
	default:
		return false
	}
}

// Miners returns the miners allowed to ask for work.
func (c *Coordinator) Miners() []MinerInfo { return slices.Clone(c.miners) }

// prime keeps every miner's primed work on every chain at the chain's head in the best cut, and
// refreshes it with new transactions every PayloadRefreshDelay.
func (c *Coordinator) prime() {
	defer c.wg.Done()
	refresh := time.NewTicker(c.cfg.PayloadRefreshDelay)
	defer refresh.Stop()
	prune := time.NewTicker(pruneEvery)
	defer prune.Stop()
	refreshing := false
	for {
		cut := c.rt.CutChanged()
		retry := c.primeAll(c.rt.View().Heads, refreshing)
		refreshing = false
		var again <-chan time.Time // nil: no retry
		if retry {
			again = time.After(retryPrime)
		}
		select {
		case <-c.quit:
			return
		case <-cut:
		case <-refresh.C:
			refreshing = true
		case <-again:
		case now := <-prune.C:
			c.prune(now)
		}
	}
}

// primeAll brings the primed work of every miner on every chain to the heads hs; with refresh
// it also rebuilds work that is current, to take in new transactions. It reports whether a build
// failed (other than for a stale parent, which the next cut change takes care of).
func (c *Coordinator) primeAll(hs pow.Heads, refresh bool) (retry bool) {
	for _, ch := range c.chains {
		head := hs.At(ch)
		if head == nil {
			continue
		}
		for i := range c.miners {
			if c.stopped() {
				return false
			}
			c.mu.Lock()
			cur := c.primed[i][ch]
			onHead := cur.parent != nil && cur.parent.Hash == head.Hash
			if !onHead {
				c.setPrimed(i, ch, primedWork{kind: workStale, parent: head})
			}
			c.mu.Unlock()
			// Mined work stays so until the head moves; stale work on the head is a build that
			// failed before.
			if onHead && !(cur.kind == workStale || refresh && cur.kind == workReady) {
				continue
			}
			p, err := c.build(i, head)
			if err != nil {
				if !errors.Is(err, actors.ErrStaleParent) && !errors.Is(err, actors.ErrExecutorStopped) {
					c.log.Warn("cannot build work", "chain", ch, "height", head.Height+1, "err", err)
					retry = true
				}
				continue
			}
			c.mu.Lock()
			cur = c.primed[i][ch]
			if cur.parent != nil && cur.parent.Hash == head.Hash && cur.kind != workAlreadyMined &&
				(cur.payload == nil || cur.payload.PayloadHash != p.PayloadHash) {
				c.setPrimed(i, ch, primedWork{kind: workReady, parent: head, payload: p})
			}
			c.mu.Unlock()
		}
	}
	return retry
}

// payload builds the payload of miner i's next block on parent: by the chain's executor, or,
// without Pact execution, the empty payload around the miner's data.
func (c *Coordinator) payload(i int, parent *ledger.Header) (*ledger.PayloadWithOutputs, error) {
	if x, ok := c.rt.Executor(parent.ChainID); ok {
		return x.BuildFor(parent, c.data[i])
	}
	return ledger.EmptyPayload(c.data[i]), nil
}

// setPrimed sets primed work and wakes whoever waits for a change. c.mu is held.
func (c *Coordinator) setPrimed(i int, ch ledger.ChainID, w primedWork) {
	c.primed[i][ch] = w
	close(c.changed)
	c.changed = make(chan struct{})
}

// prune drops the work handed out before now − workCacheTTL, and logs the counts since the last
// prune.
func (c *Coordinator) prune(now time.Time) {
	c.mu.Lock()
	for k, w := range c.cache {
		if now.Sub(w.added) > workCacheTTL {
			delete(c.cache, k)
		}
	}
	size := len(c.cache)
	c.mu.Unlock()
	c.log.Debug("mining stats", "cacheSize", size, "503s", c.refused503.Swap(0), "403s", c.refused403.Swap(0))
}

// Work hands miner m a piece of work: on chain suggest if that chain can be mined, else on a
// random chain that can. It waits up to WorkWait for a chain to become minable. The checks come
// in upstream's order: the work cache's size (ErrTooManyWorkRequests), then the miner
// (*UnauthorizedError).
func (c *Coordinator) Work(m MinerInfo, suggest *ledger.ChainID) (*Work, error) {
	c.mu.Lock()
	size := len(c.cache)
	c.mu.Unlock()
	if size > c.cfg.Limit {
		c.refused503.Add(1)
		return nil, ErrTooManyWorkRequests
	}
	i, ok := c.allowed[m.key()]
	if !ok {
		c.refused403.Add(1)
		return nil, &UnauthorizedError{Account: m.Account}
	}
	deadline := time.NewTimer(c.cfg.WorkWait)
	defer deadline.Stop()
	for {
		cut := c.rt.CutChanged()
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		view := c.rt.View()
		var soon <-chan time.Time // nil: wait for a change
		if ch, w, ok := c.choose(i, view.Heads, suggest); ok {
			h, err := c.newHeader(view.Heads, ch, w.payload)
			if err == nil {
				c.mu.Lock()
				c.cache[w.payload.PayloadHash] = cachedWork{miner: i, payload: w.payload, added: c.now()}
				c.mu.Unlock()
				return &Work{Header: h}, nil
			}
			// A parent created within this microsecond, or by a clock ahead of ours.
			c.log.Debug("no work on a chosen chain", "chain", ch, "err", err)
			soon = time.After(time.Millisecond)
		}
		select {
		case <-cut:
		case <-changed:
		case <-soon:
		case <-deadline.C:
			return nil, ErrNoWork
		case <-c.quit:
			return nil, ErrCoordinatorStopped
		}
	}
}

// choose picks the chain of miner i's next work in cut hs: suggest if it can be mined, else a
// random one of those that can. A chain can be mined when the cut lets it grow (pow.Minable)
// and the miner's primed work on it is ready on its head.
func (c *Coordinator) choose(i int, hs pow.Heads, suggest *ledger.ChainID) (ledger.ChainID, primedWork, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ready := func(ch ledger.ChainID) (primedWork, bool) {
		if int(ch) >= len(c.primed[i]) {
			return primedWork{}, false
		}
		w := c.primed[i][ch]
		head := hs.At(ch)
		return w, w.kind == workReady && head != nil && w.parent.Hash == head.Hash
	}
	minable := pow.Minable(c.v, hs)
	if suggest != nil && slices.Contains(minable, *suggest) {
		if w, ok := ready(*suggest); ok {
			return *suggest, w, true
		}
	}
	candidates := minable[:0:0]
	for _, ch := range minable {
		if _, ok := ready(ch); ok {
			candidates = append(candidates, ch)
		}
	}
	if len(candidates) == 0 {
		return 0, primedWork{}, false
	}
	ch := candidates[rand.IntN(len(candidates))]
	w, _ := ready(ch)
	return ch, w, true
}

// newHeader makes the header of the next block of chain ch in cut hs with payload p, created
// now, nonce 0.
func (c *Coordinator) newHeader(hs pow.Heads, ch ledger.ChainID, p *ledger.PayloadWithOutputs) (*ledger.Header, error) {
	parent, adj, err := pow.MiningParents(c.v, hs, ch, c.rt.Header)
	if err != nil {
		return nil, err
	}
	latest := parent.CreationTime
	for _, a := range adj {
		latest = max(latest, a.CreationTime)
	}
	ct := c.now().UnixMicro()
	if ct <= latest {
		// Creation times must increase: wait out the microsecond of a parent just made (fast
		// test targets), but not a parent from a clock ahead of ours.
		if latest-ct > int64(time.Second/time.Microsecond) {
			return nil, fmt.Errorf("parents are created %v in the future", time.Duration(latest-ct)*time.Microsecond)
		}
		time.Sleep(time.Duration(latest-ct+1) * time.Microsecond)
		if ct = c.now().UnixMicro(); ct <= latest {
			return nil, errors.New("clock is not past the parents' creation time yet")
		}
	}
	return pow.NewHeader(c.v, parent, adj, p.PayloadHash, ct, 0, 0)
}

// Solve takes a solved header (hash not yet computed): it looks its payload up in the work
// cache and deletes the entry, checks the proof of work (unless the version disables it) and
// inserts the block. A block that no longer extends the best cut is an orphan: upstream logs it
// and the miner gets success, and so it is here (orphan true, nil error). Errors:
// ErrNoAssociatedPayload, *InvalidSolvedError (bad PoW, or a block that fails validation), and
// the runtime's own (stopped, writes failing).
func (c *Coordinator) Solve(h *ledger.Header) (orphan bool, err error) {
	c.mu.Lock()
	w, ok := c.cache[h.PayloadHash]
	delete(c.cache, h.PayloadHash)
	c.mu.Unlock()
	if !ok {
		return false, ErrNoAssociatedPayload
	}
	if !c.v.DisablePow && !pow.CheckPow(h) {
		return false, &InvalidSolvedError{Reason: "Invalid POW hash"}
	}
	h.Seal()
	if !pow.CanExtend(c.rt.View().Heads, h) {
		c.log.Info("orphaned solution: it does not extend the current cut", "chain", h.ChainID, "height", h.Height,
			"hash", h.Hash, "miner", c.miners[w.miner].Account)
		return true, nil
	}
	if err := c.rt.Insert(h, w.payload); err != nil {
		if ve := (*pow.ValidationError)(nil); errors.As(err, &ve) {
			return false, &InvalidSolvedError{Reason: err.Error()}
		}
		return false, err
	}
	c.log.Info("new mined block", "chain", h.ChainID, "height", h.Height, "hash", h.Hash,
		"miner", c.miners[w.miner].Account, "txs", len(w.payload.Transactions))
	c.mu.Lock()
	if cur := c.primed[w.miner][h.ChainID]; cur.kind == workReady && cur.parent.Hash == h.Parent {
		c.setPrimed(w.miner, h.ChainID, primedWork{kind: workAlreadyMined, parent: cur.parent})
	}
	c.mu.Unlock()
	return false, nil
}

// CachedWork is the number of entries in the work cache.
func (c *Coordinator) CachedWork() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cache)
}

// Update-stream event names (the SSE `event:` field).
const (
	EventNewCut         = "New Cut"
	EventRefreshedBlock = "Refreshed Block"
)

// WorkUpdates is one open update stream: the changes of the primed work on one chain. As
// upstream, it watches the first configured miner's work, since the request does not say who
// asks (with one miner, as usual, that is the asker).
type WorkUpdates struct {
	c     *Coordinator
	chain ledger.ChainID
	end   <-chan time.Time
	timer *time.Timer
	last  primedWork
	ready bool
	close sync.Once
}

// Updates opens an update stream on chain ch, taking one of the stream slots
// (ErrTooManyStreams when none is left). Close gives the slot back.
func (c *Coordinator) Updates(ch ledger.ChainID) (*WorkUpdates, error) {
	if !slices.Contains(c.chains, ch) {
		return nil, fmt.Errorf("chain %d is not a chain of %s", ch, c.v.Name)
	}
	if c.streams.Add(-1) <= 0 {
		c.streams.Add(1)
		return nil, ErrTooManyStreams
	}
	life := time.Duration(float64(c.cfg.UpdateStreamTimeout) * (0.9 + 0.2*rand.Float64()))
	t := time.NewTimer(life)
	return &WorkUpdates{c: c, chain: ch, end: t.C, timer: t}, nil
}

// Close ends the stream and frees its slot; calling it again does nothing.
func (u *WorkUpdates) Close() {
	u.close.Do(func() {
		u.timer.Stop()
		u.c.streams.Add(1)
	})
}

// current returns the watched primed work. c.mu is held.
func (u *WorkUpdates) current() primedWork {
	if len(u.c.primed) == 0 {
		// No miner is configured: follow the chain's head, as a miner's work would.
		return primedWork{kind: workReady, parent: u.c.rt.View().Heads.At(u.chain)}
	}
	return u.c.primed[0][u.chain]
}

// Next waits for the next event: EventNewCut when the work is outdated (a new head, or the work
// mined or being rebuilt), EventRefreshedBlock when the work on the same head was refreshed
// with new transactions. It waits first for ready work to compare with, as upstream. ok is
// false when the stream's lifetime is over, done is closed, or the coordinator stopped.
func (u *WorkUpdates) Next(done <-chan struct{}) (event string, ok bool) {
	for {
		cut := u.c.rt.CutChanged()
		u.c.mu.Lock()
		cur, changed := u.current(), u.c.changed
		u.c.mu.Unlock()
		if !u.ready {
			if cur.kind == workReady && cur.parent != nil {
				u.last, u.ready = cur, true
			}
		} else if e := workChange(u.last, cur); e != "" {
			u.last = cur
			return e, true
		}
		select {
		case <-changed:
		case <-cut:
		case <-u.end:
			return "", false
		case <-done:
			return "", false
		case <-u.c.quit:
			return "", false
		}
	}
}

// workChange names the event between two states of primed work, "" for none (upstream's
// awaitNewPrimedWork).
func workChange(last, cur primedWork) string {
	switch {
	case last.kind != cur.kind:
		return EventNewCut
	case cur.kind != workReady:
		return "" // still stale, or still mined
	case last.parent == nil || cur.parent == nil || last.parent.Hash != cur.parent.Hash:
		return EventNewCut
	case last.payload != nil && cur.payload != nil && last.payload.PayloadHash != cur.payload.PayloadHash:
		return EventRefreshedBlock
	}
	return ""
}
