package persist

// RowCache keeps decoded committed rows by key, so that a row read again is
// not decoded again. It holds two generations of at most max entries: a hit
// in the old generation moves the entry to the new one, and when the new
// generation is full the old one is dropped. That approximates LRU at the
// cost of two map operations per access, and bounds the cache at 2*max
// entries whatever the size of the database.
//
// The cache only ever holds committed values, and a write replaces the
// entry in the new generation, which shadows the old one; so there is
// nothing to invalidate on rollback.
type RowCache struct {
	max       int
	hot, cold map[string]any
}

// NewRowCache makes a cache of two generations of at most max entries.
func NewRowCache(max int) RowCache {
	return RowCache{max: max, hot: make(map[string]any)}
}

// Get returns the value cached under k.
func (c *RowCache) Get(k string) (any, bool) {
	if v, ok := c.hot[k]; ok {
		return v, true
	}
	if v, ok := c.cold[k]; ok {
		c.Put(k, v)
		return v, true
	}
	return nil, false
}

// Put caches v under k.
func (c *RowCache) Put(k string, v any) {
	if _, ok := c.hot[k]; !ok && len(c.hot) >= c.max {
		c.cold = c.hot
		c.hot = make(map[string]any, c.max)
	}
	c.hot[k] = v
}

// Drop removes k, whose stored value is gone (a versioned state's rewind
// deletes versions that may be written again with other values).
func (c *RowCache) Drop(k string) {
	delete(c.hot, k)
	delete(c.cold, k)
}
