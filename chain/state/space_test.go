package state

import (
	"errors"
	"slices"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// levelSpace is a KeySpace straight over a goleveldb database, as the store gives one
// (store.KeySpace) without the store's fault checks.
type levelSpace struct {
	ldb    *leveldb.DB
	prefix []byte
}

func (s levelSpace) Prefix() []byte { return slices.Clone(s.prefix) }

func (s levelSpace) Get(key []byte) ([]byte, error) {
	v, err := s.ldb.Get(key, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, kv.ErrNotFound
	}
	return v, err
}

func (s levelSpace) NewIterator(start, limit []byte) kv.Iterator {
	return s.ldb.NewIterator(&util.Range{Start: start, Limit: limit}, nil)
}

func (s levelSpace) Write(b *kv.Batch) error {
	var lb leveldb.Batch
	b.Replay(func(k, v []byte) { lb.Put(k, v) }, func(k []byte) { lb.Delete(k) })
	return s.ldb.Write(&lb, &opt.WriteOptions{Sync: true})
}

// OpenVersioned opens the state under prefix in ldb.
func OpenVersioned(ldb *leveldb.DB, prefix []byte) (*Versioned, error) {
	return Open(levelSpace{ldb, prefix})
}
