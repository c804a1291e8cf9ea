package store

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/ledgernode/ledger-node/ledger"
)

// headerCache keeps up to a fixed number of decoded headers, evicting with CLOCK.
//
// Why this shape:
//   - Shards: a lookup locks only the shard its hash falls in (hashes are uniform, so the first
//     eight bytes spread keys evenly); with 64 shards, readers on different cores rarely meet.
//   - RWMutex per shard: hits take the read side only, so concurrent hits on one shard do not
//     serialise. Nothing ever holds a shard lock during I/O or decoding.
//   - CLOCK instead of LRU: a hit sets an atomic reference bit (and skips the store when the bit
//     is already set, so hot entries cause no cache-line writes) instead of relinking a list
//     under an exclusive lock.
//   - Fixed slots: each shard allocates its slot array and map once; a hit allocates nothing and
//     an insert allocates nothing beyond what the map itself does.
//
// The bound is exact: shard capacities add up to the configured size.
type headerCache struct {
	shards []cacheShard
	mask   uint64
}

type cacheShard struct {
	mu    sync.RWMutex
	index map[ledger.Hash]int32 // hash -> slot
	slots []cacheSlot           // len grows to cap(slots), then stays
	hand  int                   // next CLOCK victim candidate
	_     [64]byte              // keep neighbouring shards' locks off one cache line
}

type cacheSlot struct {
	key ledger.Hash
	hdr *ledger.Header
	ref atomic.Bool // referenced since the hand last passed
}

const (
	maxCacheShards     = 64
	minEntriesPerShard = 16
)

// newHeaderCache returns a cache of exactly size entries, or nil (caching off) when size <= 0.
// Every method accepts a nil receiver.
func newHeaderCache(size int) *headerCache {
	if size <= 0 {
		return nil
	}
	n := 1
	for n < maxCacheShards && size/(2*n) >= minEntriesPerShard {
		n *= 2
	}
	c := &headerCache{shards: make([]cacheShard, n), mask: uint64(n - 1)}
	for i := range c.shards {
		capacity := size / n
		if i < size%n {
			capacity++
		}
		c.shards[i].index = make(map[ledger.Hash]int32, capacity)
		c.shards[i].slots = make([]cacheSlot, 0, capacity)
	}
	return c
}

func (c *headerCache) shard(h *ledger.Hash) *cacheShard {
	return &c.shards[binary.LittleEndian.Uint64(h[:8])&c.mask]
}

// get returns the cached header or nil.
func (c *headerCache) get(h ledger.Hash) *ledger.Header {
	if c == nil {
		return nil
	}
	s := c.shard(&h)
	s.mu.RLock()
	var hdr *ledger.Header
	if i, ok := s.index[h]; ok {
		sl := &s.slots[i]
		hdr = sl.hdr
		if !sl.ref.Load() {
			sl.ref.Store(true)
		}
	}
	s.mu.RUnlock()
	return hdr
}

// peek returns the cached header or nil without marking it referenced: for scans, whose reads
// say nothing about what will be read again.
func (c *headerCache) peek(h ledger.Hash) *ledger.Header {
	if c == nil {
		return nil
	}
	s := c.shard(&h)
	s.mu.RLock()
	var hdr *ledger.Header
	if i, ok := s.index[h]; ok {
		hdr = s.slots[i].hdr
	}
	s.mu.RUnlock()
	return hdr
}

// contains reports whether h is cached, without marking it referenced.
func (c *headerCache) contains(h ledger.Hash) bool {
	if c == nil {
		return false
	}
	s := c.shard(&h)
	s.mu.RLock()
	_, ok := s.index[h]
	s.mu.RUnlock()
	return ok
}

// add caches hdr under h. hdr must never be mutated afterwards. A new entry starts unreferenced
// and the hand moves past it, so it survives one full sweep and stays only if read meanwhile:
// a long scan or a bulk insert cannot flush entries that are actually being read.
func (c *headerCache) add(h ledger.Hash, hdr *ledger.Header) {
	if c == nil {
		return
	}
	s := c.shard(&h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.index[h]; ok {
		return // headers are immutable by hash: the cached value is already right
	}
	if len(s.slots) < cap(s.slots) {
		s.slots = append(s.slots, cacheSlot{key: h, hdr: hdr})
		s.index[h] = int32(len(s.slots) - 1)
		return
	}
	// Terminates within two sweeps: the first clears every reference bit it passes.
	for {
		i := s.hand
		s.hand++
		if s.hand == len(s.slots) {
			s.hand = 0
		}
		sl := &s.slots[i]
		if sl.ref.Load() {
			sl.ref.Store(false)
			continue
		}
		delete(s.index, sl.key)
		sl.key, sl.hdr = h, hdr
		s.index[h] = int32(i)
		return
	}
}

// len is the number of cached headers.
func (c *headerCache) len() int {
	if c == nil {
		return 0
	}
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += len(s.index)
		s.mu.RUnlock()
	}
	return n
}

// capacity is the configured bound.
func (c *headerCache) capacity() int {
	if c == nil {
		return 0
	}
	n := 0
	for i := range c.shards {
		n += cap(c.shards[i].slots)
	}
	return n
}
