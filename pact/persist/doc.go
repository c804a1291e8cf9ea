// Package persist is a persistent db.DB: the Pact interpreter's state
// (user tables, keysets, modules, namespaces, defpact states) in a goleveldb
// database, with exactly db.MemDB's semantics, so that `pact -s` with
// persistDir keeps its state across restarts. Its value codec, row cache and
// module cache are exported for the node's versioned state (chain/state),
// which stores the same values by block.
//
// # Storage
//
// keys.go has the key spaces: one per user table (and a record of the
// table's existence), one per system domain, the meta records (layout
// version, next transaction id) and the history of module versions.
// codec.go has the value codec, a compact tagged binary format that
// round-trips every value exactly (decimal places, big integers, times in
// microseconds, every guard kind, table references with their schemas) and
// whose decoder returns an error wrapping kv.ErrCorrupt, never panics, on any
// malformed input (see the fuzz targets).
//
// # Durability
//
// A write outside a transaction is one synced goleveldb write; a
// Transactional commit is one synced batch holding the transaction's rows,
// the tables it created and the next transaction id, so it is kept or lost
// as a whole. Until then a transaction's writes live in memory only.
//
// Records (records.go) is a plain goleveldb table of records by key beside a DB: pact -s's
// history of results.
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
// # Caching
//
// Decoded rows are cached (cache.go) as they are written and read, so a
// row read repeatedly is decoded once; the cache is bounded and only holds
// committed values. A transaction's own writes are read back as written.
package persist
