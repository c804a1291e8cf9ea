package api

import (
	"fmt"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"

	"github.com/ledgernode/ledger-node/pact/crypto"
)

// A Hash is a 32-byte command hash: the request key.
type Hash [32]byte

// String is the hash as unpadded base64url (43 characters).
func (h Hash) String() string { return crypto.EncodeBase64URL(h[:]) }

// HashAlg names the function a command's hash was computed with.
type HashAlg int

const (
	// BLAKE2b256 is what Pact and every client use: canonical.
	BLAKE2b256 HashAlg = iota
	// BLAKE2s256 is what the interface description names; a command
	// hashed with it is accepted too (DECISIONS.md).
	BLAKE2s256
)

func (a HashAlg) String() string {
	if a == BLAKE2s256 {
		return "BLAKE2s-256"
	}
	return "BLAKE2b-256"
}

// HashBytes is BLAKE2b-256 of b, Pact's hash.
func HashBytes(b []byte) Hash { return blake2b.Sum256(b) }

// HashBytesBLAKE2s is BLAKE2s-256 of b.
func HashBytesBLAKE2s(b []byte) Hash { return blake2s.Sum256(b) }

// RequestKey is the request key of a command whose cmd string is cmd:
// BLAKE2b-256 of its UTF-8 bytes, as unpadded base64url.
func RequestKey(cmd string) string { return HashBytes([]byte(cmd)).String() }

// ParseHash decodes a hash written in base64url (padding optional, as P5's
// decoder allows) and checks it has 32 bytes.
func ParseHash(s string) (Hash, error) {
	b, err := crypto.DecodeBase64URL([]byte(s))
	if err != nil {
		return Hash{}, fmt.Errorf("invalid base64url hash %s: %v", quoteShort(s), err)
	}
	if len(b) != len(Hash{}) {
		return Hash{}, fmt.Errorf("invalid hash %s: %d bytes, want 32", quoteShort(s), len(b))
	}
	return Hash(b), nil
}
