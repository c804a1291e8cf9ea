package store

import (
	"sync"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// Write options. See doc.go, "Durability", for why each is what it is.
var (
	noSync   = &opt.WriteOptions{Sync: false}
	withSync = &opt.WriteOptions{Sync: true}
)

// batchPool recycles write batches: PutHeaders runs for every header a node receives, and a
// batch's buffer is the main allocation of a write.
var batchPool = sync.Pool{New: func() any { return new(leveldb.Batch) }}

// maxPooledBatch keeps a catch-up burst or a large payload from pinning its buffer in the pool.
const maxPooledBatch = 1 << 20

func getBatch() *leveldb.Batch { return batchPool.Get().(*leveldb.Batch) }

// putBatch returns b to the pool once its write has returned (goleveldb does not keep it).
func putBatch(b *leveldb.Batch) {
	if len(b.Dump()) <= maxPooledBatch {
		b.Reset()
		batchPool.Put(b)
	}
}
