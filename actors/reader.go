package actors

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/contractapi"
	"github.com/ledgernode/ledger-node/txexec"
)

// Reader is the read side of a chain's executor: results, local, the mempool's gas payer and
// tx index checks, SPV proofs and the transfers by account, all read from views of the chain's
// versioned Pact state at the executed head (or below it), concurrently with the actor's
// writes and never through it. The executor (its only writer) moves head after each block it
// applies; a read a reorg overtakes fails with state.ErrStaleView or state.ErrHeight, and the
// reads that can are run again on the new head.
type Reader struct {
	chain ledger.ChainID
	v     *ledger.Version
	db    *store.DB
	state *state.Versioned
	run   *txexec.Runner
	// miner is the node's own miner: local and the gas payer check run as if it made the
	// next block.
	miner txexec.Miner
	// head is the block the state is at; nil before genesis is applied. Only the executor
	// stores it.
	head atomic.Pointer[ledger.Header]
	// others are the other chains' executed heads and readers, for SPV proofs.
	others otherChains
}

// otherChains is what a reader needs of the other chains, for SPV: the blocks every chain's
// Pact state is at (proofs are made against them) and each chain's reader (its record of the
// block at a height). The runtime is one.
type otherChains interface {
	executedHeads() pow.Heads
	reader(c ledger.ChainID) *Reader // nil when unknown
}

// noOtherChains is an executor alone, in tests.
type noOtherChains struct{}

func (noOtherChains) executedHeads() pow.Heads      { return nil }
func (noOtherChains) reader(ledger.ChainID) *Reader { return nil }

// CanPay is the mempool's gas payer check (mempool.GasPayer): whether the command's sender can
// buy its gas as of the chain's head.
func (x *Reader) CanPay(pc *api.ParsedCommand) error {
	return x.withHead(0, func(view *state.View, blk *txexec.Block) error {
		err := x.run.CanPay(view, blk, pc)
		var be *txexec.BuyGasError
		if errors.As(err, &be) {
			if be.TooBig {
				return mempool.ErrTxTooBig
			}
			return errors.New(be.Reason())
		}
		return err
	})
}

// Contains reports whether a transaction with request key rk is in a block of the chain as of
// its head (mempool.TxIndex).
func (x *Reader) Contains(rk api.Hash) bool {
	head := x.head.Load()
	if head == nil {
		return false
	}
	_, ok, err := chain.LocateTx(x.state.View(head.Height).(*state.View), rk)
	return ok && err == nil
}

var _ mempool.BatchTxIndex = (*Reader)(nil)

// ContainsAll is Contains for several request keys, read together (mempool.BatchTxIndex). A
// key whose lookup failed counts as absent, as in Contains.
func (x *Reader) ContainsAll(rks []api.Hash) []bool {
	head := x.head.Load()
	if head == nil {
		return make([]bool, len(rks))
	}
	_, found, err := chain.LocateTxs(x.state.View(head.Height).(*state.View), rks)
	if err != nil {
		return make([]bool, len(rks))
	}
	return found
}

// HeadView returns the block the Pact state is at and a read-only view of the state there;
// false before genesis is applied. A reorg may overtake the view: its reads then fail with
// state.ErrStaleView or state.ErrHeight.
func (x *Reader) HeadView() (*ledger.Header, *state.View, bool) {
	head := x.head.Load()
	if head == nil {
		return nil, nil, false
	}
	view, ok := x.state.View(head.Height).(*state.View)
	return head, view, ok
}

// withHead runs f on a view of the state depth blocks below the head (clamped at genesis),
// with the context of the block that would follow it, mined by this node. A read that a
// rewind overtook (a reorg moved the head meanwhile) is run again on the new head, a few
// times at most.
func (x *Reader) withHead(depth uint64, f func(*state.View, *txexec.Block) error) error {
	const attempts = 3
	for attempt := 1; ; attempt++ {
		head := x.head.Load()
		if head == nil {
			return errors.New("the chain has no executed block yet")
		}
		err := x.atDepth(head, depth, f)
		if err == nil || attempt == attempts || (!retryable(err) && x.head.Load() == head) {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond) // let the reorg's write land
	}
}

func (x *Reader) atDepth(head *ledger.Header, depth uint64, f func(*state.View, *txexec.Block) error) error {
	g, _ := x.v.GenesisHeight(x.chain)
	base, parent := head.Height-min(depth, head.Height-g), head
	if base != head.Height {
		h, err := x.blockAt(base)
		if err != nil {
			return err
		}
		if parent, err = x.db.Header(h); err != nil {
			return err
		}
	}
	blk := x.withSPV(chain.NextBlockContext(parent, x.miner), parent)
	return f(x.state.View(base).(*state.View), blk)
}

// retryable reports a read that a rewind (a reorg) overtook: the view's block was dropped, or
// the state went below the head the read started from.
func retryable(err error) bool {
	return errors.Is(err, state.ErrStaleView) || errors.Is(err, state.ErrHeight)
}

// Result returns the CommandResult of transaction rk as of depth blocks below the head, with
// the metaData of its block; nil when it is in no block as of there.
func (x *Reader) Result(rk api.Hash, depth uint64) ([]byte, error) {
	out, err := x.Results([]api.Hash{rk}, depth)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Results is Result for several keys in one view, reading each block's payload once however
// many of the keys it holds (a client polls a batch it sent, which lands in few blocks).
func (x *Reader) Results(keys []api.Hash, depth uint64) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := x.withHead(depth, func(view *state.View, _ *txexec.Block) error {
		type block struct {
			h *ledger.Header
			p *ledger.PayloadWithOutputs
		}
		blocks := map[ledger.Hash]block{}
		for i, rk := range keys {
			loc, ok, err := chain.LocateTx(view, rk)
			if err != nil {
				return err
			}
			if !ok {
				out[i] = nil
				continue
			}
			b, seen := blocks[loc.Block]
			if !seen {
				if b.h, err = x.db.Header(loc.Block); err != nil {
					return err
				}
				if b.p, err = x.db.PayloadWithOutputs(b.h.PayloadHash); err != nil {
					return err
				}
				blocks[loc.Block] = b
			}
			if loc.Index >= len(b.p.Transactions) {
				return fmt.Errorf("%w: request-key index of %s points past block %s", kv.ErrCorrupt, rk, b.h.Hash)
			}
			out[i] = withBlockMeta(b.p.Transactions[loc.Index].Output, b.h)
		}
		return nil
	})
	return out, err
}

// nullMeta is where a stored result's metaData sits; a stored result always has it, after its
// result and events (object keys inside values are sorted, so metaData cannot precede
// continuation inside one).
var nullMeta = []byte(`,"metaData":null,"continuation":`)

// withBlockMeta fills a stored result's metaData with its block's (chainweb's enrichCR):
// {"blockHeight","blockTime","blockHash","prevBlockHash"}.
func withBlockMeta(res []byte, h *ledger.Header) []byte {
	i := bytes.LastIndex(res, nullMeta)
	if i < 0 {
		return res
	}
	meta := append([]byte(`,"metaData":{"blockHeight":`), strconv.FormatUint(h.Height, 10)...)
	meta = append(meta, `,"blockTime":`...)
	meta = strconv.AppendInt(meta, h.CreationTime, 10)
	meta = append(meta, `,"blockHash":"`...)
	meta = append(meta, h.Hash.String()...)
	meta = append(meta, `","prevBlockHash":"`...)
	meta = append(meta, h.Parent.String()...)
	meta = append(meta, `"},"continuation":`...)
	out := make([]byte, 0, len(res)+len(meta))
	out = append(out, res[:i]...)
	out = append(out, meta...)
	return append(out, res[i+len(nullMeta):]...)
}

// OutputProof makes the SPV proof of transaction rk of this chain for target chain
// (chain.OutputProof), against the target's executed head.
func (x *Reader) OutputProof(rk api.Hash, target ledger.ChainID) (string, error) {
	head := x.head.Load()
	if head == nil {
		return "", &contractapi.RequestError{Msg: "Transaction hash not found: " + rk.String()}
	}
	loc, ok, err := chain.LocateTx(x.state.View(head.Height).(*state.View), rk)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &contractapi.RequestError{Msg: "Transaction hash not found: " + rk.String()}
	}
	block, err := x.db.Header(loc.Block)
	if err != nil {
		return "", err
	}
	payload, err := x.db.PayloadWithOutputs(block.PayloadHash)
	if err != nil {
		return "", err
	}
	if loc.Index >= len(payload.Transactions) {
		return "", fmt.Errorf("%w: request-key index of %s points past block %s", kv.ErrCorrupt, rk, block.Hash)
	}
	var targetHead *ledger.Header
	if top := x.others.executedHeads(); int(target) < len(top) {
		targetHead = top[target]
	}
	proof, err := chain.OutputProof(x.v, x.db, chain.ProofRequest{Block: block, Payload: payload, Index: loc.Index, Target: target},
		targetHead, func(head *ledger.Header, n uint64) (*ledger.Header, error) { return x.targetBlockAt(target, head, n) })
	if errors.Is(err, chain.ErrSPVTooYoung) || errors.Is(err, chain.ErrSPVUnreachable) {
		return "", &contractapi.RequestError{Msg: err.Error()}
	}
	return proof, err
}

// targetBlockAt returns the block at height n below head, chain target's executed head: read
// from that chain's Pact state record when it has one, by walking parents otherwise.
func (x *Reader) targetBlockAt(target ledger.ChainID, head *ledger.Header, n uint64) (*ledger.Header, error) {
	if t := x.others.reader(target); t != nil {
		if hash, err := t.blockAt(n); err == nil {
			if h, err := x.db.Header(hash); err == nil {
				return h, nil
			}
		}
	}
	return chain.AncestorAt(x.db, head, n)
}

// inHistory reports whether block h is parent or one of its ancestors. When parent is on the
// Pact state's branch (the usual case: a block built or validated on the head) the state's
// record of its block at h's height answers at once, whatever the depth; otherwise it walks
// the parents.
func (x *Reader) inHistory(parent, h *ledger.Header) bool {
	if on, err := x.onState(parent); err == nil && on {
		at, err := x.blockAt(h.Height)
		return err == nil && at == h.Hash
	}
	a, err := chain.AncestorAt(x.db, parent, h.Height)
	return err == nil && a.Hash == h.Hash
}

// spvVerifier returns the proof check of the block after parent (chain.VerifyOutputProof).
func (x *Reader) spvVerifier(parent *ledger.Header) func(string) ([]byte, error) {
	return func(s string) ([]byte, error) {
		return chain.VerifyOutputProof(x.chain, x.db, parent, s, x.inHistory)
	}
}

// VerifyOutputProof checks a proof as the next block of this chain would (its root in the
// history of the executed head) and returns the proven output.
func (x *Reader) VerifyOutputProof(proof string) ([]byte, error) {
	return x.spvVerifier(x.head.Load())(proof)
}

// withSPV adds the proof check to a block's context.
func (x *Reader) withSPV(b *txexec.Block, parent *ledger.Header) *txexec.Block {
	b.SPV = x.spvVerifier(parent)
	return b
}

// Head returns the block the state is at (nil before genesis).
func (x *Reader) Head() *ledger.Header { return x.head.Load() }

// blockAt reads the hash of the state's block at height h.
func (x *Reader) blockAt(h uint64) (ledger.Hash, error) { return chain.BlockAt(x.state, h) }

// onState reports whether block h is the state's block at its height.
func (x *Reader) onState(h *ledger.Header) (bool, error) {
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

// view is a view of the state to build block h on: the head's, or an empty state for genesis.
func (x *Reader) view() *state.View {
	var base uint64
	if head := x.head.Load(); head != nil {
		base = head.Height
	}
	return x.state.View(base).(*state.View)
}
