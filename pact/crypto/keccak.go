package crypto

import "golang.org/x/crypto/sha3"

// Keccak256 is the original Keccak-256 (Ethereum's, padding byte 0x01,
// not FIPS SHA3-256) over the concatenation of the chunks. hash-keccak256
// feeds each decoded chunk into one hashing context, which is the same as
// hashing the concatenation.
func Keccak256(chunks ...[]byte) [32]byte {
	h := sha3.NewLegacyKeccak256()
	for _, c := range chunks {
		h.Write(c)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
