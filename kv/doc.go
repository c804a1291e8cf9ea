// Package kv is the vocabulary of ordered key-value storage that the store lends to records it
// does not interpret (a chain's Pact state, chain/state, through store.KeySpace) without
// lending its engine: a batch of writes, an iterator over a key range, "not found", and the
// one error for damaged data (ErrCorrupt) of the store and the Pact database alike. The store
// translates them to goleveldb's, so that goleveldb is imported by store and pact/persist
// alone (internal/layout enforces it).
//
// It imports nothing.
package kv
