package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
)

// KeySpace is the part of the database under one fixed prefix that the store gives to records
// it does not interpret: a chain's versioned Pact state (chain/state), which lives in this
// database under tag 0x05 and the chain id, so that one synced write covers a block's state
// and a backup of the database covers the state. Its writes go through Write, a store entry
// point like the others (write faults, sync); nothing checks that a batch stays under the
// prefix, which is its user's promise.
type KeySpace struct {
	ldb    *leveldb.DB
	db     *DB // nil in a read-only check (Check): no writes
	prefix []byte
}

// PactSpace is chain c's Pact state key space. The chain's executor is its only writer; it may
// be opened once per chain per DB.
func (db *DB) PactSpace(c ledger.ChainID) KeySpace {
	return KeySpace{ldb: db.ldb, db: db, prefix: pactPrefix(c)}
}

// Prefix returns the space's key prefix.
func (k KeySpace) Prefix() []byte { return slices.Clone(k.prefix) }

// Get reads one key of the space (given whole, prefix included); an absent key is
// kv.ErrNotFound.
func (k KeySpace) Get(key []byte) ([]byte, error) {
	v, err := k.ldb.Get(key, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, kv.ErrNotFound
	}
	return v, err
}

// NewIterator iterates over the keys from start (inclusive) to limit (exclusive; nil: no
// limit).
func (k KeySpace) NewIterator(start, limit []byte) kv.Iterator {
	return k.ldb.NewIterator(&util.Range{Start: start, Limit: limit}, nil)
}

// Write writes b as one synced batch.
func (k KeySpace) Write(b *kv.Batch) error {
	if k.db == nil {
		return fmt.Errorf("store: key space %x is read-only", k.prefix)
	}
	if err := k.db.CheckWriteFault(); err != nil {
		return err
	}
	var lb leveldb.Batch
	b.Replay(func(key, value []byte) { lb.Put(key, value) }, func(key []byte) { lb.Delete(key) })
	return k.db.ldb.Write(&lb, withSync)
}

// pactPrefix is chain c's Pact state prefix: fixed length, so no chain's prefix is a prefix of
// another's.
func pactPrefix(c ledger.ChainID) []byte {
	k := make([]byte, 5)
	k[0] = tagPact
	binary.BigEndian.PutUint32(k[1:], uint32(c))
	return k
}

// ResetPactState deletes chain c's whole Pact state, so that it is rebuilt by replaying the
// chain's blocks from genesis: the repair when no block the state was at is stored any more.
// No PactState of c may be in use.
func (db *DB) ResetPactState(c ledger.ChainID) error {
	p := pactPrefix(c)
	it := db.ldb.NewIterator(util.BytesPrefix(p), nil)
	b := new(leveldb.Batch)
	height := append(p[:len(p):len(p)], 0x00) // chain/state's height record
	for it.Next() {
		if bytes.Equal(it.Key(), height) {
			continue
		}
		b.Delete(it.Key())
		if b.Len() >= 10_000 {
			if err := db.ldb.Write(b, noSync); err != nil {
				it.Release()
				return fmt.Errorf("store: reset the Pact state of chain %d: %w", c, err)
			}
			b.Reset()
		}
	}
	it.Release()
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: reset the Pact state of chain %d: %w", c, err)
	}
	// The height record goes last and synced: until it is gone the state still reads as at
	// its height, and a crash midway leaves a state the next start resets again.
	b.Delete(height)
	if err := db.ldb.Write(b, withSync); err != nil {
		return fmt.Errorf("store: reset the Pact state of chain %d: %w", c, err)
	}
	return nil
}
