package pow

import (
	"encoding/binary"

	"github.com/ledgernode/ledger-node/ledger"
)

// maxHeaderSize is ledger.SizeForDegree(ledger.MaxAdjacents), the largest header the decoder
// accepts; a test pins the two together. It has to be a constant to size a stack buffer.
const maxHeaderSize = 208 + 2 + 36*ledger.MaxAdjacents

// PowHashWork returns the PoW hash of work bytes (a binary header without its trailing 32-byte
// block hash; 286 bytes for degree 3): BLAKE2s-256 of the bytes, read as a little-endian
// 256-bit integer. Use it when the wire bytes are at hand, which saves re-encoding the header.
func PowHashWork(work []byte) ledger.U256 {
	d := blake2s256(work)
	return ledger.U256{
		binary.LittleEndian.Uint64(d[0:]),
		binary.LittleEndian.Uint64(d[8:]),
		binary.LittleEndian.Uint64(d[16:]),
		binary.LittleEndian.Uint64(d[24:]),
	}
}

// PowHash returns the PoW hash of h. It encodes h into a stack buffer, so it does not allocate
// for any header the decoder can produce.
func PowHash(h *ledger.Header) ledger.U256 {
	// Two buffers in separate functions: the common degree-3 header only pays for zeroing 318
	// bytes, not the 1362 of the largest header.
	if h.Size() <= ledger.HeaderSize {
		return powHashSmall(h)
	}
	return powHashLarge(h)
}

func powHashSmall(h *ledger.Header) ledger.U256 {
	var buf [ledger.HeaderSize]byte
	b := h.AppendBinary(buf[:0])
	return PowHashWork(b[:len(b)-ledger.HashSize])
}

func powHashLarge(h *ledger.Header) ledger.U256 {
	var buf [maxHeaderSize]byte
	b := h.AppendBinary(buf[:0]) // grows onto the heap only past MaxAdjacents adjacents
	return PowHashWork(b[:len(b)-ledger.HashSize])
}

// CheckPow reports whether h's PoW hash meets h's target. It does not consider whether the
// header needs PoW at all (genesis headers and versions with DisablePow do not); validation does.
func CheckPow(h *ledger.Header) bool {
	return CheckTarget(h.Target, PowHash(h))
}
