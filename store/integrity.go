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

	"github.com/ledgernode/ledger-node/store/internal/records"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/comparer"
	lverrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/table"
)

// Integrity: what Open does with damage it finds, and what a read does with damage it meets.
//
// Open verifies the records of headers.log that a cleanly closed index does not cover and the
// newest it covers (at most 64 MiB), and every record (crc32c at about 2 GB/s: 100 ms for a
// million headers in the page cache) after an unclean stop, a write to the log after the clean
// close, a read that met damage, or when asked (Options.VerifyWholeLog: check, repair); reads
// verify each record they use. Damage that headers.parity can rebuild (parity.go) is repaired in
// place first; otherwise the log is cut at the first record that is torn, malformed or
// fails its checksum: parents are always stored before their children, so what remains is a
// consistent store, and everything after the cut is saved in headers.log.damaged-<time>
// beside it first, so that an operator loses nothing a tool could still read. The hash index
// and the height index are then made to match the shorter log, and the node resumes from the
// best cut of what remains.
//
// A read that meets damaged data returns an error wrapping kv.ErrCorrupt. The first one is logged
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
	if err == nil || !errors.Is(err, errCorrupt) || !db.damaged.CompareAndSwap(false, true) {
		return err
	}
	db.lg.Error("store: damaged data; reads of it fail until the node restarts, which repairs the store "+
		"(or stop it and run `ledger-node check` and `ledger-node repair`)", "err", err)
	if merr := db.ldb.Put(repairKey, []byte(err.Error()), withSync); merr != nil {
		db.lg.Error("store: cannot leave the repair mark", "err", merr)
	}
	return err
}

// MarkLost records, synced, that the directory has lost data no repair brings back (what, as
// the check that found it says): `ledger-node repair` leaves it, and a node then refuses to
// start on the directory (LostMark) rather than serve and mine over the gap.
func (db *DB) MarkLost(what string) error {
	return db.ldb.Put(lostKey, []byte(what), withSync)
}

// LostMark is what MarkLost recorded, if anything.
func (db *DB) LostMark() (string, bool, error) {
	v, err := db.ldb.Get(lostKey, nil)
	switch {
	case errors.Is(err, leveldb.ErrNotFound):
		return "", false, nil
	case err != nil:
		return "", false, ldbErr(err)
	}
	return string(v), true, nil
}

// Damaged reports whether a read has met damaged data since Open.
func (db *DB) Damaged() bool { return db.damaged.Load() }

// ldbErr makes a goleveldb corruption error (a table or journal that fails its checksum, names
// its file) wrap kv.ErrCorrupt as well, so that callers tell damage from other failures.
func ldbErr(err error) error {
	if err != nil && lverrors.IsCorrupted(err) && !errors.Is(err, errCorrupt) {
		return fmt.Errorf("%w: %w", errCorrupt, err)
	}
	return err
}

// RecoverLevelDB rebuilds goleveldb's manifest in dir from the table files it finds, keeping
// the rows of every readable table and journal (goleveldb's RecoverFile): the repair for a
// damaged, emptied or missing MANIFEST or CURRENT, or a damaged table. A table with damaged
// blocks is first rebuilt from its readable rows (salvageTables), the damaged file kept beside
// it; notes say what was done to which table. Nothing may hold dir.
func RecoverLevelDB(dir string) (notes []string, err error) {
	if err := isStoreDir(dir); err != nil {
		return nil, err
	}
	// goleveldb's lock, held while the tables are salvaged: a running node must not have its
	// files rewritten under it.
	lock, err := storage.OpenFile(dir, false)
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EAGAIN):
		return nil, fmt.Errorf("%w: %s (stop the node first)", ErrLocked, dir)
	case err != nil:
		return nil, fmt.Errorf("store: recover goleveldb in %s: %w", dir, err)
	}
	notes, err = salvageTables(dir, time.Now())
	if cerr := lock.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return notes, err
	}
	return notes, recoverManifest(dir)
}

// recoverManifest is goleveldb's RecoverFile over dir's tables and journals.
func recoverManifest(dir string) error {
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
	var rec records.Network
	err := db.getRecord(metaKey(metaNetwork), "network", &rec)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	return rec.Name, err
}

// salvageTables rewrites every goleveldb table of dir that has damaged blocks from the rows its
// other blocks still hold, and sets aside a table it cannot read at all (its footer or index
// damaged); the damaged files stay beside them as NAME.damaged-<time>. goleveldb's RecoverFile
// would rebuild such a table itself, but it orders the rows with the user comparer where they
// are internal keys (user key, then sequence, newest first), so it fails on any table that
// holds two versions of a row ("keys are not in increasing order"): the heads record alone is
// written with every block.
func salvageTables(dir string, now time.Time) ([]string, error) {
	var paths []string
	for _, pat := range []string{"*.ldb", "*.sst"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		paths = append(paths, m...)
	}
	stamp := now.UTC().Format("20060102T150405")
	var notes []string
	for _, p := range paths {
		note, err := salvageTable(p, stamp)
		if err != nil {
			return notes, fmt.Errorf("store: salvage goleveldb table %s: %w", filepath.Base(p), err)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	return notes, nil
}

// salvageTable rebuilds one table from its readable rows if some of its blocks are damaged
// ("" if none is).
func salvageTable(path, stamp string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	aside := path + ".damaged-" + stamp
	// Checksums verified, but a damaged block skipped rather than ending the scan.
	ro := &opt.Options{Strict: opt.StrictBlockChecksum}
	tr, err := table.NewReader(f, st.Size(), storage.FileDesc{Type: storage.TypeTable}, nil, nil, ro)
	if err != nil {
		if !lverrors.IsCorrupted(err) {
			return "", err
		}
		if err := os.Rename(path, aside); err != nil {
			return "", err
		}
		return fmt.Sprintf("goleveldb table %s cannot be read (%v): set aside as %s; its rows are lost",
			filepath.Base(path), err, filepath.Base(aside)), nil
	}
	defer tr.Release()
	damaged, rows, err := scanTable(tr, nil)
	if err != nil || damaged == 0 {
		return "", err
	}
	tmp := path + ".salvage"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	tw := table.NewWriter(out, &opt.Options{Comparer: internalKeyComparer{}}, nil, 0)
	_, _, err = scanTable(tr, tw.Append)
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(path, aside)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return fmt.Sprintf("goleveldb table %s: %d damaged blocks; rebuilt from its %d readable rows (the damaged file kept as %s); "+
		"the rows of the damaged blocks are lost", filepath.Base(path), damaged, rows, filepath.Base(aside)), nil
}

// scanTable reads every readable row of a table (passing each to add, when set) and counts the
// damaged blocks it skipped.
func scanTable(tr *table.Reader, add func(k, v []byte) error) (damaged, rows int, err error) {
	it := tr.NewIterator(nil, nil)
	defer it.Release()
	if cb, ok := it.(iterator.ErrorCallbackSetter); ok {
		cb.SetErrorCallback(func(err error) {
			if lverrors.IsCorrupted(err) {
				damaged++
			}
		})
	}
	for it.Next() {
		k := it.Key()
		if len(k) < 8 || k[len(k)-8] > 1 {
			continue // not an internal key (the type byte is 0, deletion, or 1, value)
		}
		rows++
		if add != nil {
			if err := add(k, it.Value()); err != nil {
				return damaged, rows, err
			}
		}
	}
	if err := it.Error(); err != nil && !lverrors.IsCorrupted(err) {
		return damaged, rows, err
	}
	return damaged, rows, nil
}

// internalKeyComparer orders goleveldb's internal keys as its own tables do: by user key, then
// newest (highest sequence) first. Like recoveryComparer, it never shortens index keys.
type internalKeyComparer struct{}

func (internalKeyComparer) Compare(a, b []byte) int {
	if len(a) < 8 || len(b) < 8 {
		return bytes.Compare(a, b)
	}
	if c := bytes.Compare(a[:len(a)-8], b[:len(b)-8]); c != 0 {
		return c
	}
	na, nb := binary.LittleEndian.Uint64(a[len(a)-8:]), binary.LittleEndian.Uint64(b[len(b)-8:])
	switch {
	case na > nb:
		return -1
	case na < nb:
		return 1
	}
	return 0
}
func (internalKeyComparer) Name() string                      { return comparer.DefaultComparer.Name() }
func (internalKeyComparer) Separator(dst, a, b []byte) []byte { return nil }
func (internalKeyComparer) Successor(dst, b []byte) []byte    { return nil }

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
