// Package state is a chain's versioned Pact state: the interpreter's state (a db.DB) kept as of
// every block, inside the key space the store provides (KeySpace, store.DB.PactSpace), so that
// one synced write covers a block's state and a backup of the database covers the state.
//
// A View reads the state as of the end of a block and buffers a new block's transactions in
// memory; Apply writes them as the versions of the next height in one synced batch, and Rewind
// drops the blocks above a fork point. Rows are stored with pact/persist's value codec and
// modules rebuilt through its module cache, exactly as `pact -s` stores them.
//
// Unlike persist.DB, a Versioned state is read concurrently: while one executor applies and
// rewinds blocks, other goroutines make views at or below the height and read through them
// (each view on one goroutine), taking a shared lock per store access only. A view whose block
// a rewind dropped fails every later read of stored state with ErrStaleView. A view also
// carries the node's records of a block (PutMeta, Meta: raw bytes versioned with the block,
// not Pact data), which package chain gives their types. A savepoint (View.Savepoint) undoes
// the transactions committed after it: a block being built drops a transaction whole.
//
//	state.go   Versioned, View, the key layout and KeySpace
//	branch.go  Block (a block's frozen writes, applied again with ApplyBlock) and Branch (the
//	           merged writes of blocks above a stored block, read through BranchView): a fork
//	           is validated and applied without rewinding and replaying it
//	rewritemeta.go records of an applied block dropped (DropMeta) and replaced
//	           (RewriteMeta): an index built over blocks applied before it existed
//
// It may import the language only (pact/db, pact/eval, pact/persist); the store reaches it
// as a KeySpace, never the other way round.
package state
