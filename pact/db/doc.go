// Package db is the persistence interface the Pact interpreter sees, and an
// in-memory implementation of it (MemDB) used by the REPL, the tests and
// `pact -s` without persistDir.
//
// The interpreter stores user rows, keysets, modules, namespaces and defpact
// states. Values are opaque to this package: rows are *eval.Object values and
// the system domains hold the interpreter's own records; a persistent
// implementation supplies codecs for them. Keeping values as Go values here
// means the REPL pays no encoding cost on every read and write.
//
//	db.go   the interface (DB, its domains, write types, transaction logs)
//	mem.go  MemDB, the in-memory implementation
package db
