package store

import (
	"errors"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"

	"github.com/ledgernode/ledger-node/ledger"
)

// PutHeaders stores headers and their height-index entries in one atomic batch. Storing a header
// again is harmless (same key, same bytes). Headers already in the cache are known to be stored
// and are skipped, which makes re-delivery from peers nearly free.
//
// The write is not synced (doc.go, "Durability"): a crash may lose the last headers written,
// never corrupt the store, and lost headers are fetched or mined again.
func (db *DB) PutHeaders(hs ...*ledger.Header) error {
	b := getBatch()
	defer putBatch(b)
	if err := db.appendHeaders(b, hs); err != nil {
		return err
	}
	if b.Len() == 0 {
		return nil
	}
	if err := db.ldb.Write(b, noSync); err != nil {
		return fmt.Errorf("store: put headers: %w", err)
	}
	db.cacheHeaders(hs)
	return nil
}

// appendHeaders adds the records of hs to b, skipping headers known to be stored.
func (db *DB) appendHeaders(b *leveldb.Batch, hs []*ledger.Header) error {
	var buf [ledger.HeaderSize]byte
	for _, h := range hs {
		if err := checkEncodable(h); err != nil {
			return err
		}
		if db.cache.contains(h.Hash) {
			continue
		}
		hk := hashKey(tagHeader, h.Hash)
		b.Put(hk[:], h.AppendBinary(buf[:0])) // Put copies key and value
		ik := heightKey(h.ChainID, h.Height, h.Hash)
		b.Put(ik[:], nil)
	}
	return nil
}

// cacheHeaders caches copies of freshly written headers: the caller keeps ownership of its
// structs, and new headers are the ones about to be read (SSE updates, the next block's parent).
func (db *DB) cacheHeaders(hs []*ledger.Header) {
	if db.cache == nil {
		return
	}
	for _, h := range hs {
		if !db.cache.contains(h.Hash) {
			db.cache.add(h.Hash, compactClone(h))
		}
	}
}

// checkEncodable rejects headers whose binary form would not decode again: storing one would
// turn a caller's bug into a corrupt record found much later.
func checkEncodable(h *ledger.Header) error {
	if h == nil {
		return errors.New("store: put header: nil header")
	}
	if len(h.Adjacents) > ledger.MaxAdjacents {
		return fmt.Errorf("store: put header %s: %d adjacents (at most %d)", h.Hash, len(h.Adjacents), ledger.MaxAdjacents)
	}
	for i := 1; i < len(h.Adjacents); i++ {
		if h.Adjacents[i].Chain <= h.Adjacents[i-1].Chain {
			return fmt.Errorf("store: put header %s: %w", h.Hash, ledger.ErrHeaderAdjacents)
		}
	}
	return nil
}

// Header returns the header with hash h. The result may be shared with other callers through
// the cache: it must not be mutated (Clone it first).
func (db *DB) Header(h ledger.Hash) (*ledger.Header, error) {
	if hdr := db.cache.get(h); hdr != nil {
		return hdr, nil
	}
	hdr, err := loadHeader(db.ldb, h)
	if err != nil {
		return nil, err
	}
	db.cache.add(h, hdr)
	return hdr, nil
}

// HeaderBinary appends the binary form of header h to dst: the serving path for octet-stream and
// base64 responses. A cached header is re-encoded (a few dozen ns, no allocation when dst has
// room); otherwise the stored bytes are decoded once, to validate them and to cache the header.
func (db *DB) HeaderBinary(dst []byte, h ledger.Hash) ([]byte, error) {
	hdr, err := db.Header(h)
	if err != nil {
		return dst, err
	}
	return hdr.AppendBinary(dst), nil
}

// HasHeader reports whether header h is stored.
func (db *DB) HasHeader(h ledger.Hash) (bool, error) {
	if db.cache.contains(h) {
		return true, nil
	}
	k := hashKey(tagHeader, h)
	ok, err := db.ldb.Has(k[:], nil)
	if err != nil {
		return false, fmt.Errorf("store: has header %s: %w", h, err)
	}
	return ok, nil
}

// reader is what DB and snapshots have in common for point reads.
type reader interface {
	Get(key []byte, ro *opt.ReadOptions) ([]byte, error)
}

// loadHeader reads and decodes header h from r, bypassing the cache.
func loadHeader(r reader, h ledger.Hash) (*ledger.Header, error) {
	k := hashKey(tagHeader, h)
	raw, err := r.Get(k[:], nil)
	if err != nil {
		return nil, lookupErr("header "+h.String(), err)
	}
	hdr, err := decodeCompact(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: header %s: %v", ErrCorrupt, h, err)
	}
	if hdr.Hash != h {
		return nil, fmt.Errorf("%w: header stored under %s has hash %s", ErrCorrupt, h, hdr.Hash)
	}
	return hdr, nil
}
