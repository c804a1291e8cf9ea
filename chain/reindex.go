package chain

import (
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
)

// indexRecordPrefixes name the records of the indexes that ReindexBlock rebuilds.
var indexRecordPrefixes = []string{recTransferCount, recTransferEntry, recContinuationCount, recContinuationEntry}

// ReindexBlock rebuilds the index of transfers and the index of continuations (transfers.go,
// continuations.go) of block hash at height, already applied to st, whose payload is p: the
// block's index records are dropped and written again from p, versioned with the block as
// RecordBlock writes them, one synced write a block. An index's counts are read as of the
// block below, so a state is reindexed block by block from height 0 up; doing it again gives
// the same records. For a state no node runs on (`ledger-node
// reindex-transfers`).
func ReindexBlock(st *state.Versioned, height uint64, hash ledger.Hash, p *ledger.PayloadWithOutputs) error {
	below := height - 1
	if height == 0 {
		// Nothing is below genesis: its own records are dropped first, so that a view of it
		// reads none.
		if err := st.DropMeta(0, indexRecordPrefixes...); err != nil {
			return err
		}
		below = 0
	}
	view, ok := st.View(below).(*state.View)
	if !ok {
		return state.ErrStaleView
	}
	if err := recordTransfers(view, hash, height, p); err != nil {
		return err
	}
	if err := recordContinuations(view, hash, height, p); err != nil {
		return err
	}
	return st.RewriteMeta(height, view, indexRecordPrefixes...)
}
