package pow

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ledgernode/ledger-node/ledger"
)

// NewHeader builds the header of a new block created at ct on top of parent, with the given
// adjacent parents (one per neighbour of the parent's chain in the graph at the parent's height,
// any order), payload hash and nonce (upstream newBlockHeader). Target, weight, height, epoch
// start and fork state follow from the parents, so the result passes ValidateChainStep and
// ValidateWebStep whenever ct is after every parent's creation time; the PoW is the caller's
// (vary the nonce or the time, then Seal). targetFork is the fork number this node votes for;
// production versions use 0. The header is sealed.
func NewHeader(v *ledger.Version, parent *ledger.Header, adjParents []*ledger.Header, payloadHash ledger.Hash, ct int64, nonce uint64, targetFork uint32) (*ledger.Header, error) {
	if v == nil || parent == nil || len(v.Graphs) == 0 {
		return nil, errors.New("pow: new header: nil version or parent, or version without graphs")
	}
	if parent.Height == ^uint64(0) {
		return nil, errors.New("pow: new header: parent is at the maximum height")
	}
	height := parent.Height + 1
	want := v.HeaderGraph(parent.ChainID, height).Neighbors(parent.ChainID)
	adj := slices.Clone(adjParents)
	for _, x := range adj {
		if x == nil {
			return nil, errors.New("pow: new header: nil adjacent parent")
		}
	}
	slices.SortFunc(adj, func(a, b *ledger.Header) int { return int(int64(a.ChainID) - int64(b.ChainID)) })
	chains := make([]ledger.ChainID, len(adj))
	for i, x := range adj {
		chains[i] = x.ChainID
	}
	if !slices.Equal(chains, want) {
		return nil, fmt.Errorf("pow: new header: adjacent parents on chains %v, chain %d at height %d needs %v", chains, parent.ChainID, height, want)
	}

	target, err := NextTarget(v, parent, adj, ct)
	if err != nil {
		return nil, fmt.Errorf("pow: new header: %w", err)
	}
	weight, err := Weight(parent.Weight, target)
	if err != nil {
		return nil, fmt.Errorf("pow: new header: %w", err)
	}
	h := &ledger.Header{
		FeatureFlags: NextForkState(parent, adj, targetFork),
		CreationTime: ct,
		Parent:       parent.Hash,
		Adjacents:    make([]ledger.Adjacent, len(adj)),
		Target:       target,
		PayloadHash:  payloadHash,
		ChainID:      parent.ChainID,
		Weight:       weight,
		Height:       height,
		Version:      v.Code,
		EpochStart:   NextEpochStart(v, parent, ct),
		Nonce:        nonce,
	}
	for i, x := range adj {
		h.Adjacents[i] = ledger.Adjacent{Chain: x.ChainID, Hash: x.Hash}
	}
	h.Seal()
	return h, nil
}
