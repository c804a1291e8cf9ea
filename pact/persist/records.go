package persist

import (
	"errors"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// Records is a goleveldb database of plain records by key, beside a DB: pact -s keeps the
// history of its results in one (<persistDir>/history, pact/server). It is here so that
// goleveldb stays with the store and this package.
type Records struct {
	db *leveldb.DB
}

// OpenRecords opens (or creates) the records at path. Its writes are not synced (as pact -s's
// history never was): a crash of the machine may lose the last ones.
func OpenRecords(path string) (*Records, error) {
	db, err := leveldb.OpenFile(path, &opt.Options{NoSync: false})
	if err != nil {
		return nil, err
	}
	return &Records{db: db}, nil
}

// Get reads the record of key; ok is false when there is none.
func (r *Records) Get(key []byte) (rec []byte, ok bool, err error) {
	v, err := r.db.Get(key, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// PutBatch stores recs[i] under keys[i], all or none.
func (r *Records) PutBatch(keys, recs [][]byte) error {
	if len(keys) != len(recs) {
		return fmt.Errorf("persist: %d keys for %d records", len(keys), len(recs))
	}
	var b leveldb.Batch
	for i, k := range keys {
		b.Put(k, recs[i])
	}
	return r.db.Write(&b, nil)
}

// Close closes the database.
func (r *Records) Close() error { return r.db.Close() }
