package mempool

import (
	"container/heap"

	"github.com/ledgernode/ledger-node/pact/api"
)

// expirySet is a set of request keys, each with an expiry time (microseconds), that forgets
// keys as they expire, and when it would grow beyond max (max <= 0: unbounded) forgets the
// key that expires first. Operations are O(log n).
type expirySet struct {
	max   int
	items map[api.Hash]*expiryItem
	heap  expiryHeap
}

type expiryItem struct {
	key    api.Hash
	expiry int64
	i      int // position in the heap
}

func newExpirySet(max int) *expirySet {
	return &expirySet{max: max, items: make(map[api.Hash]*expiryItem)}
}

func (s *expirySet) len() int { return len(s.items) }

func (s *expirySet) has(k api.Hash) bool {
	_, ok := s.items[k]
	return ok
}

// add adds k, or moves its expiry to the later of the two if it is there. When the set is
// full the key that expires first is dropped and returned (ok true); that may be k itself
// when it expires before every other key.
func (s *expirySet) add(k api.Hash, expiry int64) (dropped api.Hash, ok bool) {
	if it, found := s.items[k]; found {
		if expiry > it.expiry {
			it.expiry = expiry
			heap.Fix(&s.heap, it.i)
		}
		return api.Hash{}, false
	}
	it := &expiryItem{key: k, expiry: expiry}
	s.items[k] = it
	heap.Push(&s.heap, it)
	if s.max > 0 && len(s.items) > s.max {
		first := heap.Pop(&s.heap).(*expiryItem)
		delete(s.items, first.key)
		return first.key, true
	}
	return api.Hash{}, false
}

func (s *expirySet) remove(k api.Hash) bool {
	it, ok := s.items[k]
	if !ok {
		return false
	}
	heap.Remove(&s.heap, it.i)
	delete(s.items, k)
	return true
}

// expire removes every key whose expiry is at or before now, calling fn for each (fn may be
// nil).
func (s *expirySet) expire(now int64, fn func(api.Hash)) {
	for len(s.heap) > 0 && s.heap[0].expiry <= now {
		it := heap.Pop(&s.heap).(*expiryItem)
		delete(s.items, it.key)
		if fn != nil {
			fn(it.key)
		}
	}
}

// expiryHeap is a min-heap on expiry.
type expiryHeap []*expiryItem

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].expiry < h[j].expiry }
func (h expiryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *expiryHeap) Push(x any) {
	it := x.(*expiryItem)
	it.i = len(*h)
	*h = append(*h, it)
}
func (h *expiryHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return it
}
