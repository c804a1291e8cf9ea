package store

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
)

// The header log and its hash index: headers' own read-optimised storage beside goleveldb.
//
// A goleveldb Get costs 4–10 µs (lock, block read, decompression, restart-point search) even
// when the block is cached, which capped GET header/{hash} well below the target. Headers are
// immutable, fixed-size and looked up by a uniformly random hash, so they need neither ordering
// nor compaction: an append-only file of records plus an open-addressing table mapping a hash to
// a record's offset answers a lookup with two memory reads, and both files are memory-mapped so
// that a read makes no syscall and takes no lock.
//
// headers.log (append-only; bytes past the last record are zero):
//
//	0   magic "LNHDRLOG"
//	8   version u32 = 1
//	12  reserved u32
//	16  log id u64, random, chosen at creation: the index names the log it indexes
//	24  crc32c of bytes [0, 24) u32
//	28  reserved u32
//	32  records, back to back:
//	      u16  n, the header's binary length (210 + 36 × degree; 318 in production); 0 = end
//	      u32  crc32c (Castagnoli) of the n header bytes
//	      n    the header's binary form (ledger wire form; its last 32 bytes are its hash)
//
// The file is grown by doubling with ftruncate (sparse), so its size is a capacity and the
// records end at the first zero length. The checksum is what lets recovery tell a torn or lost
// tail (a power cut keeps page-cache writes in no particular order) from data, and lets every
// read detect damage instead of serving it.
//
// headers.idx (rebuildable from the log at any time):
//
//	page 0 (4096 bytes), of which:
//	0   magic "LNHDRIDX"
//	8   version u32 = 1
//	12  flags u32: bit 0 "clean", set only by Close after everything below was synced
//	16  slot count u64, a power of two
//	24  entries u64 (≤ slot count / 2, so probe sequences stay short)
//	32  covered u64: every record below this log offset has its slot on disk, and the slots
//	    naming them are exactly "entries" many
//	40  log id u64, copied from headers.log
//	48  crc32c of bytes [0, 48) u32
//	56  log mtime i64: the log's modification time (Unix ns) that Close set, 0 unless clean
//	64  crc32c of bytes [56, 64) u32 (added later: a header without it reads as mtime 0)
//	4096 slots, 16 bytes each: key u64, offset u64 (little-endian)
//
// A slot's key is the first 8 bytes of the block hash read as a little-endian u64, with 0
// mapped to 1 so that 0 marks an empty slot; its offset is the record's position in the log.
// Lookup probes linearly from slot key & (slots-1) until an empty slot; a slot with the right key
// names a candidate whose full 32-byte hash is compared, so two hashes sharing a prefix cost one
// extra comparison and are otherwise harmless.
//
// Concurrency: one writer at a time (mu) appends records with pwrite, then publishes each slot
// in its writable shared mapping of the index with two atomic stores, offset word first, key word
// second; readers load the key first and the offset second, so a reader that sees a key sees its
// offset, and the record it names was written before either. Readers see both files through
// read-only shared mappings (the same pages), which they load from an atomic pointer; they never
// lock and never make a syscall. Growth builds the bigger mapping beside the old one and
// swaps the pointer: the log by extending the file and mapping it again, the index by writing a
// table of twice the slots to a new file that is renamed over the old. Superseded mappings stay
// mapped until Close, since a reader may still be using them; each kind's superseded mappings
// add up to less than its final size (a geometric series), so the address space used is at most
// twice the log's size plus four times the index's (the index is mapped twice, for the writer and
// for readers). That is address space, not memory: the pages are the files' page cache, shared.
// Close retires every mapping (retireMapping).
//
// headers.parity (parity.go) protects the log: damage a read or Open meets is rebuilt from it.
//
// Recovery (Open): see openHeaderLog. Durability: doc.go.

const (
	logFileName = "headers.log"
	idxFileName = "headers.idx"

	logMagic      = "LNHDRLOG"
	logVersion    = 1
	logHeaderSize = 32

	recHeaderSize = 6 // u16 length, u32 checksum
	minRecPayload = 210
	maxRecPayload = 208 + 2 + 36*ledger.MaxAdjacents
	minRecord     = recHeaderSize + minRecPayload

	idxMagic      = "LNHDRIDX"
	idxVersion    = 1
	idxHeaderSize = pageSize
	idxFlagClean  = 1
	slotSize      = 16

	// Defaults for a new store: 1 MiB of index (32k headers before the first growth) and 16 MiB
	// of sparse log.
	defaultIndexSlots = 1 << 16
	defaultLogCap     = 16 << 20
	minIndexSlots     = 2
)

// These mirror ledger's binary layout; init fails loudly if ledger ever changes it.
func init() {
	if ledger.SizeForDegree(0) != minRecPayload || ledger.SizeForDegree(ledger.MaxAdjacents) != maxRecPayload {
		panic("store: header record bounds do not match ledger's binary layout")
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errClosed is returned by every call on a closed store.
var errClosed = errors.New("store: closed")

// logView is one consistent set of mappings, immutable once published.
type logView struct {
	log   []byte   // read-only mapping of the whole log file (its capacity, not just its records)
	slots []uint64 // the index's slot words: slots[2i] key, slots[2i+1] log offset
	mask  uint64   // slot count - 1
}

// headerLog owns headers.log and headers.idx.
type headerLog struct {
	view atomic.Pointer[logView] // nil once closed
	_    [56]byte                // every read loads view: keep the writer's fields off its line
	end  atomic.Uint64           // log offset just past the last complete record

	// fd is the log's descriptor for pread (recordIn), -1 where there is none (check's
	// reader); mapLimit is the log size up to which reads use the mapping instead.
	fd       int
	mapLimit uint64

	mu      sync.Mutex // the writer: appends, slot inserts, growth, checkpoints
	dir     string
	lg      *slog.Logger
	log     *os.File
	logCap  uint64 // size of the log file, all of it mapped by the current view
	idx     *os.File
	idxMap  []byte // the writer's mapping of the current index (writable), header page included
	entries uint64
	// indexed is the log offset below which every record has its slot: the "covered" mark a
	// checkpoint may write. It advances only over contiguous records, so a failed insert leaves
	// it behind the gap for good and the next Open re-indexes from there.
	indexed  uint64
	id       uint64
	minSlots uint64
	maps     [][]byte // every mapping made, current ones included; retired by Close
	enc      []byte   // scratch: the records of one append
	buf      recBuf   // scratch: a record the writer reads (commit's lookups)
	fresh    []*ledger.Header
	// unindexed holds the height-index entries of records whose goleveldb batch failed (a full
	// disk): the records are in the log and the hash index, so a retry of the same block skips
	// them, and a later batch moves the log end goleveldb records past them, so Open would not
	// index them either. Every later batch carries these entries until one lands.
	unindexed []pendingEntry

	syncMu sync.Mutex // serialises log fsyncs; taken after mu when both are held
	synced uint64     // log prefix known to be on disk

	cut damagedTail // what Open cut off the log, if anything
	// par is headers.parity (parity.go), kept with the log's appends and syncs; parRepairs
	// says what Open repaired from it.
	par        *parity
	parRepairs []string
	// parSyncedAt is when syncLog last made the parity durable (paritySyncInterval).
	parSyncedAt time.Time
}

// logOptions are Open's knobs for the log: tests start tiny so that growth happens often.
type logOptions struct {
	indexSlots uint64
	logCap     uint64
	// verifyAll verifies every record, even those a clean index covers (Options.VerifyWholeLog).
	verifyAll bool
	// mapLimit is the log size past which reads use pread instead of the mapping (recordIn).
	mapLimit uint64
	// rebuildIndex builds headers.idx from the log whatever its state (a repair).
	rebuildIndex bool
	// truncate replaces File.Truncate in recovery (tests make it fail); nil is File.Truncate.
	truncate func(f *os.File, size int64) error
	// noParity leaves headers.parity alone (benchmarks' baseline).
	noParity bool
}

// slotKey is the index key of hash h.
func slotKey(h *ledger.Hash) uint64 {
	k := binary.LittleEndian.Uint64(h[:8])
	if k == 0 {
		k = 1
	}
	return k
}

// recordAt bounds-checks the record at off in log and returns its header bytes (a slice of log)
// and checksum; ok is false if no well-formed record starts there. It never panics, whatever
// off and the bytes hold.
func recordAt(log []byte, off uint64) (p []byte, crc uint32, ok bool) {
	size := uint64(len(log))
	if off < logHeaderSize || size < recHeaderSize || off > size-recHeaderSize {
		return nil, 0, false
	}
	n := uint64(binary.LittleEndian.Uint16(log[off:]))
	end := off + recHeaderSize + n
	if n < minRecPayload || n > maxRecPayload || end > size {
		return nil, 0, false
	}
	p = log[off+recHeaderSize : end : end]
	if ledger.SizeForDegree(int(binary.LittleEndian.Uint16(p[48:]))) != int(n) {
		return nil, 0, false
	}
	return p, binary.LittleEndian.Uint32(log[off+2:]), true
}

// hashOf is the block hash at the end of a header's binary form (len(p) >= minRecPayload).
func hashOf(p []byte) ledger.Hash { return ledger.Hash(p[len(p)-ledger.HashSize:]) }

// appendRecord appends h's log record to enc.
func appendRecord(enc []byte, h *ledger.Header) []byte {
	start := len(enc)
	enc = append(enc, make([]byte, recHeaderSize)...)
	enc = h.AppendBinary(enc)
	p := enc[start+recHeaderSize:]
	binary.LittleEndian.PutUint16(enc[start:], uint16(len(p)))
	binary.LittleEndian.PutUint32(enc[start+2:], crc32.Checksum(p, castagnoli))
	return enc
}

// recBuf receives a record read with pread (recordIn): room for a log header in front, so that
// recordAt can check it as it checks a mapping, then the largest record.
type recBuf [logHeaderSize + recHeaderSize + maxRecPayload]byte

// commonRecord is the size of a record of the usual degree (3): what recordIn reads first.
var commonRecord = recHeaderSize + ledger.SizeForDegree(3)

// recBufs recycles recBufs: a record's bytes reach crc32, which escape analysis cannot see
// through, so a buffer on a reader's stack would be a heap allocation per read.
var recBufs = sync.Pool{New: func() any { return new(recBuf) }}

// readBuf returns a buffer for recordIn when reads use pread, else nil (reads then use the
// mapping and need none). Callers give it back with putReadBuf once done with the record.
func (hl *headerLog) readBuf() *recBuf {
	if hl.fd < 0 || hl.end.Load() <= hl.mapLimit {
		return nil
	}
	return recBufs.Get().(*recBuf)
}

func putReadBuf(b *recBuf) {
	if b != nil {
		recBufs.Put(b)
	}
}

// recordIn returns the record at off and its checksum: read with pread into buf when the log is
// past the size below which reads go through the mapping (mapLimit) and buf is not nil, else a
// slice of v's mapping (or of the current view's, for a record appended after v's log grew).
//
// Why pread past a size: each fault on the mapping maps the whole folio around the page read,
// often megabytes, so random reads of a large log soon count all of it in the process's resident
// set (1,000 reads of a 4M-header log mapped 850 MiB; BenchmarkServeMemoryScale), and a
// read of an evicted page blocks its OS thread and Go P for the disk. A pread costs a syscall
// (about 0.3 µs more than a copy from the mapping) but maps nothing and lets the scheduler run
// other goroutines while it waits. While the log is small, the mapping is the faster path.
func (hl *headerLog) recordIn(v *logView, off uint64, buf *recBuf) (p []byte, crc uint32, ok bool, err error) {
	if buf == nil || hl.fd < 0 || hl.end.Load() <= hl.mapLimit {
		if p, crc, ok = recordAt(v.log, off); !ok {
			if nv := hl.view.Load(); nv != nil && len(nv.log) > len(v.log) {
				p, crc, ok = recordAt(nv.log, off)
			}
		}
		return p, crc, ok, nil
	}
	// First the usual size; a record of a higher degree needs the rest.
	n, rerr := syscall.Pread(hl.fd, buf[logHeaderSize:logHeaderSize+commonRecord], int64(off))
	if rerr == nil && n >= recHeaderSize {
		if size := recHeaderSize + int(binary.LittleEndian.Uint16(buf[logHeaderSize:])); size > n && size <= recHeaderSize+maxRecPayload {
			var m int
			m, rerr = syscall.Pread(hl.fd, buf[logHeaderSize+n:logHeaderSize+size], int64(off)+int64(n))
			n += m
		}
	}
	// Close marks the view nil before it closes the file: a pread that raced it may have read
	// a descriptor reused by another file.
	if hl.view.Load() == nil {
		return nil, 0, false, errClosed
	}
	if rerr != nil || n < recHeaderSize {
		return nil, 0, false, nil
	}
	p, crc, ok = recordAt(buf[:logHeaderSize+n], logHeaderSize)
	return p, crc, ok, nil
}

// recentVerify bounds what a clean start verifies of the records its index covers: the newest
// eighth of them, at most this many bytes (about 200,000 headers, some 10,000 blocks per
// chain): a start reads the heads and the blocks below them first, and a bounded scan keeps
// its cost flat (about 15 ms in the page cache).
const recentVerify = 64 << 20

// recentStart returns where a clean start begins verifying the log whose clean index has the
// given slots and covers covered bytes (recentVerify): the lowest record boundary that a slot
// names in the newest eighth of the covered records, at most recentVerify bytes below covered.
// A candidate counts only if it holds an intact record whose hash has the slot's key, so a
// damaged slot cannot start the scan inside a record. The slots are read from the start
// until 4096 of them have been read and a candidate found; covered if none is. Check
// (startSkips) calls it with the same files, so it knows exactly what a start skips.
func recentStart(log []byte, slots []uint64, covered uint64) uint64 {
	window := min(uint64(recentVerify), (covered-logHeaderSize)/8)
	best := covered
	if window == 0 {
		return best
	}
	lo := covered - window
	for i := 0; i+1 < len(slots); i += 2 {
		if best < covered && i >= 2*4096 {
			break
		}
		k, off := slots[i], slots[i+1]
		if k == 0 || off < lo || off >= best {
			continue
		}
		p, crc, ok := recordAt(log, off)
		if !ok || off+recHeaderSize+uint64(len(p)) > covered || crc32.Checksum(p, castagnoli) != crc {
			continue
		}
		if h := hashOf(p); slotKey(&h) == k {
			best = off
		}
	}
	return best
}

// recentStartOf is recentStart for the index file f with header ih.
func recentStartOf(f *os.File, ih idxHeader, log []byte) (uint64, error) {
	if ih.covered > uint64(len(log)) {
		return ih.covered, nil
	}
	m, err := mapFile(f, idxHeaderSize+ih.slots*slotSize, false)
	if err != nil {
		return 0, err
	}
	defer syscall.Munmap(m)
	return recentStart(log, words(m[idxHeaderSize:]), ih.covered), nil
}

// dropLogPages drops the log mapping's pages from the process (not from the page cache): a
// recovery that scanned or indexed the log through it (after an unclean stop, a repair) would
// otherwise leave all of it in the resident set of a node that then reads with pread. Open
// calls it before anything can read; a read racing it would only fault the page in again.
func (hl *headerLog) dropLogPages() {
	if v := hl.view.Load(); v != nil {
		syscall.Madvise(v.log, syscall.MADV_DONTNEED)
	}
}

// locate probes v for h and returns its record's bytes and checksum, or p == nil if h is not
// indexed. The bytes are in buf or in a mapping (recordIn): copy before use, then verify,
// since only a copy of a mapping is stable.
func (hl *headerLog) locate(v *logView, h *ledger.Hash, buf *recBuf) (p []byte, crc uint32, off uint64, err error) {
	key := slotKey(h)
	for i, n := key&v.mask, uint64(0); n <= v.mask; i, n = (i+1)&v.mask, n+1 {
		k := atomic.LoadUint64(&v.slots[2*i])
		if k == 0 {
			return nil, 0, 0, nil
		}
		if k != key {
			continue
		}
		off = atomic.LoadUint64(&v.slots[2*i+1])
		// The slot may be newer than v: a record appended after the log grew lies past v's
		// mapping, and the current view maps it (recordIn).
		var ok bool
		if p, crc, ok, err = hl.recordIn(v, off, buf); err != nil {
			return nil, 0, 0, err
		} else if !ok {
			return nil, 0, off, fmt.Errorf("%w: header index names log offset %d for %s, which holds no record",
				errCorrupt, off, h.String())
		}
		if hashOf(p) == *h {
			return p, crc, off, nil
		}
		// Another header whose hash shares the first 8 bytes, or a record whose hash bytes are
		// damaged. Collisions are rare enough to afford telling the two apart.
		if crc32.Checksum(p, castagnoli) != crc {
			return nil, 0, off, fmt.Errorf("%w: log record at offset %d, indexed for %s, fails its checksum", errCorrupt, off, h.String())
		}
	}
	return nil, 0, 0, fmt.Errorf("%w: header index has no free slot", errCorrupt)
}

// read appends the stored bytes of header h to dst, considering only records that end at or
// before limit (a snapshot's log length). found is false if h is not stored (within limit).
func (hl *headerLog) read(dst []byte, h *ledger.Hash, limit uint64) (out []byte, found bool, err error) {
	buf := hl.readBuf()
	defer putReadBuf(buf)
	p, crc, off, err := hl.find(h, limit, buf)
	if err != nil || p == nil {
		return dst, false, err
	}
	start := len(dst)
	dst = append(dst, p...)
	if err := verify(p, crc, hashOf(dst[start:]), h, off); err != nil {
		return dst[:start], false, err
	}
	return dst, true, nil
}

// find locates header h's record among those ending at or before limit; p is nil if there is
// none. p is in buf or a slice of a mapping: copy it, then verify.
func (hl *headerLog) find(h *ledger.Hash, limit uint64, buf *recBuf) (p []byte, crc uint32, off uint64, err error) {
	v := hl.view.Load()
	if v == nil {
		return nil, 0, 0, errClosed
	}
	p, crc, off, err = hl.locate(v, h, buf)
	if err != nil || p == nil || off+recHeaderSize+uint64(len(p)) > limit {
		return nil, 0, 0, err
	}
	return p, crc, off, nil
}

// verify is called after a copy of record p was taken (its bytes appended somewhere, or decoded):
// p must still match its checksum and the copy's hash must be h. (When p was read with pread,
// it is itself a stable copy.) The checksum is computed over the mapping, not the copy, because a mapping's bytes only ever change one way, to zeros (Close,
// see retireMapping): a source that verifies after the copy was intact during it, so the copy is
// exactly what was written. (It also keeps a caller's stack buffer off the heap: crc32 hides
// its argument from escape analysis.)
func verify(p []byte, crc uint32, copied ledger.Hash, h *ledger.Hash, off uint64) error {
	if crc32.Checksum(p, castagnoli) != crc {
		return fmt.Errorf("%w: header %s: log record at offset %d fails its checksum", errCorrupt, h.String(), off)
	}
	if copied != *h {
		return fmt.Errorf("%w: header %s: log record at offset %d changed while read", errCorrupt, h.String(), off)
	}
	return nil
}

// has reports whether h is indexed.
func (hl *headerLog) has(h *ledger.Hash) (bool, error) {
	v := hl.view.Load()
	if v == nil {
		return false, errClosed
	}
	buf := hl.readBuf()
	defer putReadBuf(buf)
	p, _, _, err := hl.locate(v, h, buf)
	return p != nil, err
}

// writeLocked appends the encoded records enc at the end of the log, growing the file first if
// they do not fit, and publishes the new end. It returns where they start. Callers hold mu and
// publish the records' slots afterwards.
func (hl *headerLog) writeLocked(enc []byte) (base uint64, err error) {
	base = hl.end.Load()
	need := base + uint64(len(enc))
	if need > hl.logCap {
		if err := hl.growLogLocked(need); err != nil {
			return 0, err
		}
	}
	if _, err := hl.log.WriteAt(enc, int64(base)); err != nil {
		return 0, fmt.Errorf("store: append to header log: %w", err)
	}
	// Before the end is published, so that a sync that sees the new end syncs their parity too.
	if hl.par != nil {
		hl.par.add(base, enc)
	}
	// Published before the slots so that a failure while indexing cannot let the next append
	// overwrite records some slot already names; unindexed records are indexed at the next Open.
	hl.end.Store(need)
	return base, nil
}

// growLogLocked extends the log file to hold need bytes (at least doubling it) and publishes a
// view mapping all of it.
func (hl *headerLog) growLogLocked(need uint64) error {
	newCap := max(2*hl.logCap, roundUpPage(need))
	if err := hl.log.Truncate(int64(newCap)); err != nil {
		return fmt.Errorf("store: grow header log: %w", err)
	}
	if hl.par != nil {
		if err := hl.par.grow(newCap); err != nil {
			return err
		}
	}
	m, err := mapFile(hl.log, newCap, false)
	if err != nil {
		return err
	}
	hl.maps = append(hl.maps, m)
	v := hl.view.Load()
	hl.view.Store(&logView{log: m, slots: v.slots, mask: v.mask})
	hl.logCap = newCap
	return nil
}

// insertLocked publishes the slot of the record of size bytes just written at off, growing the
// index first if it would pass half full.
func (hl *headerLog) insertLocked(key, off, size uint64) error {
	v := hl.view.Load()
	if 2*(hl.entries+1) > v.mask+1 {
		if err := hl.growIndexLocked(); err != nil {
			return err
		}
		v = hl.view.Load()
	}
	if !insertSlot(words(hl.idxMap[idxHeaderSize:]), v.mask, key, off) {
		return fmt.Errorf("%w: header index has no free slot", errCorrupt)
	}
	hl.entries++
	if hl.indexed == off {
		hl.indexed = off + size
	}
	return nil
}

// insertSlot publishes (key, off) in the first free slot of key's probe sequence.
func insertSlot(w []uint64, mask, key, off uint64) bool {
	for i, n := key&mask, uint64(0); n <= mask; i, n = (i+1)&mask, n+1 {
		if atomic.LoadUint64(&w[2*i]) == 0 {
			atomic.StoreUint64(&w[2*i+1], off) // offset first: see the file comment
			atomic.StoreUint64(&w[2*i], key)
			return true
		}
	}
	return false
}

// growIndexLocked replaces the index with one of twice the slots. Readers keep probing the old
// table until they load the new view; the old table is complete for everything published before
// the swap, and nothing is published into it after.
func (hl *headerLog) growIndexLocked() error {
	// Sync the log first, so the new file's "covered" mark never runs ahead of the log on disk
	// and a power cut after growth only re-indexes the tail.
	if err := hl.syncLog(); err != nil {
		return err
	}
	v := hl.view.Load()
	f, m, n, err := hl.buildIndex(2*(v.mask+1), v.slots, math.MaxUint64, v.log, hl.indexed, hl.indexed)
	if err != nil {
		return err
	}
	old := hl.idx
	if err := hl.installIndex(f, m, v.log); err != nil {
		syscall.Munmap(m)
		f.Close()
		return err
	}
	old.Close() // its mappings stay valid for readers still on the old view
	hl.entries = n
	return nil
}

// installIndex makes f, mapped writable at rw, the current index and publishes it. Readers get a
// read-only mapping of it (the same pages): only the writer can store into the table.
func (hl *headerLog) installIndex(f *os.File, rw, log []byte) error {
	ro, err := mapFile(f, uint64(len(rw)), false)
	if err != nil {
		return err
	}
	hl.idx, hl.idxMap = f, rw
	hl.maps = append(hl.maps, rw, ro)
	hl.view.Store(&logView{log: log, slots: words(ro[idxHeaderSize:]), mask: uint64(len(ro)-idxHeaderSize)/slotSize - 1})
	return nil
}

// buildIndex writes a new headers.idx holding the slots of old whose offset is below keepBelow
// and then a slot for every record of log in [from, end), with at least minSlots slots and at
// most half of them used. It fsyncs the file and renames it over the current one, so a crash
// leaves either index, whole. It returns the file, its writable mapping and the entry count.
// The new file covers end.
func (hl *headerLog) buildIndex(minSlots uint64, old []uint64, keepBelow uint64, log []byte, from, end uint64) (*os.File, []byte, uint64, error) {
	kept := countSlotsBelow(old, keepBelow)
	need := kept + (end-from)/minRecord + 1 // the log term is an upper bound: records are at least minRecord
	slots := max(minSlots, hl.minSlots, minIndexSlots)
	for slots/2 < need {
		slots *= 2
	}
	path := filepath.Join(hl.dir, idxFileName)
	tmp := path + ".tmp"
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("store: build header index: %w", err)
	}
	ok := false
	var m []byte
	defer func() {
		if !ok {
			if m != nil {
				syscall.Munmap(m)
			}
			f.Close()
			os.Remove(tmp)
		}
	}()
	size := idxHeaderSize + slots*slotSize
	// Allocate the blocks now: the table is written through a shared mapping, and a store into a
	// sparse page on a full disk raises SIGBUS instead of returning an error. Filesystems without
	// fallocate get a sparse file.
	if err := syscall.Fallocate(int(f.Fd()), 0, 0, int64(size)); err != nil && !errors.Is(err, syscall.EOPNOTSUPP) {
		return nil, nil, 0, fmt.Errorf("store: build header index: allocate %d bytes: %w", size, err)
	}
	if err := f.Truncate(int64(size)); err != nil {
		return nil, nil, 0, fmt.Errorf("store: build header index: %w", err)
	}
	if m, err = mapFile(f, size, true); err != nil {
		return nil, nil, 0, err
	}
	w, mask := words(m[idxHeaderSize:]), slots-1
	for i := 0; i+1 < len(old); i += 2 {
		if k, off := atomic.LoadUint64(&old[i]), atomic.LoadUint64(&old[i+1]); k != 0 && off < keepBelow {
			insertSlot(w, mask, k, off)
		}
	}
	n := kept
	err = scanRecords(log, from, end, func(off uint64, p []byte) error {
		h := hashOf(p)
		key := slotKey(&h)
		for i := key & mask; ; i = (i + 1) & mask { // terminates: at most half the slots are used
			k := w[2*i]
			if k == 0 {
				w[2*i], w[2*i+1] = key, off
				n++
				return nil
			}
			if k == key {
				// Index each header once, at its first record: a second record of the same
				// header (a re-put after a lost tail) is unreachable but harmless.
				if q, _, ok := recordAt(log, w[2*i+1]); ok && hashOf(q) == h {
					return nil
				}
			}
		}
	})
	if err != nil {
		return nil, nil, 0, err
	}
	putIdxHeader(m, idxHeader{slots: slots, entries: n, covered: end, logID: hl.id})
	if err := f.Sync(); err != nil {
		return nil, nil, 0, fmt.Errorf("store: sync header index: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, nil, 0, fmt.Errorf("store: install header index: %w", err)
	}
	if err := syncDir(hl.dir); err != nil {
		return nil, nil, 0, err
	}
	ok = true
	return f, m, n, nil
}

// countSlotsBelow counts the used slots of w whose offset is below limit.
func countSlotsBelow(w []uint64, limit uint64) uint64 {
	n := uint64(0)
	for i := 0; i+1 < len(w); i += 2 {
		if k, off := atomic.LoadUint64(&w[i]), atomic.LoadUint64(&w[i+1]); k != 0 && off < limit {
			n++
		}
	}
	return n
}

// scanRecords calls fn for each record in [from, end) of log, which must all be well-formed.
func scanRecords(log []byte, from, end uint64, fn func(off uint64, p []byte) error) error {
	for off := from; off < end; {
		p, _, ok := recordAt(log, off)
		if !ok || off+recHeaderSize+uint64(len(p)) > end {
			return fmt.Errorf("%w: header log: no record at offset %d", errCorrupt, off)
		}
		if err := fn(off, p); err != nil {
			return err
		}
		off += recHeaderSize + uint64(len(p))
	}
	return nil
}

// scanLog returns the offset just past the last intact record at or after from: where the log
// really ends. torn is true if it ends at something other than a zero length (a record cut short
// by a crash, or damaged).
func scanLog(log []byte, from uint64) (end uint64, torn bool) {
	end, torn, _ = scanLogCount(log, from)
	return end, torn
}

// scanLogCount is scanLog that also counts the intact records.
func scanLogCount(log []byte, from uint64) (end uint64, torn bool, records uint64) {
	return scanLogEach(log, from, nil)
}

// scanLogEach is scanLogCount calling each (if not nil) with every intact record.
func scanLogEach(log []byte, from uint64, each func(off uint64, p []byte)) (end uint64, torn bool, records uint64) {
	off := from
	for off+recHeaderSize <= uint64(len(log)) && binary.LittleEndian.Uint16(log[off:]) != 0 {
		p, crc, ok := recordAt(log, off)
		if !ok || crc32.Checksum(p, castagnoli) != crc {
			return off, true, records
		}
		if each != nil {
			each(off, p)
		}
		off += recHeaderSize + uint64(len(p))
		records++
	}
	if off < uint64(len(log)) && off+recHeaderSize > uint64(len(log)) {
		// Fewer bytes left than a record header: torn unless they are zeros.
		for _, b := range log[off:] {
			if b != 0 {
				return off, true, records
			}
		}
	}
	return off, false, records
}

// syncLog makes every published record durable.
func (hl *headerLog) syncLog() error {
	hl.syncMu.Lock()
	defer hl.syncMu.Unlock()
	e := hl.end.Load()
	if e <= hl.synced {
		return nil
	}
	if hl.par != nil && time.Since(hl.parSyncedAt) >= paritySyncInterval {
		// Both files at once: the filesystem commits them together, where one after the
		// other cost a second journal commit per heads write (BenchmarkSyncedAppend).
		return hl.syncBothLocked(e)
	}
	if err := hl.log.Sync(); err != nil {
		return fmt.Errorf("store: sync header log: %w", err)
	}
	hl.synced = e
	return nil
}

// checkpointLocked makes the whole index durable and marks it as covering the whole log; with
// clean set (Close) the next Open trusts it as it is.
func (hl *headerLog) checkpointLocked(clean bool) error {
	if err := hl.syncLog(); err != nil {
		return err
	}
	// Slots first, header second: the header must never claim slots that are not on disk.
	if err := hl.idx.Sync(); err != nil {
		return fmt.Errorf("store: sync header index: %w", err)
	}
	h := idxHeader{slots: uint64(len(hl.idxMap)-idxHeaderSize) / slotSize, entries: hl.entries,
		covered: hl.indexed, logID: hl.id}
	if clean {
		h.flags = idxFlagClean
		h.logMtime = hl.stampLog()
	}
	putIdxHeader(hl.idxMap, h)
	if err := hl.idx.Sync(); err != nil {
		return fmt.Errorf("store: sync header index: %w", err)
	}
	if h.logMtime != 0 {
		// The index gets the same time last, after its last write (cleanLogOf). A failure
		// only costs the next Open a full verification.
		t := time.Unix(0, h.logMtime)
		os.Chtimes(filepath.Join(hl.dir, idxFileName), t, t)
	}
	return nil
}

// stampLog sets the log's modification time to a second ago and returns it as stored (the
// filesystem may round it), for the clean index to record (cleanLogOf). It returns 0 if that
// fails: the next Open then verifies the whole log, as after an unclean stop.
func (hl *headerLog) stampLog() int64 {
	if err := os.Chtimes(filepath.Join(hl.dir, logFileName), time.Time{}, time.Now().Add(-time.Second)); err != nil {
		return 0
	}
	st, err := hl.log.Stat()
	if err != nil {
		return 0
	}
	return st.ModTime().UnixNano()
}

// close checkpoints and releases both files. Mappings are retired, not unmapped (see
// retireMapping), so a read racing Close fails instead of crashing. Calling it again is harmless.
func (hl *headerLog) close() error {
	hl.mu.Lock()
	defer hl.mu.Unlock()
	if hl.view.Load() == nil {
		return nil
	}
	err := hl.checkpointLocked(true)
	if hl.par != nil {
		// Clean only if the checkpoint succeeded: otherwise the next Open recomputes the
		// parity past the last sync's mark.
		if err == nil {
			err = hl.par.closeClean(hl.end.Load())
		} else {
			hl.par.release()
		}
	}
	hl.view.Store(nil)
	for _, m := range hl.maps {
		if rerr := retireMapping(m); err == nil {
			err = rerr
		}
	}
	hl.maps = nil
	hl.log.Close()
	hl.idx.Close()
	return err
}

// idxHeader is the decoded header page of headers.idx.
type idxHeader struct {
	flags   uint32
	slots   uint64
	entries uint64
	covered uint64
	logID   uint64
	// logMtime is the log's modification time (Unix ns) when Close marked the index clean;
	// 0 when not clean (cleanLogOf).
	logMtime int64
	// fileMtime is the index file's own modification time (not part of the page).
	fileMtime int64
}

// cleanLogOf says whether a clean index with header ih vouches for the log whose file info is
// log, and for its own slots, so that Open need read neither: Close marked it clean, and
// neither file has been modified since. Close sets the log's modification time to a second in
// the past, records it in the index's header, and gives the index the same time after its last
// write (checkpointLocked); any later write to either file (dd, an editor, a copy over it)
// stamps the present, which differs even by the kernel's coarse clock or on a filesystem that
// keeps whole seconds. Damage that changes no time (a bad sector, a flipped bit) is met by the
// reads instead, which verify every record they use.
func cleanLogOf(ih idxHeader, log os.FileInfo) bool {
	return ih.flags&idxFlagClean != 0 && ih.logMtime != 0 && log.ModTime().UnixNano() == ih.logMtime &&
		ih.fileMtime == ih.logMtime
}

func putIdxHeader(m []byte, h idxHeader) {
	copy(m[0:8], idxMagic)
	binary.LittleEndian.PutUint32(m[8:], idxVersion)
	binary.LittleEndian.PutUint32(m[12:], h.flags)
	binary.LittleEndian.PutUint64(m[16:], h.slots)
	binary.LittleEndian.PutUint64(m[24:], h.entries)
	binary.LittleEndian.PutUint64(m[32:], h.covered)
	binary.LittleEndian.PutUint64(m[40:], h.logID)
	binary.LittleEndian.PutUint32(m[48:], crc32.Checksum(m[:48], castagnoli))
	// Added after version 1 without changing it: a build that does not know the field ignores
	// it, and a header without it (zeros, which fail this checksum) reads as 0.
	binary.LittleEndian.PutUint64(m[56:], uint64(h.logMtime))
	binary.LittleEndian.PutUint32(m[64:], crc32.Checksum(m[56:64], castagnoli))
}

// openIndexFile opens headers.idx and checks its header against the log (id) and the file's
// size. problem says why the file cannot be used; then f is nil.
func openIndexFile(path string, logID uint64) (f *os.File, h idxHeader, problem string) {
	return openIndexFileFlag(path, logID, os.O_RDWR)
}

// openIndexFileFlag is openIndexFile opening the file with flag (os.O_RDONLY for a check).
func openIndexFileFlag(path string, logID uint64, flag int) (f *os.File, h idxHeader, problem string) {
	f, err := os.OpenFile(path, flag, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, h, "the index file is missing"
	}
	if err != nil {
		return nil, h, err.Error()
	}
	problem = func() string {
		st, err := f.Stat()
		if err != nil {
			return err.Error()
		}
		var b [68]byte
		if st.Size() < idxHeaderSize {
			return fmt.Sprintf("the file has %d bytes, less than its header page", st.Size())
		}
		if _, err := f.ReadAt(b[:], 0); err != nil {
			return err.Error()
		}
		if string(b[:8]) != idxMagic || binary.LittleEndian.Uint32(b[48:]) != crc32.Checksum(b[:48], castagnoli) {
			return "bad magic or header checksum"
		}
		if v := binary.LittleEndian.Uint32(b[8:]); v != idxVersion {
			return fmt.Sprintf("format version %d, this build reads %d", v, idxVersion)
		}
		h = idxHeader{flags: binary.LittleEndian.Uint32(b[12:]), slots: binary.LittleEndian.Uint64(b[16:]),
			entries: binary.LittleEndian.Uint64(b[24:]), covered: binary.LittleEndian.Uint64(b[32:]),
			logID: binary.LittleEndian.Uint64(b[40:]), fileMtime: st.ModTime().UnixNano()}
		if binary.LittleEndian.Uint32(b[64:]) == crc32.Checksum(b[56:64], castagnoli) {
			h.logMtime = int64(binary.LittleEndian.Uint64(b[56:]))
		}
		switch {
		case h.logID != logID:
			return "it indexes another header log"
		case h.slots < minIndexSlots || h.slots&(h.slots-1) != 0 || h.slots > (maxMapping-idxHeaderSize)/slotSize:
			return fmt.Sprintf("bad slot count %d", h.slots)
		case uint64(st.Size()) != idxHeaderSize+h.slots*slotSize:
			return fmt.Sprintf("%d slots but %d bytes", h.slots, st.Size())
		case h.entries > h.slots/2:
			return fmt.Sprintf("%d entries in %d slots", h.entries, h.slots)
		case h.covered < logHeaderSize:
			return fmt.Sprintf("covers log offset %d, inside the log header", h.covered)
		}
		return ""
	}()
	if problem != "" {
		f.Close()
		return nil, h, problem
	}
	return f, h, ""
}

// dataAfter reports whether f has data, rather than a hole, at or after off. Where the
// filesystem cannot tell (no SEEK_DATA), it says yes: the caller then checks the slow way.
func dataAfter(f *os.File, off uint64) bool {
	const seekData = 3 // SEEK_DATA
	_, err := syscall.Seek(int(f.Fd()), int64(off), seekData)
	return !errors.Is(err, syscall.ENXIO)
}

// roundUpBlock rounds off up to the filesystem block (at least a page) that holes come in.
func roundUpBlock(off uint64, st os.FileInfo) uint64 {
	blk := uint64(pageSize)
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Blksize > pageSize && sys.Blksize&(sys.Blksize-1) == 0 {
		blk = uint64(sys.Blksize)
	}
	return (off + blk - 1) &^ (blk - 1)
}

// createLog creates an empty headers.log with a fresh id, atomically (a temporary file renamed
// into place), so a crash never leaves a log without a valid header.
func createLog(dir string) error {
	path := filepath.Join(dir, logFileName)
	var hdr [logHeaderSize]byte
	copy(hdr[:8], logMagic)
	binary.LittleEndian.PutUint32(hdr[8:], logVersion)
	if _, err := rand.Read(hdr[16:24]); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(hdr[24:], crc32.Checksum(hdr[:24], castagnoli))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, hdr[:], 0o644); err != nil {
		return fmt.Errorf("store: create header log: %w", err)
	}
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err == nil {
		err = f.Sync()
		f.Close()
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("store: create header log: %w", err)
	}
	return syncDir(dir)
}

// rewriteLogHeader writes a fresh header (a new log id, so no old index is taken for this log's)
// over f's first bytes, synced, and returns the id.
func rewriteLogHeader(f *os.File) (uint64, error) {
	var hdr [logHeaderSize]byte
	copy(hdr[:8], logMagic)
	binary.LittleEndian.PutUint32(hdr[8:], logVersion)
	if _, err := rand.Read(hdr[16:24]); err != nil {
		return 0, err
	}
	binary.LittleEndian.PutUint32(hdr[24:], crc32.Checksum(hdr[:24], castagnoli))
	if _, err := f.WriteAt(hdr[:], 0); err != nil {
		return 0, fmt.Errorf("store: rewrite the header of %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("store: rewrite the header of %s: %w", f.Name(), err)
	}
	return binary.LittleEndian.Uint64(hdr[16:]), nil
}

// readLogHeader checks headers.log's header and returns the log id.
func readLogHeader(f *os.File) (uint64, error) {
	var hdr [logHeaderSize]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return 0, fmt.Errorf("%w: %s: header: %v", errCorrupt, f.Name(), err)
	}
	if string(hdr[:8]) != logMagic || binary.LittleEndian.Uint32(hdr[24:]) != crc32.Checksum(hdr[:24], castagnoli) {
		return 0, fmt.Errorf("%w: %s is not a header log (bad magic or header checksum)", errCorrupt, f.Name())
	}
	if v := binary.LittleEndian.Uint32(hdr[8:]); v != logVersion {
		return 0, fmt.Errorf("store: %s has format version %d, this build reads %d", f.Name(), v, logVersion)
	}
	return binary.LittleEndian.Uint64(hdr[16:]), nil
}

// openHeaderLog opens (or creates) the header log and its index in dir and recovers them:
//
//  1. The log must exist unless the height index has never referred to it (indexed, the log end
//     goleveldb recorded, is at most the log header): a store whose log vanished is refused.
//  2. The log is scanned from its start to its real end: the first zero length, or the first
//     record that is cut short, malformed or fails its checksum. (With a clean index and a log not
//     written since, only from the index's "covered" mark, unless verifyAll; a stop there at a
//     torn record, or with data still beyond it, is checked by a scan from the start, whose end
//     wins if it is further.)
//     Where that end is damage (a bad record, or data after it), the damaged block(s) are
//     first rebuilt from headers.parity (parity.go) and, if every record over them verifies,
//     written back and the scan goes on; a damaged log header is rebuilt the same way.
//     The non-zero bytes past that end, if any, are saved to headers.log.damaged-<time>
//     (integrity.go) and then discarded (truncated, then the file is extended again, sparse),
//     so a torn or damaged tail never survives and the next append starts on zeros.
//  3. The index is used as it is only if Close marked it clean, it covers exactly the log, and
//     it holds as many used slots as its header counts (no more than the log has records).
//     Otherwise its slots below "covered" are copied into a fresh table and the records from
//     "covered" to the end are indexed from the log; slots at or past "covered" are dropped, since
//     a power cut may have kept a slot whose record was lost. An index that is missing, fails its
//     checks (magic, version, checksum, size, log id, durable slots matching its entry count),
//     covers more log than survived, has a "covered" mark that is no record boundary, or that a
//     repair asks to rebuild (rebuildIndex), is rebuilt from the whole log, with a log line
//     saying why.
//
// The height index in goleveldb is reconciled afterwards (DB.reconcileHeightIndex).
func openHeaderLog(dir string, indexed uint64, o logOptions, lg *slog.Logger) (*headerLog, error) {
	hl := &headerLog{dir: dir, lg: lg, minSlots: defaultOr(o.indexSlots, defaultIndexSlots)}
	logPath := filepath.Join(dir, logFileName)
	f, err := os.OpenFile(logPath, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if indexed > logHeaderSize {
			return nil, fmt.Errorf("%w: %s is missing, but the height index refers to %d bytes of it", errCorrupt, logPath, indexed)
		}
		if err := createLog(dir); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(logPath, os.O_RDWR, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open header log: %w", err)
	}
	hl.log = f
	hl.fd = int(f.Fd())
	hl.mapLimit = o.mapLimit
	published := false
	// The parity is opened first: it can repair a damaged log header, whose id it names.
	var par *parity
	var ph parHeader
	var parProblem string
	if !o.noParity {
		par, ph, parProblem = openParity(dir)
	}
	defer func() {
		if !published && par != nil {
			par.release()
		}
	}()
	defer func() {
		if !published {
			for _, m := range hl.maps {
				syscall.Munmap(m)
			}
			hl.log.Close()
			if hl.idx != nil {
				hl.idx.Close()
			}
		}
	}()
	hl.id, err = readLogHeader(f)
	if err != nil && par != nil && errors.Is(err, errCorrupt) {
		if ok, rerr := hl.repairFromParity(f, par, ph, 0); rerr != nil {
			return nil, rerr
		} else if ok {
			hl.id, err = ph.logID, nil
		}
	}
	if err != nil {
		// Only a repair rewrites a damaged log header: the file sits where the store's log
		// belongs, and the records after the header are verified as always (and cut where
		// they are damaged). A start refuses, since the file may be something else entirely.
		if !o.rebuildIndex || !errors.Is(err, errCorrupt) {
			return nil, err
		}
		if hl.id, err = rewriteLogHeader(f); err != nil {
			return nil, err
		}
		lg.Error("store: headers.log had a damaged header; a repair wrote a new one (the records are verified next)", "file", logPath)
	}
	if par != nil && ph.logID != hl.id {
		parProblem = "it protects another header log"
		par.release()
		par = nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("store: open header log: %w", err)
	}
	size := uint64(st.Size())

	idxF, ih, problem := openIndexFile(filepath.Join(dir, idxFileName), hl.id)
	if problem == "" && ih.covered > size {
		problem = fmt.Sprintf("it covers %d bytes of a %d-byte log", ih.covered, size)
		idxF.Close()
		idxF = nil
	}
	if problem == "" && o.rebuildIndex {
		problem = "a repair was asked for"
		idxF.Close()
		idxF = nil
	}
	// A clean index vouches for the records it covers: they were verified when written or at
	// an earlier Open, and every read verifies its record again, so only the newest of them
	// (recentStart) and the rest are scanned, and a start costs the same at any size. Everything is verified, so that damage is cut
	// off here rather than met by reads, when asked (check, repair: verifyAll), when the index
	// is not clean (an unclean stop, a rebuild), and when the log was written after the index
	// was closed (cleanLogOf): a stray write or a copy over it.
	trusted := problem == "" && !o.verifyAll && cleanLogOf(ih, st)
	end, torn, records := uint64(logHeaderSize), false, uint64(0)
	var cut damagedTail
	if size > logHeaderSize {
		m, err := mapFile(f, size, false)
		if err != nil {
			if idxF != nil {
				idxF.Close()
			}
			return nil, err
		}
		// Trusted, only the newest records a clean index covers are verified (those a start
		// reads first: the heads and the blocks below them), and the rest of the log.
		from := uint64(logHeaderSize)
		if trusted {
			if from, err = recentStartOf(idxF, ih, m); err != nil {
				syscall.Munmap(m)
				idxF.Close()
				return nil, err
			}
		}
		end, torn, records = scanLogCount(m, from)
		// Cutting the log destroys data, so never on the index's word alone. If the scan from
		// a mark of the index stopped at a torn record, or there is data past the block it
		// stopped in (appends are contiguous, and past the end the file is a hole), check with
		// a scan from the start, which decides: if the mark was no record boundary, it gets
		// further; if there is damage before the mark, it stops there.
		if from > logHeaderSize && (torn || dataAfter(f, roundUpBlock(end, st))) {
			full, fullTorn, n := scanLogCount(m, logHeaderSize)
			if full > end && from == ih.covered {
				problem = fmt.Sprintf("its covered mark %d is not a record boundary", from)
				idxF.Close()
				idxF = nil
			}
			end, torn, records = full, fullTorn, n
		}
		// Damage the parity can undo is repaired in place: every record overlapping the
		// rebuilt bytes verified, so the log goes on as if nothing had happened.
		for par != nil && (torn || lastNonZero(f, m, end) > end) {
			r, ok := reconstruct(f, m, par.m, ph, end, hl.id)
			if !ok {
				break
			}
			if err := hl.applyRepair(f, r, end); err != nil {
				syscall.Munmap(m)
				if idxF != nil {
					idxF.Close()
				}
				return nil, err
			}
			var n uint64
			end, torn, n = scanLogCount(m, end)
			records += n
		}
		// Whatever lies past the end is kept aside before the log is cut there: a torn tail
		// is a few bytes, but damage in the middle cuts off every record after it too.
		if cut, err = saveDamagedTail(f, m, end); err != nil {
			syscall.Munmap(m)
			if idxF != nil {
				idxF.Close()
			}
			return nil, err
		}
		syscall.Munmap(m)
	}
	hl.cut = cut
	switch {
	case cut.intact > 0:
		lg.Error("store: headers.log is damaged: it is cut at the first bad record, and the headers after it are "+
			"dropped (they are mined again or fetched from peers); the cut-off bytes are saved aside",
			"file", logPath, "offset", end, "bytesCut", cut.bytes, "intactRecordsAfterDamage", cut.intact,
			"savedTo", cut.path)
	case cut.bytes > 0 || torn:
		lg.Warn("store: header log ends in a torn or damaged record; discarding it and everything after",
			"file", logPath, "offset", end, "bytesCut", cut.bytes, "savedTo", cut.path)
	}
	if problem == "" && end < ih.covered {
		problem = fmt.Sprintf("it covers %d bytes of the log, which was cut at %d", ih.covered, end)
		idxF.Close()
		idxF = nil
	}
	// Zero everything past the last good record, then reserve room again (sparse).
	logCap := max(roundUpPage(2*end), roundUpPage(defaultOr(o.logCap, defaultLogCap)))
	truncate := o.truncate
	if truncate == nil {
		truncate = (*os.File).Truncate
	}
	// Both truncates must succeed: a failed first one would leave the damaged bytes past end
	// mapped as free room (this err once shadowed the outer one, and a failure read as done).
	err = truncate(f, int64(end))
	if err == nil {
		err = truncate(f, int64(logCap))
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		if idxF != nil {
			idxF.Close()
		}
		return nil, fmt.Errorf("store: recover header log: %w", err)
	}
	logMap, err := mapFile(f, logCap, false)
	if err != nil {
		if idxF != nil {
			idxF.Close()
		}
		return nil, err
	}
	hl.maps = append(hl.maps, logMap)
	hl.logCap = logCap
	hl.end.Store(end)
	hl.synced = end
	hl.indexed = end
	if o.noParity {
		par = nil
	} else if par, err = hl.settleParity(par, ph, parProblem, logMap, end, o.verifyAll || o.rebuildIndex); err != nil {
		if idxF != nil {
			idxF.Close()
		}
		return nil, err
	}

	var idxMap []byte
	var idxFile *os.File
	switch {
	case problem != "":
		if size > logHeaderSize || problem != "the index file is missing" {
			lg.Warn("store: rebuilding the header index from the header log", "dir", dir, "reason", problem, "logBytes", end)
		}
		idxFile, idxMap, hl.entries, err = hl.buildIndex(hl.minSlots, nil, 0, logMap, logHeaderSize, end)
		if err != nil {
			return nil, err
		}
	case ih.flags&idxFlagClean != 0 && ih.covered == end:
		// Clean: trust it, and clear the flag durably before any write can change a slot.
		idxFile = idxF
		if idxMap, err = mapFile(idxF, idxHeaderSize+ih.slots*slotSize, true); err != nil {
			idxF.Close()
			return nil, err
		}
		// A sanity check of the slot area (one sequential read, 32–64 bytes per header): it
		// must hold exactly the entries the header counts, and no more than the log has
		// records when the whole log was scanned. Otherwise the log decides. A trusted index
		// skips it, as its records are skipped: neither file was written since Close.
		used := uint64(0)
		if !trusted { // then the whole log was scanned: records counts them all
			used = countSlotsBelow(words(idxMap[idxHeaderSize:]), math.MaxUint64)
		}
		if !trusted && (used != ih.entries || used > records) {
			lg.Warn("store: rebuilding the header index from the header log", "dir", dir,
				"reason", fmt.Sprintf("%d used slots, the header counts %d, the log holds %d records", used, ih.entries, records),
				"logBytes", end)
			syscall.Munmap(idxMap)
			idxF.Close()
			if idxFile, idxMap, hl.entries, err = hl.buildIndex(hl.minSlots, nil, 0, logMap, logHeaderSize, end); err != nil {
				return nil, err
			}
			break
		}
		ih.flags &^= idxFlagClean
		putIdxHeader(idxMap, ih)
		if err := idxF.Sync(); err != nil {
			syscall.Munmap(idxMap)
			idxF.Close()
			return nil, fmt.Errorf("store: open header index: %w", err)
		}
		hl.entries = ih.entries
	default:
		old, err := mapFile(idxF, idxHeaderSize+ih.slots*slotSize, false)
		if err != nil {
			idxF.Close()
			return nil, err
		}
		oldSlots := words(old[idxHeaderSize:])
		// The slots below "covered" are exactly the entries the header counted when it was
		// written; any other number means the slot area is damaged, and the log decides.
		if kept := countSlotsBelow(oldSlots, ih.covered); kept != ih.entries {
			lg.Warn("store: rebuilding the header index from the header log", "dir", dir,
				"reason", fmt.Sprintf("%d durable slots where the header counts %d", kept, ih.entries), "logBytes", end)
			idxFile, idxMap, hl.entries, err = hl.buildIndex(hl.minSlots, nil, 0, logMap, logHeaderSize, end)
		} else {
			idxFile, idxMap, hl.entries, err = hl.buildIndex(ih.slots, oldSlots, ih.covered, logMap, ih.covered, end)
			if errors.Is(err, errCorrupt) {
				// "covered" is not a record boundary (the whole log was verified, so the
				// records are fine): the index header lies, and the log decides.
				lg.Warn("store: rebuilding the header index from the header log", "dir", dir,
					"reason", fmt.Sprintf("its covered mark %d is not a record boundary", ih.covered), "logBytes", end)
				idxFile, idxMap, hl.entries, err = hl.buildIndex(hl.minSlots, nil, 0, logMap, logHeaderSize, end)
			} else if err == nil && end > ih.covered {
				lg.Info("store: indexed header-log records written since the last checkpoint", "dir", dir,
					"from", ih.covered, "to", end)
			}
		}
		syscall.Munmap(old)
		idxF.Close()
		if err != nil {
			return nil, err
		}
	}
	if err := hl.installIndex(idxFile, idxMap, logMap); err != nil {
		syscall.Munmap(idxMap)
		idxFile.Close()
		return nil, err
	}
	hl.par = par
	published = true
	return hl, nil
}

func defaultOr(v, d uint64) uint64 {
	if v == 0 {
		return d
	}
	return v
}
