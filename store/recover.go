package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/ledger"
)

// Open-time recovery across the two halves of the store: the header log (recovered by
// openHeaderLog) and goleveldb's height index, which are written one after the other and so can
// disagree after a crash.

// openHeaders opens and recovers the header log, then brings the height index in line with it.
// With repair set, or a repair mark left by a read that met damage (integrity.go), both indexes
// are rebuilt from the log.
func (db *DB) openHeaders(dir string, o logOptions, repair bool) error {
	indexed, err := db.indexedLogEnd()
	if err != nil {
		return err
	}
	mark, err := db.ldb.Get(repairKey, nil)
	switch {
	case err == nil:
		db.lg.Warn("store: a read met damaged data while the node ran; rebuilding the header and height indexes",
			"dir", dir, "damage", string(mark))
		repair = true
	case !errors.Is(err, leveldb.ErrNotFound):
		return fmt.Errorf("store: open: %w", ldbErr(err))
	}
	o.rebuildIndex = o.rebuildIndex || repair
	if db.hl, err = openHeaderLog(dir, indexed, o, db.lg); err != nil {
		return err
	}
	db.recovered = append(db.recovered, db.hl.parRepairs...)
	if cut := db.hl.cut; cut.bytes > 0 {
		db.recovered = append(db.recovered, fmt.Sprintf("headers.log cut at offset %d: %d bytes (%d intact records) after the first bad record saved to %s",
			db.hl.end.Load(), cut.bytes, cut.intact, cut.path))
	}
	if repair {
		// The mark goes in first, so a crash while the height index is half rebuilt repeats
		// the rebuild rather than leaving it half done.
		if mark == nil {
			mark = []byte("repair asked for")
			if err := db.ldb.Put(repairKey, mark, withSync); err != nil {
				return fmt.Errorf("store: open: %w", err)
			}
		}
		err = db.rebuildHeightIndex()
	} else {
		err = db.reconcileHeightIndex(indexed)
	}
	if err != nil {
		return err
	}
	if mark != nil {
		if err := db.ldb.Delete(repairKey, withSync); err != nil {
			return fmt.Errorf("store: open: clear the repair mark: %w", err)
		}
	}
	db.warnLostHeads()
	db.hl.dropLogPages()
	return nil
}

// Recovered lists what Open repaired in the store (empty when it found nothing to repair).
func (db *DB) Recovered() []string { return db.recovered }

// rebuildHeightIndex replaces the whole height index by entries for every record of the log.
// The repair mark, if any, is cleared only after it, so a crash midway repeats it.
func (db *DB) rebuildHeightIndex() error {
	b := new(leveldb.Batch)
	it := db.ldb.NewIterator(&util.Range{Start: []byte{tagHeight}, Limit: []byte{tagHeight + 1}}, nil)
	dropped := 0
	for it.Next() {
		b.Delete(it.Key())
		dropped++
		if b.Len() >= 10_000 {
			if err := db.ldb.Write(b, noSync); err != nil {
				it.Release()
				return fmt.Errorf("store: rebuild the height index: %w", err)
			}
			b.Reset()
		}
	}
	it.Release()
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: rebuild the height index: %w", ldbErr(err))
	}
	if err := db.ldb.Write(b, noSync); err != nil {
		return fmt.Errorf("store: rebuild the height index: %w", err)
	}
	if err := db.indexTail(logHeaderSize, db.hl.end.Load(), "store: rebuilt the height index from the header log"); err != nil {
		return err
	}
	db.recovered = append(db.recovered, fmt.Sprintf("header index and height index rebuilt from headers.log (%d height-index entries replaced)", dropped))
	return nil
}

// indexedLogEnd reads the logend meta record: the header-log length the height index covers
// (keys.go). A store that never stored a header has none.
func (db *DB) indexedLogEnd() (uint64, error) {
	v, err := db.ldb.Get(logEndKey, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: open: %w", ldbErr(err))
	}
	off, ok := parseLogOffset(v)
	if !ok {
		return 0, fmt.Errorf("%w: logend record of %d bytes", errCorrupt, len(v))
	}
	return off, nil
}

// reconcileHeightIndex makes the height index cover exactly the recovered log:
//
//   - The log is longer than the height index knows (the process died between a log append and
//     its goleveldb write, or a power cut kept the log's pages but not goleveldb's journal tail):
//     the records past the indexed end get their entries now. Only that tail is read.
//   - The log is shorter (a power cut lost log pages that goleveldb's journal kept, or the log was
//     damaged and its tail dropped): entries naming records that no longer exist are deleted.
//     That needs a scan of the whole height index, and happens only after such a loss; heads are
//     never affected, because the log is synced before any write of heads.
//
// Either way the logend record is then rewritten, synced, to the log's end.
func (db *DB) reconcileHeightIndex(indexed uint64) error {
	end := db.hl.end.Load()
	from := max(indexed, logHeaderSize)
	switch {
	case from == end:
		return nil
	case from < end:
		tops := map[ledger.ChainID]uint64{}
		if err := db.indexTailTops(from, end, "store: added height-index entries for header-log records written before a crash", tops); err != nil {
			return err
		}
		db.warnBeyondHeads(tops)
		return nil
	default:
		return db.dropLostEntries(from, end)
	}
}

// indexTail writes the height-index entries of the records in [from, end), and logs done.
func (db *DB) indexTail(from, end uint64, done string) error {
	return db.indexTailTops(from, end, done, nil)
}

// indexTailTops is indexTail that also records, in tops when given, each chain's highest
// block among the records.
func (db *DB) indexTailTops(from, end uint64, done string, tops map[ledger.ChainID]uint64) error {
	v := db.hl.view.Load()
	if from >= end {
		var val [8]byte
		binary.BigEndian.PutUint64(val[:], end)
		if err := db.ldb.Put(logEndKey, val[:], withSync); err != nil {
			return fmt.Errorf("store: open: %w", err)
		}
		return nil
	}
	b := new(leveldb.Batch)
	var hdr ledger.Header
	var val [8]byte
	n := 0
	err := scanRecords(v.log, from, end, func(off uint64, p []byte) error {
		if err := hdr.UnmarshalBinary(p); err != nil {
			return fmt.Errorf("%w: header log record at offset %d: %v", errCorrupt, off, err)
		}
		k := heightKey(hdr.ChainID, hdr.Height, hdr.Hash)
		binary.BigEndian.PutUint64(val[:], off)
		b.Put(k[:], val[:])
		if tops != nil {
			tops[hdr.ChainID] = max(tops[hdr.ChainID], hdr.Height)
		}
		n++
		if b.Len() >= 10_000 {
			if err := db.ldb.Write(b, noSync); err != nil {
				return err
			}
			b.Reset()
		}
		return nil
	})
	if err == nil {
		binary.BigEndian.PutUint64(val[:], end)
		b.Put(logEndKey, val[:])
		err = db.ldb.Write(b, withSync)
	}
	if err != nil {
		return fmt.Errorf("store: open: index header-log tail: %w", err)
	}
	db.lg.Info(done, "headers", n, "from", from, "to", end)
	return nil
}

// dropLostEntries deletes the height-index entries whose record is not in the log below end.
func (db *DB) dropLostEntries(indexed, end uint64) error {
	db.lg.Warn("store: the header log is shorter than the height index expects (lost in a power cut, or damaged); dropping index entries of the lost headers",
		"logEnd", end, "indexedEnd", indexed)
	v := db.hl.view.Load()
	b := new(leveldb.Batch)
	it := db.ldb.NewIterator(&util.Range{Start: []byte{tagHeight}, Limit: []byte{tagHeight + 1}}, nil)
	n := 0
	for it.Next() {
		_, _, h, ok := parseHeightKey(it.Key())
		off, ok2 := parseLogOffset(it.Value())
		if !ok || !ok2 {
			continue // malformed: not ours to judge here; ScanChain reports it
		}
		if p, _, found := recordAt(v.log, off); found && off+recHeaderSize+uint64(len(p)) <= end && hashOf(p) == h {
			continue
		}
		b.Delete(it.Key())
		n++
	}
	it.Release()
	err := ldbErr(it.Error())
	if err == nil {
		var val [8]byte
		binary.BigEndian.PutUint64(val[:], end)
		b.Put(logEndKey, val[:])
		err = db.ldb.Write(b, withSync)
	}
	if err != nil {
		return fmt.Errorf("store: open: drop lost height-index entries: %w", err)
	}
	db.lg.Warn("store: dropped height-index entries of lost headers", "entries", n)
	db.recovered = append(db.recovered, fmt.Sprintf("%d height-index entries of headers no longer in headers.log dropped", n))
	return nil
}

// warnLostHeads says so if a head names a header that is not stored. The sync rule (doc.go)
// makes that impossible short of damage to the log; the node then resumes from what it has.
// warnBeyondHeads says how many blocks left the cut when goleveldb lost writes the header log
// kept (a truncated journal): headers stored above the recorded heads, which no longer name
// them. The node resumes from the heads; those blocks are fetched or mined again.
func (db *DB) warnBeyondHeads(tops map[ledger.ChainID]uint64) {
	heads, err := db.Heads()
	if err != nil || len(heads) == 0 {
		return
	}
	left := uint64(0)
	var chains []ledger.ChainID
	for c, top := range tops {
		h, ok := heads[c]
		if !ok {
			continue
		}
		head, err := db.Header(h)
		if err != nil || top <= head.Height {
			continue
		}
		left += top - head.Height
		chains = append(chains, c)
	}
	if left > 0 {
		slices.Sort(chains)
		db.lg.Warn("store: blocks stored above the recorded heads left the cut: goleveldb lost the writes that made them heads "+
			"(a torn or truncated journal); the node resumes from the recorded heads, and fetches or mines them again",
			"blocksLeftCut", left, "chains", chains)
	}
}

func (db *DB) warnLostHeads() {
	heads, err := db.Heads()
	if err != nil {
		db.lg.Warn("store: cannot read heads", "err", err)
		return
	}
	lost := 0
	for c, h := range heads {
		if ok, err := db.HasHeader(h); !ok {
			lost++
			if db.hl.cut.bytes == 0 {
				db.lg.Error("store: a head names a header that is not stored", "chain", c, "hash", h.String(), "err", err)
			}
		}
	}
	if lost > 0 && db.hl.cut.bytes > 0 {
		// Expected after a cut: one line, not twenty.
		db.lg.Warn("store: heads name headers cut off with the damaged log; the node resumes from the best cut below them",
			"chains", lost)
	}
}
