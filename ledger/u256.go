package ledger

import (
	"encoding/binary"
	"math/big"
)

// U256 is an unsigned 256-bit integer held as four little-endian 64-bit limbs (limb 0 is least
// significant). Targets, weights and PoW hashes are U256 values; their wire form is 32 bytes
// little-endian, which is exactly the limb order, so encoding costs four stores.
type U256 [4]uint64

// MaxU256 is 2^256 - 1, the maximum target.
var MaxU256 = U256{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

// U256FromLE reads 32 little-endian bytes.
func U256FromLE(b []byte) U256 {
	_ = b[31]
	return U256{
		binary.LittleEndian.Uint64(b[0:]),
		binary.LittleEndian.Uint64(b[8:]),
		binary.LittleEndian.Uint64(b[16:]),
		binary.LittleEndian.Uint64(b[24:]),
	}
}

// PutLE writes the 32-byte little-endian form into b.
func (u U256) PutLE(b []byte) {
	_ = b[31]
	binary.LittleEndian.PutUint64(b[0:], u[0])
	binary.LittleEndian.PutUint64(b[8:], u[1])
	binary.LittleEndian.PutUint64(b[16:], u[2])
	binary.LittleEndian.PutUint64(b[24:], u[3])
}

// LE returns the 32-byte little-endian form.
func (u U256) LE() [32]byte {
	var b [32]byte
	u.PutLE(b[:])
	return b
}

// Cmp returns -1, 0 or +1 as u is less than, equal to or greater than v.
func (u U256) Cmp(v U256) int {
	for i := 3; i >= 0; i-- {
		switch {
		case u[i] < v[i]:
			return -1
		case u[i] > v[i]:
			return 1
		}
	}
	return 0
}

// IsZero reports whether u is 0.
func (u U256) IsZero() bool { return u == U256{} }

// Big returns u as a new big.Int.
func (u U256) Big() *big.Int {
	b := u.LE()
	// big.Int.SetBytes is big-endian.
	for i, j := 0, 31; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return new(big.Int).SetBytes(b[:])
}

// U256FromBig converts x, which must satisfy 0 <= x < 2^256; ok is false otherwise.
func U256FromBig(x *big.Int) (u U256, ok bool) {
	if x.Sign() < 0 || x.BitLen() > 256 {
		return U256{}, false
	}
	var be [32]byte
	x.FillBytes(be[:])
	for i := 0; i < 4; i++ {
		u[i] = binary.BigEndian.Uint64(be[24-8*i:])
	}
	return u, true
}

// BEHex returns the 64-digit lowercase big-endian hex form (the display form of targets and PoW
// hashes in the header update stream).
func (u U256) BEHex() string {
	const digits = "0123456789abcdef"
	var out [64]byte
	for i := 0; i < 4; i++ {
		limb := u[3-i]
		for j := 15; j >= 0; j-- {
			out[16*i+j] = digits[limb&0xf]
			limb >>= 4
		}
	}
	return string(out[:])
}

// String returns the decimal form.
func (u U256) String() string { return u.Big().String() }
