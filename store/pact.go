package store

import (
	"encoding/binary"
	"fmt"

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
