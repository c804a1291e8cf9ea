package state

import (
	"errors"
	"fmt"
	"math"

	"github.com/ledgernode/ledger-node/kv"
)

// Reading a version without an iterator.
//
// The newest version of a logical key at or below a view's base is found by seeking: an
// iterator over the key's versions, positioned at ^base. A goleveldb iterator is costly to make
// (it merges the memtables and a table iterator per level, and allocates for each), and a read
// through a warm row cache paid for one although it decoded nothing. Versioned.newest
// remembers, for the keys read or written lately, the height of their newest version at or
// below the state's height, so that a read as of any base at or above that height knows the
// version key at once: a row-cache hit then touches no goleveldb at all, and a miss is one
// point read.
//
// An entry is exact for the state's current height H: Apply sets the keys a block writes (to
// the new height) as it publishes it, Rewind drops the keys of the blocks it drops before it
// deletes them (and again if the deletion fails, as it puts the height back), and a reader fills an entry only for a read as of H, made under mu held
// shared, so that no Apply or Rewind runs between the read and the fill. An entry at height
// L answers a read as of base b when L <= b (the newest version <= H is then also the newest
// <= b); for L > b a view below H is reading an older version, and seeks as before.

// newestEntries is the size of one generation of the index: a chain's hot keys (accounts,
// modules, keysets) and then some, at about 100 bytes an entry.
const newestEntries = 1 << 15

// noVersion is the newest entry of a key that has no version at or below the height.
const noVersion = uint64(math.MaxUint64)

// lookupNewest returns the version key of logical's newest version at or below h, when the
// index knows it: known false means seek. The caller holds mu shared.
func (v *Versioned) lookupNewest(logical string, h uint64) (vk []byte, found, known bool) {
	v.cacheMu.Lock()
	e, ok := v.newest.Get(logical)
	v.cacheMu.Unlock()
	if !ok {
		return nil, false, false
	}
	at := e.(uint64)
	if at == noVersion {
		return nil, false, true
	}
	if at > h {
		return nil, false, false
	}
	return v.versionKey(logical, at), true, true
}

// learnNewest records what a seek as of h found for logical: the version key found, or none.
// Only a read as of the state's height tells the newest version at or below it. The caller
// holds mu shared.
func (v *Versioned) learnNewest(logical string, h uint64, foundKey []byte) {
	if !v.has || h != v.height {
		return
	}
	at := noVersion
	if foundKey != nil {
		if len(foundKey) < 8 {
			return
		}
		at = ^beUint64(foundKey[len(foundKey)-8:])
	}
	v.cacheMu.Lock()
	v.newest.Put(logical, at)
	v.cacheMu.Unlock()
}

// pointRead reads version key vk, which the index says exists.
func (v *Versioned) pointRead(vk []byte) ([]byte, bool, error) {
	b, err := v.space.Get(vk)
	if errors.Is(err, kv.ErrNotFound) {
		// The index and the store disagree: the store is what counts.
		return nil, false, fmt.Errorf("%w: version %x is indexed but not stored", kv.ErrCorrupt, vk)
	}
	if err != nil {
		return nil, false, err
	}
	// Non-nil even when empty: an empty value is one (metadata may be empty), as a seek gives it.
	return append([]byte{}, b...), true, nil
}

func beUint64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}
