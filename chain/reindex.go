package chain

import (
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
)

// records is what the indexes read and write of the node's records: a state.View as a block is
// applied, or the reindex's layer over one (blockRecords).
type records interface {
	Meta(name string) ([]byte, bool, error)
	PutMeta(name string, value []byte) error
}

// indexRecordPrefixes name the records of the indexes that ReindexBlocks rebuilds.
var indexRecordPrefixes = []string{recTransferCount, recTransferEntry, recContinuationCount, recContinuationEntry}

// ReindexBlocks rebuilds the index of transfers and the index of continuations (transfers.go,
// continuations.go) of consecutive blocks already applied to st, from height from up, whose
// hashes and payloads are hashes and ps: each block's index records are computed from its
// payload as RecordBlock computes them, and replace the block's old ones, versioned with the
// block (state.Versioned.RewriteMeta), all in one synced write. The counts are read as of the
// block below the first (and from the blocks before in ps), so a state is reindexed in order
// from height 0 up; doing it again gives the same records. For a state no node runs on
// (`ledger-node reindex-transfers`).
func ReindexBlocks(st *state.Versioned, from uint64, hashes []ledger.Hash, ps []*ledger.PayloadWithOutputs) error {
	below := from - 1
	if from == 0 {
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
	layer := &blockRecords{below: view, written: map[string][]byte{}}
	blocks := make([]map[string][]byte, len(ps))
	for i, p := range ps {
		layer.block = map[string][]byte{}
		height := from + uint64(i)
		if err := recordTransfers(layer, hashes[i], height, p); err != nil {
			return err
		}
		if err := recordContinuations(layer, hashes[i], height, p); err != nil {
			return err
		}
		blocks[i] = layer.block
	}
	return st.RewriteMeta(from, blocks, indexRecordPrefixes...)
}

// blockRecords is records over a view of the block below a run of blocks: what the run's
// blocks wrote so far (written), else the view's; block collects the current block's writes.
type blockRecords struct {
	below   *state.View
	written map[string][]byte
	block   map[string][]byte
}

func (r *blockRecords) Meta(name string) ([]byte, bool, error) {
	if b, ok := r.written[name]; ok {
		return b, true, nil
	}
	return r.below.Meta(name)
}

func (r *blockRecords) PutMeta(name string, value []byte) error {
	v := append([]byte{}, value...)
	r.written[name], r.block[name] = v, v
	return nil
}
