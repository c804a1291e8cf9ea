package mining

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
)

// Config configures the miner.
type Config struct {
	// MinerData is the miner-data JSON of every mined block (ledger.MinerData). Without Pact
	// execution every block carries an empty payload around it; with it the executors build
	// the payloads (and pay this miner).
	MinerData []byte
	// Workers is the number of nonce-search goroutines; 0 means GOMAXPROCS (one per core).
	Workers int
	// ChunkNonces is how many nonces a worker tries between looks at the cut; 0 means
	// DefaultChunkNonces.
	ChunkNonces uint64
	// OnDemand mines only the blocks asked for (ondemand.go); nil mines every chain that can
	// advance, all the time.
	OnDemand *OnDemandConfig
	// StartBlocks are asked of every chain when the miner starts, with OnDemand.
	StartBlocks uint64
}

const (
	// DefaultChunkNonces is about 4 ms of search on one core at the midstate rate (~8 M/s;
	// bench/RESULTS.md): a new cut makes workers drop stale work within that, which wastes well
	// under 1% of the hashes at the 30 s block delay, while the check itself costs nothing.
	DefaultChunkNonces = 1 << 15
	// chunksPerRound is how many chunks a worker spends on one chain before it takes the next
	// one: hash power is spread over every chain that can advance, and a block's creation
	// time is never more than a round older than the search that found it (~30 ms; ~0.2 s
	// when the worker steps aside for requests, minerpriority.go).
	chunksPerRound = 8
	// catchUpPausePoll is how often a worker paused for a catch-up looks again when the cut
	// does not change meanwhile.
	catchUpPausePoll = 50 * time.Millisecond
)

// Miner searches nonces for the chains that can advance in the current cut and submits what it
// finds to the chain actors (Runtime.Insert). Its workers read the published cut; the cut
// actor wakes them when it changes (CutChanged, as a part attached to the runtime).
type Miner struct {
	rt      Node
	v       *ledger.Version
	payload *ledger.PayloadWithOutputs
	workers int
	chunk   uint64
	now     func() time.Time
	log     *slog.Logger

	mu      sync.Mutex
	changed chan struct{} // closed when the cut changes, then replaced

	// claims keep two workers from mining on one parent (minerclaims.go).
	claims *claims
	// demand is the on-demand book; nil when mining continuously.
	demand      *demand
	startBlocks uint64

	hashes    atomic.Uint64 // nonces tried
	searching atomic.Int32  // workers not waiting (minerpriority.go)
	// heldByWrites counts the workers blocked until writes succeed again (writehealth.go).
	heldByWrites atomic.Int32
	mined        atomic.Uint64 // blocks found and accepted by their chain actor
	dropped      atomic.Uint64 // blocks found on a parent another worker had solved first
	paused       atomic.Uint64 // rounds a worker waited for a catch-up instead of searching
	weightFull   atomic.Bool   // a block was refused for wrapping the cut's weight (logged once)
	heldEpoch    atomic.Uint64 // height of the last epoch-ending block whose hold was logged
	quit         chan struct{}
	stopOnce     sync.Once
	wg           sync.WaitGroup
}

// Start starts the miner over rt and attaches it, so that it follows the cut and
// rt.Stop stops it (before the actors, after the executors refuse work).
func Start(rt Node, cfg Config) *Miner {
	m := newMiner(rt, cfg)
	m.start()
	rt.Attach(m)
	return m
}

func newMiner(rt Node, cfg Config) *Miner {
	m := &Miner{
		rt:      rt,
		v:       rt.Version(),
		payload: ledger.EmptyPayload(cfg.MinerData),
		workers: cfg.Workers,
		chunk:   cfg.ChunkNonces,
		now:     rt.Now,
		log:     rt.Logger().With("component", "miner"),
		changed: make(chan struct{}),
		quit:    make(chan struct{}),
		claims:  newClaims(rt.Version()),
	}
	if m.workers <= 0 {
		m.workers = runtime.GOMAXPROCS(0)
	}
	if m.chunk == 0 {
		m.chunk = DefaultChunkNonces
	}
	if cfg.OnDemand != nil {
		m.demand = newDemand(rt, *cfg.OnDemand)
		m.demand.m = m
		m.startBlocks = cfg.StartBlocks
	}
	return m
}

func (m *Miner) start() {
	for i := range m.workers {
		m.wg.Add(1)
		go m.work(i)
	}
	if m.demand != nil {
		all := map[ledger.ChainID]uint64{}
		for _, c := range m.v.Chains() {
			all[c] = m.startBlocks
		}
		if err := m.demand.ask(all); err != nil { // StartBlocks is bounded by the configuration
			m.log.Error("on-demand start-up blocks", "err", err)
		}
		m.wg.Add(1)
		go m.idleBlocks()
	}
	m.log.Info("mining", "workers", m.workers, "miner", json.RawMessage(m.payload.MinerData), "onDemand", m.demand != nil,
		"proofOfWork", !m.v.DisablePow)
}

// idleBlocks asks for a block on a random chain whenever the cut stood still for the idle
// period (on-demand mining).
func (m *Miner) idleBlocks() {
	defer m.wg.Done()
	t := time.NewTimer(m.demand.idle(time.Now()))
	defer t.Stop()
	for {
		select {
		case <-m.quit:
			return
		case now := <-t.C:
			t.Reset(m.demand.idle(now))
		}
	}
}

// wake makes the workers look at the cut and the demand again at once.
func (m *Miner) wake() { m.cutChanged(nil) }

// Stop ends the search and waits for the workers; a block being submitted is submitted first.
// The runtime's Stop calls it; calling it again does nothing.
func (m *Miner) Stop() {
	m.stopOnce.Do(func() {
		close(m.quit)
		m.cutChanged(nil) // wake workers waiting for a cut
		m.wg.Wait()
	})
}

// CutChanged is the cut actor's notice (actors.Part): workers drop their work at the next
// chunk boundary.
func (m *Miner) CutChanged(v *actors.CutView) { m.cutChanged(v) }

// TxsSent is /send's notice (actors.TxWatcher): on demand, the blocks that confirm them are
// mined.
func (m *Miner) TxsSent(c ledger.ChainID, _ []*api.Command, keys []api.Hash) {
	if m.demand != nil {
		m.demand.sent(c, keys)
	}
}

// MinerCounts returns the blocks mined and stored, the nonces tried, and the workers blocked
// until writes succeed again (actors.MinerCounts: the runtime's Stats).
func (m *Miner) MinerCounts() (mined, hashes uint64, heldByWrites int) {
	return m.mined.Load(), m.hashes.Load(), int(m.heldByWrites.Load())
}

// cutChanged wakes the workers; v is nil for a wake-up without a new cut.
func (m *Miner) cutChanged(v *actors.CutView) {
	if v != nil && m.demand != nil {
		m.demand.cutChanged()
	}
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// changes returns the channel the next cut change (or wake) closes.
func (m *Miner) changes() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

// waitChange waits until the cut is newer than seq, the miner stops, or d passes.
func (m *Miner) waitChange(seq uint64, d time.Duration) { m.waitChangeOn(m.changes(), seq, d) }

// waitChangeOn is waitChange on a channel taken before the caller looked at the cut and the
// demand, so that a change in between is not missed.
func (m *Miner) waitChangeOn(ch <-chan struct{}, seq uint64, d time.Duration) {
	if m.rt.View().Seq != seq {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-m.quit:
	case <-t.C:
	}
}

func (m *Miner) stopped() bool {
	select {
	case <-m.quit:
		return true
	default:
		return false
	}
}

// work is one search goroutine. Each round it takes the next chain that can advance (workers
// start at different chains), builds fresh work for it, and searches up to chunksPerRound
// chunks, leaving early when the cut changes.
func (m *Miner) work(id int) {
	defer m.wg.Done()
	var w pow.Work // reused: Reset rewrites it for each header
	sample := newRunnableSample()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(id)))
	round := id
	// searching counts this worker but while it waits.
	m.searching.Add(1)
	defer m.searching.Add(-1)
	for !m.stopped() {
		var unhealthy bool
		m.waiting(func() { unhealthy = m.rt.WaitWritable(m.quit, &m.heldByWrites) })
		if unhealthy {
			continue // writes failed: no search until they succeed again (writehealth.go)
		}
		m.stepAside(sample)
		if m.rt.CatchingUp() {
			// Blocks of a heavier cut are coming in: the search waits for the cut they make
			// (peer sync's CatchingUp).
			m.paused.Add(1)
			m.waiting(func() { m.waitChange(m.rt.View().Seq, catchUpPausePoll) })
			continue
		}
		changes := m.changes()
		view := m.rt.View()
		c, ok, wait := m.pick(view, round)
		if !ok {
			m.waiting(func() { m.waitChangeOn(changes, view.Seq, wait) })
			continue
		}
		round++
		parent := view.Heads.At(c).Hash
		if !m.claims.acquire(c, parent, view.Seq) {
			// Another worker solved this parent, or this view is older than the one another
			// worker searches it in: look again at the newer cut.
			if m.demand != nil {
				m.demand.release(c)
			}
			m.waiting(func() { m.waitChangeOn(changes, view.Seq, 10*time.Millisecond) })
			continue
		}
		if wait := m.mine(&w, sample, rng, view, c); wait > 0 {
			m.waiting(func() { m.waitChange(view.Seq, wait) })
		}
		m.claims.release(c)
		if m.demand != nil {
			m.demand.release(c)
		}
	}
}

// pick chooses the chain of a worker's next round in view: the round-th of the chains that can
// advance, or, on demand, of those wanted. Without proof of work, continuous mining waits for
// each chain's block delay to pass since its head, since blocks cost nothing. When there is
// nothing to mine it says how long to wait at most before looking again.
func (m *Miner) pick(view *actors.CutView, round int) (ledger.ChainID, bool, time.Duration) {
	chains := pow.Minable(m.v, view.Heads)
	if m.demand != nil {
		return m.demand.next(view.Heads, chains, round, m.now())
	}
	if m.v.DisablePow {
		now, wait := m.now().UnixMicro(), int64(time.Second/time.Microsecond)
		ready := chains[:0:0]
		for _, c := range chains {
			due := view.Heads.At(c).CreationTime + m.v.BlockDelay
			if due <= now {
				ready = append(ready, c)
			} else {
				wait = min(wait, due-now)
			}
		}
		if len(ready) == 0 {
			return 0, false, time.Duration(wait) * time.Microsecond
		}
		chains = ready
	}
	if len(chains) == 0 {
		return 0, false, time.Second
	}
	return m.claims.prefer(chains, view.Heads, round), true, 0
}

// mine builds a block of chain c on view and searches its nonce for up to chunksPerRound
// chunks, leaving early when the cut changes; it submits what it finds. Without proof of work
// nonce 0 does. It returns how long to wait for a cut change before the next round when it
// could not build the block or may not mine it (admit), else 0.
func (m *Miner) mine(w *pow.Work, sample []metrics.Sample, rng *rand.Rand, view *actors.CutView, c ledger.ChainID) time.Duration {
	h, payload, err := m.newHeader(view.Heads, c)
	if err != nil {
		m.log.Debug("no work", "chain", c, "err", err)
		return 10 * time.Millisecond
	}
	if wait, ok := m.admit(view, h); !ok {
		return wait
	}
	if m.v.DisablePow {
		h.Seal()
		m.submit(h, payload)
		return 0
	}
	if err := w.Reset(h.WorkBytes(), h.Target); err != nil {
		m.log.Error("prepare work", "chain", c, "err", err)
		return 10 * time.Millisecond
	}
	// A random start keeps two workers on the same chain (and the same creation time) from
	// trying the same nonces.
	nonce, found := rng.Uint64(), false
	for range chunksPerRound {
		n, ok := w.Search(nonce, m.chunk)
		if ok {
			m.hashes.Add(n - nonce + 1)
			nonce, found = n, true
			break
		}
		m.hashes.Add(m.chunk)
		nonce += m.chunk
		if m.stopped() || m.rt.View().Seq != view.Seq {
			break
		}
		// The search holds every core; a request that waited for one (back from a system
		// call, say) gets it now rather than at the scheduler's next 10 ms time slice, and
		// requests still waiting after that go first (minerpriority.go).
		runtime.Gosched()
		m.stepAside(sample)
		if m.stopped() || m.rt.View().Seq != view.Seq {
			break
		}
	}
	if found {
		h.Nonce = nonce
		h.Seal()
		m.submit(h, payload)
	}
	return 0
}

// admit reports whether block h, built on view, may be mined now, and if not how long to wait
// for a cut change before looking again. A block that would not make the cut heavier never
// is: it could never enter the cut, and would only be stored (a cut whose weight would wrap
// past 2^256, issue 37; ondemand.go). Without proof of work, on demand, the last block of a
// difficulty epoch waits until the epoch has lasted epochPace: the chain is held, and the
// worker takes another one at once.
func (m *Miner) admit(view *actors.CutView, h *ledger.Header) (time.Duration, bool) {
	if wait, ok := m.admitWeight(view, h); !ok {
		return wait, false
	}
	if !m.v.DisablePow || m.demand == nil || !pow.IsLastInEpoch(m.v, h.Height) {
		return 0, true
	}
	pace := epochPace(m.v, h, view.Heads.Weight(), len(m.v.Chains()), h.Height-1+m.demand.remaining(view.Heads))
	due := h.EpochStart + pace.Microseconds()
	if h.CreationTime >= due {
		return 0, true
	}
	m.demand.hold(h.ChainID, h.Parent, time.UnixMicro(due))
	// Said once an epoch, when the wait is long enough to show in the status line (blocks per
	// second 0): why blocks asked for are not all mined at once.
	if wait := time.Duration(due-h.CreationTime) * time.Microsecond; wait >= time.Second && m.heldEpoch.Swap(h.Height) != h.Height {
		m.log.Info("without proof of work, the last block of each difficulty epoch waits until the epoch has lasted long enough "+
			"for the blocks asked for to fit in the cut's weight (README: on-demand mining)", "height", h.Height, "epochLasts", pace.Round(time.Millisecond),
			"blocksLeft", m.demand.remaining(view.Heads))
	}
	return 0, false
}

// admitWeight is admit's first test: whether h, on a head of view, makes the cut heavier.
func (m *Miner) admitWeight(view *actors.CutView, h *ledger.Header) (time.Duration, bool) {
	next := slices.Clone(view.Heads)
	next[h.ChainID] = h
	if !pow.Heavier(next, view.Heads) {
		if !m.weightFull.Swap(true) {
			m.log.Error("no more blocks can enter the cut: its weight would pass 2^256 (development without proof of work, after blocks came faster "+
				"than the difficulty adjustment allows); mining stops. Start a new data directory (--data-dir)",
				"chain", h.ChainID, "height", h.Height, "cutHeight", view.Cut.Height)
		}
		return time.Second, false
	}
	return 0, true
}

// newHeader builds the next block of chain c in cut hs, created now, after every parent, with
// its payload.
func (m *Miner) newHeader(hs pow.Heads, c ledger.ChainID) (*ledger.Header, *ledger.PayloadWithOutputs, error) {
	p, adj, err := pow.MiningParents(m.v, hs, c, m.rt.Header)
	if err != nil {
		return nil, nil, err
	}
	payload := m.payload
	if x, ok := m.rt.Executor(c); ok {
		if payload, err = x.Build(p); err != nil {
			return nil, nil, fmt.Errorf("build the payload: %w", err)
		}
	}
	latest := p.CreationTime
	for _, a := range adj {
		latest = max(latest, a.CreationTime)
	}
	ct := m.now().UnixMicro()
	if ct <= latest {
		// Within the microsecond of a parent (fast test targets), or a parent from a clock
		// ahead of ours: creation times must increase and never be in the future, so wait.
		wait := time.Duration(latest-ct+1) * time.Microsecond
		if wait > time.Second {
			return nil, nil, fmt.Errorf("parents are created %v in the future", wait)
		}
		time.Sleep(wait)
		if ct = m.now().UnixMicro(); ct <= latest {
			return nil, nil, fmt.Errorf("clock is not past the parents' creation time yet")
		}
	}
	h, err := pow.NewHeader(m.v, p, adj, payload.PayloadHash, ct, 0, 0)
	return h, payload, err
}

// submit hands a solved block to its chain actor and waits until the cut actor has seen it, so
// that the worker's next round starts from the cut that contains it. A block whose parent
// another worker solved first is dropped (minerclaims.go).
func (m *Miner) submit(h *ledger.Header, payload *ledger.PayloadWithOutputs) {
	if !m.claims.solve(h.ChainID, h.Parent) {
		m.dropped.Add(1)
		return
	}
	// Another worker's block may have entered the cut since admit looked: the room in its
	// weight is looked at again in the latest one.
	if view := m.rt.View(); view.Heads.At(h.ChainID) != nil && view.Heads.At(h.ChainID).Hash == h.Parent {
		if _, ok := m.admitWeight(view, h); !ok {
			m.claims.unsolve(h.ChainID, h.Parent)
			return
		}
	}
	if err := m.rt.Insert(h, payload); err != nil {
		m.claims.unsolve(h.ChainID, h.Parent)
		// A write failure is logged once by the write health, which also pauses the workers.
		if !m.stopped() && !errors.Is(err, actors.ErrWriteFailed) && !errors.Is(err, actors.ErrStopped) && !errors.Is(err, actors.ErrExecutorStopped) {
			m.log.Warn("mined block rejected", "chain", h.ChainID, "height", h.Height, "err", err)
		}
		return
	}
	m.mined.Add(1)
	m.log.Debug("mined", "chain", h.ChainID, "height", h.Height, "hash", h.Hash)
}
