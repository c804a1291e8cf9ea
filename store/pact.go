package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/persist"
)

// PactState opens chain c's versioned Pact state (pact/persist), which lives in this database
// under tag 0x05 and the chain id, so that one synced write covers a block's state and a backup
// of the database covers the state. The executor of the chain is its only writer; it may be
// opened once per chain per DB.
func (db *DB) PactState(c ledger.ChainID) (*persist.Versioned, error) {
	v, err := persist.OpenVersioned(db.ldb, pactPrefix(c))
	if err != nil {
		return nil, fmt.Errorf("store: Pact state of chain %d: %w", c, err)
	}
	return v, nil
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
	height := append(p[:len(p):len(p)], 0x00) // pact/persist's height record
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
