package pow

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ledgernode/ledger-node/ledger"
)

// Nonce search with a BLAKE2s midstate.
//
// The nonce is the last field of the work bytes (bytes 278..285 of a degree-3 header), so it
// lies in the final 64-byte BLAKE2s block: the first 256 bytes (four blocks) hash to the same
// chaining value for every nonce. Work compresses them once, and each nonce then costs one
// compression instead of five. Everything else in those 256 bytes, the creation time at 8..15
// included, is fixed for the life of a Work: a miner that wants a fresh creation time builds new
// work. Headers of other degrees are handled too; for some the nonce straddles two blocks, and
// then both are hashed per nonce.

// nonceSize is the width of the nonce field at the end of the work bytes.
const nonceSize = 8

// Work is one header's PoW input prepared for nonce search. Its methods do not allocate. A Work
// is not safe for concurrent use (Search writes the nonce into it); give each worker its own.
type Work struct {
	mid     [8]uint32                  // chaining value after the blocks before the tail
	prefix  uint64                     // message bytes compressed into mid
	tail    [2 * blake2sBlockSize]byte // the last one or two blocks, zero-padded
	tailLen int                        // message bytes in tail
	nonceAt int                        // offset of the nonce in tail
	target  ledger.U256
	top     uint32 // the target's most significant 32 bits: most hashes are decided by them
}

// ErrWorkSize is returned for work bytes too short to hold a nonce.
var ErrWorkSize = errors.New("pow: work bytes shorter than a nonce")

// NewWork prepares work bytes (a binary header without its trailing hash) and the target the
// PoW hash must meet. The bytes are copied; the nonce field in them is ignored.
func NewWork(work []byte, target ledger.U256) (*Work, error) {
	w := new(Work)
	if err := w.Reset(work, target); err != nil {
		return nil, err
	}
	return w, nil
}

// Reset re-prepares w for other work bytes and target, reusing its storage.
func (w *Work) Reset(work []byte, target ledger.U256) error {
	n := len(work)
	if n < nonceSize {
		return fmt.Errorf("%w: %d bytes", ErrWorkSize, n)
	}
	// The tail starts at the last block boundary strictly before the end (the final block is
	// never empty), one block earlier when the nonce begins before that boundary.
	tailStart := (n - 1) / blake2sBlockSize * blake2sBlockSize
	if n-nonceSize < tailStart {
		tailStart -= blake2sBlockSize
	}
	w.mid = blake2sIV
	w.mid[0] ^= 0x01010000 | 32 // as in blake2s256: 32-byte digest, no key
	w.prefix = 0
	for off := 0; off < tailStart; off += blake2sBlockSize {
		w.prefix += blake2sBlockSize
		blake2sCompress(&w.mid, work[off:off+blake2sBlockSize], w.prefix, false)
	}
	w.tail = [2 * blake2sBlockSize]byte{}
	w.tailLen = copy(w.tail[:], work[tailStart:])
	w.nonceAt = n - nonceSize - tailStart
	w.target = target
	w.top = uint32(target[3] >> 32)
	return nil
}

// Target is the target the work was prepared with.
func (w *Work) Target() ledger.U256 { return w.target }

// digest returns the BLAKE2s-256 state words for the work with this nonce: word i holds digest
// bytes 4i..4i+3 in little-endian order.
func (w *Work) digest(nonce uint64) [8]uint32 {
	binary.LittleEndian.PutUint64(w.tail[w.nonceAt:], nonce)
	h := w.mid
	if w.tailLen > blake2sBlockSize {
		blake2sCompress(&h, w.tail[:blake2sBlockSize], w.prefix+blake2sBlockSize, false)
		blake2sCompress(&h, w.tail[blake2sBlockSize:], w.prefix+uint64(w.tailLen), true)
	} else {
		blake2sCompress(&h, w.tail[:blake2sBlockSize], w.prefix+uint64(w.tailLen), true)
	}
	return h
}

// PowHash returns the PoW hash of the work with this nonce, as PowHashWork would.
func (w *Work) PowHash(nonce uint64) ledger.U256 { return digestU256(w.digest(nonce)) }

func digestU256(d [8]uint32) ledger.U256 {
	return ledger.U256{
		uint64(d[0]) | uint64(d[1])<<32,
		uint64(d[2]) | uint64(d[3])<<32,
		uint64(d[4]) | uint64(d[5])<<32,
		uint64(d[6]) | uint64(d[7])<<32,
	}
}

// meets reports whether digest d, read as a little-endian integer, is at most the target. The
// top word settles all but about one hash in 2^32.
func (w *Work) meets(d [8]uint32) bool {
	switch {
	case d[7] < w.top:
		return true
	case d[7] > w.top:
		return false
	}
	return CheckTarget(w.target, digestU256(d))
}

// Search tries count nonces from start upwards (wrapping at 2^64) and returns the first whose
// PoW hash meets the target. It checks nothing else in between: the caller bounds count to stay
// responsive (a chunk of work between cancellation checks).
func (w *Work) Search(start, count uint64) (nonce uint64, found bool) {
	for i := uint64(0); i < count; i++ {
		if w.meets(w.digest(start + i)) {
			return start + i, true
		}
	}
	return 0, false
}

// MineHeader searches up to tries nonces from h.Nonce upwards for one that meets h's target,
// and on success sets it and reseals h. It is the one-shot form of Work for tests and tools;
// the node's miner keeps a Work per worker and checks for cancellation between chunks.
func MineHeader(h *ledger.Header, tries uint64) bool {
	w, err := NewWork(h.WorkBytes(), h.Target)
	if err != nil {
		return false
	}
	nonce, ok := w.Search(h.Nonce, tries)
	if ok {
		h.Nonce = nonce
		h.Seal()
	}
	return ok
}
