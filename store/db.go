package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/store/internal/records"
	"github.com/syndtr/goleveldb/leveldb"
	lverrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Errors. Callers test them with errors.Is; the returned errors wrap them with the key involved.
var (
	// ErrNotFound is wrapped by every lookup of a key that is not stored.
	ErrNotFound = errors.New("not found")
	// errCorrupt is wrapped when stored bytes do not decode or contradict their key: it is
	// kv.ErrCorrupt, marked as the store's (IsCorrupt).
	errCorrupt = fmt.Errorf("store: %w", kv.ErrCorrupt)
	// ErrLocked is wrapped by Open when another process (or another DB in this process) holds
	// the directory.
	ErrLocked = errors.New("store: database is locked by another process")
	// ErrVersionMismatch is wrapped by CheckVersion when the store belongs to another network.
	ErrVersionMismatch = errors.New("store: chainweb version mismatch")
	// ErrDataLost is wrapped where the directory lacks data that neither a start nor a repair
	// can bring back (a deleted goleveldb table, say): only a backup or peers have it.
	ErrDataLost = errors.New("store: data lost")
)

// schemaVersion is the layout this build reads and writes (see keys.go). Bump it, with a
// migration in Open, only when an existing key space changes shape; new key spaces do not need it.
//
// 2: headers moved from goleveldb (tag 0x01) to headers.log, and height-index values became log
// offsets. No version-1 store was ever deployed, so there is no migration: Open refuses one.
const schemaVersion = 2

// Options tunes Open. Zero values pick the defaults.
type Options struct {
	HeaderCacheSize int // decoded headers kept hot; 0 = default 65536, negative = no cache
	BlockCacheMiB   int // goleveldb block cache; 0 = default 64
	WriteBufferMiB  int // goleveldb memtable size; 0 = default 16
	// OpenFiles bounds the table files goleveldb keeps open (part of the process's descriptor
	// budget, cmd/ledger-node/limits.go); 0 = goleveldb's default, 500.
	OpenFiles int
	Logger    *slog.Logger // recovery notes at Open; nil = slog.Default()

	// VerifyWholeLog verifies the checksum of every header-log record at Open, as check and
	// repair do: about 100 ms per million headers in the page cache, plus reading the whole
	// log from disk when it is not. Without it, a store whose index was closed cleanly (and
	// neither file written since) is opened reading only the newest records the index covers
	// (the newest eighth, at most 64 MiB: recentStart) and those it does not. A start
	// therefore does not grow with the store, and damage to an older record is met at read
	// time instead: every read verifies its record's
	// checksum, returns an error wrapping kv.ErrCorrupt rather than the bytes, and leaves the repair mark that
	// makes the next Open verify everything and cut the log (integrity.go). An unclean stop,
	// a damaged or rebuilt index, and a repair mark all verify the whole log regardless.
	VerifyWholeLog bool
	// LogMapReadMiB is the header-log size up to which headers are read through its memory
	// mapping; past it they are read with pread, so that the process's resident set does not
	// grow with the store (hlog.go, recordIn). 0 = default 512; negative = always pread.
	LogMapReadMiB int
	// Repair rebuilds the header index and the height index from the header log whatever
	// their state, as after a read met damage (integrity.go): `ledger-node repair`.
	Repair bool

	// Initial header index slots and header log capacity; tests make them tiny so that growth
	// happens often. 0 = the defaults in hlog.go.
	indexSlots uint64
	logCap     uint64
	// noParity runs without headers.parity: the baseline its benchmarks compare with.
	noParity bool
	// truncateLog, when set, truncates the header log in place of File.Truncate: tests make
	// the recovery's truncate fail.
	truncateLog func(f *os.File, size int64) error
}

const (
	defaultHeaderCacheSize = 65536
	defaultBlockCacheMiB   = 64
	defaultWriteBufferMiB  = 16
	defaultLogMapReadMiB   = 512
)

// DB is the node's persistent store. Every method is safe for concurrent use. Reads go straight to
// the header log's mappings (headers by hash: no lock, no syscall), goleveldb (which serves
// concurrent readers from immutable tables and a lock-free memtable read path) or the header
// cache; no store-level lock is held during a read.
type DB struct {
	ldb   *leveldb.DB
	hl    *headerLog
	cache *headerCache
	lg    *slog.Logger

	// metaMu makes CheckVersion's read-then-write atomic. Only that cold path takes it.
	metaMu sync.Mutex

	// damaged is set by the first read that meets damaged data (noteCorrupt).
	damaged atomic.Bool
	// recovered says what Open repaired (Recovered).
	recovered []string

	// batchFault, set only by tests, fails commit's goleveldb write after the header-log append:
	// the moment a full disk can strike that the entry-point faults (writefault.go) cannot reach.
	batchFault error
}

// LevelStats are goleveldb's statistics that the metrics report, in the store's own type so
// that the metrics need not import goleveldb.
type LevelStats struct {
	WriteDelayCount    int32         // writes delayed for compaction
	WriteDelayDuration time.Duration // time they spent delayed
	WritePaused        bool          // writes paused now (level 0 full)
	AliveSnapshots     int32
	AliveIterators     int32
	IORead, IOWrite    uint64  // bytes read from and written to the files
	BlockCacheSize     int     // bytes in the block cache
	OpenedTablesCount  int     // table files held open
	LevelTablesCounts  []int   // table files per level
	LevelSizes         []int64 // bytes of the tables per level
	// Compactions by kind.
	MemComp, Level0Comp, NonLevel0Comp, SeekComp uint32
}

// LevelStats fills s with goleveldb's statistics (compactions, write stalls, I/O, level sizes,
// caches), for the metrics. It reads counters goleveldb keeps anyway and takes no lock that
// writes wait for.
func (db *DB) LevelStats(s *LevelStats) error {
	var st leveldb.DBStats
	if err := db.ldb.Stats(&st); err != nil {
		return err
	}
	*s = LevelStats{
		WriteDelayCount: st.WriteDelayCount, WriteDelayDuration: st.WriteDelayDuration, WritePaused: st.WritePaused,
		AliveSnapshots: st.AliveSnapshots, AliveIterators: st.AliveIterators,
		IORead: st.IORead, IOWrite: st.IOWrite,
		BlockCacheSize: st.BlockCacheSize, OpenedTablesCount: st.OpenedTablesCount,
		LevelTablesCounts: st.LevelTablesCounts, LevelSizes: st.LevelSizes,
		MemComp: st.MemComp, Level0Comp: st.Level0Comp, NonLevel0Comp: st.NonLevel0Comp, SeekComp: st.SeekComp,
	}
	return nil
}

// Open opens the store in dir, creating it if needed, or resuming the one there.
func Open(dir string, opts Options) (*DB, error) {
	cacheSize := opts.HeaderCacheSize
	if cacheSize == 0 {
		cacheSize = defaultHeaderCacheSize
	}
	blockMiB := opts.BlockCacheMiB
	if blockMiB <= 0 {
		blockMiB = defaultBlockCacheMiB
	}
	bufMiB := opts.WriteBufferMiB
	if bufMiB <= 0 {
		bufMiB = defaultWriteBufferMiB
	}
	lo := &opt.Options{
		// Most lookups are by hash; a bloom filter lets a miss (HasHeader of an unknown hash, a
		// peer offering a header we lack) skip reading table blocks.
		Filter:                 filter.NewBloomFilter(10),
		BlockCacheCapacity:     blockMiB * opt.MiB,
		WriteBuffer:            bufMiB * opt.MiB,
		OpenFilesCacheCapacity: opts.OpenFiles,
		// Snappy stays on: headers are hashes and gain nothing, but payloads are JSON text.
	}
	ldb, err := leveldb.OpenFile(dir, lo)
	if err != nil {
		switch {
		case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EAGAIN):
			return nil, fmt.Errorf("%w: %s (%v)", ErrLocked, dir, err)
		case lverrors.IsCorrupted(err):
			return nil, fmt.Errorf("%w: goleveldb files in %s: %v", errCorrupt, dir, err)
		}
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.Default()
	}
	db := &DB{ldb: ldb, cache: newHeaderCache(cacheSize), lg: lg}
	if err := db.checkSchema(dir, opts.Repair); err != nil {
		ldb.Close()
		return nil, err
	}
	o := logOptions{indexSlots: opts.indexSlots, logCap: opts.logCap, verifyAll: opts.VerifyWholeLog, truncate: opts.truncateLog, noParity: opts.noParity,
		mapLimit: defaultLogMapReadMiB << 20}
	switch {
	case opts.LogMapReadMiB > 0:
		o.mapLimit = uint64(opts.LogMapReadMiB) << 20
	case opts.LogMapReadMiB < 0:
		o.mapLimit = 0
	}
	if err := db.openHeaders(dir, o, opts.Repair); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// checkSchema stamps a new store with schemaVersion, or refuses one written with another layout.
// A repair also stamps a store whose schema record was lost (with a goleveldb block that
// recovery dropped) if every key it holds is in one of this layout's key spaces.
func (db *DB) checkSchema(dir string, repair bool) error {
	var rec records.Schema
	err := db.getRecord(metaKey(metaSchema), "schema", &rec)
	switch {
	case err == nil:
		if rec.Version != schemaVersion {
			return fmt.Errorf("store: %s has schema version %d, this build reads %d", dir, rec.Version, schemaVersion)
		}
		return nil
	case !errors.Is(err, ErrNotFound):
		return fmt.Errorf("store: open %s: %w", dir, err)
	}
	// No schema record: only an empty directory may be stamped, or we would adopt foreign data.
	it := db.ldb.NewIterator(nil, nil)
	nonEmpty := it.First()
	it.Release()
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: open %s: %w", dir, err)
	}
	if nonEmpty && repair {
		if err := db.onlyOurKeys(); err != nil {
			return fmt.Errorf("%w: %s holds keys but no schema record, and %v", errCorrupt, dir, err)
		}
		db.lg.Warn("store: the schema record was lost; a repair writes it again (every key is in this layout's key spaces)", "dir", dir)
		db.recovered = append(db.recovered, "lost schema record written again")
	} else if nonEmpty {
		return fmt.Errorf("%w: %s holds keys but no schema record (not a ledger-node store?)", errCorrupt, dir)
	}
	rec.Version = schemaVersion
	if err := db.putRecord(metaKey(metaSchema), &rec, withSync); err != nil {
		return fmt.Errorf("store: open %s: %w", dir, err)
	}
	return nil
}

// Close closes the store. Iterators and snapshots must be released first, and nothing should
// still be reading: a read racing Close gets an error (never a crash, see retireMapping), and
// reads after it fail. Close syncs the header log and index and marks the index clean, so the
// next Open starts without any recovery work.
func (db *DB) Close() error {
	var err error
	if db.hl != nil {
		err = db.hl.close()
	}
	if lerr := db.ldb.Close(); lerr != nil && err == nil {
		err = lerr
	}
	if err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// CheckVersion binds the store to a network: the first call records name, later calls (in this or
// any later process) fail with ErrVersionMismatch for any other name. Call it right after Open,
// before anything else reads or writes: headers of two networks must never share a store.
func (db *DB) CheckVersion(name string) error {
	if name == "" {
		return errors.New("store: check version: empty version name")
	}
	db.metaMu.Lock()
	defer db.metaMu.Unlock()
	var rec records.Network
	err := db.getRecord(metaKey(metaNetwork), "network", &rec)
	switch {
	case err == nil:
		if rec.Name != name {
			return fmt.Errorf("%w: the store holds %q, the node runs %q", ErrVersionMismatch, rec.Name, name)
		}
		return nil
	case !errors.Is(err, ErrNotFound):
		return fmt.Errorf("store: check version: %w", err)
	}
	if end := db.hl.end.Load(); end > logHeaderSize && !db.hasRecord(metaKey(metaHeads)) {
		// The binding is written before any header, and the heads with the first blocks:
		// headers without either mean goleveldb lost its rows, and with them the payloads
		// and Pact states the log cannot rebuild.
		return fmt.Errorf("%w: goleveldb holds no network record, yet headers.log holds %d bytes of headers: "+
			"goleveldb's rows (heads, payloads, Pact states) are gone, a deleted or emptied table", ErrDataLost, end-logHeaderSize)
	}
	rec.Name = name
	// Synced: the binding must survive any crash, or a restart could adopt another network.
	if err := db.putRecord(metaKey(metaNetwork), &rec, withSync); err != nil {
		return fmt.Errorf("store: check version: %w", err)
	}
	return nil
}

// hasRecord says whether key is stored (a read error counts as stored: it is no proof of loss).
func (db *DB) hasRecord(key []byte) bool {
	ok, err := db.ldb.Has(key, nil)
	return ok || err != nil
}

// getRecord reads and decodes the msgp record at key.
func (db *DB) getRecord(key []byte, what string, r msgpRecord) error {
	b, err := db.ldb.Get(key, nil)
	if err != nil {
		return db.noteCorrupt(lookupErr(what, err))
	}
	return db.noteCorrupt(unmarshalRecord(what, b, r))
}

// putRecord writes one msgp record on its own.
func (db *DB) putRecord(key []byte, r msgpRecord, wo *opt.WriteOptions) error {
	b, err := r.MarshalMsg(nil)
	if err != nil {
		return err
	}
	return db.ldb.Put(key, b, wo)
}

// lookupErr maps goleveldb's not-found to ErrNotFound, naming what was looked up.
func lookupErr(what string, err error) error {
	if errors.Is(err, leveldb.ErrNotFound) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if lverrors.IsCorrupted(err) {
		return fmt.Errorf("%w: %s: %v", errCorrupt, what, err)
	}
	return fmt.Errorf("store: %s: %w", what, err)
}

// Compact compacts the whole key space. Bulk loaders (an import, a benchmark) call it so that
// later reads do not compete with background compaction.
func (db *DB) Compact() error {
	return db.ldb.CompactRange(util.Range{})
}

// onlyOurKeys checks that every key is in one of this layout's key spaces (keys.go).
func (db *DB) onlyOurKeys() error {
	it := db.ldb.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		if k := it.Key(); len(k) == 0 || k[0] > tagPact || k[0] == 0x01 {
			return fmt.Errorf("key %x is in no key space of this layout", k)
		}
	}
	return ldbErr(it.Error())
}

// IsCorrupt reports whether err is damage found in the store's own files and records (the
// header log, payloads, indexes): kv.ErrCorrupt as the store returns it. Such damage is marked
// where it is met, and repaired at the next start (doc.go); damage in the Pact state kept in
// the store's key spaces is kv.ErrCorrupt too, but not the store's to repair.
func IsCorrupt(err error) bool { return errors.Is(err, errCorrupt) }
