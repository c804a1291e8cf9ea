package actors

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/persist"
	"github.com/ledgernode/ledger-node/store"
)

// Repairing a chain's Pact state whose block is gone. The state is synced with each block, the
// header log is not, and a damaged header log is cut at the first bad record (store,
// integrity.go): either way the state can be at a block whose header is no longer stored. The
// state keeps every block's version, so it is rewound to the highest block it holds whose
// header survived (the cut keeps a prefix of the log, so that block's ancestors survive too);
// if there is none, the state is deleted and the executor replays the chain from genesis with
// the stored payloads. The executor then follows the resumed cut as after any fork.

// repairPactState returns chain c's state ready for the executor: st itself when its block is
// stored, or st rewound, or a fresh empty state. It fails only on errors other than the
// block's absence, which it cannot repair.
func repairPactState(c ledger.ChainID, sdb *store.DB, st *persist.Versioned, log *slog.Logger) (*persist.Versioned, error) {
	top, ok := st.Height()
	if !ok {
		return st, nil
	}
	for h := top; ; h-- {
		hash, err := stateBlockAt(st, h)
		if err != nil {
			// Below the first block the state holds (or an unreadable record): nothing
			// lower to rewind to.
			break
		}
		_, err = sdb.Header(hash)
		if err == nil {
			if h == top {
				return st, nil
			}
			if err := st.Rewind(h); err != nil {
				return nil, fmt.Errorf("actors: rewind the Pact state of chain %d to height %d: %w", c, h, err)
			}
			log.Warn("Pact state was at a block whose header is no longer stored; rewound it to the highest stored block it holds",
				"chain", c, "from height", top, "to height", h, "block", hash)
			return st, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("actors: Pact state of chain %d at height %d, block %s: %w", c, h, hash, err)
		}
		if h == 0 {
			break
		}
	}
	if err := sdb.ResetPactState(c); err != nil {
		return nil, err
	}
	log.Warn("Pact state holds no block whose header is still stored; it is rebuilt by replaying the chain from genesis",
		"chain", c, "from height", top)
	return sdb.PactState(c)
}

// stateBlockAt reads the hash of the block st holds at height h.
func stateBlockAt(st *persist.Versioned, h uint64) (ledger.Hash, error) {
	b, ok, err := st.View(h).(*persist.View).Meta(metaBlock)
	if err != nil {
		return ledger.Hash{}, err
	}
	if !ok || len(b) != ledger.HashSize {
		return ledger.Hash{}, fmt.Errorf("%w: no block hash at height %d", persist.ErrCorrupt, h)
	}
	return ledger.Hash(b), nil
}

// RepairPactStates repairs the Pact state of every chain of v as a node's start would (see
// repairPactState): `ledger-node repair` runs it so that the next start has nothing left to do.
// It opens each state once; the node must not be running.
func RepairPactStates(v *ledger.Version, sdb *store.DB, log *slog.Logger) error {
	for _, c := range v.Chains() {
		st, err := sdb.PactState(c)
		if err != nil {
			return err
		}
		if _, err := repairPactState(c, sdb, st, log); err != nil {
			return err
		}
	}
	return nil
}
