package store

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store/internal/records"
)

// SetHeads records the per-chain heads of the best cut, replacing the previous set as a whole.
// Every head must already be stored: a node resuming from a head it cannot read would be stuck.
// The write is synced (doc.go, "Durability"), after syncing the header log, which also makes
// every earlier write in the same journal and every header written before it durable.
func (db *DB) SetHeads(heads map[ledger.ChainID]ledger.Hash) error {
	if err := db.CheckWriteFault(); err != nil {
		return err
	}
	if err := db.checkHeads(heads, nil); err != nil {
		return fmt.Errorf("store: set heads: %w", err)
	}
	b := getBatch()
	defer putBatch(b)
	if err := appendHeads(b, heads); err != nil {
		return err
	}
	// The heads' records must be on disk before the heads are (doc.go, "Durability"). The log
	// is synced outside the writer lock: every head was found stored, so its record is already
	// below the end this sync covers.
	if err := db.hl.syncLog(); err != nil {
		return fmt.Errorf("store: set heads: %w", err)
	}
	if err := db.ldb.Write(b, withSync); err != nil {
		return fmt.Errorf("store: set heads: %w", err)
	}
	return nil
}

// checkHeads verifies that every head is stored or is the header being written with it.
func (db *DB) checkHeads(heads map[ledger.ChainID]ledger.Hash, pending *ledger.Header) error {
	for c, h := range heads {
		if pending != nil && h == pending.Hash {
			continue
		}
		ok, err := db.HasHeader(h)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("head of chain %d, header %s: %w", c, h, ErrNotFound)
		}
	}
	return nil
}

// appendHeads adds the heads record to b.
func appendHeads(b *leveldb.Batch, heads map[ledger.ChainID]ledger.Hash) error {
	rec := records.Heads{Heads: make([]records.HeadEntry, 0, len(heads))}
	for c, h := range heads {
		rec.Heads = append(rec.Heads, records.HeadEntry{Chain: uint32(c), Hash: h})
	}
	slices.SortFunc(rec.Heads, func(x, y records.HeadEntry) int { return cmp.Compare(x.Chain, y.Chain) })
	buf, err := rec.MarshalMsg(nil)
	if err != nil {
		return fmt.Errorf("store: encode heads: %w", err)
	}
	b.Put(metaKey(metaHeads), buf)
	return nil
}

// Heads returns the heads last recorded by SetHeads or PutBlock, or an empty map if none ever were.
func (db *DB) Heads() (map[ledger.ChainID]ledger.Hash, error) {
	var rec records.Heads
	err := db.getRecord(metaKey(metaHeads), "heads", &rec)
	if errors.Is(err, ErrNotFound) {
		return map[ledger.ChainID]ledger.Hash{}, nil
	}
	if err != nil {
		return nil, err
	}
	heads := make(map[ledger.ChainID]ledger.Hash, len(rec.Heads))
	for _, e := range rec.Heads {
		c := ledger.ChainID(e.Chain)
		if _, dup := heads[c]; dup {
			return nil, fmt.Errorf("%w: heads record names chain %d twice", errCorrupt, c)
		}
		heads[c] = e.Hash
	}
	return heads, nil
}

// PutBlock writes a header, optionally its payload (p may be nil) and optionally new heads
// (heads nil leaves them unchanged): the way to extend a chain and move its head without a
// moment, even across a crash, where a head names a header that is not stored. The header's
// record goes to the header log first; payload, height-index entry and heads follow in one
// goleveldb batch. Every head must be h itself or already stored. When it moves heads, the log
// is synced and then the batch is written synced.
func (db *DB) PutBlock(h *ledger.Header, p *ledger.PayloadWithOutputs, heads map[ledger.ChainID]ledger.Hash) error {
	if err := db.CheckWriteFault(); err != nil {
		return err
	}
	if err := checkEncodable(h); err != nil {
		return err
	}
	if p != nil && p.PayloadHash != h.PayloadHash {
		return fmt.Errorf("store: put block %s: payload %s does not match the header's payload hash %s",
			h.Hash, p.PayloadHash, h.PayloadHash)
	}
	if err := db.checkHeads(heads, h); err != nil {
		return fmt.Errorf("store: put block %s: %w", h.Hash, err)
	}
	b := getBatch()
	defer putBatch(b)
	if p != nil {
		if err := appendPayload(b, p); err != nil {
			return err
		}
	}
	if heads != nil {
		if err := appendHeads(b, heads); err != nil {
			return err
		}
	}
	hs := []*ledger.Header{h}
	if err := db.commit(hs, b, heads != nil); err != nil {
		return fmt.Errorf("store: put block %s: %w", h.Hash, err)
	}
	db.cacheHeaders(hs)
	return nil
}
