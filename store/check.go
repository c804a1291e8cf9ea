package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/journal"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store/internal/records"
)

// Check verifies a data directory without changing it (`ledger-node check`): every file is
// opened read-only, goleveldb included (it replays its journal in memory), and nothing is
// repaired. It reports what Open would do about each kind of damage, so an operator knows
// whether starting the node is enough or `ledger-node repair` is needed.
//
// Its memory does not grow with the store (checker): about 40 MiB at any size, measured at 1M
// and 4M headers (BenchmarkCheckScale), where it once kept every header's hash (gigabytes at
// mainnet scale).

// Severity says how bad a finding is.
type Severity int

const (
	// Fine is a note, not damage.
	Fine Severity = iota
	// RepairedAtStart is damage the node repairs by itself when it starts (and repair too).
	RepairedAtStart
	// NeedsRepair is damage only `ledger-node repair` repairs.
	NeedsRepair
	// Lost is data gone from the directory, which neither a start nor a repair brings back
	// (blocks whose payloads are missing): a backup restores it (ledger-node restore).
	Lost
)

func (s Severity) String() string {
	switch s {
	case Fine:
		return "ok"
	case RepairedAtStart:
		return "damaged (the node repairs this at start)"
	case NeedsRepair:
		return "damaged (run ledger-node repair)"
	default:
		return "data lost (restore a backup)"
	}
}

// Finding is one line of a check: a part of the store and what was found there.
type Finding struct {
	Part     string // the file, or the part of goleveldb's content
	Severity Severity
	Text     string
}

// CheckReport is what Check found.
type CheckReport struct {
	Findings []Finding
}

// Damaged reports whether any finding is damage.
func (r *CheckReport) Damaged() bool {
	for _, f := range r.Findings {
		if f.Severity != Fine {
			return true
		}
	}
	return false
}

// Worst is the most severe finding's severity.
func (r *CheckReport) Worst() Severity {
	w := Fine
	for _, f := range r.Findings {
		w = max(w, f.Severity)
	}
	return w
}

func (r *CheckReport) add(part string, s Severity, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Part: part, Severity: s, Text: fmt.Sprintf(format, args...)})
}

// PactBlockFunc reads the block a chain's Pact state, kept in space, is at (the executor's
// records, which the store does not interpret): ok is false for an empty state. missing says
// what of the state's own data is gone ("" when it is whole: chain/state's Verify).
type PactBlockFunc func(space KeySpace) (height uint64, block ledger.Hash, ok bool, missing string, err error)

// ErrNotAStore is returned by Check for a directory that holds no store.
var ErrNotAStore = errors.New("store: not a data directory (no CURRENT or headers.log)")

var journalName = regexp.MustCompile(`^[0-9]{6,}\.log$`)

// Check verifies the store in dir read-only. pactBlock may be nil (the Pact states are then not
// checked). It fails only when it cannot check at all: dir holds no store, or a running node
// holds it (ErrLocked).
func Check(dir string, pactBlock PactBlockFunc) (*CheckReport, error) {
	if err := isStoreDir(dir); err != nil {
		return nil, err
	}
	r := &CheckReport{}
	c := &checker{dir: dir, r: r, wanted: map[ledger.Hash]uint64{}}
	c.journals()
	ldb, err := leveldb.OpenFile(dir, &opt.Options{ReadOnly: true, ErrorIfMissing: true})
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EAGAIN):
		return nil, fmt.Errorf("%w: %s (stop the node first)", ErrLocked, dir)
	case err != nil:
		r.add("goleveldb", NeedsRepair, "cannot open: %v", err)
	default:
		defer ldb.Close()
		c.ldb = ldb
		c.scanLevelDB()
		if pactBlock != nil {
			c.readPactStates(pactBlock)
		}
	}
	if c.headsRec != nil {
		for _, e := range c.headsRec.Heads {
			c.wanted[e.Hash] = 0
		}
	}
	c.headerLog()
	if c.logFile != nil {
		defer c.logFile.Close()
	}
	if c.log != nil {
		defer syscall.Munmap(c.log)
	}
	c.hashIndex()
	if c.idxMap != nil {
		defer syscall.Munmap(c.idxMap)
	}
	c.rowsLost()
	if c.ldb != nil {
		c.heightIndex()
		c.heads()
		c.payloads()
		if pactBlock != nil {
			c.pactStates()
		}
	}
	return r, nil
}

// checker holds what one check learnt so far. Its memory does not grow with the number of
// headers: nothing is kept per header. Questions about every header are answered by passes
// over the log and over goleveldb's height index (which answers "is this header indexed?"),
// with an order-independent digest of both sides comparing them in one pass each and an exact
// count only when they differ; lookups of single headers (heads, Pact states' blocks, the
// parents walked from the heads) go through headers.idx and the height index, as reads do.
// The log and index mappings are dropped from the process every trimEvery records touched,
// so their pages stay the kernel's page cache and do not pile up in its resident set.
type checker struct {
	dir string
	r   *CheckReport
	ldb *leveldb.DB

	// From goleveldb.
	logEnd     uint64 // the logend record; 0 if none
	hasLogEnd  bool
	pactChains map[ledger.ChainID]bool
	pacts      []pactInfo // what pactBlock said of each chain's state, ascending by chain
	headsRec   *records.Heads
	// nodeData says the directory is a node's (a network recorded, payloads or Pact state):
	// its blocks must have their payloads. A store of headers alone (tests, tools) need not.
	nodeData bool
	// hasNetwork says the network record is there; scanned, that every row was read.
	hasNetwork, scanned bool
	// repairMark says a read met damage: the next start verifies the whole log.
	repairMark bool

	// From headers.log.
	log     []byte // read-only mapping; nil when unreadable
	logOK   bool
	end     uint64 // end of the intact records
	records uint64 // intact records
	// wanted maps the few hashes looked up by hash alone (heads, Pact states' blocks) to the
	// offset of their first record, filled by the log scan; absent: not stored.
	wanted map[ledger.Hash]uint64
	// Digests of what the log scan saw, for one pass each over the indexes to compare with
	// (no random reads while the store is healthy): the height-index keys of the records
	// the height index must cover (below logend), the same with their offsets, and the
	// hash-index slots of every record.
	keys, entries, slots digest
	// touched counts record reads since the mappings were last dropped (trim).
	touched int
	idxMap  []byte     // headers.idx's mapping, nil when unusable
	idx     *headerLog // reads headers.idx through idxMap (find)
	logFile *os.File   // headers.log, for readRecord
	// patches are the repairs Open would make from headers.parity, applied to log (a private
	// mapping: the file is not written), so the rest of the check sees the repaired log.
	patches []parRepair
	buf     [logHeaderSize + recHeaderSize + maxRecPayload]byte
	rbuf    recBuf // for c.idx's reads
}

// pactInfo is what pactBlock said of one chain's Pact state.
type pactInfo struct {
	chain   ledger.ChainID
	block   ledger.Hash
	ok      bool
	missing string
	err     error
}

// digest is an order-independent digest of a multiset of 64-bit items: two passes in different
// orders (the log's, goleveldb's, the hash index's) compare equal exactly when they saw the
// same items, but for a chance of about 2^-64, with no memory per item.
type digest struct {
	sum, xor, n uint64
}

func (d *digest) add(x uint64) {
	d.sum += x
	d.xor ^= mix64(x)
	d.n++
}

// heightItem is the digest item of a height-index key (chain, height, hash) and, when
// withOff, the log offset its entry names.
func heightItem(c ledger.ChainID, height uint64, h *ledger.Hash, off uint64, withOff bool) uint64 {
	x := mix64(uint64(c)<<40 ^ height ^ binary.LittleEndian.Uint64(h[:8]))
	x = mix64(x ^ binary.LittleEndian.Uint64(h[8:]) ^ mix64(binary.LittleEndian.Uint64(h[16:])^binary.LittleEndian.Uint64(h[24:])))
	if withOff {
		x = mix64(x ^ off)
	}
	return x
}

// slotItem is the digest item of a hash-index slot (key, offset).
func slotItem(key, off uint64) uint64 { return mix64(key ^ mix64(off)) }

// mix64 is splitmix64's finaliser.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// trimEvery is how many record reads may touch new pages of the mappings before they are
// dropped from the process. A fault maps the whole folio around the page read (up to 2 MiB),
// so sequential passes, which fault once per folio, drop them every 1024 records, and the
// slow paths, which probe the hash index at random, every 32.
const (
	trimEvery       = 1024
	trimEveryRandom = 32
)

// touch counts one record read, and drops the mappings' pages from the process (not from the
// page cache: a later read maps them again without disk I/O) every trimEvery reads.
func (c *checker) touch() {
	if c.touched++; c.touched >= trimEvery {
		c.trim()
	}
}

// touchRandom is touch for reads at random places of the mappings.
func (c *checker) touchRandom() {
	if c.touched++; c.touched >= trimEveryRandom {
		c.trim()
	}
}

func (c *checker) trim() {
	c.touched = 0
	for _, m := range [][]byte{c.log, c.idxMap} {
		if len(m) > 0 {
			syscall.Madvise(m, syscall.MADV_DONTNEED)
		}
	}
	c.applyPatches() // dropping a private mapping's pages drops what was written into them
}

func (c *checker) applyPatches() {
	for _, r := range c.patches {
		for i, blk := range r.blocks {
			copy(c.log[blk*parBlock:], r.data[i])
		}
	}
}

// journals reads goleveldb's journal files as goleveldb's recovery does, and reports what it
// would drop: a torn or damaged journal loses the writes after the damage, silently.
func (c *checker) journals() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		c.r.add("data directory", NeedsRepair, "cannot list: %v", err)
		return
	}
	for _, e := range ents {
		if !journalName.MatchString(e.Name()) {
			continue
		}
		part := "goleveldb journal " + e.Name()
		f, err := os.Open(filepath.Join(c.dir, e.Name()))
		if err != nil {
			c.r.add(part, NeedsRepair, "cannot open: %v", err)
			continue
		}
		d := &dropCounter{}
		jr := journal.NewReader(f, d, false, true)
		n := 0
		for {
			rd, err := jr.Next()
			if err != nil {
				break
			}
			if _, err := io.Copy(io.Discard, rd); err != nil {
				d.Drop(err)
				continue
			}
			n++
		}
		f.Close()
		if d.n > 0 {
			c.r.add(part, RepairedAtStart, "%d write batches readable, then %d damaged or torn part(s) (%d bytes: %v): goleveldb drops them at "+
				"open, losing the last writes before a crash (the node re-indexes the header log, and re-mines or re-fetches lost blocks)",
				n, d.n, d.bytes, d.first)
		} else {
			c.r.add(part, Fine, "%d write batches", n)
		}
	}
}

type dropCounter struct {
	n, bytes int
	first    error
}

func (d *dropCounter) Drop(err error) {
	d.n++
	var jc *journal.ErrCorrupted
	if errors.As(err, &jc) {
		d.bytes += jc.Size
	}
	if d.first == nil {
		d.first = err
	}
}

// scanLevelDB reads every goleveldb row, which verifies every table block's checksum, and
// decodes the rows the store interprets.
func (c *checker) scanLevelDB() {
	// goleveldb panics on some damaged tables (a block whose keys are no internal keys) where
	// it should return an error: a check reports that as damage rather than dying of it.
	defer func() {
		if p := recover(); p != nil {
			c.r.add("goleveldb", NeedsRepair, "reading every row failed: goleveldb panicked: %v", p)
		}
	}()
	counts := map[byte]int{}
	bad := map[string]int{}
	var firstBad string
	note := func(what string, err error) {
		bad[what]++
		if firstBad == "" {
			firstBad = fmt.Sprintf("%s: %v", what, err)
		}
	}
	c.pactChains = map[ledger.ChainID]bool{}
	var schema *records.Schema
	it := c.ldb.NewIterator(nil, nil)
	for it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) == 0 {
			note("empty key", errors.New("empty key"))
			continue
		}
		counts[k[0]]++
		switch k[0] {
		case tagMeta:
			switch string(k[1:]) {
			case metaSchema:
				var rec records.Schema
				if err := unmarshalRecord("schema", v, &rec); err != nil {
					note("schema record", err)
				} else {
					schema = &rec
				}
			case metaNetwork:
				var rec records.Network
				if err := unmarshalRecord("network", v, &rec); err != nil {
					note("network record", err)
				}
				c.nodeData, c.hasNetwork = true, true
			case metaHeads:
				var rec records.Heads
				if err := unmarshalRecord("heads", v, &rec); err != nil {
					note("heads record", err)
				} else {
					c.headsRec = &rec
				}
			case metaLogEnd:
				if off, ok := parseLogOffset(v); ok {
					c.logEnd, c.hasLogEnd = off, true
				} else {
					note("logend record", fmt.Errorf("%d bytes", len(v)))
				}
			case metaRepair:
				c.repairMark = true
				c.r.add("repair mark", RepairedAtStart, "a read met damaged data while the node ran (%s): the next start rebuilds the header and height indexes", v)
			}
		case tagHeight:
			_, _, _, ok := parseHeightKey(k)
			_, ok2 := parseLogOffset(v)
			if !ok || !ok2 {
				note("height index entry", fmt.Errorf("malformed key %x or value %x", k, v))
			}
		case tagPayload:
			var rec records.Payload
			err := unmarshalRecord("payload", v, &rec)
			if err == nil && (len(k) != hashKeyLen || ledger.PayloadHash(rec.TransactionsHash, rec.OutputsHash) != ledger.Hash(k[1:])) {
				err = errors.New("does not hash to its key")
			}
			if err != nil {
				note("payload record", err)
			}
		case tagOutputs:
			var rec records.Outputs
			if err := unmarshalRecord("outputs", v, &rec); err != nil {
				note("outputs record", err)
			}
		case tagPact:
			if len(k) >= 5 {
				c.pactChains[ledger.ChainID(uint32(k[1])<<24|uint32(k[2])<<16|uint32(k[3])<<8|uint32(k[4]))] = true
			}
		}
	}
	it.Release()
	if err := it.Error(); err != nil {
		c.r.add("goleveldb", NeedsRepair, "reading every row failed: %v", err)
		return
	}
	if schema == nil && (counts[tagHeight] > 0 || counts[tagPayload] > 0) {
		note("schema record", errors.New("missing"))
	} else if schema != nil && schema.Version != schemaVersion {
		c.r.add("goleveldb", NeedsRepair, "schema version %d, this build reads %d", schema.Version, schemaVersion)
	}
	if len(bad) > 0 {
		keys := make([]string, 0, len(bad))
		for k, n := range bad {
			keys = append(keys, fmt.Sprintf("%d %s", n, k))
		}
		sort.Strings(keys)
		c.r.add("goleveldb", NeedsRepair, "rows that do not decode: %v (first: %s)", keys, firstBad)
		return
	}
	c.scanned = true
	c.r.add("goleveldb", Fine, "%d height-index entries, %d payloads, %d Pact state rows of %d chains",
		counts[tagHeight], counts[tagPayload], counts[tagPact], len(c.pactChains))
	c.nodeData = c.nodeData || counts[tagPayload] > 0 || counts[tagOutputs] > 0 || len(c.pactChains) > 0
}

// headerLog verifies every record of headers.log, as Open does, and says what Open would cut.
func (c *checker) headerLog() {
	part := logFileName
	path := filepath.Join(c.dir, logFileName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if c.hasLogEnd && c.logEnd > logHeaderSize {
			c.r.add(part, NeedsRepair, "missing, but the height index refers to %d bytes of it: restore the data directory from a backup", c.logEnd)
		} else {
			c.r.add(part, Fine, "absent (no header stored yet)")
		}
		return
	}
	if err != nil {
		c.r.add(part, NeedsRepair, "cannot open: %v", err)
		return
	}
	c.logFile = f // closed by Check
	st, err := f.Stat()
	if err != nil {
		c.r.add(part, NeedsRepair, "cannot stat: %v", err)
		return
	}
	size := uint64(st.Size())
	var m []byte
	if size > logHeaderSize {
		if m, err = mapPrivate(f, size); err != nil {
			c.r.add(part, NeedsRepair, "cannot map: %v", err)
			return
		}
		c.log = m // unmapped by Check
	}
	pf, ph, psize, parProblem := openParityFile(c.dir, os.O_RDONLY)
	var pm []byte
	if pf != nil {
		pm, err = mapFile(pf, psize, false)
		pf.Close()
		if err != nil {
			parProblem, pm = err.Error(), nil
		} else {
			defer syscall.Munmap(pm)
		}
	}
	id, err := readLogHeader(f)
	if err != nil && pm != nil && m != nil {
		if r, ok := reconstruct(f, m, pm, ph, 0, ph.logID); ok {
			c.patch(r)
			id, err = ph.logID, nil
			c.r.add(part, RepairedAtStart, "%d bytes of the log header and the records after it are damaged; headers.parity restores them (verified) at the next start",
				r.changed)
		}
	}
	if err != nil {
		c.r.add(part, NeedsRepair, "%v: a repair writes a new header and keeps the records that verify", err)
		return
	}
	if pm != nil && ph.logID != id {
		parProblem, pm = "it protects another header log", nil
	}
	c.end, c.logOK = logHeaderSize, true
	if size <= logHeaderSize {
		c.r.add(part, Fine, "no records")
		return
	}
	undecodable := 0
	var hdr ledger.Header
	logEnd := uint64(math.MaxUint64) // the records the height index must cover
	if c.hasLogEnd {
		logEnd = c.logEnd
	}
	each := func(off uint64, p []byte) {
		h := hashOf(p)
		if w, ok := c.wanted[h]; ok && w == 0 {
			c.wanted[h] = off
		}
		if hdr.UnmarshalBinary(p) != nil || hdr.Hash != h {
			undecodable++
		} else if off < logEnd {
			c.keys.add(heightItem(hdr.ChainID, hdr.Height, &h, 0, false))
			c.entries.add(heightItem(hdr.ChainID, hdr.Height, &h, off, true))
		}
		c.slots.add(slotItem(slotKey(&h), off))
		c.touch()
	}
	end, torn, n := scanLogEach(m, logHeaderSize, each)
	// Damage the parity repairs (verified) is repaired in the private mapping, as Open would.
	for pm != nil && (torn || lastNonZero(f, m, end) > end) {
		r, ok := reconstruct(f, m, pm, ph, end, id)
		if !ok {
			break
		}
		c.patch(r)
		if c.startSkips(f, st, end) {
			c.r.add(part, NeedsRepair, "a damaged record at offset %d (%d bytes in block(s) %v), among the older records the index closed cleanly covers: "+
				"headers.parity restores it (verified); a start does not read it (reads of the damaged headers fail, and the start after one repairs it), "+
				"`ledger-node repair` repairs it now; nothing is lost", end, r.changed, r.blocks)
		} else {
			c.r.add(part, RepairedAtStart, "a damaged record at offset %d (%d bytes in block(s) %v): headers.parity restores it (verified) at the next start; nothing is lost",
				end, r.changed, r.blocks)
		}
		var more uint64
		end, torn, more = scanLogEach(m, end, each)
		n += more
	}
	c.end, c.records = end, n
	c.trim()
	c.checkParity(pm, ph, parProblem, f, end)
	last := lastNonZero(f, m, end)
	switch {
	case last > end && c.startSkips(f, st, end):
		c.r.add(part, NeedsRepair, "%d intact records, then a damaged record at offset %d, among the older records the index closed cleanly covers: a start "+
			"does not read it (reads of the damaged headers fail, and the start after one does), `ledger-node repair` cuts the log there now; "+
			"%d bytes after it (%d intact records) are cut off, saved aside as headers.log.damaged-<time>, and re-mined or re-fetched",
			n, end, last-end, countIntact(m[:last], end))
	case last > end:
		c.r.add(part, RepairedAtStart, "%d intact records, then a torn or damaged record at offset %d; %d bytes after it (%d intact records) "+
			"are cut off at the next start, saved aside as headers.log.damaged-<time>, and re-mined or re-fetched",
			n, end, last-end, countIntact(m[:last], end))
	case torn:
		c.r.add(part, RepairedAtStart, "%d intact records, then a torn record at offset %d, cut off at the next start", n, end)
	default:
		c.r.add(part, Fine, "%d records, %d bytes, every checksum good", n, end)
	}
	if undecodable > 0 {
		c.r.add(part, NeedsRepair, "%d records pass their checksum but do not decode as the header they name (written by a faulty build?)", undecodable)
	}
	if c.hasLogEnd && c.logEnd > end {
		c.r.add("height index", RepairedAtStart, "covers %d bytes of the header log, which holds %d intact: entries of the lost headers are dropped at start", c.logEnd, end)
	}
	if saved, _ := filepath.Glob(filepath.Join(c.dir, logFileName+".damaged-*")); len(saved) > 0 {
		c.r.add(part, Fine, "%d damaged tail(s) cut off earlier kept aside (%s…); delete them once no longer wanted", len(saved), filepath.Base(saved[0]))
	}
}

// startSkips says whether a start would open the log without reading the record at end, the
// first bad one: Open verifies only the newest records a clean index covers and those it does
// not cover, unless the log was written after the index was closed or a repair mark asks for
// everything (openHeaderLog, recentStart).
func (c *checker) startSkips(log *os.File, st os.FileInfo, end uint64) bool {
	if c.repairMark {
		return false
	}
	id, err := readLogHeader(log)
	if err != nil {
		return false
	}
	f, ih, problem := openIndexFileFlag(filepath.Join(c.dir, idxFileName), id, os.O_RDONLY)
	if problem != "" {
		return false
	}
	defer f.Close()
	if !cleanLogOf(ih, st) || ih.covered > uint64(len(c.log)) {
		return false
	}
	from, err := recentStartOf(f, ih, c.log)
	return err == nil && end < from
}

// hashIndex checks headers.idx against the log: its header, then that every slot names a record
// and every record below its covered mark has a slot.
func (c *checker) hashIndex() {
	part := idxFileName
	if !c.logOK {
		return
	}
	lf, err := os.Open(filepath.Join(c.dir, logFileName))
	if err != nil {
		return
	}
	id, err := readLogHeader(lf)
	lf.Close()
	if err != nil {
		return
	}
	f, ih, problem := openIndexFileFlag(filepath.Join(c.dir, idxFileName), id, os.O_RDONLY)
	if problem != "" {
		if problem == "the index file is missing" && c.end == logHeaderSize {
			c.r.add(part, Fine, "absent (no header stored yet)")
			return
		}
		c.r.add(part, RepairedAtStart, "unusable (%s): the next start rebuilds it from headers.log", problem)
		return
	}
	defer f.Close()
	if ih.covered > c.end {
		c.r.add(part, RepairedAtStart, "covers %d bytes of headers.log, which holds %d intact: the next start rebuilds it", ih.covered, c.end)
		return
	}
	m, err := mapFile(f, idxHeaderSize+ih.slots*slotSize, false)
	if err != nil {
		c.r.add(part, NeedsRepair, "cannot map: %v", err)
		return
	}
	c.idxMap = m // unmapped by Check, after the lookups (find)
	w := words(m[idxHeaderSize:])
	clean := ih.flags&idxFlagClean != 0
	v := &logView{log: c.log, slots: w, mask: ih.slots - 1}
	// Records are read with pread (mapLimit 0), as by a node serving a large log: the slow
	// paths below read them all over the log, and a fault on the mapping maps a whole
	// neighbourhood of pages into the process.
	c.idx = &headerLog{fd: int(c.logFile.Fd())}
	c.idx.view.Store(v)
	c.idx.end.Store(c.end)
	// One sequential pass: if the slots are exactly the log's records (key and offset), every
	// slot names its record and every record has one.
	used := uint64(0)
	var have digest
	for i := 0; i+1 < len(w); i += 2 {
		if k := w[i]; k != 0 {
			used++
			have.add(slotItem(k, w[i+1]))
			c.touch()
		}
	}
	c.trim()
	badBelow, badAbove, missing := 0, 0, 0
	if have != c.slots {
		// Not exactly: a damaged or unclean index, or a header stored twice (indexed once).
		// Look at each slot's record, and look up each record.
		for i := 0; i+1 < len(w); i += 2 {
			k, off := w[i], w[i+1]
			if k == 0 {
				continue
			}
			c.touch()
			p, crc, ok, _ := c.idx.recordIn(v, off, &c.rbuf)
			if ok && off+recHeaderSize+uint64(len(p)) <= c.end && crc32.Checksum(p, castagnoli) == crc {
				if h := hashOf(p); slotKey(&h) == k {
					continue
				}
			}
			if off < ih.covered {
				badBelow++
			} else {
				badAbove++
			}
		}
		// Every record below "covered" must be found (a second record of a header, stored
		// again after a lost tail, finds the first, as reads do).
		scanRecords(c.log, logHeaderSize, ih.covered, func(off uint64, p []byte) error {
			h := hashOf(p)
			if p, _, _, err := c.idx.locate(v, &h, &c.rbuf); err != nil || p == nil {
				missing++
			}
			c.touchRandom()
			return nil
		})
		c.trim()
	}
	switch {
	case badBelow > 0 || missing > 0 || clean && badAbove > 0:
		c.r.add(part, NeedsRepair, "%d slots name no record of theirs, %d records have no slot: reads of those headers fail", badBelow+badAbove, missing)
	case used != ih.entries && clean:
		c.r.add(part, RepairedAtStart, "%d used slots where its header counts %d: the next start rebuilds it", used, ih.entries)
	case !clean:
		c.r.add(part, Fine, "%d entries; not closed cleanly (a running or killed node): the next start indexes the log past offset %d", used, ih.covered)
	default:
		c.r.add(part, Fine, "%d entries, every one names its record", used)
	}
}

// heightIndex checks that every height-index entry leads to its header, and every record the
// index covers has an entry: one pass over the entries, whose keys' digest is compared with
// the digest the log scan made of its records' keys. Only when they differ is each record
// looked up in the index, to count the ones without an entry.
func (c *checker) heightIndex() {
	part := "height index"
	if !c.logOK {
		return
	}
	covered := c.end
	if c.hasLogEnd {
		covered = min(covered, c.logEnd)
	}
	// One pass over the entries, reading no record: if they are exactly the log's records
	// below the covered length (key and offset), each leads to its header and each such
	// header has one.
	var all, have digest
	pass := func(each func(ch ledger.ChainID, height uint64, h ledger.Hash, off uint64)) error {
		it := c.ldb.NewIterator(util.BytesPrefix([]byte{tagHeight}), nil)
		defer it.Release()
		for it.Next() {
			ch, height, h, ok := parseHeightKey(it.Key())
			off, ok2 := parseLogOffset(it.Value())
			if ok && ok2 { // malformed ones are reported by scanLevelDB
				each(ch, height, h, off)
			}
		}
		return it.Error()
	}
	err := pass(func(ch ledger.ChainID, height uint64, h ledger.Hash, off uint64) {
		all.add(heightItem(ch, height, &h, off, true))
	})
	if err != nil {
		c.r.add(part, NeedsRepair, "reading goleveldb: %v", err)
		return
	}
	entries := all.n
	lost, wrong := 0, 0
	var hdr ledger.Header
	if all != c.entries {
		// Not exactly: read each entry's record.
		err = pass(func(ch ledger.ChainID, height uint64, h ledger.Hash, off uint64) {
			p := c.readAny(off, false) // as recordAt on the mapping: a record's shape, below the end
			ok := p != nil
			switch {
			case !ok || off+recHeaderSize+uint64(len(p)) > c.end:
				lost++
			case hashOf(p) != h || hdr.UnmarshalBinary(p) != nil || hdr.ChainID != ch || hdr.Height != height:
				wrong++
			case off < covered:
				have.add(heightItem(ch, height, &h, 0, false))
			}
			c.touch()
		})
		if err != nil {
			c.r.add(part, NeedsRepair, "reading goleveldb: %v", err)
			return
		}
		c.trim()
	} else {
		have = c.keys
	}
	unindexed := 0
	if have != c.keys {
		// Some record has no entry (or a header was stored twice, or an entry names another
		// record of its header): look each one up.
		var key [heightKeyLen]byte
		scanRecords(c.log, logHeaderSize, covered, func(off uint64, p []byte) error {
			h := hashOf(p)
			if hdr.UnmarshalBinary(p) != nil || hdr.Hash != h {
				return nil // reported by headerLog
			}
			key = heightKey(hdr.ChainID, hdr.Height, h)
			if ok, err := c.ldb.Has(key[:], nil); err == nil && !ok {
				unindexed++
			}
			c.touch()
			return nil
		})
	}
	c.trim()
	switch {
	case wrong > 0 || unindexed > 0:
		c.r.add(part, NeedsRepair, "%d entries name another header than their key, %d headers have no entry (%d entries name headers lost from the log)", wrong, unindexed, lost)
	case lost > 0:
		c.r.add(part, RepairedAtStart, "%d entries name headers lost from the log: dropped at the next start", lost)
	default:
		c.r.add(part, Fine, "%d entries, every one leads to its header", entries)
	}
}

// heads checks that every head names a stored header.
func (c *checker) heads() {
	if c.headsRec == nil {
		c.r.add("heads", Fine, "none recorded")
		return
	}
	var lost []uint32
	for _, e := range c.headsRec.Heads {
		if c.wanted[e.Hash] == 0 {
			lost = append(lost, e.Chain)
		}
	}
	if len(lost) > 0 {
		c.r.add("heads", RepairedAtStart, "the heads of chains %v name headers that are not stored: the node resumes from the blocks that remain", lost)
		return
	}
	c.r.add("heads", Fine, "%d chains, every head stored", len(c.headsRec.Heads))
}

// rowsLost reports goleveldb without its rows under a header log that has headers: the network
// record is written before any header (CheckVersion) and the heads with the first blocks, so
// the absence of both there means the rows went (a deleted or emptied table), and with them
// the payloads and Pact states, which the log cannot rebuild.
func (c *checker) rowsLost() {
	if !c.scanned || c.hasNetwork || c.headsRec != nil || !c.logOK || c.records == 0 {
		return
	}
	c.r.add("goleveldb", Lost, "no network record, yet headers.log holds %d headers: goleveldb's rows (heads, payloads, "+
		"Pact states) are gone, a deleted or emptied table; the log cannot rebuild them", c.records)
}

// payloads checks completeness, not only consistency: every block from each chain's head down
// to genesis has its payload and outputs, which the node executes and serves. A missing one is
// lost (only a backup, or a peer, has it): the finding says which chains and heights.
func (c *checker) payloads() {
	if c.headsRec == nil || !c.logOK || !c.nodeData {
		return
	}
	var hdr ledger.Header
	var gaps []string
	blocks, missing := 0, 0
	for _, e := range c.headsRec.Heads {
		n, lo, hi := 0, uint64(0), uint64(0)
		off := c.wanted[e.Hash]
		for h := e.Hash; off != 0; h = hdr.Parent {
			p := c.readRecord(off, h)
			if p == nil || hdr.UnmarshalBinary(p) != nil {
				break
			}
			blocks++
			payloadKey, outputsKey := hashKey(tagPayload, hdr.PayloadHash), hashKey(tagOutputs, hdr.PayloadHash)
			ok1, err := c.ldb.Has(payloadKey[:], nil)
			ok2 := false
			if err == nil {
				ok2, err = c.ldb.Has(outputsKey[:], nil)
			}
			if err != nil {
				c.r.add("payloads", NeedsRepair, "reading goleveldb: %v", err)
				return
			}
			if !ok1 || !ok2 {
				if n == 0 {
					lo, hi = hdr.Height, hdr.Height
				}
				n++
				lo, hi = min(lo, hdr.Height), max(hi, hdr.Height)
			}
			if hdr.Height == 0 {
				break
			}
			// A parent not stored (0) ends the walk: heads and the height index report it.
			off = c.find(ledger.ChainID(e.Chain), hdr.Height-1, hdr.Parent)
		}
		if n > 0 {
			missing += n
			gaps = append(gaps, fmt.Sprintf("chain %d: %d between heights %d and %d", e.Chain, n, lo, hi))
		}
	}
	if missing > 0 {
		c.r.add("payloads", Lost, "%d of the %d blocks up to the heads have no payload or outputs (%s): the node can neither "+
			"execute nor serve them", missing, blocks, strings.Join(gaps, "; "))
		return
	}
	c.r.add("payloads", Fine, "every one of the %d blocks up to the heads has its payload and outputs", blocks)
}

// readPactStates asks pactBlock where each chain's Pact state is, before the log is scanned,
// so that the scan notes whether those blocks are stored (wanted).
func (c *checker) readPactStates(pactBlock PactBlockFunc) {
	chains := make([]ledger.ChainID, 0, len(c.pactChains))
	for ch := range c.pactChains {
		chains = append(chains, ch)
	}
	sort.Slice(chains, func(i, j int) bool { return chains[i] < chains[j] })
	for _, ch := range chains {
		_, b, ok, missing, err := pactBlock(KeySpace{ldb: c.ldb, prefix: pactPrefix(ch)})
		c.pacts = append(c.pacts, pactInfo{chain: ch, block: b, ok: ok, missing: missing, err: err})
		if err == nil && ok && missing == "" {
			c.wanted[b] = 0
		}
	}
}

// pactStates checks that each chain's Pact state is at a stored block.
func (c *checker) pactStates() {
	var lost []ledger.ChainID
	for _, ps := range c.pacts {
		part := fmt.Sprintf("Pact state of chain %d", ps.chain)
		if ps.err != nil {
			c.r.add(part, NeedsRepair, "%v", ps.err)
			continue
		}
		if !ps.ok {
			continue
		}
		if ps.missing != "" {
			// Its blocks' payloads rebuild it: repair empties it and the node replays the chain.
			c.r.add(part, NeedsRepair, "%s: `ledger-node repair` empties it, and the node rebuilds it by replaying the chain from genesis", ps.missing)
			continue
		}
		if c.wanted[ps.block] == 0 {
			lost = append(lost, ps.chain)
		}
	}
	if len(lost) > 0 {
		c.r.add("Pact state", RepairedAtStart, "the states of chains %v are at blocks that are not stored: the next start rewinds them to a stored block (or replays them from genesis)", lost)
	} else if len(c.pacts) > 0 {
		c.r.add("Pact state", Fine, "%d chains, each at a stored block", len(c.pacts))
	}
}

// find returns the log offset of header h (of chain c at height), or 0 if no intact record
// of it is found: through the height index, else through headers.idx (one of the two may be
// damaged; check reports that on its own). The record is read with pread, not through the
// mapping: a walk down a chain reads records all over the log, and a fault maps a whole
// neighbourhood of pages into the process.
func (c *checker) find(ch ledger.ChainID, height uint64, h ledger.Hash) uint64 {
	key := heightKey(ch, height, h)
	if v, err := c.ldb.Get(key[:], nil); err == nil {
		if off, ok := parseLogOffset(v); ok && c.readRecord(off, h) != nil {
			return off
		}
	}
	if c.idx != nil {
		if p, _, off, err := c.idx.locate(c.idx.view.Load(), &h, &c.rbuf); err == nil && p != nil && c.readRecord(off, h) != nil {
			return off
		}
	}
	return 0
}

// readRecord reads the record at off with pread and returns its header bytes if it is an intact
// record of header h below the end of the intact records; else nil. The bytes are valid until
// the next call.
func (c *checker) readRecord(off uint64, h ledger.Hash) []byte {
	if p := c.readAny(off, true); p != nil && hashOf(p) == h {
		return p
	}
	return nil
}

// readAny is readRecord for whatever header the record holds: a well-formed record that ends
// below the end of the intact records (and, with verify, passes its checksum), else nil.
func (c *checker) readAny(off uint64, verify bool) []byte {
	if c.logFile == nil || off < logHeaderSize || off >= c.end {
		return nil
	}
	if len(c.patches) > 0 {
		// The file still holds the damage the patched mapping repairs.
		p, crc, ok := recordAt(c.log, off)
		if !ok || off+recHeaderSize+uint64(len(p)) > c.end || verify && crc32.Checksum(p, castagnoli) != crc {
			return nil
		}
		return p
	}
	// recordAt wants a log: the record goes after a log header's worth of room.
	buf := c.buf[:logHeaderSize+recHeaderSize+maxRecPayload]
	n, _ := c.logFile.ReadAt(buf[logHeaderSize:], int64(off))
	p, crc, ok := recordAt(buf[:logHeaderSize+n], logHeaderSize)
	if !ok || off+recHeaderSize+uint64(len(p)) > c.end || verify && crc32.Checksum(p, castagnoli) != crc {
		return nil
	}
	return p
}

// patch applies a verified reconstruction to the private mapping of the log.
func (c *checker) patch(r parRepair) {
	c.patches = append(c.patches, r)
	c.applyPatches()
}

// checkParity compares headers.parity (its mapping pm, header ph) with the log as Open would
// leave it (repaired, zeros past end), group by group in a fixed buffer.
func (c *checker) checkParity(pm []byte, ph parHeader, problem string, f *os.File, end uint64) {
	part := parFileName
	switch {
	case pm == nil && problem == "the parity file is missing":
		c.r.add(part, Fine, "absent (a new or restored store): the next start builds it from headers.log")
		return
	case pm == nil:
		c.r.add(part, RepairedAtStart, "unusable (%s): the next start rebuilds it from headers.log", problem)
		return
	}
	var want [parBlock]byte
	tail := lastNonZero(f, c.log, end) > end // a cut at start recomputes the run holding end
	bad, stale, total := 0, 0, 0
	for g := uint64(0); g < (end+parRun-1)/parRun*parLanes; g++ {
		if g%(1024*parLanes) == 0 { // every 128 MiB of log: memory that does not grow with it
			c.trim()
			syscall.Madvise(pm, syscall.MADV_DONTNEED)
		}
		total++
		first := parFirstMember(g)
		got := parityBlock(pm, g)
		if tail && (first*parBlock)/parRun == end/parRun {
			continue
		}
		computeGroup(want[:], c.log[:end], g)
		if got != nil && bytes.Equal(want[:], got) {
			continue
		}
		if got == nil || !parTrusted(ph, first) {
			stale++ // past the mark of an unclean stop: recomputed at start
		} else {
			bad++
		}
	}
	switch {
	case bad > 0:
		c.r.add(part, NeedsRepair, "%d of %d parity blocks do not match headers.log (the parity file is damaged, and cannot repair damage in those groups): "+
			"`ledger-node repair` rebuilds them", bad, total)
	case stale > 0:
		c.r.add(part, RepairedAtStart, "%d of %d parity blocks past the last synced mark (an unclean stop) are recomputed at the next start", stale, total)
	default:
		c.r.add(part, Fine, "%d parity blocks match headers.log", total)
	}
}
