package actors

import (
	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// Continuation is an entry of a chain's index of continuations by pact id
// (chain.Continuation), for the service API, which does not import chain.
type Continuation = chain.Continuation

// PactContinuations reads up to n of the continuations of pact on chain c as of its head,
// oldest first, from the one at index from; more says whether more follow. It reads a view of
// the state, not through the actor (see chain.PactContinuations). A chain without a head has
// none.
func (r *Runtime) PactContinuations(c ledger.ChainID, pact api.Hash, from uint64, n int) (cs []Continuation, more bool, err error) {
	x, ok := r.Executor(c)
	if !ok {
		return nil, false, nil
	}
	head := x.head.Load()
	if head == nil {
		return nil, false, nil
	}
	return chain.PactContinuations(x.state.View(head.Height).(*state.View), pact, from, n)
}
