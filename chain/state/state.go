package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist"
)

// KeySpace is the part of the node's database a chain's state lives in, which the store
// provides (store.DB.PactSpace): every key the state reads or writes starts with Prefix, and
// the store owns the database, its write-fault checks and its durability.
type KeySpace interface {
	// Prefix is the space's key prefix. Prefixes of different states must not be prefixes
	// of one another.
	Prefix() []byte
	// Get reads one key; it returns (or wraps) kv.ErrNotFound when the key is absent.
	Get(key []byte) ([]byte, error)
	// NewIterator iterates over the keys from start (inclusive) to limit (exclusive; nil: no
	// limit).
	NewIterator(start, limit []byte) kv.Iterator
	// Write writes b as one synced batch: when it returns nil, all of b is on disk.
	Write(b *kv.Batch) error
}

// prefixIterator iterates over the keys of space that start with prefix.
func prefixIterator(space KeySpace, prefix []byte) kv.Iterator {
	return space.NewIterator(prefix, kv.PrefixEnd(prefix))
}

// Versioned Pact state: one chain's state, kept as of every block, inside
// the key space the store gives it. Every key starts with the space's
// prefix:
//
//	prefix 0x00                       last applied height (u64 BE); absent on an empty state
//	prefix 0x01 height                block record (height u64 BE): the next tx id after the
//	                                  block (u64 BE), then every logical key the block wrote
//	                                  (uvarint length | bytes)
//	prefix 0x02 logical ^height       one version of a logical key, written by block height
//	                                  (stored inverted, u64 BE, so the newest version comes
//	                                  first); value: an entry (codec.go), empty for a table,
//	                                  the bytes as given for metadata
//
// Logical keys, with esc(s) the order-preserving escape of s (0x00 becomes
// 0x00 0xff, and 0x00 0x01 ends it):
//
//	0x01 esc(table)                   a user table exists
//	0x02 esc(table) esc(key)          a user table's row
//	0x03 domain esc(key)              a system domain's row
//	0x04 esc(name) esc(hash)          a module version (for ModuleVersion)
//	0x05 esc(name)                    the node's metadata (View.PutMeta): raw bytes, not an
//	                                  entry; not Pact data, never in a tx log or the row cache
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
	lMeta   byte = 0x05
)

// Errors of the versioned state.
var (
	// ErrHeight is wrapped when Apply or Rewind is given a height that does
	// not follow, or is not in, the applied history.
	ErrHeight = errors.New("state: bad block height")
	// ErrStaleView is wrapped when Apply is given a view that was not made
	// on the current state (or is not a view of this state, or was applied
	// already, or is in a transaction), and by every read of stored state
	// through a view whose block a Rewind dropped.
	ErrStaleView = errors.New("state: view does not apply to the current state")
	// ErrFrozen is returned by writes to a view whose block Freeze kept.
	ErrFrozen = errors.New("state: the view's block is frozen")
)

// keptRewinds is how many of the latest rewinds a state remembers for its views' staleness
// checks (Versioned.rewinds); it keeps between keptRewinds and twice as many.
const keptRewinds = 1024

// Versioned is one chain's Pact state as of every applied block.
//
// One writer (the executor) calls Apply and Rewind; any number of other
// goroutines may meanwhile call Height and View and read through their
// views, each view being used by one goroutine at a time. A view at or
// below Height stays valid while blocks are applied, since Apply only adds
// versions above the height; a Rewind below a view's height makes every
// later read of stored state through it fail with ErrStaleView, rather
// than return another branch's data.
type Versioned struct {
	space  KeySpace
	prefix []byte

	// write serialises Apply and Rewind, the only writers of height, has
	// and rewinds, which may therefore read them without mu.
	write sync.Mutex
	// mu guards height, has and rewinds. Readers take it shared around
	// each access to the store (not for a view's life), so that the check
	// that their view is not stale and the read itself see the same state.
	mu     sync.RWMutex
	height uint64
	has    bool // false on an empty state
	// headNext is the next transaction id after block height (its block record's), known
	// when headKnown: read by Open and Rewind and kept by Apply, so that a view of the head,
	// which every /send's checks make, reads no block record. A record that cannot be read
	// leaves it unknown: views then read the record, and fail as it does.
	headNext  db.TxID
	headKnown bool
	// rewinds are the heights rewound to, in order, but for the first
	// rewindsDropped of them: a view made after g rewinds is stale if one
	// of the rewinds from the g-th on is below its base. Only the recent
	// ones are kept (a node follows reorgs for months); a view older than
	// those kept counts as stale.
	rewinds        []uint64
	rewindsDropped int

	// cache holds decoded values by version key; a rewind drops the keys
	// it deletes, since they can then be written again with other values.
	// Reads write to it (a miss is filled, a hit may move generations), so
	// it has a lock of its own, taken inside mu.
	cacheMu sync.Mutex
	cache   persist.RowCache
	// newest maps a logical key to the height of its newest version at or
	// below the state's height (noVersion: it has none), for the keys read
	// or written lately, so that a read finds its version with a point
	// read instead of an iterator (newest.go). Guarded by cacheMu; filled
	// by readers only while they hold mu shared and read as of the height,
	// set by Apply and dropped by Rewind under mu, so an entry is never
	// older than the height it describes.
	newest persist.RowCache
	mods   *persist.ModuleCache
}

// Open opens the versioned state stored in space.
func Open(space KeySpace) (*Versioned, error) {
	prefix := space.Prefix()
	v := &Versioned{
		space:  space,
		prefix: slices.Clone(prefix),
		cache:  persist.NewRowCache(persist.DefaultCacheEntries),
		newest: persist.NewRowCache(newestEntries),
		mods:   persist.NewModuleCache(),
	}
	b, err := space.Get(v.key(vMeta))
	switch {
	case err == nil:
		if len(b) != 8 {
			return nil, fmt.Errorf("%w: versioned state %x: bad height record", kv.ErrCorrupt, prefix)
		}
		v.height, v.has = binary.BigEndian.Uint64(b), true
		if next, _, err := v.blockRecord(v.height, false); err == nil {
			v.headNext, v.headKnown = next, true
		}
	case !errors.Is(err, kv.ErrNotFound):
		return nil, fmt.Errorf("state: open versioned state %x: %w", prefix, err)
	}
	return v, nil
}

// Height returns the last applied block height; false on an empty state.
func (v *Versioned) Height() (uint64, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.height, v.has
}

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

func lMetaKey(name string) string { return string(esc([]byte{lMeta}, name)) }

// get returns the bytes of the newest stored version of logical at or
// below h.
func (v *Versioned) get(logical string, h uint64) ([]byte, bool, error) {
	if vk, found, known := v.lookupNewest(logical, h); known {
		if !found {
			return nil, false, nil
		}
		return v.pointRead(vk)
	}
	pre := v.key(vVersion, []byte(logical))
	it := prefixIterator(v.space, pre)
	defer it.Release()
	if !it.Seek(append(pre, be64(^h)...)) {
		v.learnNewest(logical, h, nil)
		return nil, false, it.Error()
	}
	v.learnNewest(logical, h, it.Key())
	return slices.Clone(it.Value()), true, nil
}

// getMany is get for several logical keys as of h: those the newest index does not know share
// one store iterator, where get would open one each (a /send batch's request-key lookups).
// Keys are escaped and prefix-free, so a seek that lands on another key's versions means none.
func (v *Versioned) getMany(logicals []string, h uint64) (vals [][]byte, found []bool, err error) {
	vals, found = make([][]byte, len(logicals)), make([]bool, len(logicals))
	var it kv.Iterator
	for i, logical := range logicals {
		if vk, ok, known := v.lookupNewest(logical, h); known {
			if ok {
				if vals[i], found[i], err = v.pointRead(vk); err != nil {
					break
				}
			}
			continue
		}
		if it == nil {
			it = prefixIterator(v.space, v.key(vVersion))
		}
		pre := v.key(vVersion, []byte(logical))
		if !it.Seek(append(pre, be64(^h)...)) || !bytes.HasPrefix(it.Key(), pre) {
			if err = it.Error(); err != nil {
				break
			}
			v.learnNewest(logical, h, nil)
			continue
		}
		v.learnNewest(logical, h, it.Key())
		vals[i], found[i] = slices.Clone(it.Value()), true
	}
	if it != nil {
		it.Release()
	}
	return vals, found, err
}

// getCached is get for a decoded value: the cached value of the version
// found, or, when it is not cached, its key and bytes to decode. A hit
// copies nothing.
func (v *Versioned) getCached(logical string, h uint64) (val any, hit bool, vk, b []byte, found bool, err error) {
	if vk, found, known := v.lookupNewest(logical, h); known {
		if !found {
			return nil, false, nil, nil, false, nil
		}
		v.cacheMu.Lock()
		val, hit = v.cache.Get(string(vk))
		v.cacheMu.Unlock()
		if hit {
			return val, true, nil, nil, true, nil
		}
		b, found, err := v.pointRead(vk)
		return nil, false, vk, b, found, err
	}
	pre := v.key(vVersion, []byte(logical))
	it := prefixIterator(v.space, pre)
	defer it.Release()
	if !it.Seek(append(pre, be64(^h)...)) {
		v.learnNewest(logical, h, nil)
		return nil, false, nil, nil, false, it.Error()
	}
	v.learnNewest(logical, h, it.Key())
	v.cacheMu.Lock()
	val, hit = v.cache.Get(string(it.Key()))
	v.cacheMu.Unlock()
	if hit {
		return val, true, nil, nil, true, nil
	}
	return nil, false, slices.Clone(it.Key()), slices.Clone(it.Value()), true, nil
}

// exists reports whether logical has a stored version at or below h.
func (v *Versioned) exists(logical string, h uint64) (bool, error) {
	if _, found, known := v.lookupNewest(logical, h); known {
		return found, nil
	}
	pre := v.key(vVersion, []byte(logical))
	it := prefixIterator(v.space, pre)
	defer it.Release()
	if !it.Seek(append(pre, be64(^h)...)) {
		v.learnNewest(logical, h, nil)
		return false, it.Error()
	}
	v.learnNewest(logical, h, it.Key())
	return true, nil
}

// storedKeys lists the logical keys under sp live as of h, as the keys
// after sp, unescaped, in ascending order. It seeks at most twice per
// logical key, whatever the number of its versions: escaped keys are
// prefix-free, so the versions of a logical key lk are exactly the keys
// under pre|lk, and the next logical key starts after pre|lk|ff×8.
func (v *Versioned) storedKeys(sp string, h uint64) ([]string, error) {
	pre := v.key(vVersion, []byte(sp))
	it := prefixIterator(v.space, pre)
	defer it.Release()
	var ks []string
	ok := it.First()
	for ok {
		k := it.Key()
		if len(k) < len(pre)+8 {
			return nil, fmt.Errorf("%w: version key %x", kv.ErrCorrupt, k)
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
			return nil, fmt.Errorf("%w: version key %x", kv.ErrCorrupt, it.Key())
		}
		ks = append(ks, s)
		ok = it.Seek(append(append(lk, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 0))
	}
	return ks, it.Error()
}

// blockRecord reads and checks the record of block h; it copies out the logical keys only when
// withKeys (a view needs only the next tx id, and a block of many transactions lists thousands
// of keys).
func (v *Versioned) blockRecord(h uint64, withKeys bool) (next db.TxID, keys []string, err error) {
	b, err := v.space.Get(v.key(vBlock, be64(h)))
	if err != nil {
		return 0, nil, fmt.Errorf("state: block %d record: %w", h, err)
	}
	if len(b) < 8 {
		return 0, nil, fmt.Errorf("%w: block %d record", kv.ErrCorrupt, h)
	}
	next = db.TxID(binary.BigEndian.Uint64(b))
	for b = b[8:]; len(b) > 0; {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return 0, nil, fmt.Errorf("%w: block %d record", kv.ErrCorrupt, h)
		}
		if withKeys {
			keys = append(keys, string(b[w:w+int(n)]))
		}
		b = b[w+int(n):]
	}
	return next, keys, nil
}

// View returns a database whose reads see the state as of the end of block
// height (on an empty state: nothing) and whose writes stay in memory until
// Apply. Its transaction ids continue from block height's.
//
// View may be called concurrently with Apply and Rewind: the height is
// checked and the block record read under the same lock as the rewinds
// the view must watch are counted.
func (v *Versioned) View(height uint64) db.DB {
	w := &View{v: v, base: height, decoding: map[string]bool{}}
	w.block = newOverlay()
	w.tableCache = map[string]bool{}
	v.mu.RLock()
	defer v.mu.RUnlock()
	w.empty, w.gen = !v.has, v.rewindsDropped+len(v.rewinds)
	if v.has {
		if height > v.height {
			w.err = fmt.Errorf("%w: view at %d above height %d", ErrHeight, height, v.height)
		} else if height == v.height && v.headKnown {
			w.nextID = v.headNext
		} else if next, _, err := v.blockRecord(height, false); err != nil {
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
	v.write.Lock()
	defer v.write.Unlock()
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
	if err := v.write1(w.block, w.nextID, height); err != nil {
		return err
	}
	w.applied = true
	return nil
}

// write1 writes a block's overlay o, whose transactions end before tx id next, as the versions
// of block height, and publishes the new height. The caller holds v.write and has checked that
// the block follows the state's height.
func (v *Versioned) write1(o *overlay, next db.TxID, height uint64) error {
	var b kv.Batch
	rec := be64(uint64(next))
	for _, lk := range o.order {
		r := o.rows[lk]
		b.Put(v.versionKey(lk, height), r.enc)
		rec = binary.AppendUvarint(rec, uint64(len(lk)))
		rec = append(rec, lk...)
	}
	b.Put(v.key(vBlock, be64(height)), rec)
	b.Put(v.key(vMeta), be64(height))
	// The batch only adds versions above the height, which no view reads
	// (a view's base is at most the height), so readers need not wait for
	// the sync; they see the block once the new height is published.
	if err := v.space.Write(&b); err != nil {
		return fmt.Errorf("state: apply block %d: %w", height, err)
	}
	v.cacheMu.Lock()
	for _, lk := range o.order {
		if r := o.rows[lk]; len(r.enc) > 0 && lk[0] != lMeta {
			v.cache.Put(string(v.versionKey(lk, height)), r.v)
		}
	}
	v.cacheMu.Unlock()
	for _, lk := range o.order {
		if r := o.rows[lk]; r.rec != nil {
			v.mods.Remember(r.v.(*eval.Module), r.rec)
		}
	}
	v.mu.Lock()
	v.cacheMu.Lock()
	for _, lk := range o.order {
		v.newest.Put(lk, height)
	}
	v.cacheMu.Unlock()
	v.height, v.has = height, true
	v.headNext, v.headKnown = next, true
	v.mu.Unlock()
	return nil
}

// Rewind drops every block above height, so that Height() is height and
// block height+1 can be applied again. It touches only what those blocks
// wrote. A view made before a rewind below its height cannot be applied,
// and every later read of stored state through it fails with ErrStaleView.
//
// Such views are marked stale, and views above height refused, before
// anything is deleted, so no reader sees a block half dropped. If the
// deletion then fails the state is left as it was, but the views marked
// stay stale.
func (v *Versioned) Rewind(height uint64) error {
	v.write.Lock()
	defer v.write.Unlock()
	if !v.has || height > v.height {
		return fmt.Errorf("%w: rewind to %d, state at %d (%v)", ErrHeight, height, v.height, v.has)
	}
	if height == v.height {
		return nil
	}
	var b kv.Batch
	var dropped, droppedLogical []string
	for h := v.height; h > height; h-- {
		_, keys, err := v.blockRecord(h, true)
		if err != nil {
			return err
		}
		for _, lk := range keys {
			vk := v.versionKey(lk, h)
			b.Delete(vk)
			dropped = append(dropped, string(vk))
			droppedLogical = append(droppedLogical, lk)
		}
		b.Delete(v.key(vBlock, be64(h)))
	}
	b.Put(v.key(vMeta), be64(height))
	// The record of the new head stays: read now, views of it need not read it.
	next, _, err := v.blockRecord(height, false)
	old, oldNext, oldKnown := v.height, v.headNext, v.headKnown
	v.mu.Lock()
	v.height = height
	v.headNext, v.headKnown = next, err == nil
	v.rewinds = append(v.rewinds, height)
	if len(v.rewinds) >= 2*keptRewinds {
		// Views live for a request or a block: one made keptRewinds rewinds ago is long done.
		v.rewindsDropped += len(v.rewinds) - keptRewinds
		v.rewinds = append(v.rewinds[:0], v.rewinds[len(v.rewinds)-keptRewinds:]...)
	}
	// Their newest versions are among those dropped: forgotten before the deletion, so that
	// no read is sent to a version that is gone (readers refill them as of the new height).
	v.cacheMu.Lock()
	for _, lk := range droppedLogical {
		v.newest.Drop(lk)
	}
	v.cacheMu.Unlock()
	v.mu.Unlock()
	if err := v.space.Write(&b); err != nil {
		v.mu.Lock()
		v.height, v.headNext, v.headKnown = old, oldNext, oldKnown
		// Readers at the lowered height may have filled the index meanwhile with versions
		// below the ones that stay: forget them again.
		v.cacheMu.Lock()
		for _, lk := range droppedLogical {
			v.newest.Drop(lk)
		}
		v.cacheMu.Unlock()
		v.mu.Unlock()
		return fmt.Errorf("state: rewind to %d: %w", height, err)
	}
	// The same version key may be written again with another value. Only
	// stale views could still look these keys up, and they fail first.
	v.cacheMu.Lock()
	for _, k := range dropped {
		v.cache.Drop(k)
	}
	v.cacheMu.Unlock()
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
	gen     int   // the rewinds before it was made (Versioned.rewinds)
	err     error // the view could not be made; every call fails with it
	applied bool

	nextID db.TxID
	block  *overlay
	tx     *overlay
	// branch is the merged writes of the blocks between base and the block the view reads as
	// of, when that block is on a branch the stored state does not hold (Versioned.BranchView);
	// nil otherwise. The view never writes it.
	branch *overlay
	// frozen is set by Freeze: the block's writes are kept as a Block and must not change.
	frozen bool
	txMode db.Mode
	txID   db.TxID
	txLog  []db.TxLog
	// save, while set, records what the commits since Savepoint changed.
	save *savepoint

	// tableCache remembers which tables exist as of base.
	tableCache map[string]bool
	decoding   map[string]bool
	// restoring are the modules this view is rebuilding, to refuse
	// cycles; per view, as rebuilding runs on the view's goroutine while
	// other views may rebuild the same module (made on first use).
	restoring map[persist.ModuleKey]bool
}

// memRow is one write in memory: the value, its encoding, and for a module
// the record the encoding holds.
type memRow struct {
	v   any
	enc []byte
	rec *eval.ModuleRecord
}

// overlay is writes in memory, by logical key.
type overlay struct {
	rows  map[string]memRow
	order []string // logical keys in first-write order
	// keys are the keys first written here, by space (for Keys).
	keys map[string][]string
}

func newOverlay() *overlay {
	return &overlay{rows: map[string]memRow{}, keys: map[string][]string{}}
}

// put records a write; sp and key are set for rows (not tables or module
// versions).
func (o *overlay) put(lk string, r memRow, sp, key string, isRow bool) {
	if _, seen := o.rows[lk]; !seen {
		o.order = append(o.order, lk)
		if isRow {
			o.keys[sp] = append(o.keys[sp], key)
		}
	}
	o.rows[lk] = r
}

// clone copies o: the maps and lists, not the values, which are immutable.
func (o *overlay) clone() *overlay {
	c := &overlay{rows: maps.Clone(o.rows), order: slices.Clone(o.order), keys: make(map[string][]string, len(o.keys))}
	for sp, ks := range o.keys {
		c.keys[sp] = slices.Clone(ks)
	}
	return c
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

// Clone returns a view that starts with w's writes and goes on apart from it: a block being
// built continues on a clone while the payload built so far can still be mined and applied
// from w. Values are shared, as they are immutable. It fails inside a transaction and on a view
// already applied.
func (w *View) Clone() (*View, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.tx != nil {
		return nil, db.ErrInTx
	}
	if w.applied {
		return nil, fmt.Errorf("%w: clone of a view already applied", ErrStaleView)
	}
	c := *w
	c.frozen = false // the clone's block is its own
	c.save = nil
	c.block = w.block.clone()
	c.tableCache = maps.Clone(w.tableCache)
	c.decoding = map[string]bool{}
	c.restoring = nil
	return &c, nil
}

// rewound reports whether a rewind since the view was made dropped the
// block it reads as of. The caller holds v.mu or v.write.
func (w *View) rewound() bool {
	if w.gen < w.v.rewindsDropped {
		return true // older than the rewinds kept: it may have missed one below its base
	}
	for _, to := range w.v.rewinds[w.gen-w.v.rewindsDropped:] {
		if to < w.base {
			return true
		}
	}
	return false
}

// readLock takes v.mu shared for one access to the store, unless a rewind
// dropped the view's block: then it fails, since the versions the view
// would find may belong to blocks applied since. On success the caller
// calls v.mu.RUnlock. Rewind marks views stale under v.mu before it
// deletes anything, so a read under the lock that passed the check sees
// the view's own branch.
func (w *View) readLock() error {
	w.v.mu.RLock()
	if w.rewound() {
		w.v.mu.RUnlock()
		return fmt.Errorf("%w: view at %d: its block was rewound", ErrStaleView, w.base)
	}
	return nil
}

// Base is the height the view reads as of.
func (w *View) Base() uint64 { return w.base }

// lookup finds an overlay write of lk.
func (w *View) lookup(lk string) (memRow, bool) {
	if w.tx != nil {
		if r, ok := w.tx.rows[lk]; ok {
			return r, true
		}
	}
	if r, ok := w.block.rows[lk]; ok {
		return r, true
	}
	if w.branch != nil {
		r, ok := w.branch.rows[lk]
		return r, ok
	}
	return memRow{}, false
}

// writable refuses writes to a view whose block Freeze has kept.
func (w *View) writable() error {
	if w.err != nil {
		return w.err
	}
	if w.frozen {
		return ErrFrozen
	}
	return nil
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
	if err := w.readLock(); err != nil {
		return nil, false, err
	}
	val, hit, vk, b, ok, err := w.v.getCached(lk, w.base)
	w.v.mu.RUnlock()
	if err != nil || !ok || hit {
		return val, ok, err
	}
	// Decoding may read (a module's dependencies), so it runs unlocked;
	// the check again before caching keeps a version a rewind dropped
	// meanwhile, which could be written again with another value, out of
	// the cache.
	val, err = w.decode(vk, b)
	if err != nil {
		return nil, false, err
	}
	if err := w.readLock(); err != nil {
		return nil, false, err
	}
	w.v.cacheMu.Lock()
	w.v.cache.Put(string(vk), val)
	w.v.cacheMu.Unlock()
	w.v.mu.RUnlock()
	return val, true, nil
}

func (w *View) decode(k, b []byte) (any, error) {
	if w.decoding[string(k)] {
		return nil, fmt.Errorf("%w: entry %x refers to itself", kv.ErrCorrupt, k)
	}
	w.decoding[string(k)] = true
	defer delete(w.decoding, string(k))
	return persist.DecodeEntry(b, (*viewResolver)(w))
}

// BeginTx opens a transaction and returns its id.
func (w *View) BeginTx(mode db.Mode) (db.TxID, error) {
	if err := w.writable(); err != nil {
		return 0, err
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
	if w.save != nil {
		w.save.note(w.block, tx)
	}
	w.block.merge(tx)
	w.nextID++
	return log, nil
}

// savepoint is what RollbackToSavepoint restores of the block's writes: the rows the commits
// since Savepoint replaced or added, and the lengths of the lists those commits appended to.
type savepoint struct {
	nextID   db.TxID
	orderLen int
	rows     map[string]savedRow
	keyLens  map[string]int
}

type savedRow struct {
	r       memRow
	existed bool
}

// note records what merging tx into block is about to change.
func (sp *savepoint) note(block, tx *overlay) {
	if sp.rows == nil {
		sp.rows, sp.keyLens = map[string]savedRow{}, map[string]int{}
	}
	for _, lk := range tx.order {
		if _, seen := sp.rows[lk]; !seen {
			r, ok := block.rows[lk]
			sp.rows[lk] = savedRow{r, ok}
		}
	}
	for space := range tx.keys {
		if _, seen := sp.keyLens[space]; !seen {
			sp.keyLens[space] = len(block.keys[space])
		}
	}
}

// Savepoint starts recording the transactions committed from now on, so that
// RollbackToSavepoint can undo them all: a block being built drops a command that ran past the
// node's time bound, the purchase of its gas included. Writes made outside a transaction are
// not recorded. It fails inside a transaction.
func (w *View) Savepoint() error {
	if err := w.writable(); err != nil {
		return err
	}
	if w.tx != nil {
		return db.ErrInTx
	}
	w.save = &savepoint{nextID: w.nextID, orderLen: len(w.block.order)}
	return nil
}

// ReleaseSavepoint keeps what was committed since Savepoint.
func (w *View) ReleaseSavepoint() { w.save = nil }

// RollbackToSavepoint undoes every transaction committed since Savepoint, and rolls back the
// one open, if any.
func (w *View) RollbackToSavepoint() error {
	sp := w.save
	if sp == nil {
		return errors.New("state: no savepoint to roll back to")
	}
	w.save = nil
	w.tx, w.txLog = nil, nil
	b := w.block
	for lk, saved := range sp.rows {
		if saved.existed {
			b.rows[lk] = saved.r
		} else {
			delete(b.rows, lk)
		}
	}
	b.order = b.order[:sp.orderLen]
	for space, n := range sp.keyLens {
		if n == 0 {
			delete(b.keys, space)
		} else {
			b.keys[space] = b.keys[space][:n]
		}
	}
	w.nextID = sp.nextID
	return nil
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
	if err := w.readLock(); err != nil {
		return false, err
	}
	ok, err := w.v.exists(lk, w.base)
	w.v.mu.RUnlock()
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
	} else if int(d) >= persist.NumDomains {
		return "", persist.ErrBadDomain
	}
	return space(d, table), nil
}

// CreateTable creates an empty user table, from this block on.
func (w *View) CreateTable(table string) error {
	if err := w.writable(); err != nil {
		return err
	}
	ok, err := w.hasTable(table)
	if err != nil {
		return err
	}
	if ok {
		return db.ErrTableExists
	}
	w.cur().put(lTableKey(table), memRow{enc: []byte{}}, "", "", false)
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
		return nil, false, fmt.Errorf("state: read %v %q: %w", d, key, err)
	}
	return val, ok, nil
}

// Write stores value under key as wt says, in memory.
func (w *View) Write(d db.Domain, table, key string, value any, wt db.WriteType) error {
	if err := w.writable(); err != nil {
		return err
	}
	sp, err := w.space(d, table)
	if err != nil {
		return err
	}
	lk := string(esc([]byte(sp), key))
	if wt != db.Write {
		_, exists := w.lookup(lk)
		if !exists && !w.empty {
			if err := w.readLock(); err != nil {
				return fmt.Errorf("state: write %v %q: %w", d, key, err)
			}
			exists, err = w.v.exists(lk, w.base)
			w.v.mu.RUnlock()
			if err != nil {
				return fmt.Errorf("state: write %v %q: %w", d, key, err)
			}
		}
		if err := wt.Allows(exists); err != nil {
			return err
		}
	}
	enc, rec, err := persist.EncodeRow(w, value)
	if err != nil {
		return fmt.Errorf("state: write %v %q: %w", d, key, err)
	}
	o := w.cur()
	o.put(lk, memRow{v: value, enc: enc, rec: rec}, sp, key, true)
	if rec != nil {
		m := value.(*eval.Module)
		o.put(lModVerKey(m.Name.String(), m.Hash), memRow{v: value, enc: enc, rec: rec}, "", "", false)
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
		if err := w.readLock(); err != nil {
			return nil, fmt.Errorf("state: keys %v %q: %w", d, table, err)
		}
		ks, err = w.v.storedKeys(sp, w.base)
		w.v.mu.RUnlock()
		if err != nil {
			return nil, fmt.Errorf("state: keys %v %q: %w", d, table, err)
		}
	}
	extra := w.block.keys[sp]
	if w.tx != nil {
		extra = append(slices.Clip(extra), w.tx.keys[sp]...)
	}
	if w.branch != nil {
		extra = append(slices.Clip(extra), w.branch.keys[sp]...)
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
		return nil, false, fmt.Errorf("state: module %s version %s: %w", name, hash, err)
	}
	if !ok {
		return nil, false, nil
	}
	m, isMod := val.(*eval.Module)
	if !isMod || m == nil {
		return nil, false, fmt.Errorf("%w: module %s version %s holds a %T", kv.ErrCorrupt, name, hash, val)
	}
	return m, true, nil
}

// PutMeta stores value (any bytes, empty included) under name as metadata
// of the block the view builds, such as a request-key index entry or the
// block's hash. It is not Pact data: the interpreter cannot see it, it is
// in no tx log and it is stored as given, not as an entry. Apply keeps it
// with the block, listed in the block's record so that Rewind drops it.
// It is refused inside a transaction, whose end would decide its fate.
func (w *View) PutMeta(name string, value []byte) error {
	if err := w.writable(); err != nil {
		return err
	}
	if w.tx != nil {
		return fmt.Errorf("state: put meta %q: %w", name, db.ErrInTx)
	}
	// Copied, non-nil, so that the caller may reuse value and an empty
	// value is stored as one.
	w.block.put(lMetaKey(name), memRow{enc: append([]byte{}, value...)}, "", "", false)
	return nil
}

// Meta returns the metadata stored under name as of the view: the view's
// own PutMeta, else the newest version at or below its base. The bytes
// are the caller's.
func (w *View) Meta(name string) ([]byte, bool, error) {
	if w.err != nil {
		return nil, false, w.err
	}
	lk := lMetaKey(name)
	if r, ok := w.lookup(lk); ok { // a transaction never holds metadata (PutMeta)
		return slices.Clone(r.enc), true, nil
	}
	if w.empty {
		return nil, false, nil
	}
	if err := w.readLock(); err != nil {
		return nil, false, fmt.Errorf("state: meta %q: %w", name, err)
	}
	b, ok, err := w.v.get(lk, w.base)
	w.v.mu.RUnlock()
	if err != nil {
		return nil, false, fmt.Errorf("state: meta %q: %w", name, err)
	}
	return b, ok, nil
}

// Metas is Meta for several records, read together (Versioned.getMany).
func (w *View) Metas(names []string) (vals [][]byte, found []bool, err error) {
	if w.err != nil {
		return nil, nil, w.err
	}
	vals, found = make([][]byte, len(names)), make([]bool, len(names))
	var stored []string
	var at []int
	for i, name := range names {
		lk := lMetaKey(name)
		if r, ok := w.lookup(lk); ok {
			vals[i], found[i] = slices.Clone(r.enc), true
			continue
		}
		stored, at = append(stored, lk), append(at, i)
	}
	if len(stored) == 0 || w.empty {
		return vals, found, nil
	}
	if err := w.readLock(); err != nil {
		return nil, nil, fmt.Errorf("state: meta records: %w", err)
	}
	bs, ok, err := w.v.getMany(stored, w.base)
	w.v.mu.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("state: meta records: %w", err)
	}
	for j, i := range at {
		vals[i], found[i] = bs[j], ok[j]
	}
	return vals, found, nil
}

// viewResolver is a View as the codec's Resolver, kept off View's own methods.
type viewResolver View

func (r *viewResolver) RestoreModule(rec eval.ModuleRecord) (*eval.Module, error) {
	w := (*View)(r)
	if w.restoring == nil {
		w.restoring = map[persist.ModuleKey]bool{}
	}
	return w.v.mods.Restore(w, rec, w.restoring)
}

func (r *viewResolver) PactDef(mod eval.ModuleName, name, hash string) (*eval.Def, error) {
	return persist.PactDef((*View)(r), mod, name, hash)
}

var _ db.DB = (*View)(nil)
var _ eval.ModuleVersions = (*View)(nil)
