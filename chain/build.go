package chain

import (
	"errors"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/chain/txexec"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
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
	// offered again.
	Bad []Rejected
	// OnChain are pending transactions the parent's branch already holds (after a reorg).
	OnChain []api.Hash
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
}

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
	b := &Built{}
	var txs []ledger.TxWithOutput
	if pending != nil {
		if txs, err = b.fill(r, st, blk, cfg, len(cb), pending); err != nil {
			return b, err
		}
	}
	b.Payload = ledger.NewPayloadWithOutputs(cfg.MinerData, cb, txs)
	return b, nil
}

func (b *Built) fill(r *txexec.Runner, st *state.View, blk *txexec.Block, cfg BuildConfig, coinbaseBytes int,
	pending PendingFunc) ([]ledger.TxWithOutput, error) {
	maxOutputs := cfg.MaxOutputs
	if maxOutputs <= 0 {
		maxOutputs = DefaultMaxBlockOutputBytes
	}
	blockGas := min(cfg.BlockGasLimit, MaxBlockGasLimit)
	room := maxOutputs - coinbaseBytes
	need := r.MaxResultBytes() + ResultOverhead
	var txs []ledger.TxWithOutput
	var seen []api.Hash
	// Chainweb's fetch limit: a round per 1,000 gas of the block gas limit, and one more.
	rounds := int(blockGas/1000) + 1
	for round := 0; round < rounds && blockGas > 0 && room >= need; round++ {
		cands, err := pending(blockGas, seen)
		if err != nil {
			return nil, err
		}
		if len(cands) == 0 {
			break
		}
		for _, pc := range cands {
			if room < need {
				break
			}
			seen = append(seen, pc.RequestKey)
			if _, ok, _ := LocateTx(st, pc.RequestKey); ok {
				// Pending again after a reorg, but the branch the state follows has it.
				b.OnChain = append(b.OnChain, pc.RequestKey)
				continue
			}
			// The mempool gave only transactions whose limits fit blockGas together, so
			// each runs with its own limit and BlockGasLimitExceeded cannot arise here.
			a, err := r.ApplyWithin(st, blk, pc, blockGas)
			var be *txexec.BuyGasError
			if errors.As(err, &be) {
				b.Bad = append(b.Bad, Rejected{pc.RequestKey, be})
				continue
			}
			if err != nil {
				return nil, err
			}
			blockGas -= uint64(a.Gas)
			room -= len(a.Result)
			txs = append(txs, ledger.TxWithOutput{Tx: pc.Command.JSON(), Output: a.Result})
			b.Keys = append(b.Keys, pc.RequestKey)
		}
	}
	return txs, nil
}
