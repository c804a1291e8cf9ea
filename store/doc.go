// Package store is the node's persistence: block headers with a per-chain height index, payloads
// and their outputs, the heads of the best cut, and the network the store belongs to.
//
// # Layout
//
// A store directory holds four things:
//
//   - goleveldb's files: meta records (schema, network, heads, the header-log length the height
//     index covers), the height index, payloads and outputs. See keys.go for the key spaces and
//     store/internal/records for the msgp records, and each chain's Pact state key space (pact.go,
//     KeySpace), whose records block execution (chain/state) defines.
//   - headers.log: every header's binary form, appended as a checksummed, length-prefixed record.
//   - headers.idx: an open-addressing hash table from block hash to log offset, derived from the
//     log and rebuilt from it whenever it is missing or doubtful.
//   - headers.parity: interleaved XOR parity of the log (parity.go: 4 KiB blocks in groups of
//     16, 6.25% of the log), from which damaged log bytes are rebuilt instead of cut off;
//     derived from the log and rebuilt from it whenever it is missing or doesn't match.
//
// Headers have their own storage because the hottest read of the API, GET header/{hash}, is a
// lookup by a uniformly random hash, which goleveldb answers in 4–10 µs (lock, block read,
// decompression, restart-point search); the two files answer it from memory mappings in well
// under a microsecond. hlog.go has the file formats and the reasons for them.
//
// # Reads
//
// Every read is safe for concurrent use and never goes through an actor or takes a store-level
// lock, so GET handlers scale with cores. Headers by hash are looked up in the index mapping
// with atomic loads and plain memory reads: no lock, no syscall. The record itself is read
// from the log's mapping while the log is at most Options.LogMapReadMiB (512 MiB, about 1.6M
// headers), and with one pread past that. Headers read by hash are kept decoded in a bounded
// cache (cache.go) in front; cached headers are shared, so callers must treat every returned
// *ledger.Header as read-only. HeaderBinary copies a cache miss straight out of the log
// without decoding it. ScanChain and MaxHeight walk goleveldb's height index, whose entries
// point at log offsets.
//
// Why both: a fault on a mapping maps the whole folio around the page read (often megabytes),
// so random reads of a large log soon count all of it in the process's resident set (1,000
// reads of a 4M-header log mapped 850 MiB), and a page the kernel has evicted costs a major
// fault, which blocks the OS thread, and with it a Go P, for one disk read. A pread maps
// nothing and lets the scheduler run other goroutines meanwhile, for about 0.2 µs more per
// read at 4M headers (BenchmarkServeMemoryScale: 3.1 against 2.9 µs per uncached read, and
// 137 against 1,373 MiB resident). The log takes about 324 bytes per header and the index
// about 34 (at most 64), so memory should be sized to keep both in the page cache, as it must
// be for goleveldb's hot tables anyway; the index stays mapped, so it is resident in the
// process.
//
// # Writes
//
// Header writes are serialised by one writer lock (PutHeaders is called by every chain actor):
// records are appended with pwrite, then published in the index, then the height-index entries
// and the new covered log length go to goleveldb in one batch. The log only grows, so what a
// reader or a snapshot has seen never changes.
//
// # Durability
//
// goleveldb appends each write batch to its journal with a write(2) before the call returns, and
// on open replays the journal, dropping a torn tail record; header records are written with
// pwrite before PutHeaders returns. Hence:
//
//   - A killed process (kill -9, panic, OOM) loses nothing that was written: the data is in the
//     kernel's page cache. The store always reopens, and Open re-indexes whatever the index or
//     the height index had not caught up with.
//   - A machine crash loses the unsynced tails of the journal and of the header log. Each
//     goleveldb batch is one checksummed journal record, kept or dropped as a whole; each header
//     record is checksummed, and Open cuts the log at the first record that is torn or damaged.
//     Open then makes the two agree (recover.go): height-index entries of lost headers are
//     dropped, headers the height index lost are indexed again.
//
// Headers and payloads are written without fsync: a lost tail is re-fetched from peers or
// re-mined, and syncing each write would cap inserts at a few thousand per second. Heads are
// written with fsync (SetHeads, and PutBlock when it moves heads) because they are what a
// restart resumes from, and before every such write the header log is fsynced: heads never name
// a header that a power cut could take away. SetHeads also refuses unknown headers, and PutBlock
// writes its header's record before the batch that makes it a head. The network binding
// (CheckVersion) and the schema stamp are synced too.
//
// The index file is not fsynced at those points, because it decides nothing: its header records
// how much of the log its slots cover durably (they are fsynced before that mark is written, at
// growth and at Close), and Open re-indexes the log from that mark, dropping slots past it in case
// a power cut kept a slot but lost its record. Close syncs everything and marks the index clean,
// and only a clean index covering exactly the log (and holding as many slots as it counts) is
// used without that work.
//
// # Damage
//
// Every read of a header-log record verifies its checksum (and that it holds the hash it was
// looked up by) before the header is served or used, so damage is never served. Open verifies
// the records that a cleanly closed index does not cover and the newest it covers (the newest
// eighth, at most 64 MiB: the heads and the blocks a start reads first; recentStart), and all
// of them when the index was not closed cleanly (a crash), when the log or the index was
// written after the close (Close records the files' modification time in the index: a stray
// write or a copy over the log changes it), when a read met damage (the repair mark below),
// and for check and repair (Options.VerifyWholeLog): about 100 ms per million headers in the
// page cache, plus reading the whole log when it is not. A clean start therefore reads the
// same at any size. Damage that a clean start does not read (a bad sector, a flipped bit in
// older history under a cleanly closed log) is met by the first read of the damaged header
// instead: that read fails with kv.ErrCorrupt (503), marks the store, and the next start verifies
// everything and cuts it.
//
// Where Open finds damage, it first rebuilds the damaged block(s) from headers.parity
// (parity.go): contiguous damage of up to 4 KiB (64 random bytes anywhere, a bad sector, the
// log's own header) touches at most one block of each parity group. A rebuilt block is kept
// only if every record over it then verifies (and the log header its checksum); it is written
// back, synced, one WARN line says what was repaired, and nothing is lost. Parity is kept with
// every append (XORed into a writable mapping, no allocation) and synced with the log at most
// once a second; after an unclean stop the runs past the last parity sync's mark are recomputed
// from the log, a
// missing or mismatched file is rebuilt from it, and check and repair compare every group
// (repair rebuilds those that differ). Only where the parity cannot help (two damaged blocks
// of one group, damage past the last sync's mark after a crash, no parity file) is the log cut
// at the first bad record: a header is stored only after its parents, so the records before it
// are a consistent store. Everything after the cut
// is first saved to headers.log.damaged-<time> beside the log, and one ERROR line says what was
// lost. Both indexes are then made to match the shorter log; heads and Pact states that name
// lost blocks are moved off them by the node (actors: loadHeads, repairPactState), which
// re-mines or re-fetches the rest.
//
// A read that meets damage anyway (a damaged index slot, a goleveldb table that fails its
// checksum) returns an error wrapping kv.ErrCorrupt, which the service API answers with 503. The
// first such read logs it once and leaves a repair mark in goleveldb; the next Open then rebuilds
// the hash index and the height index from the log whatever they claim (Options.Repair, as
// `ledger-node repair` does). Damage Open cannot repair (goleveldb's manifest or tables, the
// log's own header) makes it fail with kv.ErrCorrupt naming the file; the node then names
// `ledger-node check` and `ledger-node repair`. Check (check.go) verifies a directory read-only,
// in memory that does not grow with it, completeness included (payloads up to the heads, and,
// through the caller, each Pact state's rows); integrity.go has the repairs: goleveldb's
// manifest rebuilt, a table with damaged blocks rebuilt from its readable rows
// (salvageTables), the indexes rebuilt from the log. Data no repair brings back is
// ErrDataLost: goleveldb emptied under a log of headers (CheckVersion refuses to stamp the
// network again), or what a repair marked lost (MarkLost), which the node refuses to start on.
//
// One gap remains, outside our control: goleveldb does not fsync the journal file it rotates away
// from when a memtable fills, so a power cut in the moment between that rotation and the memtable's
// flush could keep a synced heads record yet lose height-index entries written just before the
// rotation. The headers themselves are in the synced log, and Open re-indexes any record past the
// covered length goleveldb recorded, so only entries behind that mark could stay missing.
//
// # Write failures
//
// A write that fails (a full disk, an I/O error) returns its error and leaves the store
// readable; the node pauses its writers and probes (actors/writehealth.go). ProbeWrite
// (writefault.go) says when writes succeed again, and restarts goleveldb's journal, whose writer
// otherwise keeps failing with its first error after space is freed. Tests inject a fault that
// every write entry point checks first (SetWriteFault). Not covered: a failure while goleveldb's
// memtable is empty (its journal cannot be restarted without reopening), and a header record
// that reached the log while the batch with its height-index entry failed: it is readable by
// hash, and a later write moves the covered log length past it, so Open does not index it.
//
// # Backups
//
// Snapshot pairs a goleveldb snapshot with the log length at that moment: its rows (ForEach) plus
// the log's prefix up to that length (CopyHeaderLog) are a complete, consistent store. The index
// and the parity are rebuilt when the copy is opened. Backups do not copy headers.parity: it is
// derived from the log, the live file covers a longer log than the snapshot's prefix, and a
// restored copy's parity is built at its first start (one pass over the log, which that start
// verifies anyway). Snapshot.WriteBackup writes such a copy; the backup jobs around it and
// restores are package store/backup's.
package store
