package value

import (
	"golang.org/x/crypto/blake2b"
)

// Pact hashes with BLAKE2b-256 and renders digests as unpadded base64url
// (43 characters).

// HashBytes is the Pact hash of raw bytes.
func HashBytes(b []byte) string {
	sum := blake2b.Sum256(b)
	return EncodeBase64URL(sum[:])
}

// HashValue is the `hash` native (P5 coreHash): a string is hashed as its
// UTF-8 bytes, any other value over its compact JSON encoding.
func HashValue(v Value) (Value, error) {
	if s, ok := v.(String); ok {
		return String(HashBytes([]byte(s))), nil
	}
	if v.Kind() == KindClosure {
		return nil, ArgsError("hash", v)
	}
	b, err := EncodeJSON(v)
	if err != nil {
		return nil, err
	}
	return String(HashBytes(b)), nil
}
