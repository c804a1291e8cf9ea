package chain

import (
	"fmt"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/txexec"
)

// GenesisPayload executes chain c's development genesis (pact/contracts) on an empty state
// and returns its payload: the genesis commands and their outputs, no miner, no coinbase.
// Its hash is the genesis header's payload hash, computed at start rather than pasted in.
func GenesisPayload(r *txexec.Runner, c ledger.ChainID, network string) (*ledger.PayloadWithOutputs, error) {
	cmds, err := txexec.GenesisCommands(contracts.DevelopmentGenesis(int(c)), ChainIDText(c), network)
	if err != nil {
		return nil, err
	}
	st := db.NewMemDB()
	blk := &txexec.Block{ChainID: ChainIDText(c)}
	txs := make([]ledger.TxWithOutput, len(cmds))
	for i, cmd := range cmds {
		out, err := r.Genesis(st, blk, cmd)
		if err != nil {
			return nil, fmt.Errorf("genesis of chain %d: %w", c, err)
		}
		txs[i] = ledger.TxWithOutput{Tx: cmd.JSON(), Output: out}
	}
	return ledger.NewPayloadWithOutputs(ledger.NoMinerData, ledger.NoCoinbaseOutput(), txs), nil
}
