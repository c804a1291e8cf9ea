package store

import (
	"encoding/binary"
	"sync"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// testHash spreads i over all bytes the shard choice and the map look at.
func testHash(i int) (h ledger.Hash) {
	for j := 0; j < len(h); j += 8 {
		binary.LittleEndian.PutUint64(h[j:], uint64(i)*0x9e3779b97f4a7c15+uint64(j))
	}
	return h
}

func TestCacheBound(t *testing.T) {
	for _, size := range []int{1, 2, 7, 31, 100, 1000, 4097, 65536} {
		c := newHeaderCache(size)
		if got := c.capacity(); got != size {
			t.Fatalf("size %d: capacity %d", size, got)
		}
		hdr := new(ledger.Header)
		for i := range 3 * size {
			c.add(testHash(i), hdr)
			if i%97 == 0 {
				c.get(testHash(i / 2)) // some references, so eviction has bits to clear
			}
		}
		if got := c.len(); got != size {
			t.Fatalf("size %d: %d entries after %d inserts", size, got, 3*size)
		}
		// Every cached key is findable and every slot is indexed exactly once.
		for s := range c.shards {
			sh := &c.shards[s]
			if len(sh.index) != len(sh.slots) {
				t.Fatalf("size %d shard %d: %d index entries for %d slots", size, s, len(sh.index), len(sh.slots))
			}
			for i := range sh.slots {
				if j, ok := sh.index[sh.slots[i].key]; !ok || int(j) != i {
					t.Fatalf("size %d shard %d: slot %d not indexed", size, s, i)
				}
			}
		}
	}
	if c := newHeaderCache(0); c != nil || c.get(ledger.Hash{}) != nil || c.len() != 0 {
		t.Fatal("a zero-size cache must be off")
	}
	newHeaderCache(-1).add(ledger.Hash{}, new(ledger.Header)) // a nil cache ignores adds
}

// An entry read between insertions survives any number of them (CLOCK second chance); an
// entry never read is evicted within one sweep.
func TestCacheKeepsReferencedEntries(t *testing.T) {
	const size = 16 // one shard, so the sweep order is fully determined
	c := newHeaderCache(size)
	hot, cold := testHash(-1), testHash(-2)
	hotHdr := new(ledger.Header)
	c.add(hot, hotHdr)
	c.add(cold, new(ledger.Header))
	for i := range 10 * size {
		if c.get(hot) != hotHdr {
			t.Fatalf("hot entry evicted after %d inserts", i)
		}
		c.add(testHash(i), new(ledger.Header))
	}
	if c.get(cold) != nil {
		t.Fatal("an entry never read outlived 10 sweeps")
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := newHeaderCache(256)
	hdrs := make([]*ledger.Header, 1024)
	for i := range hdrs {
		hdrs[i] = &ledger.Header{Height: uint64(i)}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20000 {
				k := (i*7 + g*131) % len(hdrs)
				if h := c.get(testHash(k)); h != nil && h != hdrs[k] {
					t.Errorf("key %d returned the header of another key", k)
					return
				}
				if i%3 == 0 {
					c.add(testHash(k), hdrs[k])
				}
			}
		}()
	}
	wg.Wait()
	if c.len() > 256 {
		t.Fatalf("%d entries in a cache of 256", c.len())
	}
}

// Through the DB: reading more distinct headers than the cache holds keeps it at its bound.
func TestDBHeaderCacheBound(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, _ := openTest(t, Options{HeaderCacheSize: 100})
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	if n := db.cache.len(); n != 100 {
		t.Fatalf("after putting 360 headers: %d cached, want 100", n)
	}
	for range 3 {
		for _, h := range hs {
			if _, err := db.Header(h.Hash); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := db.cache.len(); n != 100 {
		t.Fatalf("after reading 360 headers: %d cached, want 100", n)
	}
	// A cache hit returns the shared value; a miss decodes and caches.
	h := hs[0].Hash
	a, _ := db.Header(h)
	b, _ := db.Header(h)
	if a != b {
		t.Fatal("the second read of a header was not served from the cache")
	}
}
