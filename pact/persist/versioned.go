package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// Versioned Pact state: one chain's state, kept as of every block, inside a
// goleveldb database the caller owns. Every key starts with the chain's
// prefix (prefixes of different chains must not be prefixes of one
// another):
//
//	prefix 0x00                       last applied height (u64 BE); absent on an empty state
//	prefix 0x01 height                block record (height u64 BE): the next tx id after the
//	                                  block (u64 BE), then every logical key the block wrote
//	                                  (uvarint length | bytes)
//	prefix 0x02 logical ^height       one version of a logical key, written by block height
//	                                  (stored inverted, u64 BE, so the newest version comes
//	                                  first); value: an entry (codec.go), empty for a table
//
// Logical keys, with esc(s) the order-preserving escape of s (0x00 becomes
// 0x00 0xff, and 0x00 0x01 ends it):
//
//	0x01 esc(table)                   a user table exists
//	0x02 esc(table) esc(key)          a user table's row
//	0x03 domain esc(key)              a system domain's row
//	0x04 esc(name) esc(hash)          a module version (for ModuleVersion)
//
// Escaping terminates every component, so the versions of one logical key
// are exactly the keys under prefix 0x02 logical, and one table's rows are
// exactly the logical keys under 0x02 esc(table), in their keys' byte order.
// Reading as of height H seeks to prefix 0x02 logical ^H: the first key
// there, if it is still under the logical key, is the newest version ≤ H.
// Pact never deletes, so there are no tombstones: a rewind deletes the
// versions above the fork point, found through the block records.
const (
	vMeta    byte = 0x00
	vBlock   byte = 0x01
	vVersion byte = 0x02

	lTable  byte = 0x01
	lUser   byte = 0x02
	lSys    byte = 0x03
	lModVer byte = 0x04
)

// Errors of the versioned state.
var (
	// ErrHeight is wrapped when Apply or Rewind is given a height that does
	// not follow, or is not in, the applied history.
	ErrHeight = errors.New("persist: bad block height")
	// ErrStaleView is wrapped when Apply is given a view that was not made
	// on the current state (or is not a view of this state, or was applied
	// already, or is in a transaction).
	ErrStaleView = errors.New("persist: view does not apply to the current state")
)

// Versioned is one chain's Pact state as of every applied block. It is not
// safe for concurrent use: one executor drives it, and the views it makes.
type Versioned struct {
	ldb    *leveldb.DB
	prefix []byte

	height uint64
	has    bool // false on an empty state
	// rewinds are the heights rewound to, in order: a view made when
	// len(rewinds) was g is stale if one of rewinds[g:] is below its base.
	rewinds []uint64

	// cache holds decoded values by version key; a rewind drops the keys
	// it deletes, since they can then be written again with other values.
	cache rowCache
	moduleCache
}

// OpenVersioned opens the versioned state stored under prefix in ldb,
// which stays the caller's to close.
func OpenVersioned(ldb *leveldb.DB, prefix []byte) (*Versioned, error) {
	v := &Versioned{
		ldb:         ldb,
		prefix:      slices.Clone(prefix),
		cache:       newRowCache(defaultCacheEntries),
		moduleCache: newModuleCache(),
	}
	b, err := ldb.Get(v.key(vMeta), nil)
	switch {
	case err == nil:
		if len(b) != 8 {
			return nil, fmt.Errorf("%w: versioned state %x: bad height record", ErrCorrupt, prefix)
		}
		v.height, v.has = binary.BigEndian.Uint64(b), true
	case !errors.Is(err, leveldb.ErrNotFound):
		return nil, fmt.Errorf("persist: open versioned state %x: %w", prefix, err)
	}
	return v, nil
}

// Height returns the last applied block height; false on an empty state.
func (v *Versioned) Height() (uint64, bool) { return v.height, v.has }

func (v *Versioned) key(tag byte, parts ...[]byte) []byte {
	b := append(slices.Clip(v.prefix), tag)
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func be64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// versionKey is the key of logical's version written at height h.
func (v *Versioned) versionKey(logical string, h uint64) []byte {
	return v.key(vVersion, []byte(logical), be64(^h))
}

// esc appends the order-preserving, terminated escape of s.
func esc(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			b = append(b, 0, 0xff)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, 0, 1)
}

// unesc is esc's inverse on a whole escaped component.
func unesc(b []byte) (string, bool) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != 0 {
			out = append(out, b[i])
			continue
		}
		if i+1 >= len(b) {
			return "", false
		}
		switch b[i+1] {
		case 0xff:
			out = append(out, 0)
			i++
		case 1:
			return string(out), i+2 == len(b)
		default:
			return "", false
		}
	}
	return "", false
}

func lTableKey(table string) string { return string(esc([]byte{lTable}, table)) }

// space is the logical prefix of a domain's or user table's rows.
func space(d db.Domain, table string) string {
	if d == db.UserTable {
		return string(esc([]byte{lUser}, table))
	}
	return string([]byte{lSys, byte(d)})
}

func lModVerKey(name, hash string) string {
	return string(esc(esc([]byte{lModVer}, name), hash))
}

// get returns the newest stored version of logical at or below h: its
// version key and bytes.
func (v *Versioned) get(logical string, h uint64) ([]byte, []byte, bool, error) {
	pre := v.key(vVersion, []byte(logical))
	it := v.ldb.NewIterator(util.BytesPrefix(pre), nil)
	defer it.Release()
	if !it.Seek(append(pre, be64(^h)...)) {
		return nil, nil, false, it.Error()
	}
	return slices.Clone(it.Key()), slices.Clone(it.Value()), true, nil
}

// storedKeys lists the logical keys under sp live as of h, as the keys
// after sp, unescaped, in ascending order. It seeks at most twice per
// logical key, whatever the number of its versions: escaped keys are
// prefix-free, so the versions of a logical key lk are exactly the keys
// under pre|lk, and the next logical key starts after pre|lk|ff×8.
func (v *Versioned) storedKeys(sp string, h uint64) ([]string, error) {
	pre := v.key(vVersion, []byte(sp))
	it := v.ldb.NewIterator(util.BytesPrefix(pre), nil)
	defer it.Release()
	var ks []string
	ok := it.First()
	for ok {
		k := it.Key()
		if len(k) < len(pre)+8 {
			return nil, fmt.Errorf("%w: version key %x", ErrCorrupt, k)
		}
		lk := slices.Clone(k[:len(k)-8]) // pre|logical rest
		if ^binary.BigEndian.Uint64(k[len(k)-8:]) > h {
			// Versions above h come first; seek to the newest one ≤ h.
			if ok = it.Seek(append(slices.Clip(lk), be64(^h)...)); !ok {
				break
			}
			if !bytes.HasPrefix(it.Key(), lk) {
				continue // none: it is on the next logical key
			}
		}
		s, valid := unesc(lk[len(pre):])
		if !valid {
			return nil, fmt.Errorf("%w: version key %x", ErrCorrupt, it.Key())
		}
		ks = append(ks, s)
		ok = it.Seek(append(append(lk, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 0))
	}
	return ks, it.Error()
}

// blockRecord reads the record of block h.
func (v *Versioned) blockRecord(h uint64) (next db.TxID, keys []string, err error) {
	b, err := v.ldb.Get(v.key(vBlock, be64(h)), nil)
	if err != nil {
		return 0, nil, fmt.Errorf("persist: block %d record: %w", h, err)
	}
	if len(b) < 8 {
		return 0, nil, fmt.Errorf("%w: block %d record", ErrCorrupt, h)
	}
	next = db.TxID(binary.BigEndian.Uint64(b))
	for b = b[8:]; len(b) > 0; {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return 0, nil, fmt.Errorf("%w: block %d record", ErrCorrupt, h)
		}
		keys = append(keys, string(b[w:w+int(n)]))
		b = b[w+int(n):]
	}
	return next, keys, nil
}

// View returns a database whose reads see the state as of the end of block
// height (on an empty state: nothing) and whose writes stay in memory until
// Apply. Its transaction ids continue from block height's.
func (v *Versioned) View(height uint64) db.DB {
	w := &View{v: v, base: height, empty: !v.has, gen: len(v.rewinds), decoding: map[string]bool{}}
	w.block = newOverlay()
	w.tableCache = map[string]bool{}
	if v.has {
		if height > v.height {
			w.err = fmt.Errorf("%w: view at %d above height %d", ErrHeight, height, v.height)
		} else if next, _, err := v.blockRecord(height); err != nil {
			w.err = err
		} else {
			w.nextID = next
		}
	}
	return w
}

// Apply writes the committed writes of view, made by View(height-1) (or on
// an empty state for height 0), as block height: one synced batch holding
// every version, the block's record and the new height.
func (v *Versioned) Apply(view db.DB, height uint64) error {
	w, ok := view.(*View)
	if !ok || w.v != v || w.applied || w.tx != nil || w.err != nil || w.rewound() {
		if ok && w.err != nil {
			return fmt.Errorf("%w: %v", ErrStaleView, w.err)
		}
		return ErrStaleView
	}
	switch {
	case !v.has && height != 0:
		return fmt.Errorf("%w: %d on an empty state", ErrHeight, height)
	case v.has && height != v.height+1:
		return fmt.Errorf("%w: %d after %d", ErrHeight, height, v.height)
	case v.has && (w.empty || w.base != v.height):
		return fmt.Errorf("%w: view at %d, state at %d", ErrStaleView, w.base, v.height)
	}
	var b leveldb.Batch
	rec := be64(uint64(w.nextID))
	for _, lk := range w.block.order {
		r := w.block.rows[lk]
		b.Put(v.versionKey(lk, height), r.enc)
		rec = binary.AppendUvarint(rec, uint64(len(lk)))
		rec = append(rec, lk...)
	}
	b.Put(v.key(vBlock, be64(height)), rec)
	b.Put(v.key(vMeta), be64(height))
	if err := v.ldb.Write(&b, synced); err != nil {
		return fmt.Errorf("persist: apply block %d: %w", height, err)
	}
	v.height, v.has = height, true
	w.applied = true
	for _, lk := range w.block.order {
		r := w.block.rows[lk]
		if len(r.enc) > 0 {
			v.cache.put(string(v.versionKey(lk, height)), r.v)
		}
		if r.rec != nil {
			v.remember(r.v.(*eval.Module), r.rec)
		}
	}
	return nil
}

// Rewind drops every block above height, so that Height() is height and
// block height+1 can be applied again. It touches only what those blocks
// wrote. A view made before a rewind below its height cannot be applied,
// and must not be read from: its reads may see blocks applied since.
func (v *Versioned) Rewind(height uint64) error {
	if !v.has || height > v.height {
		return fmt.Errorf("%w: rewind to %d, state at %d (%v)", ErrHeight, height, v.height, v.has)
	}
	if height == v.height {
		return nil
	}
	var b leveldb.Batch
	var dropped []string
	for h := v.height; h > height; h-- {
		_, keys, err := v.blockRecord(h)
		if err != nil {
			return err
		}
		for _, lk := range keys {
			vk := v.versionKey(lk, h)
			b.Delete(vk)
			dropped = append(dropped, string(vk))
		}
		b.Delete(v.key(vBlock, be64(h)))
	}
	b.Put(v.key(vMeta), be64(height))
	if err := v.ldb.Write(&b, synced); err != nil {
		return fmt.Errorf("persist: rewind to %d: %w", height, err)
	}
	v.height = height
	v.rewinds = append(v.rewinds, height)
	for _, k := range dropped { // the same version key may be written again
		delete(v.cache.hot, k)
		delete(v.cache.cold, k)
	}
	return nil
}

// View is a db.DB over the versioned state as of one block, with its
// writes in memory (see Versioned.View). Outside a transaction writes go to
// the block's overlay at once; inside one they are kept apart and moved
// there by a Transactional commit.
type View struct {
	v       *Versioned
	base    uint64
	empty   bool  // made on an empty state: it reads nothing
	gen     int   // len(v.rewinds) when made
	err     error // the view could not be made; every call fails with it
	applied bool

	nextID db.TxID
	block  *overlay
	tx     *overlay
	txMode db.Mode
	txID   db.TxID
	txLog  []db.TxLog

	// tableCache remembers which tables exist as of base.
	tableCache map[string]bool
	decoding   map[string]bool
}

// overlay is writes in memory, by logical key.
type overlay struct {
	rows  map[string]txRow
	order []string // logical keys in first-write order
	// keys are the keys first written here, by space (for Keys).
	keys map[string][]string
}

func newOverlay() *overlay {
	return &overlay{rows: map[string]txRow{}, keys: map[string][]string{}}
}

// put records a write; sp and key are set for rows (not tables or module
// versions).
func (o *overlay) put(lk string, r txRow, sp, key string, isRow bool) {
	if _, seen := o.rows[lk]; !seen {
		o.order = append(o.order, lk)
		if isRow {
			o.keys[sp] = append(o.keys[sp], key)
		}
	}
	o.rows[lk] = r
}

// merge moves from's writes into o.
func (o *overlay) merge(from *overlay) {
	for _, lk := range from.order {
		if _, seen := o.rows[lk]; !seen {
			o.order = append(o.order, lk)
		}
		o.rows[lk] = from.rows[lk]
	}
	for sp, ks := range from.keys {
		o.keys[sp] = append(o.keys[sp], ks...)
	}
}

// rewound reports whether a rewind since the view was made dropped the
// block it reads as of.
func (w *View) rewound() bool {
	for _, to := range w.v.rewinds[w.gen:] {
		if to < w.base {
			return true
		}
	}
	return false
}

// Base is the height the view reads as of.
func (w *View) Base() uint64 { return w.base }

// lookup finds an overlay write of lk.
func (w *View) lookup(lk string) (txRow, bool) {
	if w.tx != nil {
		if r, ok := w.tx.rows[lk]; ok {
			return r, true
		}
	}
	r, ok := w.block.rows[lk]
	return r, ok
}

// cur is the overlay writes go to.
func (w *View) cur() *overlay {
	if w.tx != nil {
		return w.tx
	}
	return w.block
}

// stored reads logical's value as of base.
func (w *View) stored(lk string) (any, bool, error) {
	if w.empty {
		return nil, false, nil
	}
	vk, b, ok, err := w.v.get(lk, w.base)
	if err != nil || !ok {
		return nil, false, err
	}
	if val, ok := w.v.cache.get(string(vk)); ok {
		return val, true, nil
	}
	val, err := w.decode(vk, b)
	if err != nil {
		return nil, false, err
	}
	w.v.cache.put(string(vk), val)
	return val, true, nil
}

func (w *View) decode(k, b []byte) (any, error) {
	if w.decoding[string(k)] {
		return nil, fmt.Errorf("%w: entry %x refers to itself", ErrCorrupt, k)
	}
	w.decoding[string(k)] = true
	defer delete(w.decoding, string(k))
	return decodeEntry(b, w)
}

// BeginTx opens a transaction and returns its id.
func (w *View) BeginTx(mode db.Mode) (db.TxID, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.tx != nil {
		return 0, db.ErrInTx
	}
	w.tx, w.txMode, w.txID, w.txLog = newOverlay(), mode, w.nextID, nil
	return w.txID, nil
}

// CommitTx ends the transaction: a Transactional commit moves its writes
// to the block's overlay and advances the tx id; a Local one drops them.
func (w *View) CommitTx() ([]db.TxLog, error) {
	if w.tx == nil {
		return nil, db.ErrNotInTx
	}
	tx, log := w.tx, w.txLog
	w.tx, w.txLog = nil, nil
	if w.txMode == db.Local {
		return log, nil
	}
	w.block.merge(tx)
	w.nextID++
	return log, nil
}

// RollbackTx drops the transaction's writes and tables.
func (w *View) RollbackTx() error {
	if w.tx == nil {
		return db.ErrNotInTx
	}
	w.tx, w.txLog = nil, nil
	return nil
}

// InTx reports whether a transaction is open.
func (w *View) InTx() bool { return w.tx != nil }

// HasTable reports whether a user table exists.
func (w *View) HasTable(table string) bool {
	ok, _ := w.hasTable(table)
	return ok
}

func (w *View) hasTable(table string) (bool, error) {
	if w.err != nil {
		return false, w.err
	}
	lk := lTableKey(table)
	if _, ok := w.lookup(lk); ok {
		return true, nil
	}
	if ok, seen := w.tableCache[table]; seen {
		return ok, nil
	}
	if w.empty {
		return false, nil
	}
	_, _, ok, err := w.v.get(lk, w.base)
	if err != nil {
		return false, err
	}
	w.tableCache[table] = ok
	return ok, nil
}

// space checks the domain or table and returns its logical prefix.
func (w *View) space(d db.Domain, table string) (string, error) {
	if w.err != nil {
		return "", w.err
	}
	if d == db.UserTable {
		ok, err := w.hasTable(table)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", db.ErrNoTable
		}
	} else if int(d) >= numDomains {
		return "", errBadDomain
	}
	return space(d, table), nil
}

// CreateTable creates an empty user table, from this block on.
func (w *View) CreateTable(table string) error {
	ok, err := w.hasTable(table)
	if err != nil {
		return err
	}
	if ok {
		return db.ErrTableExists
	}
	w.cur().put(lTableKey(table), txRow{enc: []byte{}}, "", "", false)
	return nil
}

// Read returns the value under key as of the view.
func (w *View) Read(d db.Domain, table, key string) (any, bool, error) {
	sp, err := w.space(d, table)
	if err != nil {
		return nil, false, err
	}
	lk := string(esc([]byte(sp), key))
	if r, ok := w.lookup(lk); ok {
		return r.v, true, nil
	}
	val, ok, err := w.stored(lk)
	if err != nil {
		return nil, false, fmt.Errorf("persist: read %v %q: %w", d, key, err)
	}
	return val, ok, nil
}

// Write stores value under key as wt says, in memory.
func (w *View) Write(d db.Domain, table, key string, value any, wt db.WriteType) error {
	sp, err := w.space(d, table)
	if err != nil {
		return err
	}
	lk := string(esc([]byte(sp), key))
	if wt != db.Write {
		_, exists := w.lookup(lk)
		if !exists && !w.empty {
			_, _, exists, err = w.v.get(lk, w.base)
			if err != nil {
				return fmt.Errorf("persist: write %v %q: %w", d, key, err)
			}
		}
		switch {
		case wt == db.Insert && exists:
			return db.ErrRowExists
		case wt == db.Update && !exists:
			return db.ErrNoRow
		}
	}
	var rec *eval.ModuleRecord
	enc, err := encodeEntry(nil, value, func(m *eval.Module) (eval.ModuleRecord, error) {
		r := w.moduleRecord(m)
		rec = &r
		return r, nil
	})
	if err != nil {
		return fmt.Errorf("persist: write %v %q: %w", d, key, err)
	}
	o := w.cur()
	o.put(lk, txRow{v: value, enc: enc, rec: rec}, sp, key, true)
	if rec != nil {
		m := value.(*eval.Module)
		o.put(lModVerKey(m.Name.String(), m.Hash), txRow{v: value, enc: enc, rec: rec}, "", "", false)
	}
	if w.tx != nil {
		if d != db.UserTable {
			table = ""
		}
		w.txLog = append(w.txLog, db.TxLog{Domain: d, Table: table, Key: key, Value: value})
	}
	return nil
}

// Keys lists the keys of a domain or user table, as of the view, in
// ascending byte order.
func (w *View) Keys(d db.Domain, table string) ([]string, error) {
	sp, err := w.space(d, table)
	if err != nil {
		return nil, err
	}
	var ks []string
	if !w.empty {
		if ks, err = w.v.storedKeys(sp, w.base); err != nil {
			return nil, fmt.Errorf("persist: keys %v %q: %w", d, table, err)
		}
	}
	extra := w.block.keys[sp]
	if w.tx != nil {
		extra = append(slices.Clip(extra), w.tx.keys[sp]...)
	}
	if len(extra) > 0 {
		ks = append(ks, extra...)
		slices.Sort(ks)
		ks = slices.Compact(ks)
	}
	if ks == nil {
		ks = []string{}
	}
	return ks, nil
}

// ModuleVersion returns the version of module name with hash hash, as
// installed at or before the view.
func (w *View) ModuleVersion(name eval.ModuleName, hash string) (*eval.Module, bool, error) {
	if w.err != nil {
		return nil, false, w.err
	}
	lk := lModVerKey(name.String(), hash)
	if r, ok := w.lookup(lk); ok {
		return r.v.(*eval.Module), true, nil
	}
	val, ok, err := w.stored(lk)
	if err != nil {
		return nil, false, fmt.Errorf("persist: module %s version %s: %w", name, hash, err)
	}
	if !ok {
		return nil, false, nil
	}
	m, isMod := val.(*eval.Module)
	if !isMod || m == nil {
		return nil, false, fmt.Errorf("%w: module %s version %s holds a %T", ErrCorrupt, name, hash, val)
	}
	return m, true, nil
}

// moduleRecord, restore and pactDef are DB's, over the view (modules.go).
func (w *View) moduleRecord(m *eval.Module) eval.ModuleRecord { return moduleRecord(w, m) }

func (w *View) restore(rec eval.ModuleRecord) (*eval.Module, error) {
	return w.v.moduleCache.restore(w, rec)
}

func (w *View) pactDef(mod eval.ModuleName, name, hash string) (*eval.Def, error) {
	return pactDef(w, mod, name, hash)
}

var _ db.DB = (*View)(nil)
var _ eval.ModuleVersions = (*View)(nil)
