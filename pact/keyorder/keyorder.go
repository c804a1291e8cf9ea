package keyorder

import (
	"cmp"
	"slices"
	"sort"
	"unicode/utf16"
)

// Pact encodes objects with their keys in "legacy" order: the iteration
// order of a Haskell HashMap (unordered-containers 0.2.15, hashable 1.3.0)
// holding them. Hashes, request keys and signatures depend on it, so it is
// reproduced bit for bit:
//
//   - each key is hashed with hashable 1.3.0's FNV-1 variant over its
//     UTF-16LE bytes: h starts at the salt -2578643520546668380 and for each
//     byte b becomes (h * 16777619) xor b, in wrapping 64-bit arithmetic;
//   - the HashMap is a trie on 4-bit chunks of h taken from the least
//     significant end, so iteration compares nibble 0, then nibble 1, ...;
//   - keys with the same full hash sit in one collision node in insertion
//     order, which is sorted key order because the map is built from a
//     sorted Map.

const (
	legacySalt     = -2578643520546668380
	fnvPrime32     = 16777619
	nibblesPerHash = 16
)

// legacyHash is hashable 1.3.0's hash of a Text.
func legacyHash(k string) uint64 {
	h := int64(legacySalt)
	unit := func(u uint16) {
		h = (h * fnvPrime32) ^ int64(u&0xff)
		h = (h * fnvPrime32) ^ int64(u>>8)
	}
	for _, r := range k {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			unit(uint16(hi))
			unit(uint16(lo))
		} else {
			unit(uint16(r))
		}
	}
	return uint64(h)
}

// nibbleReverse reorders h's nibbles so that plain integer order is the
// trie's iteration order (least significant nibble first).
func nibbleReverse(h uint64) uint64 {
	var r uint64
	for i := 0; i < nibblesPerHash; i++ {
		r = r<<4 | h&0xf
		h >>= 4
	}
	return r
}

// Legacy returns the (distinct) keys in legacy JSON order, as a new slice.
func Legacy(keys []string) []string {
	type entry struct {
		key  string
		rank uint64
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	es := make([]entry, len(sorted))
	for i, k := range sorted {
		es[i] = entry{k, nibbleReverse(legacyHash(k))}
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].rank < es[j].rank })
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.key
	}
	return out
}

// LegacyIndex is Legacy as a permutation of indices into
// keys, which must be sorted (as an Object's are), for encoding an Object
// without copying its values.
func LegacyIndex(keys []string) []int {
	return LegacyIndexInto(keys, nil)
}

// smallObject is the most keys LegacyIndexInto orders by itself.
const smallObject = 16

// LegacyIndexInto is LegacyIndex written over idx's array (an encoder's
// buffer on its stack): every object a node writes, hashes and returns
// has a few keys, which an insertion sort orders without the allocations
// of sort.SliceStable. Like it, the sort is stable.
func LegacyIndexInto(keys []string, idx []int) []int {
	if cap(idx) < len(keys) {
		idx = make([]int, len(keys))
	}
	idx = idx[:len(keys)]
	for i := range idx {
		idx[i] = i
	}
	if len(keys) > smallObject {
		ranks := make([]uint64, len(keys))
		for i, k := range keys {
			ranks[i] = nibbleReverse(legacyHash(k))
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ranks[a], ranks[b]) })
		return idx
	}
	var ranks [smallObject]uint64
	for i, k := range keys {
		ranks[i] = nibbleReverse(legacyHash(k))
	}
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && ranks[idx[j]] < ranks[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return idx
}
