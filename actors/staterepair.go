package actors

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
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
func repairPactState(c ledger.ChainID, sdb *store.DB, st *state.Versioned, log *slog.Logger) (*state.Versioned, error) {
	top, ok := st.Height()
	if !ok {
		return st, nil
	}
	for h := top; ; h-- {
		hash, err := chain.BlockAt(st, h)
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
				"chain", c, "fromHeight", top, "toHeight", h, "block", hash)
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
		"chain", c, "fromHeight", top)
	return openPactState(sdb, c)
}

// openPactState opens chain c's versioned Pact state in the store's key space for it.
func openPactState(sdb *store.DB, c ledger.ChainID) (*state.Versioned, error) {
	st, err := state.Open(sdb.PactSpace(c))
	if err != nil {
		return nil, fmt.Errorf("store: Pact state of chain %d: %w", c, err)
	}
	return st, nil
}

// RepairPactStates repairs the Pact state of every chain of v as a node's start would (see
// repairPactState): `ledger-node repair` runs it so that the next start has nothing left to do.
// It opens each state once; the node must not be running.
func RepairPactStates(v *ledger.Version, sdb *store.DB, log *slog.Logger) error {
	for _, c := range v.Chains() {
		st, err := openPactState(sdb, c)
		if err != nil {
			return err
		}
		if _, err := repairPactState(c, sdb, st, log); err != nil {
			return err
		}
	}
	return nil
}

// ResetIncompletePactStates empties the Pact state of every chain of v whose stored data is not
// whole (chain/state's Verify: a damaged or deleted goleveldb table took rows or block
// records): the executor then replays the chain from genesis with the stored payloads, as for a
// state at a lost block. `ledger-node repair` runs it; it reads every row of every state, so a
// start does not. It returns the chains it emptied.
func ResetIncompletePactStates(v *ledger.Version, sdb *store.DB, log *slog.Logger) ([]ledger.ChainID, error) {
	var reset []ledger.ChainID
	for _, c := range v.Chains() {
		st, err := openPactState(sdb, c)
		if err != nil {
			return reset, err
		}
		w, err := st.Verify()
		if err != nil {
			return reset, fmt.Errorf("actors: verify the Pact state of chain %d: %w", c, err)
		}
		if w.Whole() {
			continue
		}
		if err := sdb.ResetPactState(c); err != nil {
			return reset, err
		}
		log.Warn("Pact state had lost data; emptied it, to be rebuilt by replaying the chain from genesis", "chain", c, "found", w.String())
		reset = append(reset, c)
	}
	return reset, nil
}

// RepairHeads replaces each stored head whose header is not stored (cut off a damaged header
// log) by its chain's highest stored block that has its payload, or failing that its highest
// stored header; loadHeads then lowers the set to a braided cut when it resumes. It returns the
// chains it changed.
func RepairHeads(v *ledger.Version, db *store.DB, log *slog.Logger) ([]ledger.ChainID, error) {
	heads, err := db.Heads()
	if err != nil {
		return nil, err
	}
	var changed []ledger.ChainID
	for c, hash := range heads {
		ok, err := db.HasHeader(hash)
		if err != nil {
			return nil, err
		}
		if ok {
			continue
		}
		top, err := highestWithPayload(db, c)
		if err != nil {
			return nil, err
		}
		if top == nil {
			delete(heads, c)
		} else {
			heads[c] = top.Hash
		}
		changed = append(changed, c)
	}
	if len(changed) == 0 {
		return nil, nil
	}
	slices.Sort(changed)
	if err := db.SetHeads(heads); err != nil {
		return nil, err
	}
	log.Warn("heads that named lost headers now name the highest stored blocks of their chains", "chains", changed)
	return changed, nil
}

// highestWithPayload returns the highest stored block of chain c that has its payload, looking
// at most 1000 heights down, or else the chain's highest stored header (nil if none).
func highestWithPayload(db *store.DB, c ledger.ChainID) (*ledger.Header, error) {
	top, err := highestStored(db, c)
	if err != nil || top == nil {
		return top, err
	}
	for h := top.Height; h+1000 > top.Height; h-- {
		var found *ledger.Header
		err := db.ScanChain(c, store.Position{Height: h}, func(x *ledger.Header) bool {
			if x.Height != h {
				return false
			}
			if ok, _ := db.HasPayload(x.PayloadHash); ok {
				found = x
				return false
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		if found != nil {
			return found, nil
		}
		if h == 0 {
			break
		}
	}
	return top, nil
}
