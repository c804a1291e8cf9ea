package store

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// Write faults and the write probe.
//
// A node whose disk fills up must stop writing, keep serving reads and resume by itself once
// writes succeed again (actors/writehealth.go). Tests cannot fill a real disk everywhere (CI may
// not allow mounting a small file system), so a fault can be injected instead: SetWriteFault
// makes every write entry point of the store (PutHeaders, PutBlock, PutPayload, SetHeads,
// and the Pact state's KeySpace.Write) fail with the given error
// until ClearWriteFault. Each entry point checks it in its first line, before anything is
// written, so an injected fault never leaves a partial write behind.
//
// The faults live in a package-level map rather than in DB so that the check stays a one-line
// addition to each entry point; activeFaults keeps the check to one atomic load when no fault
// is set, which is always outside tests.
var (
	faultsMu     sync.Mutex
	faults       = map[*DB]error{}
	activeFaults atomic.Int32
)

// SetWriteFault makes every write to db fail with an error wrapping err (syscall.ENOSPC, say)
// until ClearWriteFault. Reads are not affected.
func (db *DB) SetWriteFault(err error) {
	faultsMu.Lock()
	defer faultsMu.Unlock()
	if _, ok := faults[db]; !ok {
		activeFaults.Add(1)
	}
	faults[db] = err
}

// ClearWriteFault lets writes to db through again.
func (db *DB) ClearWriteFault() {
	faultsMu.Lock()
	defer faultsMu.Unlock()
	if _, ok := faults[db]; ok {
		delete(faults, db)
		activeFaults.Add(-1)
	}
}

// CheckWriteFault returns the injected write fault of db, wrapped, or nil. The store's write
// entry points call it first (KeySpace.Write included); so does the executor before it
// rewinds a chain's Pact state, whose rewind marks views stale before it writes.
func (db *DB) CheckWriteFault() error {
	if activeFaults.Load() == 0 {
		return nil
	}
	faultsMu.Lock()
	err := faults[db]
	faultsMu.Unlock()
	if err != nil {
		return fmt.Errorf("store: write: %w", err)
	}
	return nil
}

// probeKey holds the time of the last successful ProbeWrite. The probe needs a real write
// through goleveldb's journal, and a meta record of its own disturbs nothing.
var probeKey = metaKey("probe")

// ProbeWrite tells whether the store takes writes again after a write failure: it writes one
// small synced record. When that fails and the file system has room again, it makes goleveldb
// start a new journal file and tries once more, because goleveldb's journal writer keeps the
// first error it meets (a full disk) and fails every later write with it, even after space is
// freed, until the journal is rotated, which it otherwise does only when the memtable fills
// (and a failing write never fills it).
//
// The rotation is asked for by compacting the meta key space: goleveldb rotates the memtable
// (a new journal) when the range asked for overlaps it, and the meta records (the heads, the
// header log's end) are written with nearly every block, so the memtable almost always holds
// one. The compaction itself touches only the few tables holding meta records. Neither is tried
// while the disk is still full (less than probeRoom free): the new journal would fail at its
// first write, and with the memtable then empty, no later compaction would overlap it to rotate
// again.
// (OpenTransaction rotates too, but keeps goleveldb's write lock when the rotation fails.)
//
// What remains: a write failure that happens when the memtable is empty (right after goleveldb
// rotated it) leaves nothing to rotate, and only a restart clears it; so does an error the file
// system keeps returning with room free (EIO).
func (db *DB) ProbeWrite() error {
	if err := db.CheckWriteFault(); err != nil {
		return err
	}
	// A disk with a few KiB left takes the probe's few bytes, then fails the next block: the
	// probe passes only with room for more than itself.
	free, known := freeBytes(db.hl.dir)
	if known && free < probeRoom {
		return fmt.Errorf("store: probe: %d KiB free in %s: %w", free>>10, db.hl.dir, syscall.ENOSPC)
	}
	val := binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixMicro()))
	err := db.ldb.Put(probeKey, val, withSync)
	if err == nil {
		return nil
	}
	if cerr := db.ldb.CompactRange(util.Range{Start: []byte{tagMeta}, Limit: []byte{tagMeta + 1}}); cerr != nil {
		return fmt.Errorf("store: probe write: %w (and the compaction meant to restart the journal: %v)", err, cerr)
	}
	if err := db.ldb.Put(probeKey, val, withSync); err != nil {
		return fmt.Errorf("store: probe write: %w", err)
	}
	return nil
}

// probeRoom is the free space ProbeWrite wants before it restarts goleveldb's journal: room
// for the probe and the first blocks after it.
const probeRoom = 1 << 20

// freeBytes returns the space available to this process on dir's file system.
func freeBytes(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
