// Package dbtest is a conformance suite for implementations of db.DB: the
// behaviour of db.MemDB (P5's mock persistence) as scenarios that any
// implementation must pass. pact/persist runs it on MemDB and on its
// goleveldb DB; an implementation that persists also passes a Reopen
// function, and the scenarios then check that what must survive a restart
// (writes outside a transaction, committed transactions, table existence,
// the transaction id sequence) does, and nothing else.
package dbtest
