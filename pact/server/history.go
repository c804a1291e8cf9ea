package server

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/persist"
)

// The history is what the server remembers per request key (P5's
// SYS:PactServiceHistory table): the CommandResult JSON of every command
// it executed, and for a private command addressed to other entities only
// the fact that the key was seen. It is in memory, or with persistDir a
// goleveldb database in <persistDir>/history.

// recordKind is the first byte of a stored record.
type recordKind byte

const (
	// recResult: the rest is the CommandResult JSON.
	recResult recordKind = 'R'
	// recPrivateHash: a private command for other entities; the rest is
	// {"from": entity, "to": [entities]}.
	recPrivateHash recordKind = 'P'
)

// history stores records by request key. Get and Put are safe for
// concurrent use; a record, once stored, never changes.
type history interface {
	Get(rk api.Hash) ([]byte, bool, error)
	// PutBatch stores records atomically.
	PutBatch(keys []api.Hash, recs [][]byte) error
	Close() error
}

type memHistory struct {
	mu sync.RWMutex
	m  map[api.Hash][]byte
}

func newMemHistory() *memHistory { return &memHistory{m: map[api.Hash][]byte{}} }

func (h *memHistory) Get(rk api.Hash) ([]byte, bool, error) {
	h.mu.RLock()
	v, ok := h.m[rk]
	h.mu.RUnlock()
	return v, ok, nil
}

func (h *memHistory) PutBatch(keys []api.Hash, recs [][]byte) error {
	h.mu.Lock()
	for i, k := range keys {
		h.m[k] = recs[i]
	}
	h.mu.Unlock()
	return nil
}

func (h *memHistory) Close() error { return nil }

// levelHistory keeps records in a persist.Records under the 32 raw bytes of the request key.
type levelHistory struct {
	recs *persist.Records
}

func openLevelHistory(dir string) (*levelHistory, error) {
	path := filepath.Join(dir, "history")
	recs, err := persist.OpenRecords(path)
	if err != nil {
		return nil, fmt.Errorf("open history %s: %w", path, err)
	}
	return &levelHistory{recs: recs}, nil
}

func (h *levelHistory) Get(rk api.Hash) ([]byte, bool, error) {
	v, ok, err := h.recs.Get(rk[:])
	if err != nil {
		return nil, false, fmt.Errorf("read history: %w", err)
	}
	return v, ok, nil
}

func (h *levelHistory) PutBatch(keys []api.Hash, recs [][]byte) error {
	ks := make([][]byte, len(keys))
	for i := range keys {
		ks[i] = keys[i][:]
	}
	if err := h.recs.PutBatch(ks, recs); err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	return nil
}

func (h *levelHistory) Close() error { return h.recs.Close() }
