package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/txexec"
)

// The executor of a chain (DESIGN.md, "A transaction"): an actor that owns the chain's
// versioned Pact state (chain/state, in the store's key space) and keeps it at the chain's
// head in the best cut. The rules are block execution's (package chain); the actor serialises
// them and does the I/O. It
//
//   - builds payloads for the miner (chain.Build): the coinbase, then pending transactions
//     by gas price within the block gas limit, from the mempool's pending transactions that
//     the build request carries (BuildFor takes them from the mempool first when a build needs
//     them: the executor never waits for the mempool actor inside its own);
//   - validates the blocks it did not build by executing them (chain.Execute) and comparing
//     their outputs with the payload's, on a view of their parent's branch, without moving
//     the state (branches.go);
//   - applies the blocks that enter the cut, from the writes kept when it built or validated
//     them;
//   - on a reorg, rewinds the state to the fork point and applies the new branch
//     (chain.RouteTo), each block from the writes kept when it was validated or applied
//     before (branches.go), executing only those no longer kept;
//   - records each block's hash, request-key index and transfers by account in the state
//     (chain.RecordBlock), so that they are versioned (and rewound) with it: "is this
//     transaction on chain as of block N" and "the account's transfers" are reads.
//
// Reads never go through the actor: its Reader (reader.go), which the Executor embeds, serves
// Poll, Local, CanPay, Contains and SPV proofs from views of the state at the published head
// (or below it), concurrently with the actor's writes.

// ExecutorTimeout bounds a wait for an executor. Building a full block takes milliseconds;
// a replay after a restart can take longer.
const ExecutorTimeout = 60 * time.Second

// ErrExecutorStopped is returned once the executor has stopped.
var ErrExecutorStopped = errors.New("actors: executor stopped")

// ExecutionConfig turns on Pact execution: a mempool and an executor per chain.
type ExecutionConfig struct {
	Runner *txexec.Runner
	// MinerData is the miner data of the blocks this node builds; local and the gas payer
	// check run as if this miner made the next block.
	MinerData []byte
	// Mempool configures every chain's mempool; Chain, Network, GasPayer, Index and
	// ParentTime are set per chain. Its pool's BlockGasLimit is also the gas the blocks this
	// node builds may spend (at most chain.MaxBlockGasLimit).
	Mempool MempoolConfig
	// MaxBlockOutputBytes caps the outputs of a block, the coinbase's and the transactions'
	// together (chain.DefaultMaxBlockOutputBytes when zero). It is a validity rule: every node of a
	// network must use the same value.
	MaxBlockOutputBytes int
	// EvalSlots bounds the evaluations that requests start (local); nil makes
	// NewEvalSlots(0, 0).
	EvalSlots *EvalSlots
}

// Executor is one chain's executor. Its read methods are safe for concurrent use.
//
// Its reads are its Reader's (reader.go): they never go through the actor.
type Executor struct {
	*Reader
	pool      *Mempool
	minerData []byte
	// maxOutputs caps a block's outputs (ExecutionConfig.MaxBlockOutputBytes).
	maxOutputs int
	log        *slog.Logger
	// cutHead returns the chain's head in the best cut.
	cutHead func() *ledger.Header

	system *actor.ActorSystem
	pid    *actor.PID

	mu sync.Mutex
	// applied is closed and replaced whenever a block is applied (listen waits on it).
	applied chan struct{}
	stopped atomic.Bool
	txs     atomic.Uint64 // transactions applied (Stats)
	gas     atomic.Uint64 // gas the applied blocks' transactions used (the metrics)
	// failed counts the applied transactions whose result is a failure (the metrics).
	failed atomic.Uint64
	// times are the runtime's build and apply histograms (observe.go); nil in tests of one
	// executor.
	times *execTimes
	// health hears of the state's failed writes (writehealth.go); nil in tests of one executor.
	health *writeHealth

	// The actor's own fields.
	built map[ledger.Hash]*builtBlock // payloads built on the current head, by payload hash
	// lastBuilt is the payload built last for each miner (by its miner data), so that the
	// built-in miner and every external miner of the mining API each keep their own block in
	// progress on the head: one's build never throws away another's.
	lastBuilt map[string]*builtBlock
	// miners caches the parsed miner data of the miners payloads are built for.
	miners map[string]txexec.Miner
	// kept are the writes of the blocks executed or applied lately, and branches the heads of
	// branches the state does not hold (branches.go).
	kept     keptBlocks
	branches []*branchHead

	counts execCounts
}

// execCounts are an executor's block executions, for the metrics and the convergence figures:
// each block a peer or another branch brought should be executed once (validated); replayed
// counts executions of blocks executed before, reapplied the blocks applied from kept writes.
type execCounts struct {
	validated, replayed, reapplied atomic.Uint64
}

// builtBlock is a payload the executor built, with the state writes that made it.
type builtBlock struct {
	parent  ledger.Hash
	gen     uint64 // the mempool generation it was built at
	payload *ledger.PayloadWithOutputs
	view    *state.View
	keys    []api.Hash
	gas     uint64 // the gas its transactions used
	// built is how it was built, for the next build on the same parent to continue
	// (nil for a peer's payload kept by validate).
	built *chain.Built
	// stored is the blocks with this payload on parent that were stored (validate saw them:
	// this node's mined blocks), whose writes setHead keeps when it drops the built payloads.
	stored []*ledger.Header
}

// The executor's messages.
type (
	execSync  struct{ target *ledger.Header }
	execBuild struct {
		parent *ledger.Header
		// minerData is the miner the coinbase pays; nil means the node's own
		// (ExecutionConfig.MinerData).
		minerData []byte
		// offered says the request carries the mempool's pending transactions (pending, in
		// the pool's order, of generation gen): the executor never asks the mempool actor
		// from inside its own. Without them, a build that needs them answers needPending.
		offered bool
		pending []*mempool.Tx
		gen     uint64
	}
	execBuilt struct {
		payload *ledger.PayloadWithOutputs
		err     error
		// needPending: the last payload cannot be reused; ask again with the pending
		// transactions.
		needPending bool
	}
	execValidate struct {
		header  *ledger.Header
		payload *ledger.PayloadWithOutputs
	}
	execDone struct{ err error }
)

func newExecutor(c ledger.ChainID, v *ledger.Version, sdb *store.DB, cfg *ExecutionConfig, pool *Mempool,
	cutHead func() *ledger.Header, log *slog.Logger) (*Executor, error) {
	st, err := openPactState(sdb, c)
	if err != nil {
		return nil, err
	}
	// Its block may be gone with a damaged header log: rewind or rebuild it (staterepair.go).
	if st, err = repairPactState(c, sdb, st, log); err != nil {
		return nil, err
	}
	miner, err := txexec.ParseMiner(cfg.MinerData)
	if err != nil {
		return nil, err
	}
	maxOutputs := cfg.MaxBlockOutputBytes
	if maxOutputs <= 0 {
		maxOutputs = chain.DefaultMaxBlockOutputBytes
	}
	x := &Executor{
		Reader:     &Reader{chain: c, v: v, db: sdb, state: st, run: cfg.Runner, miner: miner, others: noOtherChains{}},
		pool:       pool,
		maxOutputs: maxOutputs,
		minerData:  cfg.MinerData, log: log.With("component", "executor", "chain", c), cutHead: cutHead,
		applied: make(chan struct{}), built: map[ledger.Hash]*builtBlock{},
		lastBuilt: map[string]*builtBlock{}, miners: map[string]txexec.Miner{string(cfg.MinerData): miner},
	}
	if h, ok := st.Height(); ok {
		hash, err := x.blockAt(h)
		if err != nil {
			return nil, fmt.Errorf("actors: Pact state of chain %d: %w", c, err)
		}
		head, err := sdb.Header(hash)
		if err != nil {
			return nil, fmt.Errorf("actors: Pact state of chain %d is at block %s: %w", c, hash, err)
		}
		x.head.Store(head)
	}
	return x, nil
}

func (x *Executor) spawn(system *actor.ActorSystem) error {
	x.system = system
	pid, err := system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return x }),
		fmt.Sprintf("executor-%d", x.chain))
	if err != nil {
		return fmt.Errorf("actors: spawn the executor of chain %d: %w", x.chain, err)
	}
	x.pid = pid
	return nil
}

func (x *Executor) stop() {
	x.stopped.Store(true)
	if x.pid != nil {
		x.system.Root.PoisonFuture(x.pid).Wait()
	}
}

// Receive handles the executor's messages.
func (x *Executor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *execSync:
		if x.stopped.Load() {
			return // the state resumes from where it is at the next start
		}
		// The cut's head now, not the message's: notices queue up while a block executes, and
		// only the latest target matters.
		target := m.target
		if head := x.cutHead(); head != nil {
			target = head
		}
		// A failed write was reported to the write health, which logs it once; the next
		// cut change or build after the recovery brings the state up to the head.
		if err := x.syncTo(target); err != nil && !errors.Is(err, ErrWriteFailed) && !errors.Is(err, ErrExecutorStopped) {
			x.log.Error("cannot execute the chain's head", "height", target.Height, "hash", target.Hash, "err", err)
		}
	case *execBuild:
		if x.stopped.Load() {
			ctx.Respond(&execBuilt{err: ErrExecutorStopped})
			return
		}
		ctx.Respond(x.build(m))
	case *execValidate:
		if x.stopped.Load() {
			ctx.Respond(&execDone{err: ErrExecutorStopped})
			return
		}
		ctx.Respond(&execDone{err: x.validate(m.header, m.payload)})
	}
}

func (x *Executor) request(msg any) (any, error) {
	if x.stopped.Load() {
		return nil, ErrExecutorStopped
	}
	res, err := x.system.Root.RequestFuture(x.pid, msg, ExecutorTimeout).Result()
	if err != nil {
		return nil, fmt.Errorf("actors: executor of chain %d: %w", x.chain, err)
	}
	return res, nil
}

// Build returns the payload of a new block on parent: the coinbase to this node's miner, then
// the best pending transactions that fit the block gas limit. It is the one built last when
// neither the parent nor the mempool changed since.
func (x *Executor) Build(parent *ledger.Header) (*ledger.PayloadWithOutputs, error) {
	return x.BuildFor(parent, nil)
}

// BuildFor is Build with the coinbase paying the miner of minerData (ledger.MinerData's JSON),
// as the mining API builds work for each external miner. nil is the node's own miner. Each
// miner's last payload is kept apart, so builds for one do not undo the cache of another.
//
// A build that cannot reuse the last payload needs the pending transactions: BuildFor then
// takes them from the mempool (on the caller's goroutine, with the mempool's bound) and asks
// again with them.
func (x *Executor) BuildFor(parent *ledger.Header, minerData []byte) (*ledger.PayloadWithOutputs, error) {
	msg := &execBuild{parent: parent, minerData: minerData}
	for {
		res, err := x.request(msg)
		if err != nil {
			return nil, err
		}
		b := res.(*execBuilt)
		if !b.needPending || msg.offered {
			return b.payload, b.err
		}
		ctx, cancel := context.WithTimeout(context.Background(), DefaultMempoolTimeout)
		pending, gen, err := x.pool.PendingSnapshot(ctx)
		cancel()
		if err != nil {
			return nil, err
		}
		msg = &execBuild{parent: parent, minerData: minerData, offered: true, pending: pending, gen: gen}
	}
}

// Validate checks a block's payload by executing it on its parent's state, unless the executor
// built that payload itself. It may move the state off the best cut's head; the next cut
// change brings it back.
func (x *Executor) Validate(h *ledger.Header, p *ledger.PayloadWithOutputs) error {
	res, err := x.request(&execValidate{header: h, payload: p})
	if err != nil {
		return err
	}
	return res.(*execDone).err
}

// Applied returns a channel closed when the next block is applied.
func (x *Executor) Applied() <-chan struct{} {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.applied
}

// syncTo brings the state to block t: back to the last block t's branch shares with the
// state, then forward along t's branch.
func (x *Executor) syncTo(t *ledger.Header) error {
	if head := x.head.Load(); head != nil && head.Hash == t.Hash {
		return nil
	}
	route, err := chain.RouteTo(x.v, x.db, t, x.onState)
	if err != nil {
		return err
	}
	h, path := route.Fork, route.Apply
	if head := x.head.Load(); head != nil && (h == nil || h.Hash != head.Hash) {
		if h == nil {
			return fmt.Errorf("block %s shares no history with the Pact state", t.Hash)
		}
		dropped := x.commandsAbove(head, h)
		// Readers move to the fork point first: the state's versions up to it stay as they
		// are through the rewind, while views above it fail until the rewind is done.
		x.head.Store(h)
		if err := x.writable("rewind", h); err != nil {
			x.head.Store(head)
			return err
		}
		if err := x.state.Rewind(h.Height); err != nil {
			// The state is still at head (Rewind leaves it as it was): so are the readers.
			x.head.Store(head)
			return x.writeFailed("rewind", h, err)
		}
		x.log.Info("Pact state rewound for a fork", "toHeight", h.Height, "blocksToReplay", len(path))
		x.setHead(h)
		if x.pool != nil && len(dropped) > 0 {
			// After the replay below, so that those on the new branch are refused as on chain.
			defer x.pool.Reinsert(dropped)
		}
	}
	if len(path) > 100 {
		x.log.Info("replaying blocks into the Pact state", "blocks", len(path), "toHeight", t.Height)
	}
	for _, b := range path {
		if x.stopped.Load() {
			// Shutting down: the state is at a block of the path, which the next start
			// resumes from (startExecution).
			return ErrExecutorStopped
		}
		if err := x.apply(b); err != nil {
			return fmt.Errorf("block %d %s: %w", b.Height, b.Hash, err)
		}
	}
	return nil
}

// commandsAbove returns the commands of the blocks from head down to, not including, fork.
func (x *Executor) commandsAbove(head, fork *ledger.Header) []*api.Command {
	var out []*api.Command
	for h := head; h != nil && h.Height > fork.Height; {
		if p, err := x.db.PayloadWithOutputs(h.PayloadHash); err == nil {
			for _, t := range p.Transactions {
				if c, err := api.DecodeCommand(t.Tx); err == nil {
					out = append(out, c)
				}
			}
		}
		parent, err := x.db.Header(h.Parent)
		if err != nil {
			break
		}
		h = parent
	}
	return out
}

func (x *Executor) isGenesis(h *ledger.Header) bool { return chain.IsGenesis(x.v, h) }

func (x *Executor) setHead(h *ledger.Header) {
	x.head.Store(h)
	x.keepStoredBuilt(h)
	clear(x.built) // their views were made on the old head
	clear(x.lastBuilt)
}

// keepStoredBuilt keeps the writes of the blocks this executor built that were stored (mined)
// and are not the new head h, before the built payloads are dropped: a sibling that entered the
// cut first beat such a block, and a later switch back to it then applies its writes instead of
// executing it again. A block's writes depend only on its history, so they stay right whatever
// the state does meanwhile. A view already applied (for another block with the same payload)
// holds that block's records and is not kept again.
func (x *Executor) keepStoredBuilt(h *ledger.Header) {
	for _, b := range x.built {
		for _, s := range b.stored {
			if s.Hash == h.Hash || x.kept.get(s) != nil {
				continue
			}
			if _, err := x.keep(s, b.view, b.keys, b.gas, b.payload); err != nil {
				x.log.Debug("built block not kept", "height", s.Height, "err", err)
			}
			break // the view now holds s's records
		}
	}
}

// apply applies block h, whose parent is the state's head: from the writes kept when this
// executor built its payload, or by executing the stored payload.
func (x *Executor) apply(h *ledger.Header) error {
	if x.times != nil {
		defer x.times.apply.Since(time.Now())
	}
	var view *state.View
	var keys []api.Hash
	var gas uint64
	var p *ledger.PayloadWithOutputs // nil: read for the outcomes if needed
	if b, ok := x.built[h.PayloadHash]; ok && b.parent == h.Parent {
		view, keys, gas, p = b.view, b.keys, b.gas, b.payload
	} else if k := x.kept.get(h); k != nil {
		// Executed before (validated, or applied before a reorg): its writes are applied as
		// they are.
		if err := x.writable("apply", h); err != nil {
			return err
		}
		if err := x.state.ApplyBlock(k.blk, h.Height); err != nil {
			return x.writeFailed("apply", h, err)
		}
		x.counts.reapplied.Add(1)
		x.applied1(h, nil, k.keys, k.gas)
		return nil
	} else {
		var err error
		if p, err = x.db.PayloadWithOutputs(h.PayloadHash); err != nil {
			return fmt.Errorf("payload %s: %w", h.PayloadHash, err)
		}
		view = x.view()
		if keys, gas, err = x.execute(h, x.head.Load(), p, view); err != nil {
			return err
		}
		// Every stored block was executed when it was validated (or built): this is a replay,
		// but for the genesis blocks of a new state.
		if !x.isGenesis(h) {
			x.counts.replayed.Add(1)
		}
	}
	if err := chain.RecordBlock(view, h.Hash, h.Height, keys, p); err != nil {
		return err
	}
	if err := x.writable("apply", h); err != nil {
		return err
	}
	if err := x.state.Apply(view, h.Height); err != nil {
		// Nothing of the block was written (one batch) and the view is kept: the block is
		// applied again once writes succeed.
		return x.writeFailed("apply", h, err)
	}
	// Kept, so that a reorg away and back applies it again without executing it. (An applied
	// view always freezes; were it not to, the block would only be executed again if needed.)
	if _, err := x.keepFrozen(h, view, keys, gas); err != nil {
		x.log.Debug("applied block not kept", "height", h.Height, "err", err)
	}
	x.applied1(h, p, keys, gas)
	return nil
}

// applied1 moves the head to h, just applied with the transactions keys, which used gas; p is
// its payload (nil: read from the store when it has transactions, for their outcomes).
func (x *Executor) applied1(h *ledger.Header, p *ledger.PayloadWithOutputs, keys []api.Hash, gas uint64) {
	x.setHead(h)
	x.txs.Add(uint64(len(keys)))
	x.gas.Add(gas)
	if len(keys) > 0 {
		if p == nil {
			p, _ = x.db.PayloadWithOutputs(h.PayloadHash) // stored before it was applied
		}
		if p != nil {
			x.failed.Add(failedTxs(p))
		}
	}
	if x.pool != nil && len(keys) > 0 {
		x.pool.Included(keys)
	}
	x.mu.Lock()
	close(x.applied)
	x.applied = make(chan struct{})
	x.mu.Unlock()
}

// writable returns the store's injected write fault (store.DB.SetWriteFault), reported: checked
// before a rewind, which marks views stale before its write (the state's writes themselves go
// through the store's KeySpace, which checks it too).
func (x *Executor) writable(what string, h *ledger.Header) error {
	if err := x.db.CheckWriteFault(); err != nil {
		return x.writeFailed(what, h, err)
	}
	return nil
}

// writeFailed reports a failed write of the Pact state at block h to the write health and marks
// the error as a write failure.
func (x *Executor) writeFailed(what string, h *ledger.Header, err error) error {
	if x.health != nil {
		x.health.failed(fmt.Sprintf("Pact state of chain %d: %s block %d", x.chain, what, h.Height), err)
	}
	return &writeError{err}
}

// maxCachedMiners bounds the parsed miners an executor keeps (build).
const maxCachedMiners = 64

// ErrStaleParent is Build's answer for a parent that is no longer the chain's head in the cut.
var ErrStaleParent = errors.New("actors: the parent is no longer the head of its chain in the cut")

// execute runs block h's payload p on view, the state as of h's parent (nil for genesis), and
// checks that it produces p's outputs. It returns the request keys of its transactions; the
// writes are in view, and the gas they used.
func (x *Executor) execute(h, parent *ledger.Header, p *ledger.PayloadWithOutputs, view *state.View) ([]api.Hash, uint64, error) {
	blk, err := chain.PayloadContext(x.v, h, parent, p)
	if err != nil {
		return nil, 0, err
	}
	genesis := x.isGenesis(h)
	if !genesis {
		blk = x.withSPV(blk, parent)
	}
	return chain.Execute(x.run, view, blk, genesis, p, x.maxOutputs)
}

// build makes the payload of a new block on m.parent, paying the miner of m.minerData (nil: the
// node's own), with m's pending transactions.
func (x *Executor) build(m *execBuild) *execBuilt {
	p, err := x.buildPayload(m)
	if errors.Is(err, errNeedPending) {
		return &execBuilt{needPending: true}
	}
	return &execBuilt{payload: p, err: err}
}

// errNeedPending is buildPayload's answer to a request without the pending transactions, when
// it needs them.
var errNeedPending = errors.New("actors: the build needs the pending transactions")

func (x *Executor) buildPayload(m *execBuild) (*ledger.PayloadWithOutputs, error) {
	parent, minerData := m.parent, m.minerData
	if minerData == nil {
		minerData = x.minerData
	}
	miner, ok := x.miners[string(minerData)]
	if !ok {
		var err error
		if miner, err = txexec.ParseMiner(minerData); err != nil {
			return nil, err
		}
		if len(x.miners) >= maxCachedMiners {
			clear(x.miners) // the mining API's allow-list is short; this only bounds a misuse
		}
		x.miners[string(minerData)] = miner
	}
	var gen uint64
	switch {
	case m.offered:
		gen = m.gen // the generation of the pending transactions offered
	case x.pool != nil:
		gen = x.pool.Generation()
	}
	last := x.lastBuilt[string(minerData)]
	if b := last; b != nil && b.parent == parent.Hash && (b.gen == gen || b.built != nil && b.built.Full(x.run)) {
		// Nothing changed, or nothing more fits: the last payload is the block.
		b.gen = gen
		return b.payload, nil
	}
	if head := x.cutHead(); head != nil && head.Hash != parent.Hash {
		// The cut moved on since the miner read it: building on the old head would rewind
		// the state under the readers, for a block that could not enter the cut anyway.
		return nil, ErrStaleParent
	}
	if x.pool != nil && !m.offered {
		// The state goes to the parent first: a rewind returns the transactions of the
		// blocks it drops to the mempool (Reinsert, sent before this answer), so that the
		// pending transactions asked for next hold them.
		if err := x.syncTo(parent); err != nil {
			return nil, err
		}
		return nil, errNeedPending
	}
	if x.times != nil {
		// Timed from here: a payload handed back unchanged above costs nothing. (A build
		// that asked for the pending transactions first is timed from its second request.)
		defer x.times.build.Since(time.Now())
	}
	if err := x.syncTo(parent); err != nil {
		return nil, err
	}
	child := &ledger.Header{ChainID: x.chain, Height: parent.Height + 1, Parent: parent.Hash}
	blk := x.withSPV(chain.BlockContext(x.v, child, parent, miner), parent)
	cfg := chain.BuildConfig{MinerData: minerData, MaxOutputs: x.maxOutputs}
	var pending chain.PendingFunc
	if x.pool != nil {
		cfg.BlockGasLimit, pending = x.pool.Config().BlockGasLimit, x.offer(m.pending)
		cfg.TxTimeLimit = chain.TxTimeLimit(cfg.BlockGasLimit)
	}
	var view *state.View
	var built *chain.Built
	var err error
	if prev := last; prev != nil && prev.parent == parent.Hash && prev.built != nil {
		// Only the mempool changed since the last payload on this parent (a new head clears
		// lastBuilt): its transactions stay and only the newcomers run, on a clone of its
		// view, so that the last payload can still be mined and applied from its own.
		if view, err = prev.view.Clone(); err != nil {
			return nil, err
		}
		built, err = chain.Continue(x.run, view, blk, cfg, prev.built, pending)
	} else {
		view = x.view()
		built, err = chain.Build(x.run, view, blk, cfg, pending)
	}
	if built != nil && x.pool != nil {
		x.learnt(built)
	}
	if err != nil {
		return nil, err
	}
	p := built.Payload
	// The request-key index needs the block's hash, which mining has yet to find: apply
	// records it into the kept view from the keys.
	b := &builtBlock{parent: parent.Hash, gen: gen, payload: p, view: view, keys: built.Keys, gas: built.Gas, built: built}
	x.built[p.PayloadHash] = b
	x.lastBuilt[string(minerData)] = b
	return p, nil
}

// offer offers the pending transactions the build request carried to a block being built
// (chain.PendingFunc): each round, those not seen yet whose gas limits fit the gas left, picked
// as the mempool's Pending picks them.
func (x *Executor) offer(pending []*mempool.Tx) chain.PendingFunc {
	return func(blockGas uint64, seen []api.Hash) ([]*api.ParsedCommand, error) {
		if blockGas == 0 {
			blockGas = x.pool.Config().BlockGasLimit
		}
		var skip func(api.Hash) bool
		if len(seen) > 0 {
			set := make(map[api.Hash]bool, len(seen))
			for _, k := range seen {
				set[k] = true
			}
			skip = func(k api.Hash) bool { return set[k] }
		}
		txs := mempool.Take(pending, blockGas, skip)
		if len(txs) == 0 {
			return nil, nil
		}
		out := make([]*api.ParsedCommand, len(txs))
		for i, tx := range txs {
			out[i] = &tx.ParsedCommand
		}
		return out, nil
	}
}

// learnt tells the mempool what building a block learnt: transactions that cannot buy their
// gas are bad-listed, and those the branch holds already are included.
func (x *Executor) learnt(b *chain.Built) {
	if len(b.Bad) > 0 {
		keys := make([]api.Hash, len(b.Bad))
		for i, r := range b.Bad {
			keys[i] = r.Key
			var te *txexec.TimeoutError
			if errors.As(r.Err, &te) {
				// An operator wants to know: someone may be probing the node with costly code.
				x.log.Warn("transaction dropped and badlisted: it ran past the time bound", "requestKey", r.Key, "bound", te.Limit)
				continue
			}
			x.log.Debug("transaction dropped: cannot buy gas", "requestKey", r.Key, "err", r.Err.Error())
		}
		x.pool.Badlist(keys)
	}
	if len(b.OnChain) > 0 {
		x.pool.Included(b.OnChain)
	}
}

// validate checks block h's payload p, which this executor did not build, by executing it on
// h's parent.
//
// The state never moves for it: a block whose parent the state holds runs on a view as of the
// parent; any other on a view of its parent's branch (branches.go). Either way its writes are
// kept, for apply to use when it enters the cut.
func (x *Executor) validate(h *ledger.Header, p *ledger.PayloadWithOutputs) error {
	if b, ok := x.built[h.PayloadHash]; ok && b.parent == h.Parent {
		b.stored = append(b.stored, h)
		return nil
	}
	if x.isGenesis(h) {
		return nil // genesis blocks are the node's own (checked against their hash)
	}
	if x.kept.get(h) != nil {
		return nil // executed already: stored again after a failed write, say
	}
	parent, err := x.db.Header(h.Parent)
	if err != nil {
		return err
	}
	on, err := x.onState(parent)
	if err != nil {
		return err
	}
	if !on {
		return x.validateOnBranch(h, parent, p)
	}
	view := x.state.View(parent.Height).(*state.View)
	keys, gas, err := x.execute(h, parent, p, view)
	x.counts.validated.Add(1)
	if err != nil {
		return err
	}
	_, err = x.keep(h, view, keys, gas, p)
	return err
}

// startExecution starts a mempool and an executor per chain, and brings every chain's Pact
// state to its head in the resumed cut hs before anything runs (after a crash the cut can be
// a few blocks ahead of the state; those are replayed here).
func (r *Runtime) startExecution(hs pow.Heads) error {
	ec := r.cfg.Execution
	if ec.Runner == nil {
		return errors.New("actors: ExecutionConfig needs a Runner")
	}
	r.pools = &Mempools{system: r.system}
	if r.slots = ec.EvalSlots; r.slots == nil {
		r.slots = NewEvalSlots(0, 0)
	}
	for _, c := range r.cfg.Version.Chains() {
		x, err := newExecutor(c, r.cfg.Version, r.cfg.Store, ec, nil, r.chainHead(c), r.cfg.Logger)
		if err != nil {
			return err
		}
		x.others = r
		x.health = r.health
		x.times = &r.counts.exec
		mc := ec.Mempool
		mc.Chain, mc.Network, mc.GasPayer, mc.Index = c, r.cfg.Version.Name, x, x
		mc.ParentTime = ChainHeadTime(r, c)
		if mc.Logger == nil {
			mc.Logger = r.cfg.Logger
		}
		pool, err := StartMempool(r.system, mc)
		if err != nil {
			return err
		}
		x.pool = pool
		for int(c) >= len(r.execs) {
			r.execs = append(r.execs, nil)
			r.pools.byChain = append(r.pools.byChain, nil)
		}
		r.execs[c], r.pools.byChain[c] = x, pool
		if int(c) < len(hs) && hs[c] != nil {
			if err := x.syncTo(hs[c]); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					// A block of the resumed cut without its payload: lost, not a bug of ours.
					err = fmt.Errorf("%w: %w", store.ErrDataLost, err)
				}
				return fmt.Errorf("actors: execute chain %d up to its head (height %d): %w", c, hs[c].Height, err)
			}
		}
		if err := x.spawn(r.system); err != nil {
			return err
		}
	}
	return nil
}

// reader returns chain c's reader; nil when the runtime executes no Pact or has no chain c.
func (r *Runtime) reader(c ledger.ChainID) *Reader {
	if x, ok := r.Executor(c); ok {
		return x.Reader
	}
	return nil
}

// executedHeads are the blocks every chain's Pact state is at. Proofs are made against them
// rather than the cut's heads, which the executors follow a moment later, so that a proof is
// usable on its target chain (in local, say) as soon as it is given out.
func (r *Runtime) executedHeads() pow.Heads {
	hs := make(pow.Heads, len(r.execs))
	for c, x := range r.execs {
		if x != nil {
			hs[c] = x.head.Load()
		}
	}
	return hs
}

// chainHead returns a function reading chain c's head in the published cut.
func (r *Runtime) chainHead(c ledger.ChainID) func() *ledger.Header {
	return func() *ledger.Header {
		hs := r.view.Load().Heads
		if int(c) < len(hs) {
			return hs[c]
		}
		return nil
	}
}

// cutChangedExec tells each executor whose chain has a new head in the cut to follow it.
func (r *Runtime) cutChangedExec(v *CutView) {
	for c, x := range r.execs {
		if x == nil || c >= len(v.Heads) || v.Heads[c] == nil {
			continue
		}
		if head := x.head.Load(); head != nil && head.Hash == v.Heads[c].Hash {
			continue
		}
		r.system.Root.Send(x.pid, &execSync{target: v.Heads[c]})
	}
}
