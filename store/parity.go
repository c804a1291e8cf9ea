package store

import (
	"bytes"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// headers.parity: XOR parity of headers.log, so that damage to the log is repaired instead of
// cut. Without it, 64 random bytes in the middle of the log cut it at the first bad record and
// drop every record after it: a header cannot be mined again identically (its descendants on
// every chain name its hash), so a single node loses everything above the damage.
//
// The log (its 32-byte header included) is cut into blocks of parBlock bytes, and the blocks
// into groups of parGroup, each protected by one parity block, the XOR of its members (bytes
// past the log's end are zeros, so the parity of a growing log is exact: an append XORs its
// bytes into their groups). Groups are interleaved, so that adjacent blocks never share one: in
// each run of parLanes × parGroup blocks, block i belongs to lane i mod parLanes. Damage of up to
// parBlock+1 contiguous bytes (64 random bytes anywhere, a 4 KiB bad sector, aligned or not)
// therefore touches at most one block per group, and each touched block is the XOR of its
// group's parity and its intact members. Overhead: 1/parGroup of the log (6.25%).
//
//	page 0 (4096 bytes), of which:
//	0   magic "LNHDRPAR"
//	8   version u32 = 1
//	12  flags u32: bit 0 "clean", set only by Close after everything was synced
//	16  log id u64: the headers.log it protects
//	24  block size u32, 28 group size u32, 32 lanes u32 (must be this build's)
//	36  reserved u32
//	40  covered u64: clean, the log's length at Close (every group exact); not clean, every run
//	    of blocks that ends at or below it is exact and durable (a log sync fsyncs the parity,
//	    at most once per paritySyncInterval, then writes this mark, which the next parity sync
//	    makes durable)
//	48  crc32c of bytes [0, 48) u32
//	4096 parity blocks: group g at 4096 + g × parBlock; group g = run × parLanes + lane
//
// Parity is never trusted blindly: a reconstructed block is kept only if every record
// overlapping it then passes its checksum (and the log header its own), and the bytes of it
// that were already verified are unchanged. A missing or mismatched file (another log's, a
// damaged header, a restored backup, which carries none: it is derived from the log) is rebuilt
// from the log at Open; after an unclean stop the runs past the covered mark are recomputed;
// check and repair (VerifyWholeLog) compare every group with the log and rebuild those that
// differ. Only the writer and Open touch it: reads never do.

const (
	parFileName   = "headers.parity"
	parMagic      = "LNHDRPAR"
	parVersion    = 1
	parHeaderSize = pageSize
	parBlock      = 4096
	parGroup      = 16
	parLanes      = 2
	parRun        = parBlock * parGroup * parLanes // log bytes per run of interleaved groups
	parFlagClean  = 1
)

// parity owns headers.parity: a writable shared mapping of all of it, header page included.
type parity struct {
	f  *os.File
	m  []byte
	id uint64
}

type parHeader struct {
	flags   uint32
	logID   uint64
	covered uint64
}

// parGroupOf is the group of log block blk.
func parGroupOf(blk uint64) uint64 {
	return blk/(parGroup*parLanes)*parLanes + blk%parLanes
}

// parFirstMember is group g's first block; its members are every parLanes-th block from there.
func parFirstMember(g uint64) uint64 {
	return g/parLanes*parGroup*parLanes + g%parLanes
}

// parSizeFor is the parity file size that covers a log of logSize bytes.
func parSizeFor(logSize uint64) uint64 {
	runs := (logSize + parRun - 1) / parRun
	return parHeaderSize + runs*parLanes*parBlock
}

func encodeParHeader(h parHeader) []byte {
	b := make([]byte, 52)
	copy(b[:8], parMagic)
	binary.LittleEndian.PutUint32(b[8:], parVersion)
	binary.LittleEndian.PutUint32(b[12:], h.flags)
	binary.LittleEndian.PutUint64(b[16:], h.logID)
	binary.LittleEndian.PutUint32(b[24:], parBlock)
	binary.LittleEndian.PutUint32(b[28:], parGroup)
	binary.LittleEndian.PutUint32(b[32:], parLanes)
	binary.LittleEndian.PutUint64(b[40:], h.covered)
	binary.LittleEndian.PutUint32(b[48:], crc32.Checksum(b[:48], castagnoli))
	return b
}

// openParityFile opens headers.parity and checks its header (not the log id, which the caller
// compares: a damaged log header is repaired with the id the parity names). problem says why it
// cannot be used; then f is nil.
func openParityFile(dir string, flag int) (f *os.File, h parHeader, size uint64, problem string) {
	f, err := os.OpenFile(filepath.Join(dir, parFileName), flag, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, h, 0, "the parity file is missing"
	}
	if err != nil {
		return nil, h, 0, err.Error()
	}
	problem = func() string {
		st, err := f.Stat()
		if err != nil {
			return err.Error()
		}
		size = uint64(st.Size())
		var b [52]byte
		if size < parHeaderSize || (size-parHeaderSize)%(parLanes*parBlock) != 0 {
			return fmt.Sprintf("the file has %d bytes, not a header page and whole runs of parity blocks", size)
		}
		if _, err := f.ReadAt(b[:], 0); err != nil {
			return err.Error()
		}
		if string(b[:8]) != parMagic || binary.LittleEndian.Uint32(b[48:]) != crc32.Checksum(b[:48], castagnoli) {
			return "bad magic or header checksum"
		}
		if v := binary.LittleEndian.Uint32(b[8:]); v != parVersion {
			return fmt.Sprintf("format version %d, this build reads %d", v, parVersion)
		}
		if binary.LittleEndian.Uint32(b[24:]) != parBlock || binary.LittleEndian.Uint32(b[28:]) != parGroup ||
			binary.LittleEndian.Uint32(b[32:]) != parLanes {
			return "another block, group or lane size"
		}
		h = parHeader{flags: binary.LittleEndian.Uint32(b[12:]), logID: binary.LittleEndian.Uint64(b[16:]),
			covered: binary.LittleEndian.Uint64(b[40:])}
		return ""
	}()
	if problem != "" {
		f.Close()
		return nil, parHeader{}, 0, problem
	}
	return f, h, size, ""
}

// openParity opens a usable headers.parity for writing and maps it.
func openParity(dir string) (*parity, parHeader, string) {
	f, h, size, problem := openParityFile(dir, os.O_RDWR)
	if problem != "" {
		return nil, h, problem
	}
	m, err := mapFile(f, size, true)
	if err != nil {
		f.Close()
		return nil, h, err.Error()
	}
	return &parity{f: f, m: m, id: h.logID}, h, ""
}

// createParity creates (or replaces) headers.parity for the log with id, sized for logCap, all
// zeros, with a header that trusts nothing (not clean, covered 0) until the caller fills it.
func createParity(dir string, id uint64, logCap uint64) (*parity, error) {
	path := filepath.Join(dir, parFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("store: create header parity: %w", err)
	}
	p := &parity{f: f, id: id}
	if _, err := f.WriteAt(encodeParHeader(parHeader{logID: id}), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("store: create header parity: %w", err)
	}
	if err := p.grow(logCap); err != nil {
		f.Close()
		return nil, err
	}
	return p, nil
}

// grow makes the parity file cover a log of logCap bytes. The blocks are allocated first, as for
// the index: a store into a sparse page of a shared mapping on a full disk raises SIGBUS.
func (p *parity) grow(logCap uint64) error {
	need := parSizeFor(logCap)
	if need <= uint64(len(p.m)) {
		return nil
	}
	if err := syscall.Fallocate(int(p.f.Fd()), 0, 0, int64(need)); err != nil && !errors.Is(err, syscall.EOPNOTSUPP) {
		return fmt.Errorf("store: grow header parity: allocate %d bytes: %w", need, err)
	}
	if err := p.f.Truncate(int64(need)); err != nil {
		return fmt.Errorf("store: grow header parity: %w", err)
	}
	m, err := mapFile(p.f, need, true)
	if err != nil {
		return err
	}
	if p.m != nil {
		syscall.Munmap(p.m) // only the writer and Open use it, never a reader
	}
	p.m = m
	return nil
}

// add XORs enc, just written at log offset base, into its groups' parity. The bytes it replaced
// were zeros (the log only grows), so the parity stays exact. No allocation.
func (p *parity) add(base uint64, enc []byte) {
	for len(enc) > 0 {
		blk, in := base/parBlock, base%parBlock
		n := min(parBlock-in, uint64(len(enc)))
		at := parHeaderSize + parGroupOf(blk)*parBlock + in
		dst := p.m[at : at+n]
		subtle.XORBytes(dst, dst, enc[:n])
		enc, base = enc[n:], base+n
	}
}

// writeHeader writes the header with pwrite (not through the mapping, which growth replaces:
// syncLog calls it without the writer lock).
func (p *parity) writeHeader(h parHeader) error {
	h.logID = p.id
	if _, err := p.f.WriteAt(encodeParHeader(h), 0); err != nil {
		return fmt.Errorf("store: write header parity: %w", err)
	}
	return nil
}

// sync makes the parity of the log's first e bytes durable (the log itself was just synced),
// then marks it covered; the next sync makes the mark durable after the data it vouches for.
func (p *parity) sync(e uint64) error {
	if err := p.syncData(); err != nil {
		return err
	}
	return p.writeHeader(parHeader{covered: e})
}

// syncData makes the parity blocks durable: fdatasync, since the blocks are allocated (grow)
// and the file's times need no journal commit at every heads write.
func (p *parity) syncData() error {
	if err := syscall.Fdatasync(int(p.f.Fd())); err != nil {
		return fmt.Errorf("store: sync header parity: %w", err)
	}
	return nil
}

// paritySyncInterval is how often at most syncLog makes the parity durable too. Syncing it
// with every heads write cost 1.3-1.6x a synced append of 20 headers (BenchmarkSyncedAppend),
// and nothing needs it that often: after an unclean stop Open recomputes the parity past its
// covered mark from the log, so a mark that lags by up to this interval only widens the part of
// the log (the last second's appends) where damage met after a power cut is cut instead of
// repaired.
const paritySyncInterval = time.Second

// syncBothLocked is syncLog's work with parity (syncMu held): the log and the parity are
// synced in parallel, and only then is the parity's covered mark moved to e, so the mark
// never vouches for data that is not on disk.
func (hl *headerLog) syncBothLocked(e uint64) error {
	done := make(chan error, 1)
	go func() { done <- hl.par.syncData() }()
	logErr := hl.log.Sync()
	parErr := <-done
	if logErr != nil {
		return fmt.Errorf("store: sync header log: %w", logErr)
	}
	if parErr != nil {
		return parErr
	}
	if err := hl.par.writeHeader(parHeader{covered: e}); err != nil {
		return err
	}
	hl.synced = e
	hl.parSyncedAt = time.Now()
	return nil
}

// closeClean syncs everything and marks the parity clean for a log of end bytes.
func (p *parity) closeClean(end uint64) error {
	err := p.f.Sync()
	if err == nil {
		err = p.writeHeader(parHeader{flags: parFlagClean, covered: end})
	}
	if err == nil {
		err = p.f.Sync()
	}
	p.release()
	if err != nil {
		return fmt.Errorf("store: close header parity: %w", err)
	}
	return nil
}

func (p *parity) release() {
	if p.m != nil {
		syscall.Munmap(p.m)
		p.m = nil
	}
	p.f.Close()
}

// block is group g's parity block in m (a parity file's mapping, header page included), or nil
// if the file is too short to hold it.
func parityBlock(m []byte, g uint64) []byte {
	at := parHeaderSize + g*parBlock
	if at+parBlock > uint64(len(m)) {
		return nil
	}
	return m[at : at+parBlock]
}

// computeGroup writes into dst (parBlock bytes) the parity of group g over log, whose bytes
// past its length are zeros.
func computeGroup(dst, log []byte, g uint64) {
	clear(dst)
	size := uint64(len(log))
	for k, blk := 0, parFirstMember(g); k < parGroup; k, blk = k+1, blk+parLanes {
		s := blk * parBlock
		if s >= size {
			break
		}
		e := min(s+parBlock, size)
		subtle.XORBytes(dst[:e-s], dst[:e-s], log[s:e])
	}
}

// refresh recomputes the parity of every run from the one holding log offset from on, over
// log (the whole log file's mapping, zeros past end); runs past end are zeroed, not read.
func (p *parity) refresh(log []byte, from, end uint64) {
	past := (end + parRun - 1) / parRun * parLanes
	for g := from / parRun * parLanes; ; g++ {
		dst := parityBlock(p.m, g)
		if dst == nil {
			return
		}
		if g >= past {
			clear(dst)
			continue
		}
		computeGroup(dst, log, g)
	}
}

// mismatches recomputes every group of runs below the one holding log offset below and
// rewrites (with fix) those that differ from the file (the ones a damaged parity file got
// wrong). It returns how many differed. Past end the log is zeros, and so must the parity be:
// those groups are compared with zeros without reading the log.
func (p *parity) mismatches(log []byte, below, end uint64, fix bool) int {
	var want [parBlock]byte
	n := 0
	past := (end + parRun - 1) / parRun * parLanes
	for g := uint64(0); g < below/parRun*parLanes; g++ {
		dst := parityBlock(p.m, g)
		if dst == nil {
			break
		}
		if g >= past {
			clear(want[:])
		} else {
			computeGroup(want[:], log[:min(end, uint64(len(log)))], g)
		}
		if !bytes.Equal(want[:], dst) {
			n++
			if fix {
				copy(dst, want[:])
			}
		}
	}
	return n
}

// parTrusted says whether the parity of block blk can be used to reconstruct it: a clean file
// is exact everywhere; otherwise only the runs that end at or below the covered mark.
func parTrusted(h parHeader, blk uint64) bool {
	if h.flags&parFlagClean != 0 {
		return true
	}
	return (blk/(parGroup*parLanes)+1)*parRun <= h.covered
}

// parRepair is a reconstruction that verified: the blocks to write back over the log.
type parRepair struct {
	blocks  []uint64 // block numbers, ascending
	data    [][]byte // their reconstructed bytes (shorter than parBlock at the log's end)
	first   uint64   // first byte that differs from the damaged log
	changed int      // bytes that differ
	records uint64   // records verified over the repaired blocks
	end     uint64   // where the scan of the repaired log stopped (past the repaired blocks, or the log's end)
}

// reconstruct tries to rebuild the damage at log offset bad (the first record that failed its
// checksum or could not be parsed; 0 for a damaged log header, then the header must also
// verify and carry id) from parity m with header h. log is the whole log file's bytes; f its
// file (for lastNonZero). It tries the block holding bad, the next one, then both (a record
// spans at most two blocks, and adjacent blocks are in different groups); a candidate is kept
// only if every record from bad on verifies past the end of the last rebuilt block, or the
// records verify up to a clean end inside it and nothing but zeros follows, and the bytes of
// the blocks before bad (already verified) are unchanged.
func reconstruct(f *os.File, log, m []byte, h parHeader, bad uint64, id uint64) (parRepair, bool) {
	size := uint64(len(log))
	if bad >= size {
		return parRepair{}, false
	}
	b0 := bad / parBlock
	from := max(bad, logHeaderSize)
	for _, set := range [][]uint64{{b0}, {b0 + 1}, {b0, b0 + 1}} {
		r, ok := tryBlocks(f, log, m, h, set, bad, from, id)
		if ok {
			return r, true
		}
	}
	return parRepair{}, false
}

func tryBlocks(f *os.File, log, m []byte, h parHeader, set []uint64, bad, from, id uint64) (parRepair, bool) {
	size := uint64(len(log))
	r := parRepair{blocks: set, first: size}
	for _, blk := range set {
		s := blk * parBlock
		if s >= size || !parTrusted(h, blk) {
			return r, false
		}
		pb := parityBlock(m, parGroupOf(blk))
		if pb == nil {
			return r, false
		}
		e := min(s+parBlock, size)
		cand := make([]byte, e-s)
		copy(cand, pb)
		for k, mb := 0, parFirstMember(parGroupOf(blk)); k < parGroup; k, mb = k+1, mb+parLanes {
			ms := mb * parBlock
			if mb == blk || ms >= size {
				continue
			}
			me := min(ms+parBlock, size)
			n := min(me-ms, uint64(len(cand)))
			subtle.XORBytes(cand[:n], cand[:n], log[ms:ms+n])
		}
		// Bytes before bad were verified (the log header by its checksum when bad is 0):
		// a candidate that changes them is wrong (another damaged member, a stale parity).
		if b := min(e, bad); bad > 0 && s < b && !bytes.Equal(cand[:b-s], log[s:b]) {
			return r, false
		}
		r.data = append(r.data, cand)
	}
	// A window with the candidates in place, behind a log header's worth of room (recordAt and
	// scanLogEach read offsets at or past it), long enough to verify the record straddling the
	// end of the last block.
	lo := set[0] * parBlock
	lastEnd := min((set[len(set)-1]+1)*parBlock, size)
	hi := min(size, lastEnd+recHeaderSize+maxRecPayload)
	win := make([]byte, logHeaderSize+hi-lo)
	copy(win[logHeaderSize:], log[lo:hi])
	for i, blk := range set {
		copy(win[logHeaderSize+blk*parBlock-lo:], r.data[i])
	}
	if set[0] == 0 {
		hdr := win[logHeaderSize : 2*logHeaderSize]
		if string(hdr[:8]) != logMagic || binary.LittleEndian.Uint32(hdr[24:]) != crc32.Checksum(hdr[:24], castagnoli) ||
			binary.LittleEndian.Uint64(hdr[16:]) != id {
			return r, false
		}
	} else if bad == 0 {
		return r, false // a damaged log header is in block 0
	}
	end, torn, n := scanLogEach(win, logHeaderSize+from-lo, nil)
	abs := end - logHeaderSize + lo
	switch {
	case abs >= lastEnd:
	case !torn && (abs > bad || bad == 0) && allZero(win[logHeaderSize+abs-lo:logHeaderSize+lastEnd-lo]) &&
		lastNonZero(f, log, lastEnd) <= lastEnd && countIntact(log[:lastEnd], abs) == 0:
		// The records end inside the rebuilt blocks and nothing follows: the damage was in
		// the last records (or past them), and nothing intact is given up.
	default:
		return r, false
	}
	r.records, r.end = n, abs
	for i, blk := range set {
		s := blk * parBlock
		for j, b := range r.data[i] {
			if b != log[s+uint64(j)] {
				r.changed++
				r.first = min(r.first, s+uint64(j))
			}
		}
	}
	if r.changed == 0 {
		return r, false // nothing to repair here: the damage is elsewhere
	}
	return r, true
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// writeBack writes a verified reconstruction over the log file, synced.
func (r parRepair) writeBack(f *os.File) error {
	for i, blk := range r.blocks {
		if _, err := f.WriteAt(r.data[i], int64(blk*parBlock)); err != nil {
			return fmt.Errorf("store: repair header log from parity: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("store: repair header log from parity: %w", err)
	}
	return nil
}

// mapPrivate maps f's first size bytes copy-on-write: check patches repairs into it to verify
// what follows them, without writing to the file.
func mapPrivate(f *os.File, size uint64) ([]byte, error) {
	if size == 0 || size > uint64(maxMapping) {
		return nil, fmt.Errorf("store: map %s: bad size %d", f.Name(), size)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("store: map %s (%d bytes): %w", f.Name(), size, err)
	}
	return m, nil
}

// applyRepair writes a verified reconstruction back over the log and says so.
func (hl *headerLog) applyRepair(f *os.File, r parRepair, bad uint64) error {
	if err := r.writeBack(f); err != nil {
		return err
	}
	hl.lg.Warn("store: headers.log was damaged; repaired it from headers.parity (every record over the repaired bytes verifies)",
		"file", f.Name(), "badRecordAt", bad, "offset", r.first, "bytesRepaired", r.changed, "blocks", r.blocks,
		"recordsVerified", r.records)
	hl.parRepairs = append(hl.parRepairs, fmt.Sprintf("headers.log repaired from headers.parity at offset %d: %d damaged bytes restored in block(s) %v",
		r.first, r.changed, r.blocks))
	return nil
}

// repairFromParity tries to repair a damaged log header (bad 0) from parity.
func (hl *headerLog) repairFromParity(f *os.File, par *parity, ph parHeader, bad uint64) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() < logHeaderSize {
		return false, nil
	}
	m, err := mapFile(f, uint64(st.Size()), false)
	if err != nil {
		return false, nil
	}
	defer syscall.Munmap(m)
	r, ok := reconstruct(f, m, par.m, ph, bad, ph.logID)
	if !ok {
		return false, nil
	}
	return true, hl.applyRepair(f, r, bad)
}

// settleParity brings the parity in line with the recovered log (logMap, zeros past end) before
// anything is appended: a missing or unusable file is rebuilt; after an unclean stop, or a cut,
// the runs past the covered mark (or the cut) are recomputed; with compare (check's and
// repair's whole verification) every other group is compared and rewritten where it differs.
// The header is then written not clean, covering end, and synced.
func (hl *headerLog) settleParity(par *parity, ph parHeader, problem string, logMap []byte, end uint64, compare bool) (*parity, error) {
	logCap := uint64(len(logMap))
	if par == nil {
		if end > logHeaderSize {
			hl.lg.Warn("store: rebuilding headers.parity from the header log", "dir", hl.dir, "reason", problem, "logBytes", end)
		}
		var err error
		if par, err = createParity(hl.dir, hl.id, logCap); err != nil {
			return nil, err
		}
		par.refresh(logMap, 0, end)
	} else {
		if err := par.grow(logCap); err != nil {
			return par, err
		}
		from := logCap
		if ph.flags&parFlagClean == 0 || ph.covered != end || hl.cut.bytes > 0 {
			from = min(end, ph.covered)
			par.refresh(logMap, from, end)
		}
		if compare {
			if n := par.mismatches(logMap, from, end, true); n > 0 {
				hl.lg.Warn("store: headers.parity did not match the header log (it was damaged); rebuilt the groups that differed",
					"dir", hl.dir, "groups", n)
				hl.parRepairs = append(hl.parRepairs, fmt.Sprintf("headers.parity: %d damaged parity blocks rebuilt from headers.log", n))
			}
		}
	}
	err := par.writeHeader(parHeader{covered: end})
	if err == nil {
		err = par.f.Sync()
	}
	// A rebuild or a comparison touched all of it; appends touch only the tail from now on.
	// (Safe for a shared file mapping: the pages stay in the page cache, dirty ones included.)
	syscall.Madvise(par.m, syscall.MADV_DONTNEED)
	if err != nil {
		return par, fmt.Errorf("store: header parity: %w", err)
	}
	return par, nil
}
