package actors

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// maxRecover bounds the stored blocks above the heads that a start joins back into the cut. The
// heads writer lags the cut by a sync or two, so a crash leaves a handful; the bound only keeps a
// start quick on a store that holds many unconnected blocks.
const maxRecover = 100_000

// loadHeads returns the cut a node resumes from:
//
//  1. the heads last written (a chain without one starts at its genesis block, when known);
//  2. if those are not braided (a store written by an older build, or damaged), the best braided
//     cut below them (LowerToBraid);
//  3. joined with every stored block above them that makes the cut heavier: blocks stored after
//     the last heads write, which a crash kept out of the heads record, are not lost (a block
//     whose payload the crash lost is left out).
func loadHeads(v *ledger.Version, db *store.DB, genesis pow.Heads, lookup pow.HeaderLookup, log *slog.Logger) (pow.Heads, error) {
	stored, err := db.Heads()
	if err != nil {
		return nil, fmt.Errorf("read heads: %w", err)
	}
	chains := v.Chains()
	hs := make(pow.Heads, int(slices.Max(chains))+1)
	var missing []ledger.ChainID
	for _, c := range chains {
		hash, ok := stored[c]
		if !ok {
			hs[c] = genesis.At(c)
			continue
		}
		h, err := db.Header(hash)
		if errors.Is(err, store.ErrNotFound) {
			// Cut off a damaged header log (store, integrity.go): restart the chain from its
			// genesis block, and the stored blocks above it are joined back below; without a
			// genesis block (an imported network), from its highest stored header.
			if g := genesis.At(c); g != nil {
				h, err = g, nil
			} else if top, terr := highestStored(db, ledger.ChainID(c)); terr == nil && top != nil {
				h, err = top, nil
			}
			if err == nil {
				missing = append(missing, c)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("head of chain %d (%s): %w", c, hash, err)
		}
		hs[c] = h
	}
	if len(missing) > 0 {
		log.Warn("stored heads are missing (lost with a damaged header log); those chains resume from the stored blocks that remain",
			"chains", missing)
	}
	if err := pow.CheckBraided(hs); err != nil {
		lowered, lerr := pow.LowerToBraid(hs, lookup)
		if lerr != nil {
			return nil, fmt.Errorf("stored cut: %v, and no braided cut below it: %w", err, lerr)
		}
		log.Warn("stored cut is not braided; resuming from the best braided cut below it",
			"reason", err, "height", hs.Height(), "resumedHeight", lowered.Height())
		hs = lowered
	}
	above, err := storedAbove(db, hs)
	if err != nil {
		return nil, err
	}
	joined := 0
	for _, h := range above {
		if ok, err := db.HasPayload(h.PayloadHash); err != nil || !ok {
			// The header reached the header log but the crash took the batch with its
			// payload: the block is incomplete, and its miner or peer will send it again.
			continue
		}
		next, err := pow.Join(hs, h, genesis, lookup)
		if err == nil && pow.Heavier(next, hs) {
			hs, joined = next, joined+1
		}
	}
	if joined > 0 {
		log.Info("joined stored blocks newer than the stored heads", "blocks", joined, "height", hs.Height())
	}
	log.Info(fmt.Sprintf("resuming at cut height %d", hs.Height()), "cutHeight", hs.Height())
	return hs, nil
}

// storedAbove returns the stored blocks above each head, ascending by height (then chain), so
// that each one's parents come before it.
func storedAbove(db *store.DB, hs pow.Heads) ([]*ledger.Header, error) {
	var out []*ledger.Header
	for c, h := range hs {
		if h == nil {
			continue
		}
		err := db.ScanChain(ledger.ChainID(c), store.Position{Height: h.Height + 1}, func(x *ledger.Header) bool {
			out = append(out, x)
			return len(out) < maxRecover
		})
		if err != nil {
			return nil, fmt.Errorf("scan chain %d above its head: %w", c, err)
		}
	}
	slices.SortFunc(out, func(a, b *ledger.Header) int {
		return cmp.Or(cmp.Compare(a.Height, b.Height), cmp.Compare(a.ChainID, b.ChainID))
	})
	return out, nil
}

// highestStored returns the first header at chain c's highest stored height, or nil.
func highestStored(db *store.DB, c ledger.ChainID) (*ledger.Header, error) {
	height, ok, err := db.MaxHeight(c)
	if err != nil || !ok {
		return nil, err
	}
	var top *ledger.Header
	err = db.ScanChain(c, store.Position{Height: height}, func(h *ledger.Header) bool {
		top = h
		return false
	})
	return top, err
}
