package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ledgernode/ledger-node/ledger"
)

// noLimit reads every record, as opposed to a snapshot's prefix of the log.
const noLimit = math.MaxUint64

// PutHeaders stores headers: their records in the header log (hlog.go), then their height-index
// entries in one goleveldb batch. Storing a header again is harmless: headers already stored
// (cached, or found in the hash index) are skipped, which makes re-delivery from peers nearly
// free. Either every header is accepted or, if one cannot be encoded, none is written.
//
// A header is readable by hash (Header, HeaderBinary, HasHeader) from the moment its record is
// published, slightly before ScanChain and MaxHeight see it; every header is visible to every
// read that starts after PutHeaders returns. PutHeaders is safe to call from many goroutines;
// writes are serialised.
//
// The write is not synced (doc.go, "Durability"): a killed process loses nothing that was
// written, and a power cut may lose the last headers, never corrupt the store.
func (db *DB) PutHeaders(hs ...*ledger.Header) error {
	if err := db.CheckWriteFault(); err != nil {
		return err
	}
	for _, h := range hs {
		if err := checkEncodable(h); err != nil {
			return err
		}
	}
	b := getBatch()
	defer putBatch(b)
	if err := db.commit(hs, b, false); err != nil {
		return err
	}
	db.cacheHeaders(hs)
	return nil
}

// commit appends the records of the headers in hs that are not stored yet to the header log,
// publishes their slots in the hash index, and writes b to goleveldb together with their
// height-index entries and the new log end (metaLogEnd). With durable set, the log is synced
// first and then b is written synced: whatever b refers to is on disk before b is.
//
// The goleveldb write happens under the writer lock too, so that the log end it records only
// ever grows and every record below it has its height-index entry in the same or an earlier
// batch; Open relies on that to re-index exactly the records goleveldb missed.
func (db *DB) commit(hs []*ledger.Header, b *leveldb.Batch, durable bool) error {
	hl := db.hl
	hl.mu.Lock()
	defer hl.mu.Unlock()
	v := hl.view.Load()
	if v == nil {
		return errClosed
	}
	fresh, enc := hl.fresh[:0], hl.enc[:0]
	defer func() {
		clear(fresh) // do not keep the caller's headers alive
		hl.fresh = fresh[:0]
		if cap(enc) <= maxPooledBatch {
			hl.enc = enc[:0]
		} else {
			hl.enc = nil
		}
	}()
	var seen map[ledger.Hash]struct{} // duplicates within hs; a linear search for small batches
	if len(hs) > 8 {
		seen = make(map[ledger.Hash]struct{}, len(hs))
	}
	for _, h := range hs {
		if db.cache.contains(h.Hash) {
			continue
		}
		if p, _, _, err := hl.locate(v, &h.Hash, &hl.buf); err != nil {
			return fmt.Errorf("store: put header %s: %w", h.Hash, err)
		} else if p != nil {
			continue
		}
		if seen != nil {
			if _, dup := seen[h.Hash]; dup {
				continue
			}
			seen[h.Hash] = struct{}{}
		} else if containsHash(fresh, h.Hash) {
			continue
		}
		fresh = append(fresh, h)
		enc = appendRecord(enc, h)
	}
	var val [8]byte
	carried := len(hl.unindexed)
	for _, e := range hl.unindexed {
		binary.BigEndian.PutUint64(val[:], e.off)
		b.Put(e.key[:], val[:])
	}
	if len(fresh) > 0 {
		off, err := hl.writeLocked(enc)
		if err != nil {
			return err
		}
		for _, h := range fresh {
			size := recHeaderSize + uint64(h.Size())
			if err := hl.insertLocked(slotKey(&h.Hash), off, size); err != nil {
				return fmt.Errorf("store: index header %s: %w", h.Hash, err)
			}
			e := pendingEntry{key: heightKey(h.ChainID, h.Height, h.Hash), off: off}
			hl.unindexed = append(hl.unindexed, e) // until the batch lands
			binary.BigEndian.PutUint64(val[:], off)
			b.Put(e.key[:], val[:]) // Put copies key and value
			off += size
		}
	}
	if len(hl.unindexed) > 0 {
		binary.BigEndian.PutUint64(val[:], hl.end.Load())
		b.Put(logEndKey, val[:])
	}
	wo := noSync
	if durable {
		if err := hl.syncLog(); err != nil {
			return err
		}
		wo = withSync
	}
	if b.Len() == 0 {
		return nil
	}
	// If this write fails, the records stay readable by hash and their height-index entries go
	// with the next batch that lands (unindexed), or are made at the next Open, whose log end
	// goleveldb then holds behind the log's.
	err := db.batchFault
	if err == nil {
		err = db.ldb.Write(b, wo)
	}
	if err != nil {
		// The fresh records stay readable by hash; their entries wait in unindexed.
		return fmt.Errorf("store: put headers: %w", err)
	}
	hl.unindexed = hl.unindexed[:0]
	if carried > 0 {
		db.lg.Info("store: wrote the height-index entries a failed write had left out", "entries", carried)
	}
	return nil
}

// pendingEntry is a height-index entry waiting for a batch that lands: its key and the
// record's log offset.
type pendingEntry struct {
	key [heightKeyLen]byte
	off uint64
}

func containsHash(hs []*ledger.Header, h ledger.Hash) bool {
	for _, x := range hs {
		if x.Hash == h {
			return true
		}
	}
	return false
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
	hdr, err := db.hl.header(&h, noLimit)
	if err != nil {
		return nil, db.noteCorrupt(err)
	}
	db.cache.add(h, hdr)
	return hdr, nil
}

// HeaderBinary appends the binary form of header h to dst: the serving path for octet-stream and
// base64 responses. A cached header is re-encoded (a few dozen ns); otherwise the stored bytes
// are copied straight out of the log mapping, checked against their checksum and hash, and not
// decoded. Neither allocates when dst has room. On error dst is returned unchanged.
func (db *DB) HeaderBinary(dst []byte, h ledger.Hash) ([]byte, error) {
	if hdr := db.cache.get(h); hdr != nil {
		return hdr.AppendBinary(dst), nil
	}
	out, found, err := db.hl.read(dst, &h, noLimit)
	if err != nil {
		return dst, db.noteCorrupt(err)
	}
	if !found {
		return dst, headerNotFound(h)
	}
	return out, nil
}

// HasHeader reports whether header h is stored.
func (db *DB) HasHeader(h ledger.Hash) (bool, error) {
	if db.cache.contains(h) {
		return true, nil
	}
	ok, err := db.hl.has(&h)
	if err != nil {
		return false, db.noteCorrupt(fmt.Errorf("store: has header %s: %w", h, err))
	}
	return ok, nil
}

func headerNotFound(h ledger.Hash) error { return fmt.Errorf("header %s: %w", h, ErrNotFound) }

// header reads and decodes header h from the log (records ending at or before limit only),
// bypassing the cache.
func (hl *headerLog) header(h *ledger.Hash, limit uint64) (*ledger.Header, error) {
	buf := hl.readBuf()
	defer putReadBuf(buf)
	p, crc, off, err := hl.find(h, limit, buf)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, headerNotFound(*h)
	}
	return decodeVerified(p, crc, *h, off)
}

// headerAt reads and decodes the record at log offset off, which must be header h's.
func (hl *headerLog) headerAt(off uint64, h ledger.Hash) (*ledger.Header, error) {
	v := hl.view.Load()
	if v == nil {
		return nil, errClosed
	}
	buf := hl.readBuf()
	defer putReadBuf(buf)
	p, crc, ok, err := hl.recordIn(v, off, buf)
	if err != nil {
		return nil, err
	}
	if !ok || hashOf(p) != h {
		return nil, fmt.Errorf("%w: log offset %d does not hold header %s", errCorrupt, off, h)
	}
	return decodeVerified(p, crc, h, off)
}

// decodeVerified decodes record p straight out of the mapping (the decode is the copy; see
// verify). The checksum proves the bytes are what was written; decoding checks they were a
// header.
func decodeVerified(p []byte, crc uint32, h ledger.Hash, off uint64) (*ledger.Header, error) {
	hdr, derr := decodeCompact(p)
	var got ledger.Hash
	if derr == nil {
		got = hdr.Hash
	}
	if err := verify(p, crc, got, &h, off); err != nil && derr == nil {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("%w: header %s: %v", errCorrupt, h, derr)
	}
	return hdr, nil
}
