package private

import (
	"context"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/transport/contractapi"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
)

// Contract is a chain's contract API: the executor's, with private commands added.
type Contract struct {
	*actors.ChainContract
	chain ledger.ChainID
	priv  *Chains
	// slots bounds the evaluations requests start: a private command is one, as local is.
	slots *actors.EvalSlots
}

var _ contracthttp.API = Contract{}

// Contract returns chain c's contract API: cc, the chain's own, with private commands added;
// a private command takes one of slots, the evaluation slots local takes too.
func (p *Chains) Contract(c ledger.ChainID, cc *actors.ChainContract, slots *actors.EvalSlots) Contract {
	return Contract{ChainContract: cc, chain: c, priv: p, slots: slots}
}

// Private runs a private command (from a client of this entity) or an envelope (from another
// entity's node).
func (n Contract) Private(ctx context.Context, body []byte) ([]api.Hash, error) {
	e, err := n.priv.engine(n.chain, true)
	if err != nil {
		return nil, err
	}
	release, err := n.slots.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return e.Private(ctx, body)
}

// Poll answers from the chain, then from the private results for the keys the chain lacks.
func (n Contract) Poll(ctx context.Context, keys []api.Hash, opts contractapi.PollOptions) ([]contractapi.Polled, error) {
	found, err := n.ChainContract.Poll(ctx, keys, opts)
	if err != nil || len(found) == len(keys) {
		return found, err
	}
	e, err := n.priv.engine(n.chain, false)
	if err != nil || e == nil {
		return found, err
	}
	have := make(map[api.Hash]bool, len(found))
	for _, f := range found {
		have[f.Key] = true
	}
	var rest []api.Hash
	for _, k := range keys {
		if !have[k] {
			rest = append(rest, k)
		}
	}
	more, err := e.Poll(ctx, rest, opts)
	return append(found, more...), err
}

// Listen answers a private result at once; otherwise it waits for the chain.
func (n Contract) Listen(ctx context.Context, key api.Hash) ([]byte, error) {
	if e, _ := n.priv.engine(n.chain, false); e != nil {
		if got, err := e.Poll(ctx, []api.Hash{key}, contractapi.PollOptions{}); err == nil && len(got) == 1 {
			return got[0].Result, nil
		}
	}
	return n.ChainContract.Listen(ctx, key)
}
