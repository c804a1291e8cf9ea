package actors

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// Config configures the runtime.
type Config struct {
	Version *ledger.Version
	Store   *store.DB
	// Genesis holds each chain's genesis header, indexed by chain id (nil where unknown, as on
	// upstream networks whose genesis payloads this node does not carry). The cut rules need
	// them because a genesis block's adjacents name genesis parent hashes, not blocks.
	Genesis []*ledger.Header
	// Updates receives every block that enters the best cut; nil for none.
	Updates *UpdatesHub
	// Execution turns Pact execution on (a mempool and an executor per chain); nil leaves
	// blocks without transactions, as on upstream networks whose genesis this node does not
	// carry.
	Execution *ExecutionConfig
	Logger    *slog.Logger
	// Now is the clock for validation ("not in the future") and creation times; time.Now if nil.
	Now func() time.Time
}

// insertTimeout bounds a wait for a chain actor or the cut actor. They answer in microseconds to
// milliseconds; only a node stopping under the caller gets near it. No actor waits for another
// inside its Receive, so no wait holds a longer one inside it: Insert waits for the chain actor,
// then for the executor (ExecutorTimeout), then for the chain actor again, one after another.
const insertTimeout = 30 * time.Second

// ErrStopped is returned by Insert once the runtime has stopped.
var ErrStopped = errors.New("actors: runtime stopped")

// Runtime is the running set of actors: a chain actor per chain, the cut actor, the heads
// writer and, with execution, a mempool and an executor per chain; the parts attached to it
// (the miner, peer sync) run over it.
type Runtime struct {
	cfg    Config
	system *actor.ActorSystem
	chains []*actor.PID // by chain id; nil for ids the version does not have
	cutPID *actor.PID
	view   atomic.Pointer[CutView]
	heads  *headsWriter
	execs  []*Executor // by chain id; nil without Execution
	pools  *Mempools
	// parts are the parts attached (parts.go), in the order attached; partsMu orders Attach
	// with Stop.
	parts   atomic.Pointer[[]Part]
	partsMu sync.Mutex
	// slots bounds the evaluations requests start (ExecutionConfig.EvalSlots).
	slots *EvalSlots
	// health is the write-health state (writehealth.go): the miner and sync pause while the
	// store cannot write.
	health  *writeHealth
	entered atomic.Uint64
	counts  counts // what the metrics read (observe.go)
	stopped atomic.Bool
	stop    sync.Once
	// cutMu guards cutCh, closed and replaced at every cut change (CutChanged).
	cutMu sync.Mutex
	cutCh chan struct{}
}

// Start resumes the best cut from the store (recover.go) and starts the actors. The miner and
// peer sync start over the runtime it returns (packages actors/mining and actors/peersync).
func Start(cfg Config) (*Runtime, error) {
	if cfg.Version == nil || cfg.Store == nil {
		return nil, errors.New("actors: Config needs Version and Store")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Runtime{cfg: cfg, cutCh: make(chan struct{})}
	genesis := pow.Heads(cfg.Genesis)
	hs, err := loadHeads(cfg.Version, cfg.Store, genesis, r.lookup, cfg.Logger)
	if err != nil {
		return nil, err
	}
	r.view.Store(&CutView{Heads: hs, Cut: hs.Cut(cfg.Version), Seq: 1})
	r.heads = newHeadsWriter(cfg.Store, cfg.Logger)
	r.health = newWriteHealth(cfg.Logger, cfg.Store.ProbeWrite)
	r.heads.failed = func(err error) { r.health.failed("heads", err) }
	// Heads that failed to be written wait in the heads writer; after a recovery they (or
	// newer ones) are written without waiting for the next cut change.
	r.health.resume = func() { r.heads.offer(r.view.Load().Heads) }
	r.heads.offer(hs) // the resumed cut may differ from the stored heads (recover.go)

	r.system = newActorSystem(cfg.Logger)
	if cfg.Execution != nil {
		if err := r.startExecution(hs); err != nil {
			r.shutdown()
			return nil, err
		}
	}
	nChains := 0
	for _, c := range cfg.Version.Chains() {
		nChains = max(nChains, int(c)+1)
	}
	r.counts.chainEntered = make([]atomic.Uint64, nChains)
	cut := &cutActor{
		v: cfg.Version, db: cfg.Store, genesis: genesis, log: cfg.Logger.With("component", "cut"),
		view: &r.view, heads: r.heads, hub: cfg.Updates, entered: &r.entered, orphaned: &r.counts.orphaned, reorgs: &r.counts.reorgs,
		chainEntered: r.counts.chainEntered, lookup: r.lookup,
	}
	cut.changed = func(v *CutView) {
		r.cutChangedExec(v)
		for _, p := range r.loadParts() {
			p.CutChanged(v)
		}
		r.signalCut()
	}
	if r.cutPID, err = r.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return cut }), "cut"); err != nil {
		r.shutdown()
		return nil, fmt.Errorf("actors: spawn the cut actor: %w", err)
	}
	for _, c := range cfg.Version.Chains() {
		_, executes := r.Executor(c)
		a := &chainActor{chain: c, v: cfg.Version, db: cfg.Store, now: cfg.Now, cut: r.cutPID,
			log: cfg.Logger.With("component", "chain"), health: r.health, counts: &r.counts, executes: executes}
		pid, err := r.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return a }), fmt.Sprintf("chain-%d", c))
		if err != nil {
			r.shutdown()
			return nil, fmt.Errorf("actors: spawn the actor of chain %d: %w", c, err)
		}
		for int(c) >= len(r.chains) {
			r.chains = append(r.chains, nil)
		}
		r.chains[c] = pid
	}
	return r, nil
}

// lookup reads a stored header (reads go to the store, never through an actor).
func (r *Runtime) lookup(h ledger.Hash) (*ledger.Header, bool) {
	x, err := r.cfg.Store.Header(h)
	return x, err == nil
}

// Cut returns the current best cut. It is safe from any goroutine and costs an atomic load:
// the service API's ServiceConfig.Cut.
func (r *Runtime) Cut() *ledger.Cut { return r.view.Load().Cut }

// View returns the current best cut with its heads.
func (r *Runtime) View() *CutView { return r.view.Load() }

// CutChanged returns a channel closed at the next change of the best cut. Take it before
// reading View, so that a change between the two is not missed.
func (r *Runtime) CutChanged() <-chan struct{} {
	r.cutMu.Lock()
	defer r.cutMu.Unlock()
	return r.cutCh
}

func (r *Runtime) signalCut() {
	r.cutMu.Lock()
	close(r.cutCh)
	r.cutCh = make(chan struct{})
	r.cutMu.Unlock()
}

// Insert validates and stores a block through its chain actor, and returns once the cut actor
// has considered it: after a nil error the block is stored, and in the cut if it made the cut
// heavier. p may be nil when the payload is already stored. A block that fails a rule gets a
// *pow.ValidationError (MissingParent, MissingAdjacentParent, MissingPayload and
// BlockInTheFuture are ephemeral) and leaves nothing behind.
func (r *Runtime) Insert(h *ledger.Header, p *ledger.PayloadWithOutputs) error {
	if r.stopped.Load() {
		return ErrStopped
	}
	if h == nil || int(h.ChainID) >= len(r.chains) || r.chains[h.ChainID] == nil {
		return fmt.Errorf("actors: insert: no chain %v in %s", chainOf(h), r.cfg.Version.Name)
	}
	done, err := r.askChain(h.ChainID, &insertHeader{header: h, payload: p})
	if err != nil {
		return err
	}
	if done.execute != nil {
		// The executor validates the payload here, on the caller's goroutine, not inside the
		// chain actor's Receive: the chain actor handles other blocks meanwhile, and this
		// wait has the executor's bound, not the chain actor's.
		x, _ := r.Executor(h.ChainID)
		if err := x.Validate(h, done.execute); err != nil {
			err = payloadInvalid(h, err)
			r.noteRejected(h, err)
			return err
		}
		if _, err := r.askChain(h.ChainID, &storeBlock{header: h, payload: p}); err != nil {
			return err
		}
	}
	if _, err := r.system.Root.RequestFuture(r.cutPID, syncCut{}, insertTimeout).Result(); err != nil {
		return fmt.Errorf("actors: wait for the cut: %w", err)
	}
	return nil
}

// askChain sends msg to chain c's actor and waits for its answer, returning the answer's error
// if it has one.
func (r *Runtime) askChain(c ledger.ChainID, msg any) (*insertDone, error) {
	res, err := r.system.Root.RequestFuture(r.chains[c], msg, insertTimeout).Result()
	if err != nil {
		return nil, fmt.Errorf("actors: insert into chain %d: %w", c, err)
	}
	done := res.(*insertDone)
	return done, done.err
}

// noteRejected logs and counts a block refused outside the chain actor (its payload's
// execution), as the chain actor does those it refuses.
func (r *Runtime) noteRejected(h *ledger.Header, err error) {
	if !errors.Is(err, ErrWriteFailed) {
		r.cfg.Logger.Debug("header rejected", "component", "chain", "chain", h.ChainID, "err", err)
	}
	r.counts.failures.note(err)
}

// Stats are the node's running totals since Start.
type Stats struct {
	CutHeight uint64 // height of the current cut
	Entered   uint64 // blocks that entered the best cut
	// Mined, Hashes and HeldByWrites are the attached miner's (MinerCounts); zero without one.
	Mined  uint64 // blocks this node mined that were stored
	Hashes uint64 // nonces tried
	// HeldByWrites is the number of miner workers blocked until writes succeed again: once it
	// is the number of workers, the miner hashes no more.
	HeldByWrites int
	// Transactions counts the transactions of the blocks applied to the Pact state (a block
	// replayed after a reorg counts again).
	Transactions uint64
	// Pending is the number of transactions waiting in the mempools.
	Pending int
}

// Stats returns the running totals.
func (r *Runtime) Stats() Stats {
	s := Stats{CutHeight: r.view.Load().Cut.Height, Entered: r.entered.Load()}
	for _, p := range r.loadParts() {
		if m, ok := p.(MinerCounts); ok {
			s.Mined, s.Hashes, s.HeldByWrites = m.MinerCounts()
		}
	}
	for _, x := range r.execs {
		if x != nil {
			s.Transactions += x.txs.Load()
			s.Pending += x.pool.Len()
		}
	}
	return s
}

// Stop stops the attached parts (the miner, peer sync), lets every actor finish the messages it has (a chain actor's last blocks
// reach the cut actor before it stops), writes the final heads, and stops the actor system.
// The store stays open. Calling Stop again does nothing.
func (r *Runtime) Stop() {
	r.stop.Do(func() {
		// Long work ends first, so that nothing below waits for it: new blocks are refused,
		// and the executors answer the requests they hold at once and leave a replay between
		// two blocks (the next start resumes from the state where it is). The parts (peer
		// sync, the miner), which wait on both, then return within a block's execution; the
		// last attached stops first, as it may use the ones before.
		r.partsMu.Lock()
		r.stopped.Store(true)
		r.partsMu.Unlock()
		for _, x := range r.execs {
			if x != nil {
				x.stopped.Store(true)
			}
		}
		parts := r.loadParts()
		for i := len(parts) - 1; i >= 0; i-- {
			parts[i].Stop()
		}
		r.shutdown()
		r.health.stop()
	})
}

// WriteHealth tells whether the store's writes are failing (writehealth.go), since when and why.
func (r *Runtime) WriteHealth() WriteHealth { return r.health.Snapshot() }

func (r *Runtime) shutdown() {
	for _, x := range r.execs {
		if x != nil {
			x.stop()
		}
	}
	if r.pools != nil {
		r.pools.Stop()
	}
	for _, pid := range r.chains {
		if pid != nil {
			r.system.Root.PoisonFuture(pid).Wait()
		}
	}
	if r.cutPID != nil {
		r.system.Root.PoisonFuture(r.cutPID).Wait()
	}
	if r.heads != nil {
		r.heads.close()
	}
	r.system.Shutdown()
}
