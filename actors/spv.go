package actors

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ledgernode/ledger-node/chain/txexec"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/persist"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// SPV (chainweb-api.md §6.6): a proof that a transaction's output is in the history of a
// header of another chain. The proof runs from the output through the block's payload and
// header, then from chain to chain along a shortest path of the chain graph: the header of
// each next chain, one block higher, names the previous one among its adjacent parents. Its
// root is the header of the target chain at the transaction's height plus the path's length,
// in the target's current history. The target chain's node checks the root against its own
// headers, so a proof needs no trust in the node that made it.

// SPV texts clients retry on (kadena.js pollCreateSpv), as chainweb words them.
const (
	spvTooYoung    = "SPV target not reachable: target chain not reachable. Chainweb instance is too young"
	spvUnreachable = "SPV target not reachable: Target of SPV proof can't be reached from the source transaction"
)

// OutputProof makes the SPV proof of transaction rk of this chain for target chain.
func (x *Executor) OutputProof(rk api.Hash, target ledger.ChainID) (string, error) {
	head := x.head.Load()
	if head == nil {
		return "", &contractapi.RequestError{Msg: "Transaction hash not found: " + rk.String()}
	}
	loc, ok, err := x.locate(x.state.View(head.Height).(*persist.View), rk)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &contractapi.RequestError{Msg: "Transaction hash not found: " + rk.String()}
	}
	block, err := x.db.Header(loc.block)
	if err != nil {
		return "", err
	}
	payload, err := x.db.PayloadWithOutputs(block.PayloadHash)
	if err != nil {
		return "", err
	}
	if loc.index >= len(payload.Transactions) {
		return "", fmt.Errorf("%w: request-key index of %s points past block %s", persist.ErrCorrupt, rk, block.Hash)
	}
	path := x.v.GraphAt(block.Height).ShortestPath(x.chain, target)
	if path == nil {
		return "", &contractapi.RequestError{Msg: spvUnreachable}
	}
	d := uint64(len(path) - 1)
	top := x.heads()
	if int(target) >= len(top) || top[target] == nil || top[target].Height < block.Height+d {
		return "", &contractapi.RequestError{Msg: spvTooYoung}
	}
	// The target's block at height+d, then down the path through adjacent parents.
	y, err := x.targetBlockAt(target, top[target], block.Height+d)
	if err != nil {
		return "", err
	}
	var chainSteps [][]ledger.ProofStep
	for k := len(path) - 1; k > 0; k-- {
		steps, ok := y.AdjacentPath(path[k-1])
		if !ok {
			return "", &contractapi.RequestError{Msg: spvUnreachable}
		}
		chainSteps = append(chainSteps, steps)
		var adj ledger.Hash
		for _, a := range y.Adjacents {
			if a.Chain == path[k-1] {
				adj = a.Hash
			}
		}
		if y, err = x.db.Header(adj); err != nil {
			return "", err
		}
	}
	if y.Hash != block.Hash {
		// The transaction's block is not in the history of the target's block: it left the
		// braid (a fork), or the chains' histories are still being joined.
		return "", &contractapi.RequestError{Msg: spvUnreachable}
	}
	steps := ledger.OutputPath(payload, loc.index)
	steps = append(steps, block.PayloadPath()...)
	for k := len(chainSteps) - 1; k >= 0; k-- { // from the source chain outward
		steps = append(steps, chainSteps[k]...)
	}
	p := &ledger.OutputProof{Chain: target, Output: payload.Transactions[loc.index].Output,
		Proof: ledger.MerkleProof{Position: uint64(loc.index + 1), Steps: steps}}
	return p.Encode(), nil
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
	return x.ancestorAt(head, n)
}

// ancestorAt returns h's ancestor at height n (h itself when it is at n).
func (x *Executor) ancestorAt(h *ledger.Header, n uint64) (*ledger.Header, error) {
	for h.Height > n {
		p, err := x.db.Header(h.Parent)
		if err != nil {
			return nil, fmt.Errorf("parent of block %d %s: %w", h.Height, h.Hash, err)
		}
		h = p
	}
	if h.Height != n {
		return nil, fmt.Errorf("no block at height %d below block %s", n, h.Hash)
	}
	return h, nil
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
	a, err := x.ancestorAt(parent, h.Height)
	return err == nil && a.Hash == h.Hash
}

// spvVerifier returns the proof check of the block after parent: a proof must be for this
// chain, and its root must be a block of this chain in parent's history, so that a block's
// validity depends on its own history alone.
func (x *Executor) spvVerifier(parent *ledger.Header) func(string) ([]byte, error) {
	return func(s string) ([]byte, error) {
		p, err := ledger.DecodeOutputProof(s)
		if err != nil {
			return nil, err
		}
		if p.Chain != x.chain {
			return nil, fmt.Errorf("the proof is for chain %d, this is chain %d", p.Chain, x.chain)
		}
		root := p.Root()
		h, err := x.db.Header(root)
		if err != nil || h.ChainID != x.chain {
			return nil, errors.New("the proof's root is not a block of this chain")
		}
		if parent == nil || h.Height > parent.Height {
			return nil, errors.New("the proof's root is not in this block's history")
		}
		if !x.inHistory(parent, h) {
			return nil, errors.New("the proof's root is not in this block's history")
		}
		return p.Output, nil
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
