package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"syscall"

	"github.com/syndtr/goleveldb/leveldb"
	lverrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Errors. The returned errors wrap them; test with errors.Is.
var (
	// errCorrupt is wrapped when stored bytes do not decode: kv.ErrCorrupt, which callers
	// test for.
	errCorrupt = fmt.Errorf("persist: %w", kv.ErrCorrupt)
	// ErrLocked is wrapped by Open when another process (or another DB in
	// this process) holds the directory.
	ErrLocked = errors.New("persist: database is locked by another process")
)

// ErrBadDomain is returned for a domain pact/db does not define.
var ErrBadDomain = errors.New("persist: unknown domain")

// DefaultCacheEntries is the size of one generation of the row cache.
const DefaultCacheEntries = 1 << 16

// synced is used for every write: a write that returned is on disk.
var synced = &opt.WriteOptions{Sync: true}

// DB is a db.DB on goleveldb with MemDB's semantics (see pact/db), kept
// across restarts:
//
//   - outside a transaction a write goes to disk (synced) before it returns;
//   - inside one, writes are kept in memory, visible to reads at once, and
//     written as one synced goleveldb batch by a Transactional CommitTx, or
//     dropped by RollbackTx and by a Local commit;
//   - transaction ids start at 0, advance only on a Transactional commit and
//     are stored with it, so a reopened DB continues the sequence;
//   - user tables and their existence, keysets, modules, namespaces and
//     defpact states are stored with the codec of codec.go.
//
// Decoded values are kept in a write-through cache, so reading a row again
// (in or out of a transaction) does not decode it again; modules are
// rebuilt from their records once per process (eval.RestoreModule) and kept
// by name and hash.
//
// Like MemDB, a DB is not safe for concurrent use: one interpreter drives
// it. Values are stored as given and must not be modified afterwards.
type DB struct {
	ldb *leveldb.DB
	dir string

	// tables maps each committed user table to its key prefix.
	tables map[string]string
	sys    [NumDomains]string // key prefixes of the system domains
	nextID db.TxID
	tx     *txState // nil outside a transaction

	cache RowCache
	mods  *ModuleCache
	// decoding are the keys whose entries are being decoded.
	decoding map[string]bool
	// restoring are the modules being rebuilt, to refuse cycles.
	restoring map[ModuleKey]bool
}

// NumDomains is one past the last domain pact/db defines.
const NumDomains = int(db.DefPacts) + 1

type compiledModule struct {
	rec eval.ModuleRecord
	mod *eval.Module
}

// txState is the open transaction: its writes, in memory until commit.
type txState struct {
	mode db.Mode
	id   db.TxID
	log  []db.TxLog
	// rows are the rows written, by full key.
	rows map[string]txRow
	// keys are the keys written for the first time in this transaction, by
	// key-space prefix (for Keys).
	keys map[string][]string
	// tables are the tables created, name to key prefix.
	tables map[string]string
	// versions are the module versions written, by version key.
	versions map[string][]byte
}

type txRow struct {
	v   any
	enc []byte
	rec *eval.ModuleRecord // for a module: the record enc holds
}

// Open opens the database in dir, creating it if needed.
func Open(dir string) (*DB, error) {
	return open(dir, DefaultCacheEntries)
}

func open(dir string, cacheEntries int) (*DB, error) {
	ldb, err := leveldb.OpenFile(dir, &opt.Options{Filter: filter.NewBloomFilter(10)})
	if err != nil {
		switch {
		case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EAGAIN):
			return nil, fmt.Errorf("%w: %s (%v)", ErrLocked, dir, err)
		case lverrors.IsCorrupted(err):
			return nil, fmt.Errorf("%w: open %s: %v", errCorrupt, dir, err)
		}
		return nil, fmt.Errorf("persist: open %s: %w", dir, err)
	}
	return openLDB(ldb, dir, cacheEntries)
}

// openLDB makes a DB over an open goleveldb database, which it closes on
// failure.
func openLDB(ldb *leveldb.DB, dir string, cacheEntries int) (*DB, error) {
	d := &DB{
		ldb:       ldb,
		dir:       dir,
		tables:    map[string]string{},
		cache:     NewRowCache(cacheEntries),
		mods:      NewModuleCache(),
		decoding:  map[string]bool{},
		restoring: map[ModuleKey]bool{},
	}
	for i := range d.sys {
		if db.Domain(i) != db.UserTable {
			d.sys[i] = sysPrefix(db.Domain(i))
		}
	}
	if err := d.load(dir); err != nil {
		ldb.Close()
		return nil, err
	}
	return d, nil
}

// load checks the layout version (stamping a new database) and reads the
// table list and the next transaction id.
func (d *DB) load(dir string) error {
	b, err := d.ldb.Get(metaKey(metaSchema), nil)
	switch {
	case err == nil:
		v, n := binary.Uvarint(b)
		if n <= 0 || n != len(b) {
			return fmt.Errorf("%w: %s: bad schema record", errCorrupt, dir)
		}
		if v != schemaVersion {
			return fmt.Errorf("persist: %s has layout version %d, this build reads %d", dir, v, schemaVersion)
		}
	case errors.Is(err, leveldb.ErrNotFound):
		it := d.ldb.NewIterator(nil, nil)
		nonEmpty := it.First()
		it.Release()
		if err := it.Error(); err != nil {
			return fmt.Errorf("persist: open %s: %w", dir, err)
		}
		if nonEmpty {
			return fmt.Errorf("%w: %s holds keys but no schema record (not a Pact database?)", errCorrupt, dir)
		}
		if err := d.ldb.Put(metaKey(metaSchema), binary.AppendUvarint(nil, schemaVersion), synced); err != nil {
			return fmt.Errorf("persist: open %s: %w", dir, err)
		}
	default:
		return fmt.Errorf("persist: open %s: %w", dir, err)
	}

	it := d.ldb.NewIterator(util.BytesPrefix([]byte{tagTable}), nil)
	for it.Next() {
		name := string(it.Key()[1:])
		d.tables[name] = userPrefix(name)
	}
	it.Release()
	if err := it.Error(); err != nil {
		return fmt.Errorf("persist: open %s: %w", dir, err)
	}

	b, err = d.ldb.Get(metaKey(metaTxID), nil)
	switch {
	case err == nil:
		if len(b) != 8 {
			return fmt.Errorf("%w: %s: bad txid record", errCorrupt, dir)
		}
		d.nextID = db.TxID(binary.BigEndian.Uint64(b))
	case !errors.Is(err, leveldb.ErrNotFound):
		return fmt.Errorf("persist: open %s: %w", dir, err)
	}
	return nil
}

// Close closes the database. An open transaction is dropped.
func (d *DB) Close() error {
	d.tx = nil
	if err := d.ldb.Close(); err != nil {
		return fmt.Errorf("persist: close: %w", err)
	}
	return nil
}

// BeginTx opens a transaction in the given mode and returns its id.
func (d *DB) BeginTx(mode db.Mode) (db.TxID, error) {
	if d.tx != nil {
		return 0, db.ErrInTx
	}
	d.tx = &txState{
		mode:     mode,
		id:       d.nextID,
		rows:     map[string]txRow{},
		keys:     map[string][]string{},
		tables:   map[string]string{},
		versions: map[string][]byte{},
	}
	return d.nextID, nil
}

// CommitTx ends the transaction and returns its writes in the order they
// were made. A Transactional commit writes them, the tables created and the
// next transaction id as one synced batch; a Local commit drops them, like
// RollbackTx. If the batch cannot be written the transaction is dropped
// and the error returned.
func (d *DB) CommitTx() ([]db.TxLog, error) {
	tx := d.tx
	if tx == nil {
		return nil, db.ErrNotInTx
	}
	d.tx = nil
	if tx.mode == db.Local {
		return tx.log, nil
	}
	var b leveldb.Batch
	for name := range tx.tables {
		b.Put(tableKey(name), nil)
	}
	for k, r := range tx.rows {
		b.Put([]byte(k), r.enc)
	}
	for k, enc := range tx.versions {
		b.Put([]byte(k), enc)
	}
	b.Put(metaKey(metaTxID), binary.BigEndian.AppendUint64(nil, uint64(d.nextID+1)))
	if err := d.ldb.Write(&b, synced); err != nil {
		return nil, fmt.Errorf("persist: commit: %w", err)
	}
	d.nextID++
	for name, p := range tx.tables {
		d.tables[name] = p
	}
	for k, r := range tx.rows {
		d.cache.Put(k, r.v)
		if r.rec != nil {
			d.mods.Remember(r.v.(*eval.Module), r.rec)
		}
	}
	return tx.log, nil
}

// RollbackTx ends the transaction, dropping its writes and the tables it
// created.
func (d *DB) RollbackTx() error {
	if d.tx == nil {
		return db.ErrNotInTx
	}
	d.tx = nil
	return nil
}

// Dir is the directory the database was opened in.
func (d *DB) Dir() string { return d.dir }

// InTx reports whether a transaction is open.
func (d *DB) InTx() bool { return d.tx != nil }

// prefix returns the key prefix of a domain or user table.
func (d *DB) prefix(dom db.Domain, table string) (string, error) {
	if dom == db.UserTable {
		if p, ok := d.tables[table]; ok {
			return p, nil
		}
		if d.tx != nil {
			if p, ok := d.tx.tables[table]; ok {
				return p, nil
			}
		}
		return "", db.ErrNoTable
	}
	if int(dom) >= NumDomains {
		return "", ErrBadDomain
	}
	return d.sys[dom], nil
}

// Read returns the value under key.
func (d *DB) Read(dom db.Domain, table, key string) (any, bool, error) {
	p, err := d.prefix(dom, table)
	if err != nil {
		return nil, false, err
	}
	rk := rowKey(p, key)
	if d.tx != nil {
		if r, ok := d.tx.rows[string(rk)]; ok {
			return r.v, true, nil
		}
	}
	if v, ok := d.cache.Get(string(rk)); ok {
		return v, true, nil
	}
	b, err := d.ldb.Get(rk, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("persist: read %v %q: %w", dom, key, err)
	}
	v, err := d.decode(rk, b)
	if err != nil {
		return nil, false, fmt.Errorf("persist: read %v %q: %w", dom, key, err)
	}
	d.cache.Put(string(rk), v)
	return v, true, nil
}

// exists reports whether the row at rk is present.
func (d *DB) exists(rk []byte) (bool, error) {
	if d.tx != nil {
		if _, ok := d.tx.rows[string(rk)]; ok {
			return true, nil
		}
	}
	if _, ok := d.cache.Get(string(rk)); ok {
		return true, nil
	}
	return d.ldb.Has(rk, nil)
}

// Write stores value under key as wt says. Outside a transaction the write
// is on disk when Write returns; inside one it is kept until the end of the
// transaction and logged. A value the codec cannot store (a function value,
// say) is an error and nothing is written.
func (d *DB) Write(dom db.Domain, table, key string, value any, wt db.WriteType) error {
	p, err := d.prefix(dom, table)
	if err != nil {
		return err
	}
	rk := rowKey(p, key)
	if wt != db.Write {
		exists, err := d.exists(rk)
		if err != nil {
			return fmt.Errorf("persist: write %v %q: %w", dom, key, err)
		}
		if err := wt.Allows(exists); err != nil {
			return err
		}
	}
	enc, rec, err := EncodeRow(d, value)
	if err != nil {
		return fmt.Errorf("persist: write %v %q: %w", dom, key, err)
	}
	var vk []byte
	m, _ := value.(*eval.Module)
	isModule := rec != nil
	if isModule {
		vk = versionKey(m.Name.String(), m.Hash)
	}
	if tx := d.tx; tx != nil {
		k := string(rk)
		if _, seen := tx.rows[k]; !seen {
			tx.keys[p] = append(tx.keys[p], key)
		}
		tx.rows[k] = txRow{v: value, enc: enc, rec: rec}
		if isModule {
			tx.versions[string(vk)] = enc
		}
		if dom != db.UserTable {
			table = ""
		}
		tx.log = append(tx.log, db.TxLog{Domain: dom, Table: table, Key: key, Value: value})
		return nil
	}
	if isModule {
		var b leveldb.Batch
		b.Put(rk, enc)
		b.Put(vk, enc)
		err = d.ldb.Write(&b, synced)
	} else {
		err = d.ldb.Put(rk, enc, synced)
	}
	if err != nil {
		return fmt.Errorf("persist: write %v %q: %w", dom, key, err)
	}
	d.cache.Put(string(rk), value)
	if isModule {
		d.mods.Remember(m, rec)
	}
	return nil
}

// Keys lists the keys of a domain or user table in ascending byte order.
func (d *DB) Keys(dom db.Domain, table string) ([]string, error) {
	p, err := d.prefix(dom, table)
	if err != nil {
		return nil, err
	}
	var ks []string
	it := d.ldb.NewIterator(util.BytesPrefix([]byte(p)), nil)
	for it.Next() {
		ks = append(ks, string(it.Key()[len(p):]))
	}
	it.Release()
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("persist: keys %v %q: %w", dom, table, err)
	}
	if d.tx != nil {
		if extra := d.tx.keys[p]; len(extra) > 0 {
			ks = append(ks, extra...)
			slices.Sort(ks)
			ks = slices.Compact(ks)
		}
	}
	if ks == nil {
		ks = []string{}
	}
	return ks, nil
}

// CreateTable creates an empty user table. Inside a transaction it exists
// for the transaction and is kept by a Transactional commit. Like MemDB, it
// is not in the TxLog.
func (d *DB) CreateTable(table string) error {
	if d.HasTable(table) {
		return db.ErrTableExists
	}
	p := userPrefix(table)
	if d.tx != nil {
		d.tx.tables[table] = p
		return nil
	}
	if err := d.ldb.Put(tableKey(table), nil, synced); err != nil {
		return fmt.Errorf("persist: create table %q: %w", table, err)
	}
	d.tables[table] = p
	return nil
}

// HasTable reports whether a user table exists.
func (d *DB) HasTable(table string) bool {
	if _, ok := d.tables[table]; ok {
		return true
	}
	if d.tx != nil {
		_, ok := d.tx.tables[table]
		return ok
	}
	return false
}

// decode decodes the entry stored under key k. Decoding a module or a
// defpact state reads other entries (dependencies, the defpact's module);
// an entry met again while it is being decoded can only come from corrupt
// data, and is refused rather than followed forever.
func (d *DB) decode(k, b []byte) (any, error) {
	if d.decoding[string(k)] {
		return nil, fmt.Errorf("%w: entry %x refers to itself", errCorrupt, k)
	}
	d.decoding[string(k)] = true
	defer delete(d.decoding, string(k))
	return DecodeEntry(b, (*dbResolver)(d))
}

// ModuleVersion returns the version of module name whose hash is hash, as
// installed at any time, rebuilding it if needed: eval.RestoreModule uses
// it to compile a module against the dependency versions it was compiled
// against. found is false for a version never written.
func (d *DB) ModuleVersion(name value.ModuleName, hash string) (*eval.Module, bool, error) {
	vk := versionKey(name.String(), hash)
	var b []byte
	if d.tx != nil {
		b = d.tx.versions[string(vk)]
	}
	if b == nil {
		var err error
		b, err = d.ldb.Get(vk, nil)
		if errors.Is(err, leveldb.ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("persist: module %s version %s: %w", name, hash, err)
		}
	}
	if len(b) < 2 || b[1] != entryModule {
		return nil, false, fmt.Errorf("%w: module %s version %s is not a module entry", errCorrupt, name, hash)
	}
	v, err := d.decode(vk, b)
	if err != nil {
		return nil, false, fmt.Errorf("persist: module %s version %s: %w", name, hash, err)
	}
	m, ok := v.(*eval.Module)
	if !ok || m == nil {
		return nil, false, fmt.Errorf("%w: module %s version %s holds a %T", errCorrupt, name, hash, v)
	}
	return m, true, nil
}

// dbResolver is DB as the codec's Resolver, kept off DB's own methods.
type dbResolver DB

func (r *dbResolver) RestoreModule(rec eval.ModuleRecord) (*eval.Module, error) {
	d := (*DB)(r)
	return d.mods.Restore(d, rec, d.restoring)
}

func (r *dbResolver) PactDef(mod value.ModuleName, name, hash string) (*eval.Def, error) {
	return PactDef((*DB)(r), mod, name, hash)
}

func sameRecord(a, b *eval.ModuleRecord) bool {
	return a.Name == b.Name && a.Interface == b.Interface && a.Hash == b.Hash && a.TxHash == b.TxHash &&
		a.GovKeyset == b.GovKeyset && a.GovCap == b.GovCap && a.Code == b.Code &&
		slices.Equal(a.Blessed, b.Blessed) && slices.Equal(a.Deps, b.Deps)
}

var _ db.DB = (*DB)(nil)
var _ eval.ModuleVersions = (*DB)(nil)
