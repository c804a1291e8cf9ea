package actors

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/chain/txexec"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// OutputProof makes the SPV proof of transaction rk of this chain for target chain
// (chain.OutputProof), against the target's executed head.
func (x *Executor) OutputProof(rk api.Hash, target ledger.ChainID) (string, error) {
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
	if top := x.heads(); int(target) < len(top) {
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
func (x *Executor) targetBlockAt(target ledger.ChainID, head *ledger.Header, n uint64) (*ledger.Header, error) {
	if t := x.executor(target); t != nil {
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
func (x *Executor) inHistory(parent, h *ledger.Header) bool {
	if on, err := x.onState(parent); err == nil && on {
		at, err := x.blockAt(h.Height)
		return err == nil && at == h.Hash
	}
	a, err := chain.AncestorAt(x.db, parent, h.Height)
	return err == nil && a.Hash == h.Hash
}

// spvVerifier returns the proof check of the block after parent (chain.VerifyOutputProof).
func (x *Executor) spvVerifier(parent *ledger.Header) func(string) ([]byte, error) {
	return func(s string) ([]byte, error) {
		return chain.VerifyOutputProof(x.chain, x.db, parent, s, x.inHistory)
	}
}

// VerifyOutputProof checks a proof as the next block of this chain would (its root in the
// history of the executed head) and returns the proven output.
func (x *Executor) VerifyOutputProof(proof string) ([]byte, error) {
	return x.spvVerifier(x.head.Load())(proof)
}

// withSPV adds the proof check to a block's context.
func (x *Executor) withSPV(b *txexec.Block, parent *ledger.Header) *txexec.Block {
	b.SPV = x.spvVerifier(parent)
	return b
}

// SPV answers the spv endpoint on the transaction's chain.
func (cc *ChainContract) SPV(ctx context.Context, req contractapi.SPVRequest) (string, error) {
	c, err := strconv.ParseUint(req.TargetChainID, 10, 32)
	if err != nil || !cc.x.v.HasChain(ledger.ChainID(c)) {
		return "", &contractapi.RequestError{Msg: "Invalid target chain id: " + strconv.Quote(req.TargetChainID)}
	}
	return cc.x.OutputProof(req.RequestKey, ledger.ChainID(c))
}
