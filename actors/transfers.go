package actors

import (
	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
)

// Transfer is an entry of a chain's index of transfers by account (chain.Transfer), for the
// service API, which does not import chain.
type Transfer = chain.Transfer

// MaxAccountLen is the longest account name the index keeps.
const MaxAccountLen = chain.MaxAccountLen

// AccountTransfers reads up to n of account's transfers on chain c as of its head, newest first,
// from the one below index below (math.MaxUint64: the newest); see chain.AccountTransfers. It
// reads a view of the state, not through the actor. A chain without a head has none.
func (r *Runtime) AccountTransfers(c ledger.ChainID, account string, below uint64, n int) ([]Transfer, error) {
	x, ok := r.Executor(c)
	if !ok {
		return nil, nil
	}
	head := x.head.Load()
	if head == nil {
		return nil, nil
	}
	return chain.AccountTransfers(x.state.View(head.Height).(*state.View), account, below, n)
}
