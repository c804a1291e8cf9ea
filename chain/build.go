package chain

import (
	"errors"
	"slices"
	"time"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/txexec"
)

// PendingFunc offers pending transactions for a block: those not in seen whose gas limits fit
// blockGas together, best first. An empty answer ends the block.
type PendingFunc func(blockGas uint64, seen []api.Hash) ([]*api.ParsedCommand, error)

// Built is a payload made on a parent block, with what its making learnt of the pending
// transactions.
type Built struct {
	Payload *ledger.PayloadWithOutputs
	// Keys are the request keys of the payload's transactions, in block order.
	Keys []api.Hash
	// Bad are transactions that cannot buy their gas, with the reason: they must not be
	// offered again. OnChain are pending transactions the parent's branch already holds
	// (after a reorg). Continue reports only what it learnt itself.
	Bad     []Rejected
	OnChain []api.Hash
	// Gas is the gas the block's transactions used (the node's metrics count it).
	Gas uint64

	// Where filling stopped, for Continue.
	coinbase []byte
	txs      []ledger.TxWithOutput
	seen     []api.Hash
	gasLeft  uint64
	room     int
}

// Rejected is a transaction left out of a block for good, and why.
type Rejected struct {
	Key api.Hash
	Err error
}

// BuildConfig is what a node puts in the blocks it makes.
type BuildConfig struct {
	// MinerData is the payload's miner data: the miner the block context pays.
	MinerData []byte
	// BlockGasLimit is the gas the block may spend (at most MaxBlockGasLimit).
	BlockGasLimit uint64
	// MaxOutputs caps the block's outputs (DefaultMaxBlockOutputBytes when zero).
	MaxOutputs int
	// TxTimeLimit bounds each transaction's wall-clock time (TxTimeLimit gives chainweb's
	// figure); 0 is no bound. One that runs longer is left out, its gas purchase undone,
	// reported in Bad, and the block is finished with what it holds.
	TxTimeLimit time.Duration
}

// TxTimeLimit is txexec.TxTimeLimit: chainweb's bound on one transaction of a block being built.
func TxTimeLimit(blockGasLimit uint64) time.Duration { return txexec.TxTimeLimit(blockGasLimit) }

// Build makes the payload of a new block in context blk on st, the state as of its parent:
// the coinbase, then pending transactions as chainweb fills a block: each runs with at most the
// gas left in the block, and after each round the gas they did not use is offered again, until
// the block's gas is spent, nothing pending fits, or the outputs have no room left for one more
// result of the largest size. A nil pending makes a block of the coinbase alone. The writes are
// in st. When filling fails, the Built returned with the error has no payload, but its Bad
// and OnChain still say what was learnt.
func Build(r *txexec.Runner, st *state.View, blk *txexec.Block, cfg BuildConfig, pending PendingFunc) (*Built, error) {
	cb, err := r.Coinbase(st, blk)
	if err != nil {
		return nil, err
	}
	maxOutputs := cfg.MaxOutputs
	if maxOutputs <= 0 {
		maxOutputs = DefaultMaxBlockOutputBytes
	}
	b := &Built{coinbase: cb, gasLeft: min(cfg.BlockGasLimit, MaxBlockGasLimit), room: maxOutputs - len(cb)}
	return b.finish(r, st, blk, cfg, pending)
}

// Continue goes on filling the block prev built, on st, a clone of the view prev was built on
// (state.View.Clone), with the transactions that became pending since: its transactions stay,
// in their order, and newcomers take the gas and room it left, as chainweb's continueBlock
// refills a block in progress. A payload mined meanwhile is applied from prev's own view, which
// st does not touch.
func Continue(r *txexec.Runner, st *state.View, blk *txexec.Block, cfg BuildConfig, prev *Built, pending PendingFunc) (*Built, error) {
	b := &Built{coinbase: prev.coinbase, txs: slices.Clip(prev.txs), Keys: slices.Clip(prev.Keys),
		seen: slices.Clip(prev.seen), gasLeft: prev.gasLeft, room: prev.room, Gas: prev.Gas}
	return b.finish(r, st, blk, cfg, pending)
}

// Full reports whether the block has no gas or no output room left for another transaction,
// so that continuing it could add nothing.
func (b *Built) Full(r *txexec.Runner) bool {
	return b.gasLeft == 0 || b.room < r.MaxResultBytes()+ResultOverhead
}

func (b *Built) finish(r *txexec.Runner, st *state.View, blk *txexec.Block, cfg BuildConfig, pending PendingFunc) (*Built, error) {
	if pending != nil {
		if err := b.fill(r, st, blk, pending, cfg.TxTimeLimit); err != nil {
			return b, err
		}
	}
	b.Payload = ledger.NewPayloadWithOutputs(cfg.MinerData, b.coinbase, b.txs)
	return b, nil
}

func (b *Built) fill(r *txexec.Runner, st *state.View, blk *txexec.Block, pending PendingFunc, limit time.Duration) error {
	need := r.MaxResultBytes() + ResultOverhead
	// Chainweb's fetch limit: a round per 1,000 gas of the gas left, and one more.
	rounds := int(b.gasLeft/1000) + 1
	for round := 0; round < rounds && !b.Full(r); round++ {
		cands, err := pending(b.gasLeft, b.seen)
		if err != nil {
			return err
		}
		if len(cands) == 0 {
			break
		}
		for _, pc := range cands {
			if b.room < need {
				break
			}
			b.seen = append(b.seen, pc.RequestKey)
			if _, ok, _ := LocateTx(st, pc.RequestKey); ok {
				// Pending again after a reorg, but the branch the state follows has it.
				b.OnChain = append(b.OnChain, pc.RequestKey)
				continue
			}
			// The mempool gave only transactions whose limits fit the gas left together,
			// so each runs with its own limit and BlockGasLimitExceeded cannot arise here.
			a, err := b.apply(r, st, blk, pc, limit)
			var be *txexec.BuyGasError
			if errors.As(err, &be) {
				b.Bad = append(b.Bad, Rejected{pc.RequestKey, be})
				continue
			}
			var te *txexec.TimeoutError
			if errors.As(err, &te) {
				// As chainweb: the block is finished with what it holds; what is still
				// pending waits for the next.
				b.Bad = append(b.Bad, Rejected{pc.RequestKey, te})
				return nil
			}
			if err != nil {
				return err
			}
			b.gasLeft -= uint64(a.Gas)
			b.Gas += uint64(a.Gas)
			b.room -= len(a.Result)
			b.txs = append(b.txs, ledger.TxWithOutput{Tx: pc.Command.JSON(), Output: a.Result})
			b.Keys = append(b.Keys, pc.RequestKey)
		}
	}
	return nil
}

// apply runs pc with the gas left in the block and, with a time limit, from a savepoint of st:
// a command stopped by the limit is undone whole, the purchase of its gas included.
func (b *Built) apply(r *txexec.Runner, st *state.View, blk *txexec.Block, pc *api.ParsedCommand, limit time.Duration) (txexec.Applied, error) {
	if limit <= 0 {
		return r.ApplyWithin(st, blk, pc, b.gasLeft)
	}
	if err := st.Savepoint(); err != nil {
		return txexec.Applied{}, err
	}
	a, err := r.ApplyTimed(st, blk, pc, b.gasLeft, limit)
	var te *txexec.TimeoutError
	if errors.As(err, &te) {
		if rerr := st.RollbackToSavepoint(); rerr != nil {
			return txexec.Applied{}, rerr
		}
		return a, err
	}
	st.ReleaseSavepoint()
	return a, err
}
