package actors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/ledgernode/ledger-node/chain/txexec"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/persist"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// The executor of a chain (DESIGN.md, "A transaction"): an actor that owns the chain's
// versioned Pact state (store.PactState) and keeps it at the chain's head in the best cut. It
//
//   - builds payloads for the miner: the coinbase, then pending transactions by gas price
//     within the block gas limit, each run with its gas bought and redeemed (chain/txexec);
//   - applies the blocks that enter the cut: a block it built is applied from the writes it
//     kept, any other is re-executed and its outputs compared with the payload's;
//   - on a reorg, rewinds the state to the fork point and replays the new branch;
//   - writes the request-key index into the state, with each block, so that it is versioned
//     (and rewound) with the state: "is this transaction on chain as of block N" is a read.
//
// Reads never go through the actor: Poll, Local, CanPay and Contains read views of the state
// at the published head (or below it), concurrently with the actor's writes.

// Keys of the state's metadata (persist.View.PutMeta), versioned with each block.
const (
	metaBlock     = "b"  // the hash of the block the state is at
	metaReqPrefix = "r:" // + request key: the block hash and the index of the transaction
)

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
	// node builds may spend (at most MaxBlockGasLimit).
	Mempool MempoolConfig
	// MaxBlockOutputBytes caps the outputs of a block, the coinbase's and the transactions'
	// together (DefaultMaxBlockOutputBytes when zero). It is a validity rule: every node of a
	// network must use the same value.
	MaxBlockOutputBytes int
	// EvalSlots bounds the evaluations that requests start (local); nil makes
	// NewEvalSlots(0, 0).
	EvalSlots *EvalSlots
}

// MaxBlockGasLimit bounds the gas of every block, whoever made it: a block whose commands
// would spend more is invalid. It is chainweb's consensus bound of mainnet and testnet since
// Chainweb 2.16 (_versionMaxBlockGasLimit), applied to our development network too (upstream's
// development network has none), so that no block from a peer can make this node execute more
// than 180,000 gas. The blocks this node builds spend at most its configured block gas limit
// (150,000 by default), as chainweb's gasLimitOfBlock.
const MaxBlockGasLimit = 180_000

// DefaultMaxBlockOutputBytes caps a block's outputs at 32 MiB: 32 results of the largest size a
// command may produce (txexec.DefaultMaxResultBytes), while a full block of transfers (some
// 600 transactions at 150,000 gas) takes under 1 MiB. Peers fetch payloads in batches and the
// store keeps every block, so a block must not carry without bound what a few cheap commands
// could make.
const DefaultMaxBlockOutputBytes = 32 << 20

// ResultOverhead is what a command's result may add, once its gas is settled, to the size
// txexec caps (the gas TRANSFER event): a block being built keeps this much room beyond the
// cap for its next transaction.
const ResultOverhead = 16 << 10

// Executor is one chain's executor. Its read methods are safe for concurrent use.
type Executor struct {
	chain     ledger.ChainID
	v         *ledger.Version
	db        *store.DB
	state     *persist.Versioned
	run       *txexec.Runner
	pool      *Mempool
	miner     txexec.Miner
	minerData []byte
	// maxOutputs caps a block's outputs (ExecutionConfig.MaxBlockOutputBytes).
	maxOutputs int
	log        *slog.Logger
	// cutHead returns the chain's head in the best cut; heads every chain's executed head.
	cutHead func() *ledger.Header
	heads   func() pow.Heads
	// executor returns another chain's executor (nil when unknown).
	executor func(ledger.ChainID) *Executor

	system *actor.ActorSystem
	pid    *actor.PID

	// head is the block the state is at; nil before genesis is applied.
	head atomic.Pointer[ledger.Header]
	mu   sync.Mutex
	// applied is closed and replaced whenever a block is applied (listen waits on it).
	applied chan struct{}
	stopped atomic.Bool
	txs     atomic.Uint64 // transactions applied (Stats)
	// relay passes transactions sent to this chain on to the peers (peer sync); nil alone.
	relay func(ledger.ChainID, []*api.Command)
	// health hears of the state's failed writes (writehealth.go); nil in tests of one executor.
	health *writeHealth

	// The actor's own fields.
	built     map[ledger.Hash]*builtBlock // payloads built on the current head, by payload hash
	lastBuilt *builtBlock
}

// builtBlock is a payload the executor built, with the state writes that made it.
type builtBlock struct {
	parent  ledger.Hash
	gen     uint64 // the mempool generation it was built at
	payload *ledger.PayloadWithOutputs
	view    *persist.View
	keys    []api.Hash
}

// The executor's messages.
type (
	execSync  struct{ target *ledger.Header }
	execBuild struct {
		parent *ledger.Header
	}
	execBuilt struct {
		payload *ledger.PayloadWithOutputs
		err     error
	}
	execValidate struct {
		header  *ledger.Header
		payload *ledger.PayloadWithOutputs
	}
	execDone struct{ err error }
)

func newExecutor(c ledger.ChainID, v *ledger.Version, sdb *store.DB, cfg *ExecutionConfig, pool *Mempool,
	cutHead func() *ledger.Header, log *slog.Logger) (*Executor, error) {
	st, err := sdb.PactState(c)
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
		maxOutputs = DefaultMaxBlockOutputBytes
	}
	x := &Executor{
		chain: c, v: v, db: sdb, state: st, run: cfg.Runner, pool: pool, miner: miner, maxOutputs: maxOutputs,
		minerData: cfg.MinerData, log: log.With("component", "executor", "chain", c), cutHead: cutHead,
		heads:   func() pow.Heads { return nil },
		applied: make(chan struct{}), built: map[ledger.Hash]*builtBlock{},
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
		// A failed write was reported to the write health, which logs it once; the next
		// cut change or build after the recovery brings the state up to the head.
		if err := x.syncTo(m.target); err != nil && !errors.Is(err, ErrWriteFailed) {
			x.log.Error("cannot execute the chain's head", "height", m.target.Height, "hash", m.target.Hash, "err", err)
		}
	case *execBuild:
		p, err := x.build(m.parent)
		ctx.Respond(&execBuilt{payload: p, err: err})
	case *execValidate:
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
	res, err := x.request(&execBuild{parent: parent})
	if err != nil {
		return nil, err
	}
	b := res.(*execBuilt)
	return b.payload, b.err
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

// Head returns the block the state is at (nil before genesis).
func (x *Executor) Head() *ledger.Header { return x.head.Load() }

// Applied returns a channel closed when the next block is applied.
func (x *Executor) Applied() <-chan struct{} {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.applied
}

// blockAt reads the hash of the state's block at height h.
func (x *Executor) blockAt(h uint64) (ledger.Hash, error) {
	b, ok, err := x.state.View(h).(*persist.View).Meta(metaBlock)
	if err != nil {
		return ledger.Hash{}, err
	}
	if !ok || len(b) != ledger.HashSize {
		return ledger.Hash{}, fmt.Errorf("%w: no block hash at height %d", persist.ErrCorrupt, h)
	}
	return ledger.Hash(b), nil
}

// onState reports whether block h is the state's block at its height.
func (x *Executor) onState(h *ledger.Header) (bool, error) {
	head := x.head.Load()
	if head == nil || h.Height > head.Height {
		return false, nil
	}
	if h.Hash == head.Hash {
		return true, nil
	}
	at, err := x.blockAt(h.Height)
	if err != nil {
		return false, err
	}
	return at == h.Hash, nil
}

// syncTo brings the state to block t: back to the last block t's branch shares with the
// state, then forward along t's branch.
func (x *Executor) syncTo(t *ledger.Header) error {
	if head := x.head.Load(); head != nil && head.Hash == t.Hash {
		return nil
	}
	var path []*ledger.Header
	h := t
	for {
		on, err := x.onState(h)
		if err != nil {
			return err
		}
		if on {
			break
		}
		path = append(path, h)
		if x.isGenesis(h) {
			h = nil
			break
		}
		p, err := x.db.Header(h.Parent)
		if err != nil {
			return fmt.Errorf("parent of block %d %s: %w", h.Height, h.Hash, err)
		}
		h = p
	}
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
		x.log.Info("Pact state rewound for a fork", "to height", h.Height, "blocks to replay", len(path))
		x.setHead(h)
		if x.pool != nil && len(dropped) > 0 {
			// After the replay below, so that those on the new branch are refused as on chain.
			defer x.pool.Reinsert(dropped)
		}
	}
	if len(path) > 100 {
		x.log.Info("replaying blocks into the Pact state", "blocks", len(path), "to height", t.Height)
	}
	for i := len(path) - 1; i >= 0; i-- {
		if err := x.apply(path[i]); err != nil {
			return fmt.Errorf("block %d %s: %w", path[i].Height, path[i].Hash, err)
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

func (x *Executor) isGenesis(h *ledger.Header) bool {
	g, ok := x.v.GenesisHeight(h.ChainID)
	return ok && h.Height == g
}

func (x *Executor) setHead(h *ledger.Header) {
	x.head.Store(h)
	clear(x.built) // their views were made on the old head
	x.lastBuilt = nil
}

// apply applies block h, whose parent is the state's head: from the writes kept when this
// executor built its payload, or by executing the stored payload.
func (x *Executor) apply(h *ledger.Header) error {
	var view *persist.View
	var keys []api.Hash
	if b, ok := x.built[h.PayloadHash]; ok && b.parent == h.Parent {
		view, keys = b.view, b.keys
	} else {
		p, err := x.db.PayloadWithOutputs(h.PayloadHash)
		if err != nil {
			return fmt.Errorf("payload %s: %w", h.PayloadHash, err)
		}
		view = x.view()
		if keys, err = x.execute(h, x.head.Load(), p, view); err != nil {
			return err
		}
	}
	for i, k := range keys {
		if err := x.index(view, h.Hash, k, i); err != nil {
			return err
		}
	}
	if err := view.PutMeta(metaBlock, h.Hash[:]); err != nil {
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
	x.setHead(h)
	x.txs.Add(uint64(len(keys)))
	if x.pool != nil && len(keys) > 0 {
		x.pool.Included(keys)
	}
	x.mu.Lock()
	close(x.applied)
	x.applied = make(chan struct{})
	x.mu.Unlock()
	return nil
}

// writable returns the store's injected write fault (store.DB.SetWriteFault), reported, since
// the Pact state writes to goleveldb through pact/persist rather than the store's entry points.
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

// blockContext is what Pact code sees of block h, child of parent (nil for genesis).
func (x *Executor) blockContext(h, parent *ledger.Header, miner txexec.Miner) *txexec.Block {
	b := &txexec.Block{ChainID: chainIDText(x.chain), Height: h.Height, Miner: miner}
	if parent != nil && !x.isGenesis(h) {
		b.ParentTime, b.ParentHash = parent.CreationTime, api.Hash(parent.Hash)
	}
	return b
}

func chainIDText(c ledger.ChainID) string { return strconv.FormatUint(uint64(c), 10) }

// view is a view of the state to build block h on: the head's, or an empty state for genesis.
func (x *Executor) view() *persist.View {
	var base uint64
	if head := x.head.Load(); head != nil {
		base = head.Height
	}
	return x.state.View(base).(*persist.View)
}

// ErrStaleParent is Build's answer for a parent that is no longer the chain's head in the cut.
var ErrStaleParent = errors.New("actors: the parent is no longer the head of its chain in the cut")

// ErrInvalidPayload is wrapped by the errors of a payload that does not execute to its
// outputs.
var ErrInvalidPayload = errors.New("invalid payload")

// execute runs block h's payload p on view, the state as of h's parent (nil for genesis), and
// checks that it produces p's outputs. It returns the request keys of its transactions; the
// writes are in view.
func (x *Executor) execute(h, parent *ledger.Header, p *ledger.PayloadWithOutputs, view *persist.View) ([]api.Hash, error) {
	genesis := x.isGenesis(h)
	var blk *txexec.Block
	if genesis {
		blk = x.blockContext(h, nil, txexec.Miner{})
	} else {
		miner, err := txexec.ParseMiner(p.MinerData)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
		}
		blk = x.withSPV(x.blockContext(h, parent, miner), parent)
		cb, err := x.run.Coinbase(view, blk)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
		}
		if !bytes.Equal(cb, p.Coinbase) {
			return nil, fmt.Errorf("%w: the coinbase output differs", ErrInvalidPayload)
		}
	}
	keys := make([]api.Hash, 0, len(p.Transactions))
	blockGas := uint64(MaxBlockGasLimit)
	outputs := len(p.Coinbase)
	for i, t := range p.Transactions {
		cmd, err := api.DecodeCommand(t.Tx)
		if err != nil {
			return nil, fmt.Errorf("%w: transaction %d: %v", ErrInvalidPayload, i, err)
		}
		var out []byte
		if genesis {
			// Genesis commands are not signed and not checked (DECISIONS.md), nor bounded.
			out, err = x.run.Genesis(view, blk, cmd)
		} else {
			var pc *api.ParsedCommand
			if pc, err = api.VerifyCommand(cmd); err == nil {
				var a txexec.Applied
				if a, err = x.run.ApplyWithin(view, blk, pc, blockGas); err == nil {
					out = a.Result
					blockGas -= uint64(a.Gas) // a.Gas <= blockGas: it ran with at most that
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%w: transaction %d: %v", ErrInvalidPayload, i, err)
		}
		if !bytes.Equal(out, t.Output) {
			return nil, fmt.Errorf("%w: transaction %d: the output differs", ErrInvalidPayload, i)
		}
		if outputs += len(out); !genesis && outputs > x.maxOutputs {
			return nil, fmt.Errorf("%w: the outputs pass %d bytes", ErrInvalidPayload, x.maxOutputs)
		}
		keys = append(keys, cmd.Hash)
	}
	return keys, nil
}

// index records in view that transaction i of block blockHash has request key rk.
func (x *Executor) index(view *persist.View, blockHash ledger.Hash, rk api.Hash, i int) error {
	v := make([]byte, 0, ledger.HashSize+4)
	v = append(v, blockHash[:]...)
	v = append(v, byte(i>>24), byte(i>>16), byte(i>>8), byte(i))
	return view.PutMeta(metaReqPrefix+string(rk[:]), v)
}

// build makes the payload of a new block on parent.
func (x *Executor) build(parent *ledger.Header) (*ledger.PayloadWithOutputs, error) {
	var gen uint64
	if x.pool != nil {
		gen = x.pool.Generation()
	}
	if b := x.lastBuilt; b != nil && b.parent == parent.Hash && b.gen == gen {
		return b.payload, nil
	}
	if head := x.cutHead(); head != nil && head.Hash != parent.Hash {
		// The cut moved on since the miner read it: building on the old head would rewind
		// the state under the readers, for a block that could not enter the cut anyway.
		return nil, ErrStaleParent
	}
	if err := x.syncTo(parent); err != nil {
		return nil, err
	}
	view := x.view()
	child := &ledger.Header{ChainID: x.chain, Height: parent.Height + 1, Parent: parent.Hash}
	blk := x.withSPV(x.blockContext(child, parent, x.miner), parent)
	cb, err := x.run.Coinbase(view, blk)
	if err != nil {
		return nil, err
	}
	var txs []ledger.TxWithOutput
	var keys []api.Hash
	if x.pool != nil {
		if txs, keys, err = x.fill(view, blk, len(cb)); err != nil {
			return nil, err
		}
	}
	p := ledger.NewPayloadWithOutputs(x.minerData, cb, txs)
	// The request-key index needs the block's hash, which mining has yet to find: apply
	// writes it into the kept view from the keys.
	b := &builtBlock{parent: parent.Hash, gen: gen, payload: p, view: view, keys: keys}
	x.built[p.PayloadHash] = b
	x.lastBuilt = b
	return p, nil
}

// fill runs pending transactions on view for the block blk, whose coinbase output took
// coinbaseBytes, as chainweb fills a block: each runs with at most the gas left in the block,
// and after each round the gas they did not use is offered to the mempool again, until the
// block's gas is spent, nothing pending fits, or the outputs have no room left for one more
// result of the largest size. Transactions that cannot buy their gas are bad-listed.
func (x *Executor) fill(view *persist.View, blk *txexec.Block, coinbaseBytes int) ([]ledger.TxWithOutput, []api.Hash, error) {
	blockGas := min(x.pool.Config().BlockGasLimit, MaxBlockGasLimit)
	room := x.maxOutputs - coinbaseBytes
	need := x.run.MaxResultBytes() + ResultOverhead
	var txs []ledger.TxWithOutput
	var keys, bad, onChain, seen []api.Hash
	defer func() {
		if len(bad) > 0 {
			x.pool.Badlist(bad)
		}
		if len(onChain) > 0 {
			x.pool.Included(onChain)
		}
	}()
	// Chainweb's fetch limit: a round per 1,000 gas of the block gas limit, and one more.
	rounds := int(blockGas/1000) + 1
	for round := 0; round < rounds && blockGas > 0 && room >= need; round++ {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultMempoolTimeout)
		pending, err := x.pool.Pending(ctx, blockGas, seen)
		cancel()
		if err != nil {
			return nil, nil, err
		}
		if len(pending) == 0 {
			break
		}
		for _, tx := range pending {
			if room < need {
				break
			}
			seen = append(seen, tx.RequestKey)
			if _, ok, _ := x.locate(view, tx.RequestKey); ok {
				// Pending again after a reorg, but the branch the state follows has it.
				onChain = append(onChain, tx.RequestKey)
				continue
			}
			// The mempool gave only transactions whose limits fit blockGas together, so
			// each runs with its own limit and BlockGasLimitExceeded cannot arise here.
			a, err := x.run.ApplyWithin(view, blk, &tx.ParsedCommand, blockGas)
			var be *txexec.BuyGasError
			if errors.As(err, &be) {
				bad = append(bad, tx.RequestKey)
				x.log.Debug("transaction dropped: cannot buy gas", "requestKey", tx.RequestKey, "err", be.Error())
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			blockGas -= uint64(a.Gas)
			room -= len(a.Result)
			txs = append(txs, ledger.TxWithOutput{Tx: tx.Command.JSON(), Output: a.Result})
			keys = append(keys, tx.RequestKey)
		}
	}
	return txs, keys, nil
}

// validate checks block h's payload p, which this executor did not build, by executing it on
// h's parent.
func (x *Executor) validate(h *ledger.Header, p *ledger.PayloadWithOutputs) error {
	if b, ok := x.built[h.PayloadHash]; ok && b.parent == h.Parent {
		return nil
	}
	if x.isGenesis(h) {
		return nil // genesis blocks are the node's own (checked against their hash)
	}
	parent, err := x.db.Header(h.Parent)
	if err != nil {
		return err
	}
	if on, err := x.onState(parent); err != nil {
		return err
	} else if on {
		// A sibling of a block the state holds, or a child of its head: a view as of the
		// parent is enough, and the state does not move under the readers. A child of the
		// head (a peer's next block) keeps its writes, for apply to use when it enters the cut.
		view := x.state.View(parent.Height).(*persist.View)
		keys, err := x.execute(h, parent, p, view)
		if err == nil && parent.Hash == x.head.Load().Hash {
			x.built[h.PayloadHash] = &builtBlock{parent: parent.Hash, payload: p, view: view, keys: keys}
		}
		return err
	}
	if err := x.syncTo(parent); err != nil {
		return err
	}
	_, err = x.execute(h, parent, p, x.view())
	if head := x.cutHead(); head != nil {
		// Back to the best cut, which reads (poll, local) expect the state to follow.
		if serr := x.syncTo(head); serr != nil {
			x.log.Error("cannot execute the chain's head", "height", head.Height, "err", serr)
		}
	}
	return err
}

// GenesisPayload executes chain c's development genesis (pact/contracts) on an empty state
// and returns its payload: the genesis commands and their outputs, no miner, no coinbase.
// Its hash is the genesis header's payload hash, computed at start rather than pasted in.
func GenesisPayload(r *txexec.Runner, c ledger.ChainID, network string) (*ledger.PayloadWithOutputs, error) {
	cmds, err := txexec.GenesisCommands(contracts.DevelopmentGenesis(int(c)), chainIDText(c), network)
	if err != nil {
		return nil, err
	}
	st := db.NewMemDB()
	blk := &txexec.Block{ChainID: chainIDText(c)}
	txs := make([]ledger.TxWithOutput, len(cmds))
	for i, cmd := range cmds {
		out, err := r.Genesis(st, blk, cmd)
		if err != nil {
			return nil, fmt.Errorf("genesis of chain %d: %w", c, err)
		}
		txs[i] = ledger.TxWithOutput{Tx: cmd.JSON(), Output: out}
	}
	return ledger.NewPayloadWithOutputs(ledger.NoMinerData, ledger.NoCoinbaseOutput(), txs), nil
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
		x.heads = r.executedHeads
		x.health = r.health
		x.executor = func(c ledger.ChainID) *Executor { e, _ := r.Executor(c); return e }
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
				return fmt.Errorf("actors: execute chain %d up to its head (height %d): %w", c, hs[c].Height, err)
			}
		}
		if err := x.spawn(r.system); err != nil {
			return err
		}
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
