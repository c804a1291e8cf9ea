package chain

import (
	"errors"
	"fmt"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
)

// SPV (chainweb-api.md §6.6): a proof that a transaction's output is in the history of a
// header of another chain. The proof runs from the output through the block's payload and
// header, then from chain to chain along a shortest path of the chain graph: the header of
// each next chain, one block higher, names the previous one among its adjacent parents. Its
// root is the header of the target chain at the transaction's height plus the path's length,
// in the target's current history. The target chain's node checks the root against its own
// headers, so a proof needs no trust in the node that made it.

// The SPV texts clients retry on (kadena.js pollCreateSpv), as chainweb words them.
var (
	ErrSPVTooYoung    = errors.New("SPV target not reachable: target chain not reachable. Chainweb instance is too young")
	ErrSPVUnreachable = errors.New("SPV target not reachable: Target of SPV proof can't be reached from the source transaction")
)

// Headers reads stored headers by hash.
type Headers interface {
	Header(ledger.Hash) (*ledger.Header, error)
}

// ProofRequest is a transaction output to prove: output Index of block Block, whose payload is
// Payload, for chain Target.
type ProofRequest struct {
	Block   *ledger.Header
	Payload *ledger.PayloadWithOutputs
	Index   int
	Target  ledger.ChainID
}

// OutputProof makes the SPV proof of req in network v. targetHead is the target chain's
// head to prove against (nil when it has none), and targetAt finds the target's block at a
// height below it. It fails with ErrSPVTooYoung when the target chain is not yet high enough,
// and ErrSPVUnreachable when no path joins the chains or the block is not in the target's
// history.
func OutputProof(v *ledger.Version, hs Headers, req ProofRequest, targetHead *ledger.Header,
	targetAt func(head *ledger.Header, height uint64) (*ledger.Header, error)) (string, error) {
	block, payload := req.Block, req.Payload
	if req.Index >= len(payload.Transactions) {
		return "", fmt.Errorf("%w: block %s has no transaction %d", kv.ErrCorrupt, block.Hash, req.Index)
	}
	path := v.GraphAt(block.Height).ShortestPath(block.ChainID, req.Target)
	if path == nil {
		return "", ErrSPVUnreachable
	}
	d := uint64(len(path) - 1)
	if targetHead == nil || targetHead.Height < block.Height+d {
		return "", ErrSPVTooYoung
	}
	// The target's block at height+d, then down the path through adjacent parents.
	y, err := targetAt(targetHead, block.Height+d)
	if err != nil {
		return "", err
	}
	var chainSteps [][]ledger.ProofStep
	for k := len(path) - 1; k > 0; k-- {
		steps, ok := y.AdjacentPath(path[k-1])
		if !ok {
			return "", ErrSPVUnreachable
		}
		chainSteps = append(chainSteps, steps)
		var adj ledger.Hash
		for _, a := range y.Adjacents {
			if a.Chain == path[k-1] {
				adj = a.Hash
			}
		}
		if y, err = hs.Header(adj); err != nil {
			return "", err
		}
	}
	if y.Hash != block.Hash {
		// The transaction's block is not in the history of the target's block: it left the
		// braid (a fork), or the chains' histories are still being joined.
		return "", ErrSPVUnreachable
	}
	steps := ledger.OutputPath(payload, req.Index)
	steps = append(steps, block.PayloadPath()...)
	for k := len(chainSteps) - 1; k >= 0; k-- { // from the source chain outward
		steps = append(steps, chainSteps[k]...)
	}
	p := &ledger.OutputProof{Chain: req.Target, Output: payload.Transactions[req.Index].Output,
		Proof: ledger.MerkleProof{Position: uint64(req.Index + 1), Steps: steps}}
	return p.Encode(), nil
}

// AncestorAt returns h's ancestor at height n (h itself when it is at n).
func AncestorAt(hs Headers, h *ledger.Header, n uint64) (*ledger.Header, error) {
	for h.Height > n {
		p, err := hs.Header(h.Parent)
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

// VerifyOutputProof checks an SPV proof as the block after parent on chain c runs it (Pact's
// verify-spv and cross-chain continuations): the proof must be for chain c, and its root a
// block of c in parent's history (inHistory says whether a block is parent or one of its
// ancestors), so that a block's validity depends on its own history alone. It returns the
// proven output.
func VerifyOutputProof(c ledger.ChainID, hs Headers, parent *ledger.Header, proof string,
	inHistory func(parent, h *ledger.Header) bool) ([]byte, error) {
	p, err := ledger.DecodeOutputProof(proof)
	if err != nil {
		return nil, err
	}
	if p.Chain != c {
		return nil, fmt.Errorf("the proof is for chain %d, this is chain %d", p.Chain, c)
	}
	h, err := hs.Header(p.Root())
	if err != nil || h.ChainID != c {
		return nil, errors.New("the proof's root is not a block of this chain")
	}
	if parent == nil || h.Height > parent.Height || !inHistory(parent, h) {
		return nil, errors.New("the proof's root is not in this block's history")
	}
	return p.Output, nil
}
