package server

import (
	"errors"

	"github.com/ledgernode/ledger-node/pact/db"
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

// openPersistent opens the persistent Pact state under a persistDir; it
// is set by persist.go, which wires pact/persist in.
var openPersistent func(dir string) (stateDB, error)

var errNoPersistence = errors.New("persistDir: this build has no persistent Pact state (pact/persist)")

func openState(persistDir string) (stateDB, error) {
	if persistDir == "" {
		return memState{db.NewMemDB()}, nil
	}
	if openPersistent == nil {
		return nil, errNoPersistence
	}
	return openPersistent(persistDir)
}
