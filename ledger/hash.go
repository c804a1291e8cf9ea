package ledger

import (
	"encoding/base64"
	"errors"
	"fmt"
)

// HashSize is the size in bytes of every hash the ledger uses: block hashes, payload hashes,
// transaction hashes and request keys.
const HashSize = 32

// HashB64Len is the length of a hash in unpadded base64url.
const HashB64Len = 43

// Hash is an opaque 32-byte digest. Block and payload hashes are SHA-512/256 merkle roots; they are
// never byte-swapped.
type Hash [HashSize]byte

// b64 is the unpadded URL-safe alphabet used for every binary value in JSON and URLs. Strict mode
// rejects non-canonical trailing bits, so each value has exactly one textual form.
var b64 = base64.RawURLEncoding.Strict()

// EncodeB64 returns the unpadded base64url text of b.
func EncodeB64(b []byte) string { return b64.EncodeToString(b) }

// AppendB64 appends the unpadded base64url text of b to dst.
func AppendB64(dst, b []byte) []byte { return b64.AppendEncode(dst, b) }

// DecodeB64 decodes unpadded base64url text.
func DecodeB64(s string) ([]byte, error) {
	b, err := b64.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("invalid base64url: %w", err)
	}
	return b, nil
}

// ErrHashSyntax is returned for text that is not exactly 43 characters of unpadded base64url.
var ErrHashSyntax = errors.New("a hash is exactly 43 characters of unpadded base64url")

// ParseHash decodes the 43-character unpadded base64url form of a hash.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != HashB64Len {
		return h, fmt.Errorf("%w (got %d characters)", ErrHashSyntax, len(s))
	}
	n, err := b64.Decode(h[:], []byte(s))
	if err != nil || n != HashSize {
		return Hash{}, ErrHashSyntax
	}
	return h, nil
}

// ParseHashBytes is ParseHash for a byte slice (avoids a string conversion on hot paths).
func ParseHashBytes(s []byte) (Hash, error) {
	var h Hash
	if len(s) != HashB64Len {
		return h, fmt.Errorf("%w (got %d characters)", ErrHashSyntax, len(s))
	}
	n, err := b64.Decode(h[:], s)
	if err != nil || n != HashSize {
		return Hash{}, ErrHashSyntax
	}
	return h, nil
}

// String returns the unpadded base64url form.
func (h Hash) String() string { return b64.EncodeToString(h[:]) }

// AppendText appends the unpadded base64url form to dst.
func (h Hash) AppendText(dst []byte) []byte { return b64.AppendEncode(dst, h[:]) }

// MarshalText implements encoding.TextMarshaler (and so JSON strings and map keys).
func (h Hash) MarshalText() ([]byte, error) { return h.AppendText(nil), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := ParseHashBytes(b)
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// IsZero reports whether every byte is zero.
func (h Hash) IsZero() bool { return h == Hash{} }
