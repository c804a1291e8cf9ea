// Package persist is a persistent db.DB: the Pact interpreter's state
// (user tables, keysets, modules, namespaces, defpact states) in a goleveldb
// database, with exactly db.MemDB's semantics, so that `pact -s` with
// persistDir, and the node, keep their state across restarts.
//
// # Storage
//
// keys.go has the key spaces: one per user table (and a record of the
// table's existence), one per system domain, the meta records (layout
// version, next transaction id) and the history of module versions.
// codec.go has the value codec, a compact tagged binary format that
// round-trips every value exactly (decimal places, big integers, times in
// microseconds, every guard kind, table references with their schemas) and
// whose decoder returns an error wrapping ErrCorrupt, never panics, on any
// malformed input (see the fuzz targets).
//
// # Durability
//
// A write outside a transaction is one synced goleveldb write; a
// Transactional commit is one synced batch holding the transaction's rows,
// the tables it created and the next transaction id, so it is kept or lost
// as a whole. Until then a transaction's writes live in memory only.
//
// # Modules
//
// A compiled module cannot be stored; its eval.ModuleRecord is (source,
// hash, blessed hashes, tx hash, governance, and the hash of each
// dependency version it was compiled against), under its name and, in the
// version history, under its name and hash. Reading a module rebuilds it
// with eval.RestoreModule, once per process: rebuilt modules are kept by
// name and hash. A dependency is rebuilt at the version the dependent was
// compiled against (ModuleVersion), so that after an upgrade a dependent
// keeps calling the code it was loaded with, and its tables keep the old
// hash, exactly as in the process that installed them. A defpact state
// stores its defpact by module name, module hash and name, and continues
// with that module version's code.
//
// # Versioned state (versioned.go)
//
// The node keeps one chain's Pact state as versions by block height inside
// its own goleveldb database (OpenVersioned, under a per-chain prefix): a
// View reads the state as of the end of a block and buffers a new block's
// transactions in memory; Apply writes them as the versions of the next
// height in one synced batch, and Rewind drops the blocks above a fork
// point. modules.go holds the module cache and helpers both share.
//
// Unlike DB, a Versioned state is read concurrently: while one executor
// applies and rewinds blocks, other goroutines make views at or below the
// height and read through them (each view on one goroutine), taking a
// shared lock per store access only. A view whose block a rewind dropped
// fails every later read of stored state with ErrStaleView. A view also
// carries the node's metadata of a block (PutMeta, Meta): raw bytes
// versioned with the block, not Pact data.
//
// # Caching
//
// Decoded rows are cached (cache.go) as they are written and read, so a
// row read repeatedly is decoded once; the cache is bounded and only holds
// committed values. A transaction's own writes are read back as written.
package persist
