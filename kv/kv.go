package kv

import "errors"

// ErrNotFound is returned (or wrapped) by a Get of a key that is absent.
var ErrNotFound = errors.New("kv: not found")

// ErrCorrupt is the one error for stored data that does not decode or contradicts its key,
// wherever it is stored: the store's files and records, the Pact database (pact/persist), a
// chain's Pact state (chain/state) and the node's records in it. Errors wrap it, so that
// errors.Is(err, kv.ErrCorrupt) tells damaged data from every other failure (the APIs answer
// it 503, not 500); store.IsCorrupt tells the store's own damage, which it repairs at its next
// start, from the rest.
var ErrCorrupt = errors.New("corrupt data")

// Iterator walks the keys of a range in order. It starts before the first key: Next or First
// moves onto a key and reports whether there is one. Key and Value are valid until the next
// move. Release it when done, then check Error.
type Iterator interface {
	// First moves to the range's first key.
	First() bool
	// Next moves to the following key.
	Next() bool
	// Seek moves to the first key at or after key.
	Seek(key []byte) bool
	Key() []byte
	Value() []byte
	// Release frees the iterator; it may be called more than once.
	Release()
	// Error is the error that ended the walk, if any.
	Error() error
}

// PrefixEnd returns the end (exclusive) of the range of the keys that start with prefix: the
// smallest key above all of them, or nil (no end) when prefix is empty or all 0xff bytes.
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if c := prefix[i]; c < 0xff {
			end := make([]byte, i+1)
			copy(end, prefix)
			end[i] = c + 1
			return end
		}
	}
	return nil
}

// Batch is a list of writes applied in order, all or none. The zero value is empty and ready.
// It keeps copies of the keys and values it is given.
type Batch struct {
	data []byte // the keys and values, back to back
	ops  []op
}

// op is one write: its key, and for a put its value, as offsets in data.
type op struct {
	del        bool
	key, klen  int
	value, vln int
}

// Put adds a write of value at key.
func (b *Batch) Put(key, value []byte) {
	o := op{key: len(b.data), klen: len(key)}
	b.data = append(b.data, key...)
	o.value, o.vln = len(b.data), len(value)
	b.data = append(b.data, value...)
	b.ops = append(b.ops, o)
}

// Delete adds a deletion of key.
func (b *Batch) Delete(key []byte) {
	b.ops = append(b.ops, op{del: true, key: len(b.data), klen: len(key)})
	b.data = append(b.data, key...)
}

// Len is the number of writes.
func (b *Batch) Len() int { return len(b.ops) }

// Reset empties the batch, keeping its memory.
func (b *Batch) Reset() {
	b.data, b.ops = b.data[:0], b.ops[:0]
}

// Replay calls put or del for each write, in order. The slices it passes are the batch's own:
// valid until the batch changes, and not to be modified.
func (b *Batch) Replay(put func(key, value []byte), del func(key []byte)) {
	for _, o := range b.ops {
		k := b.data[o.key : o.key+o.klen : o.key+o.klen]
		if o.del {
			del(k)
			continue
		}
		put(k, b.data[o.value:o.value+o.vln:o.value+o.vln])
	}
}
