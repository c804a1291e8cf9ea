package store

import (
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// Test helpers for the tests in package store_test (the backup jobs' tests, which import
// store/backup and so cannot be in package store).

// Chain5Headers is chain5Headers.
func Chain5Headers(t testing.TB) []*ledger.Header {
	hs, _ := chain5Headers(t)
	return hs
}

// OpenTest is openTest.
func OpenTest(t testing.TB, opts Options) *DB {
	db, _ := openTest(t, opts)
	return db
}

// ScanAll is scanAll.
func ScanAll(t *testing.T, db *DB, c ledger.ChainID, pos Position) []*ledger.Header {
	return scanAll(t, db, c, pos)
}
