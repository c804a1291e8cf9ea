package server

import (
	"path/filepath"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/persist"
)

// stateDB is the Pact state commands run against: a db.DB the engine
// closes when it closes.
type stateDB interface {
	db.DB
	Close() error
}

// memState is the in-memory state of a server without persistDir.
type memState struct{ *db.MemDB }

func (memState) Close() error { return nil }

// openState opens the Pact state: in memory, or with a persistDir the
// goleveldb database of pact/persist in <persistDir>/pact.
func openState(persistDir string) (stateDB, error) {
	if persistDir == "" {
		return memState{db.NewMemDB()}, nil
	}
	return persist.Open(filepath.Join(persistDir, "pact"))
}
