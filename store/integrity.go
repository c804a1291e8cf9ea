package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/comparer"
	lverrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// Integrity: what Open does with damage it finds, and what a read does with damage it meets.
//
// Open verifies every record of headers.log (crc32c at about 2 GB/s: 155 ms for a million
// headers in the page cache) unless Options.TrustCleanLog lets it skip what a clean index
// covers. The log is cut at the first record that is torn, malformed or fails its checksum:
// parents are always stored before their children, so what remains is a consistent store, and
// everything after the cut is saved in headers.log.damaged-<time> beside it first, so that an
// operator loses nothing a tool could still read. The hash index and the height index are then
// made to match the shorter log, and the node resumes from the best cut of what remains.
//
// A read that meets damaged data returns an error wrapping ErrCorrupt. The first one is logged
// (later ones are not: a damaged record read by every request would flood the log) and leaves a
// repair mark in goleveldb, so that the next Open rebuilds both indexes from the log whatever
// they claim (the same as a repair).

// damagedTail describes what Open cut off the header log.
type damagedTail struct {
	path   string // the file the cut-off bytes were saved to; "" when there were none
	bytes  uint64 // cut-off bytes, up to the last non-zero one
	intact uint64 // well-formed, checksummed records found past the damage
}

// saveDamagedTail saves the non-zero bytes of log past end (the end of the intact records) to a
// file beside the log, synced, and says what it saved. A log that ends cleanly (only zeros past
// end) saves nothing.
func saveDamagedTail(f *os.File, log []byte, end uint64) (damagedTail, error) {
	last := lastNonZero(f, log, end)
	if last <= end {
		return damagedTail{}, nil
	}
	t := damagedTail{bytes: last - end, intact: countIntact(log[:last], end)}
	dir := filepath.Dir(f.Name())
	name := fmt.Sprintf("%s.damaged-%s", logFileName, time.Now().UTC().Format("20060102T150405.000000000Z"))
	t.path = filepath.Join(dir, name)
	if err := writeSynced(t.path, log[end:last]); err != nil {
		return t, fmt.Errorf("store: save the damaged tail of %s before cutting it: %w", f.Name(), err)
	}
	if err := syncDir(dir); err != nil {
		return t, err
	}
	return t, nil
}

func writeSynced(path string, b []byte) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err = out.Write(b); err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// lastNonZero returns the offset just past the last non-zero byte of log at or after from, or
// from if there is none. It reads only the file's data extents (SEEK_DATA/SEEK_HOLE), so the
// sparse capacity past the records costs nothing; where the filesystem cannot tell, it reads it.
func lastNonZero(f *os.File, log []byte, from uint64) uint64 {
	const seekData, seekHole = 3, 4
	size := uint64(len(log))
	last := from
	// scan finds the last non-zero byte of log[a:b], comparing 64 KiB at a time with zeros
	// (a vectorised memcmp), so that a filesystem without SEEK_DATA costs little.
	zeros := make([]byte, 64<<10)
	scan := func(a, b uint64) {
		for b > a {
			c := max(a, b-min(b-a, uint64(len(zeros))))
			if bytes.Equal(log[c:b], zeros[:b-c]) {
				b = c
				continue
			}
			for i := b; i > c; i-- {
				if log[i-1] != 0 {
					last = max(last, i)
					return
				}
			}
		}
	}
	fd := int(f.Fd())
	for off := from; off < size; {
		d, err := syscall.Seek(fd, int64(off), seekData)
		if errors.Is(err, syscall.ENXIO) {
			break
		}
		if err != nil {
			scan(off, size)
			break
		}
		h, err := syscall.Seek(fd, d, seekHole)
		if err != nil || uint64(h) > size {
			h = int64(size)
		}
		if uint64(d) >= size {
			break
		}
		scan(max(uint64(d), from), uint64(h))
		off = uint64(h)
	}
	return last
}

// countIntact counts the well-formed, checksummed records in log past from, resynchronising
// after damage by trying every offset: a measure of what damage cut off, for the log line.
func countIntact(log []byte, from uint64) uint64 {
	n := uint64(0)
	for off := from; off+minRecord <= uint64(len(log)); {
		if binary.LittleEndian.Uint16(log[off:]) != 0 {
			if p, crc, ok := recordAt(log, off); ok && crc32.Checksum(p, castagnoli) == crc {
				n++
				off += recHeaderSize + uint64(len(p))
				continue
			}
		}
		off++
	}
	return n
}

// noteCorrupt passes err through; if it is the first damage a read met, it logs it and leaves
// the repair mark for the next Open. Reads call it on their error path only.
func (db *DB) noteCorrupt(err error) error {
	if err == nil || !errors.Is(err, ErrCorrupt) || !db.damaged.CompareAndSwap(false, true) {
		return err
	}
	db.lg.Error("store: damaged data; reads of it fail until the node restarts, which repairs the store "+
		"(or stop it and run `ledger-node check` and `ledger-node repair`)", "err", err)
	if merr := db.ldb.Put(repairKey, []byte(err.Error()), withSync); merr != nil {
		db.lg.Error("store: cannot leave the repair mark", "err", merr)
	}
	return err
}

// Damaged reports whether a read has met damaged data since Open.
func (db *DB) Damaged() bool { return db.damaged.Load() }

// ldbErr makes a goleveldb corruption error (a table or journal that fails its checksum, names
// its file) wrap ErrCorrupt as well, so that callers tell damage from other failures.
func ldbErr(err error) error {
	if err != nil && lverrors.IsCorrupted(err) && !errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return err
}

// RecoverLevelDB rebuilds goleveldb's manifest in dir from the table files it finds, keeping
// the rows of every readable table and journal (goleveldb's RecoverFile): the repair for a
// damaged, emptied or missing MANIFEST or CURRENT, or a damaged table. Nothing may hold dir.
func RecoverLevelDB(dir string) error {
	if err := isStoreDir(dir); err != nil {
		return err
	}
	// No Filter: goleveldb would build the rebuilt tables' bloom filters over internal keys
	// (the same slip as the comparer's, below), and Get, which tests user keys, would then miss
	// rows that are there. Tables without a filter are read without one.
	ldb, err := leveldb.RecoverFile(dir, &opt.Options{Comparer: recoveryComparer{}})
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EAGAIN):
		return fmt.Errorf("%w: %s (stop the node first)", ErrLocked, dir)
	case err != nil:
		return fmt.Errorf("store: recover goleveldb in %s: %w", dir, err)
	}
	return ldb.Close()
}

// Network returns the network the store is bound to (CheckVersion), or "" if none yet.
func (db *DB) Network() (string, error) {
	var rec networkRecord
	err := db.getRecord(metaKey(metaNetwork), "network", &rec)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	return rec.Name, err
}

// recoveryComparer is goleveldb's bytewise comparer (same name, same order) without key
// shortening. goleveldb's RecoverFile rebuilds a damaged table with the user comparer where its
// compactions use the internal-key one, so a shortened index separator ("\x03" between a
// 0x02 key and a 0x03 key) is no internal key, and the first read of that table panics.
// Without shortening, the separators are whole internal keys.
type recoveryComparer struct{}

func (recoveryComparer) Compare(a, b []byte) int           { return comparer.DefaultComparer.Compare(a, b) }
func (recoveryComparer) Name() string                      { return comparer.DefaultComparer.Name() }
func (recoveryComparer) Separator(dst, a, b []byte) []byte { return nil }
func (recoveryComparer) Successor(dst, b []byte) []byte    { return nil }

// isStoreDir refuses a directory that holds neither goleveldb's CURRENT nor a header log.
func isStoreDir(dir string) error {
	_, errCur := os.Stat(filepath.Join(dir, "CURRENT"))
	_, errLog := os.Stat(filepath.Join(dir, logFileName))
	if errCur != nil && errLog != nil {
		return fmt.Errorf("%w: %s", ErrNotAStore, dir)
	}
	return nil
}
