package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
)

// The mempool of a chain (DESIGN.md, "A transaction"): an actor that owns the chain's
// mempool.Pool, and Mempool, the typed client the HTTP handlers, the miner and the executor
// use. The rules live in package mempool; the actor only serialises the pool's changes.
//
// Who does what, for /send:
//
//   - The caller's goroutine decodes the payloads and runs mempool.Precheck, every check that
//     reads no pool state (gas, times, metadata, code, hash, signatures, the gas payer). The
//     Ed25519 work thus spreads over the HTTP handlers' goroutines instead of queuing behind
//     one actor per chain.
//   - The actor merges in the pool's two checks (recently included, bad-listed) in their
//     place in the order (Pool.Admit), rejects the whole batch if any transaction failed, and
//     otherwise inserts them all. The reply comes after the insert, so the caller reads its
//     own writes.
//
// Reads never go through the actor: Lookup and Status read an index the actor keeps current
// under a read-write lock (pending transactions and bad-listed keys; an included transaction
// is answered by the store's request-key index, not here). Pending (the block fill) does go
// through the actor, because it must be ordered with Included and Badlist.

// Defaults of MempoolConfig.
const (
	// DefaultMempoolEvictEvery is how often expired transactions are evicted when nothing
	// else does it (Pending evicts first too).
	DefaultMempoolEvictEvery = 10 * time.Second
	// DefaultMempoolTimeout bounds a wait for the actor. It answers in microseconds; only a
	// node stopping under the caller gets near it.
	DefaultMempoolTimeout = 30 * time.Second
	// parallelPrecheck is the batch size from which Insert spreads Precheck over the cores.
	parallelPrecheck = 8
)

// ErrMempoolStopped is returned by a Mempool's requests once it has stopped.
var ErrMempoolStopped = errors.New("actors: mempool stopped")

// MempoolConfig configures the mempool of one chain.
type MempoolConfig struct {
	Chain ledger.ChainID
	// Network is the version's name ("mainnet01"); a command's networkId must equal it.
	Network string
	// Pool holds the limits; nil means mempool.DefaultConfig().
	Pool *mempool.Config
	// GasPayer and Index are the Pact-side checks the executor provides; nil skips them.
	GasPayer mempool.GasPayer
	Index    mempool.TxIndex
	// ParentTime returns the creation time of the chain's latest block (ChainHeadTime reads
	// it from the runtime's cut); nil, or a zero Time, skips the checks against it.
	ParentTime func() time.Time
	// Now is the clock; time.Now if nil.
	Now func() time.Time
	// EvictEvery is the eviction period (DefaultMempoolEvictEvery if zero; negative: no
	// periodic eviction, for tests that call Evict).
	EvictEvery time.Duration
	// Timeout bounds a request to the actor (DefaultMempoolTimeout if zero); a context
	// deadline that comes sooner wins.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Mempool is the client of one chain's mempool actor. All methods are safe for concurrent use.
type Mempool struct {
	cfg     MempoolConfig
	pool    mempool.Config // defaults filled in
	system  *actor.ActorSystem
	own     bool // the system was started here and stops with the mempool
	pid     *actor.PID
	index   *mempoolIndex
	counts  *mempoolCounts
	quit    chan struct{}
	ticker  sync.WaitGroup
	stopped atomic.Bool
	stop    sync.Once
}

// StartMempool spawns the mempool actor of cfg.Chain in system (a system of its own when nil,
// shut down by Stop) and starts its eviction ticker.
func StartMempool(system *actor.ActorSystem, cfg MempoolConfig) (*Mempool, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.EvictEvery == 0 {
		cfg.EvictEvery = DefaultMempoolEvictEvery
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultMempoolTimeout
	}
	pcfg := mempool.DefaultConfig()
	if cfg.Pool != nil {
		pcfg = *cfg.Pool
	}
	m := &Mempool{cfg: cfg, index: &mempoolIndex{m: make(map[api.Hash]MempoolEntry), now: cfg.Now}, counts: &mempoolCounts{},
		quit: make(chan struct{})}
	if system == nil {
		system, m.own = newActorSystem(cfg.Logger), true
	}
	m.system = system
	pool := mempool.NewPool(pcfg)
	m.pool = pool.Config()
	pool.Observe(m.index.observe)
	a := &mempoolActor{chain: cfg.Chain, pool: pool, index: m.index, now: cfg.Now, counts: m.counts,
		log: cfg.Logger.With("component", "mempool", "chain", cfg.Chain)}
	pid, err := system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return a }),
		fmt.Sprintf("mempool-%d", cfg.Chain))
	if err != nil {
		if m.own {
			system.Shutdown()
		}
		return nil, fmt.Errorf("actors: spawn the mempool of chain %d: %w", cfg.Chain, err)
	}
	m.pid = pid
	if cfg.EvictEvery > 0 {
		m.ticker.Add(1)
		go m.tick(cfg.EvictEvery)
	}
	return m, nil
}

// ChainHeadTime returns a MempoolConfig.ParentTime for chain c that reads r's published cut:
// the creation time of the chain's head (zero when the cut has none).
func ChainHeadTime(r *Runtime, c ledger.ChainID) func() time.Time {
	return func() time.Time {
		if h := r.View().Heads.At(c); h != nil {
			return time.UnixMicro(h.CreationTime)
		}
		return time.Time{}
	}
}

// Chain returns the mempool's chain.
func (m *Mempool) Chain() ledger.ChainID { return m.cfg.Chain }

// Config returns the pool's limits.
func (m *Mempool) Config() mempool.Config { return m.pool }

// env is the checks' environment as of now.
func (m *Mempool) env() *mempool.Env {
	e := &mempool.Env{Config: m.pool, Chain: m.cfg.Chain, Network: m.cfg.Network, Now: m.cfg.Now(),
		Index: m.cfg.Index, GasPayer: m.cfg.GasPayer}
	if m.cfg.ParentTime != nil {
		e.ParentTime = m.cfg.ParentTime()
	}
	return e
}

// Insert is /send: it decodes cmds' payloads, runs every check of chainweb-api.md §6.2 and, if
// all pass, inserts them and returns their request keys in input order (a repeated command
// keeps its place each time; re-sending a pending one is accepted). Otherwise nothing is
// inserted and the error is a *mempool.DecodeError or a *mempool.BatchError, whose text
// (mempool.IsRejection) is the 400 answer; any other error is the node's (stopped, timed
// out).
func (m *Mempool) Insert(ctx context.Context, cmds []*api.Command) ([]api.Hash, error) {
	if m.stopped.Load() {
		return nil, ErrMempoolStopped
	}
	txs, err := mempool.Decode(cmds)
	if err != nil {
		m.counts.rejected[0].Add(1)
		return nil, err
	}
	pre := precheckAll(m.env(), txs)
	res, err := m.request(ctx, &mempoolInsert{txs: txs, pre: pre})
	if err != nil {
		return nil, err
	}
	done := res.(*mempoolInsertDone)
	return done.keys, done.err
}

// Reinsert returns the transactions of blocks a reorg dropped to the mempool: each one that
// still passes every check (it is not on the new branch, has not expired, ...) is pending
// again. It does not wait.
func (m *Mempool) Reinsert(cmds []*api.Command) {
	if m.stopped.Load() || len(cmds) == 0 {
		return
	}
	var txs []*mempool.Tx
	for _, c := range cmds {
		if t, err := mempool.Decode([]*api.Command{c}); err == nil {
			txs = append(txs, t...)
		}
	}
	m.send(&mempoolReinsert{txs: txs, pre: precheckAll(m.env(), txs)})
}

// precheckAll runs mempool.Precheck over txs, on several goroutines for a large batch.
func precheckAll(env *mempool.Env, txs []*mempool.Tx) []mempool.Verdict {
	env = mempool.AnsweredIndex(env, txs)
	vs := make([]mempool.Verdict, len(txs))
	workers := min(runtime.GOMAXPROCS(0), len(txs)/parallelPrecheck+1)
	if workers <= 1 {
		for i, tx := range txs {
			vs[i] = mempool.Precheck(env, tx)
		}
		return vs
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(txs); i = int(next.Add(1) - 1) {
				vs[i] = mempool.Precheck(env, txs[i])
			}
		}()
	}
	wg.Wait()
	return vs
}

// Preflight runs /local?preflight=true's metadata checks against this chain's network and
// latest block (mempool.Preflight).
func (m *Mempool) Preflight(pc *api.ParsedCommand, verifySigs bool) []string {
	return mempool.Preflight(m.env(), pc, verifySigs)
}

// MempoolEntry is a request key's standing: Pending with its transaction, Badlisted, or
// Missing (never seen, expired, or included in a block: the store's request-key index answers
// for those).
type MempoolEntry struct {
	Status mempool.Status
	Tx     *mempool.Tx // when Pending
	// since is when it became pending (µs since the epoch; the metrics' oldest age).
	since int64
}

// Lookup returns the standing of each key, in order, without asking the actor.
func (m *Mempool) Lookup(keys []api.Hash) []MempoolEntry {
	es := make([]MempoolEntry, len(keys))
	m.index.mu.RLock()
	for i, k := range keys {
		es[i] = m.index.m[k]
	}
	m.index.mu.RUnlock()
	return es
}

// Status returns the standing of one key, without asking the actor.
func (m *Mempool) Status(k api.Hash) mempool.Status {
	m.index.mu.RLock()
	defer m.index.mu.RUnlock()
	return m.index.m[k].Status
}

// Len is the number of pending transactions (counted by the index, not asking the actor).
func (m *Mempool) Len() int { return int(m.index.pending.Load()) }

// Badlisted is the number of bad-listed request keys (counted by the index).
func (m *Mempool) Badlisted() int { return int(m.index.badlisted.Load()) }

// Bytes is the size of the pending transactions: their cmd strings and signatures.
func (m *Mempool) Bytes() int64 { return m.index.bytes.Load() }

// Oldest is when the transaction pending longest became pending; false when none is pending.
func (m *Mempool) Oldest() (time.Time, bool) { return m.index.oldest() }

// PendingKeys lists the keys of the pending transactions (read from the index).
func (m *Mempool) PendingKeys() []api.Hash {
	m.index.mu.RLock()
	defer m.index.mu.RUnlock()
	var out []api.Hash
	for k, e := range m.index.m {
		if e.Status == mempool.Pending {
			out = append(out, k)
		}
	}
	return out
}

// Generation changes whenever a transaction enters or leaves the pending set or the bad-list:
// a block built at one generation holds the best of what was pending then.
func (m *Mempool) Generation() uint64 { return m.index.gen.Load() }

// Pending returns transactions for a new block, best gas price first, whose gas limits add up
// to at most budget (the block gas limit when 0), leaving out the keys in skip. Expired
// transactions are evicted first. They stay pending until Included or Badlist.
func (m *Mempool) Pending(ctx context.Context, budget uint64, skip []api.Hash) ([]*mempool.Tx, error) {
	res, err := m.request(ctx, &mempoolPending{budget: budget, skip: skip})
	if err != nil {
		return nil, err
	}
	return res.(*mempoolPendingDone).txs, nil
}

// PendingSnapshot returns every pending transaction, best gas price first (expired ones are
// evicted first), with the Generation they are of. A block builder handed them picks its
// transactions with mempool.Take, as Pending would have: the executor gets them in its build
// request rather than asking the mempool from inside its own actor.
func (m *Mempool) PendingSnapshot(ctx context.Context) ([]*mempool.Tx, uint64, error) {
	res, err := m.request(ctx, mempoolSnapshot{})
	if err != nil {
		return nil, 0, err
	}
	done := res.(*mempoolSnapshotDone)
	return done.txs, done.gen, nil
}

// Included tells the actor that these transactions are in a block of the chain (they leave
// the pending set and are refused as "already exists on chain" until they expire). It does
// not wait; a later request from the same goroutine is handled after it.
func (m *Mempool) Included(keys []api.Hash) { m.send(&mempoolIncluded{keys: keys}) }

// Badlist tells the actor that these transactions failed to validate for a block (they leave
// the pending set and are refused until they expire). It does not wait.
func (m *Mempool) Badlist(keys []api.Hash) { m.send(&mempoolBadlist{keys: keys}) }

// Evict asks the actor to evict what has expired now (the ticker does it periodically). It
// does not wait.
func (m *Mempool) Evict() { m.send(mempoolEvict{}) }

// Sync returns once the actor has handled every message sent to it before.
func (m *Mempool) Sync(ctx context.Context) error {
	_, err := m.request(ctx, mempoolSync{})
	return err
}

// Stop stops the ticker and the actor (after the messages it has), and the actor system if
// StartMempool started it. Requests afterwards return ErrMempoolStopped. Calling Stop again
// does nothing.
func (m *Mempool) Stop() {
	m.stop.Do(func() {
		m.stopped.Store(true)
		close(m.quit)
		m.ticker.Wait()
		m.system.Root.PoisonFuture(m.pid).Wait()
		if m.own {
			m.system.Shutdown()
		}
	})
}

func (m *Mempool) tick(every time.Duration) {
	defer m.ticker.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.send(mempoolEvict{})
		case <-m.quit:
			return
		}
	}
}

func (m *Mempool) send(msg any) {
	if !m.stopped.Load() {
		m.system.Root.Send(m.pid, msg)
	}
}

// request asks the actor and waits for its answer, for at most the configured timeout or
// until ctx ends.
func (m *Mempool) request(ctx context.Context, msg any) (any, error) {
	if m.stopped.Load() {
		return nil, ErrMempoolStopped
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timeout := m.cfg.Timeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, max(time.Until(d), time.Millisecond))
	}
	f := m.system.Root.RequestFuture(m.pid, msg, timeout)
	type result struct {
		v   any
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f.Result()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			if m.stopped.Load() {
				return nil, ErrMempoolStopped
			}
			return nil, fmt.Errorf("actors: mempool of chain %d: %w", m.cfg.Chain, r.err)
		}
		return r.v, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// mempoolIndex is the published standing of request keys: pending (with the transaction) and
// bad-listed. The actor writes it (through the pool's observer) before it answers; any
// goroutine reads it.
type mempoolIndex struct {
	mu sync.RWMutex
	m  map[api.Hash]MempoolEntry
	// gen counts changes, so that the executor knows when a block it built is stale.
	gen atomic.Uint64
	// pending and badlisted count m's entries of each status, so that sizes cost no walk.
	pending, badlisted atomic.Int64
	// bytes is the size of the pending transactions (txBytes), for the metrics.
	bytes atomic.Int64
	// arrivals are the keys that became pending, in that order (arrivals[head:] may still be);
	// the first of them still pending with the same time is the oldest (Oldest). Entries that
	// left are dropped when they reach the front, or all at once when they outnumber the
	// pending ones.
	arrivals []arrival
	head     int
	now      func() time.Time
}

type arrival struct {
	key   api.Hash
	since int64
}

// txBytes is the size a pending transaction is counted with: its cmd string and signatures.
func txBytes(tx *mempool.Tx) int64 {
	if tx == nil || tx.Command == nil {
		return 0
	}
	n := len(tx.Command.Cmd)
	for _, s := range tx.Command.Sigs {
		n += len(s.Sig)
	}
	return int64(n)
}

func (x *mempoolIndex) observe(k api.Hash, s mempool.Status, tx *mempool.Tx) {
	x.gen.Add(1)
	x.mu.Lock()
	old := x.m[k]
	x.count(old.Status, -1)
	x.count(s, 1)
	if old.Status == mempool.Pending {
		x.bytes.Add(-txBytes(old.Tx))
	}
	switch s {
	case mempool.Pending:
		since := x.now().UnixMicro()
		x.m[k] = MempoolEntry{Status: s, Tx: tx, since: since}
		x.bytes.Add(txBytes(tx))
		if live := len(x.arrivals) - x.head; live > 64 && live > 2*int(x.pending.Load()) {
			x.compactLocked()
		}
		x.arrivals = append(x.arrivals, arrival{k, since})
	case mempool.Badlisted:
		x.m[k] = MempoolEntry{Status: s}
	default:
		delete(x.m, k)
	}
	x.mu.Unlock()
}

// The mempool actor's messages.
type (
	mempoolInsert struct {
		txs []*mempool.Tx
		pre []mempool.Verdict // Precheck's verdict for each
	}
	mempoolInsertDone struct {
		keys []api.Hash
		err  error // a *mempool.BatchError
	}
	mempoolReinsert struct {
		txs []*mempool.Tx
		pre []mempool.Verdict
	}
	mempoolPending struct {
		budget uint64
		skip   []api.Hash
	}
	mempoolPendingDone struct{ txs []*mempool.Tx }
	// mempoolSnapshot asks for every pending transaction, in the pool's order, with the
	// generation they are of (PendingSnapshot).
	mempoolSnapshot     struct{}
	mempoolSnapshotDone struct {
		txs []*mempool.Tx
		gen uint64
	}
	mempoolIncluded struct{ keys []api.Hash }
	mempoolBadlist  struct{ keys []api.Hash }
	mempoolEvict    struct{}
	mempoolSync     struct{}
)

// compactLocked keeps only the arrivals still pending. x.mu is held.
func (x *mempoolIndex) compactLocked() {
	keep := x.arrivals[:0]
	for _, a := range x.arrivals[x.head:] {
		if e := x.m[a.key]; e.Status == mempool.Pending && e.since == a.since {
			keep = append(keep, a)
		}
	}
	clear(x.arrivals[len(keep):])
	x.arrivals, x.head = keep, 0
}

// oldest returns when the longest-pending transaction became pending; false when none is.
func (x *mempoolIndex) oldest() (time.Time, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for x.head < len(x.arrivals) {
		a := x.arrivals[x.head]
		if e := x.m[a.key]; e.Status == mempool.Pending && e.since == a.since {
			return time.UnixMicro(a.since), true
		}
		x.arrivals[x.head] = arrival{}
		x.head++
	}
	x.arrivals, x.head = x.arrivals[:0], 0
	return time.Time{}, false
}

// count adds d to the counter of status s, if it has one.
func (x *mempoolIndex) count(s mempool.Status, d int64) {
	switch s {
	case mempool.Pending:
		x.pending.Add(d)
	case mempool.Badlisted:
		x.badlisted.Add(d)
	}
}

// mempoolCounts are a chain's /send outcomes, for the metrics: transactions admitted, and
// rejected by the check they failed (rejected[0]: the batch did not decode; rejected[s]: step
// s of mempool.Check).
type mempoolCounts struct {
	admitted atomic.Uint64
	rejected [mempool.StepPact + 1]atomic.Uint64
}

// mempoolActor owns one chain's pool.
type mempoolActor struct {
	chain ledger.ChainID
	pool  *mempool.Pool
	index *mempoolIndex // the pool's changes counted into it (Generation)
	now   func() time.Time
	log   *slog.Logger
	// counts are the /send outcomes (observe.go).
	counts *mempoolCounts
}

func (a *mempoolActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *mempoolInsert:
		ctx.Respond(a.insert(m))
	case *mempoolReinsert:
		keys := make([]api.Hash, len(m.txs))
		for i, tx := range m.txs {
			keys[i] = tx.RequestKey
		}
		a.pool.Uninclude(keys)
		n := 0
		for i, tx := range m.txs {
			// One by one: a transaction that no longer passes (expired, now on the new
			// branch) does not hold the others back.
			if v := a.pool.Admit(tx, m.pre[i]); mempool.Reject([]*mempool.Tx{tx}, []mempool.Verdict{v}) == nil {
				a.pool.Insert(tx)
				n++
			}
		}
		a.log.Info("transactions of blocks a reorg dropped returned to the mempool", "returned", n, "dropped", len(m.txs))
	case *mempoolPending:
		a.evict()
		var skip func(api.Hash) bool
		if len(m.skip) > 0 {
			set := make(map[api.Hash]bool, len(m.skip))
			for _, k := range m.skip {
				set[k] = true
			}
			skip = func(k api.Hash) bool { return set[k] }
		}
		ctx.Respond(&mempoolPendingDone{txs: a.pool.Take(m.budget, skip)})
	case mempoolSnapshot:
		a.evict()
		ctx.Respond(&mempoolSnapshotDone{txs: a.pool.Pending(), gen: a.index.gen.Load()})
	case *mempoolIncluded:
		a.pool.Included(m.keys, a.now())
	case *mempoolBadlist:
		a.pool.Badlist(m.keys, a.now())
		a.log.Debug("transactions bad-listed", "count", len(m.keys))
	case mempoolEvict:
		a.evict()
	case mempoolSync:
		ctx.Respond(mempoolSync{})
	}
}

// insert finishes /send's checks with the pool's and inserts the batch if every transaction
// passed.
func (a *mempoolActor) insert(m *mempoolInsert) *mempoolInsertDone {
	vs := make([]mempool.Verdict, len(m.txs))
	for i, tx := range m.txs {
		vs[i] = a.pool.Admit(tx, m.pre[i])
	}
	if err := mempool.Reject(m.txs, vs); err != nil {
		for _, v := range vs {
			if !v.OK() {
				a.counts.rejected[v.Step].Add(1)
			}
		}
		return &mempoolInsertDone{err: err}
	}
	a.counts.admitted.Add(uint64(len(m.txs)))
	keys := make([]api.Hash, len(m.txs))
	for i, tx := range m.txs {
		keys[i] = tx.RequestKey
		switch outcome, evicted := a.pool.Insert(tx); {
		case outcome == mempool.Dropped:
			a.log.Warn("mempool full: transaction not kept", "requestKey", tx.RequestKey,
				"gasPrice", tx.Meta.GasPrice.Text())
		case evicted != nil:
			a.log.Info("mempool full: cheapest transaction displaced", "requestKey", evicted.RequestKey,
				"gasPrice", evicted.Meta.GasPrice.Text())
		}
	}
	return &mempoolInsertDone{keys: keys}
}

func (a *mempoolActor) evict() {
	if gone := a.pool.Evict(a.now()); len(gone) > 0 {
		a.log.Debug("expired transactions evicted", "count", len(gone))
	}
}

// Mempools holds a mempool per chain.
type Mempools struct {
	byChain []*Mempool // indexed by chain id; nil for ids the version does not have
	system  *actor.ActorSystem
	own     bool
}

// StartMempools starts a mempool for every chain of v in system (one system of their own when
// nil, shut down by Stop), each configured as cfg with its Chain and Network set, and its
// ParentTime from parentTime when that is not nil (ChainHeadTime fits).
func StartMempools(system *actor.ActorSystem, v *ledger.Version, cfg MempoolConfig,
	parentTime func(ledger.ChainID) func() time.Time) (*Mempools, error) {
	ms := &Mempools{system: system}
	if system == nil {
		if cfg.Logger == nil {
			cfg.Logger = slog.Default()
		}
		ms.system, ms.own = newActorSystem(cfg.Logger), true
	}
	for _, c := range v.Chains() {
		cc := cfg
		cc.Chain, cc.Network = c, v.Name
		if parentTime != nil {
			cc.ParentTime = parentTime(c)
		}
		m, err := StartMempool(ms.system, cc)
		if err != nil {
			ms.Stop()
			return nil, err
		}
		for int(c) >= len(ms.byChain) {
			ms.byChain = append(ms.byChain, nil)
		}
		ms.byChain[c] = m
	}
	return ms, nil
}

// Chain returns the mempool of chain c, false when there is none.
func (ms *Mempools) Chain(c ledger.ChainID) (*Mempool, bool) {
	if int(c) < len(ms.byChain) && ms.byChain[c] != nil {
		return ms.byChain[c], true
	}
	return nil, false
}

// Stop stops every mempool, then the actor system if StartMempools started it.
func (ms *Mempools) Stop() {
	for _, m := range ms.byChain {
		if m != nil {
			m.Stop()
		}
	}
	if ms.own {
		ms.system.Shutdown()
		ms.own = false
	}
}
