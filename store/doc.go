// Package store is the node's goleveldb persistence: block headers with a per-chain height index,
// payloads and their outputs, the heads of the best cut, and the network the store belongs to.
// Later key spaces (request-key index, Pact state, backups) slot in beside these; see keys.go
// for the layout and records.go for the msgp records.
//
// # Reads
//
// Every read is safe for concurrent use and goes straight to goleveldb or the header cache,
// never through an actor or a store-level lock held during I/O, so GET handlers scale with cores.
// Headers read by hash are kept decoded in a bounded cache (cache.go); cached headers are shared,
// so callers must treat every returned *ledger.Header as read-only.
//
// # Durability
//
// goleveldb appends each write batch to its journal with a write(2) before the call returns, and
// on open replays the journal, dropping a torn tail record. Hence:
//
//   - A killed process (kill -9, panic, OOM) loses nothing that was written: the data is in the
//     kernel's page cache. The store always reopens.
//   - A machine crash loses the unsynced tail of the journal; each batch is one checksummed
//     record, so a batch is kept or dropped as a whole.
//
// Headers and payloads are written without fsync: a lost tail is re-fetched from peers or
// re-mined, and syncing each write would cap inserts at a few thousand per second. Heads are
// written with fsync (SetHeads, and PutBlock when it moves heads) because they are what a
// restart resumes from. Heads never name an unstored header: SetHeads refuses unknown headers
// and PutBlock puts header and heads in the same batch; since the journal replays in write
// order, a recovered heads record implies the headers written before it. The network binding
// (CheckVersion) and the schema stamp are synced too.
//
// One gap remains, outside our control: goleveldb does not fsync the journal file it rotates away
// from when a memtable fills, so a power cut in the moment between that rotation and the memtable's
// flush could keep a synced heads record yet lose a header written just before the rotation.
// A head written by PutBlock together with its header cannot be split that way.
package store
