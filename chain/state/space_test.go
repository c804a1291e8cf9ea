package state

import (
	"slices"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// levelSpace is a KeySpace straight over a goleveldb database, as the store gives one
// (store.KeySpace) without the store's fault checks.
type levelSpace struct {
	ldb    *leveldb.DB
	prefix []byte
}

func (s levelSpace) Prefix() []byte                              { return slices.Clone(s.prefix) }
func (s levelSpace) Get(key []byte) ([]byte, error)              { return s.ldb.Get(key, nil) }
func (s levelSpace) NewIterator(r *util.Range) iterator.Iterator { return s.ldb.NewIterator(r, nil) }
func (s levelSpace) Write(b *leveldb.Batch) error {
	return s.ldb.Write(b, &opt.WriteOptions{Sync: true})
}

// OpenVersioned opens the state under prefix in ldb.
func OpenVersioned(ldb *leveldb.DB, prefix []byte) (*Versioned, error) {
	return Open(levelSpace{ldb, prefix})
}
