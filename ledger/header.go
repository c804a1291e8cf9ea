package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// ChainID identifies one chain of the braid.
type ChainID uint32

// Adjacent is one adjacent-parent reference of a header: the block at the parent's height on a
// neighbouring chain.
type Adjacent struct {
	Chain ChainID
	Hash  Hash
}

// Header is a decoded block header. Field order follows the binary layout; see
// shared/spec/chainweb-header.md §1.
type Header struct {
	FeatureFlags uint64 // fork state: low 32 bits fork number, high 32 bits votes
	CreationTime int64  // microseconds since the Unix epoch
	Parent       Hash
	Adjacents    []Adjacent // strictly ascending by chain id
	Target       U256
	PayloadHash  Hash
	ChainID      ChainID
	Weight       U256
	Height       uint64
	Version      uint32 // version code, not name
	EpochStart   int64  // microseconds
	Nonce        uint64
	Hash         Hash // the merkle root over the other fields, as stored; see ComputeHash
}

// Binary layout constants.
const (
	headerBaseSize   = 208 // every fixed-size field, including the 32-byte hash
	adjacentCountLen = 2
	adjacentRecLen   = 36
	// MaxAdjacents bounds the adjacency count a decoder accepts; real graphs have degree 3.
	MaxAdjacents = 32
	// HeaderSize is the size of a header with three adjacents, as on every production network.
	HeaderSize = 318
	// WorkSize is the size of the PoW input of a degree-3 header: the header without its hash.
	WorkSize = HeaderSize - HashSize
)

// SizeForDegree is the binary size of a header with n adjacents.
func SizeForDegree(n int) int { return headerBaseSize + adjacentCountLen + adjacentRecLen*n }

// Size is the binary size of h.
func (h *Header) Size() int { return SizeForDegree(len(h.Adjacents)) }

// Offsets of the fields that follow the adjacents, relative to the end of the adjacent records.
const (
	offTarget      = 0
	offPayloadHash = offTarget + 32
	offChainID     = offPayloadHash + 32
	offWeight      = offChainID + 4
	offHeight      = offWeight + 32
	offVersion     = offHeight + 8
	offEpochStart  = offVersion + 4
	offNonce       = offEpochStart + 8
	offHash        = offNonce + 8
	tailSize       = offHash + 32
)

// Decoding errors.
var (
	ErrHeaderSize      = errors.New("header size does not match its adjacent count")
	ErrHeaderAdjacents = errors.New("header adjacents are not strictly ascending by chain id")
)

// DecodeHeader decodes the binary form. It never panics on any input: a malformed header gets an
// error. Adjacents must be strictly ascending by chain id (the order every encoder writes and the
// block hash uses), so that decoding and re-encoding is byte-identical.
func DecodeHeader(b []byte) (*Header, error) {
	h := new(Header)
	if err := h.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return h, nil
}

// UnmarshalBinary decodes the binary form into h, reusing h.Adjacents' storage.
func (h *Header) UnmarshalBinary(b []byte) error {
	if len(b) < SizeForDegree(0) {
		return fmt.Errorf("decode header: %w: %d bytes is shorter than any header", ErrHeaderSize, len(b))
	}
	n := int(binary.LittleEndian.Uint16(b[48:]))
	if n > MaxAdjacents {
		return fmt.Errorf("decode header: %d adjacents (at most %d)", n, MaxAdjacents)
	}
	if len(b) != SizeForDegree(n) {
		return fmt.Errorf("decode header: %w: %d bytes for %d adjacents (want %d)", ErrHeaderSize, len(b), n, SizeForDegree(n))
	}
	h.FeatureFlags = binary.LittleEndian.Uint64(b[0:])
	h.CreationTime = int64(binary.LittleEndian.Uint64(b[8:]))
	copy(h.Parent[:], b[16:48])
	h.Adjacents = slices.Grow(h.Adjacents[:0], n)[:n]
	p := 50
	for i := 0; i < n; i++ {
		a := &h.Adjacents[i]
		a.Chain = ChainID(binary.LittleEndian.Uint32(b[p:]))
		copy(a.Hash[:], b[p+4:p+36])
		if i > 0 && a.Chain <= h.Adjacents[i-1].Chain {
			return fmt.Errorf("decode header: %w", ErrHeaderAdjacents)
		}
		p += adjacentRecLen
	}
	t := b[p:]
	h.Target = U256FromLE(t[offTarget:])
	copy(h.PayloadHash[:], t[offPayloadHash:])
	h.ChainID = ChainID(binary.LittleEndian.Uint32(t[offChainID:]))
	h.Weight = U256FromLE(t[offWeight:])
	h.Height = binary.LittleEndian.Uint64(t[offHeight:])
	h.Version = binary.LittleEndian.Uint32(t[offVersion:])
	h.EpochStart = int64(binary.LittleEndian.Uint64(t[offEpochStart:]))
	h.Nonce = binary.LittleEndian.Uint64(t[offNonce:])
	copy(h.Hash[:], t[offHash:offHash+32])
	return nil
}

// AppendBinary appends the binary form (with the stored hash) to dst.
func (h *Header) AppendBinary(dst []byte) []byte {
	start := len(dst)
	dst = slices.Grow(dst, h.Size())[:start+h.Size()]
	h.putBinary(dst[start:])
	return dst
}

// MarshalBinary returns the binary form.
func (h *Header) MarshalBinary() ([]byte, error) { return h.AppendBinary(nil), nil }

// Bytes returns the binary form.
func (h *Header) Bytes() []byte { return h.AppendBinary(nil) }

// WorkBytes returns the PoW input: the binary form without the trailing hash.
func (h *Header) WorkBytes() []byte {
	b := h.AppendBinary(nil)
	return b[:len(b)-HashSize]
}

func (h *Header) putBinary(b []byte) {
	binary.LittleEndian.PutUint64(b[0:], h.FeatureFlags)
	binary.LittleEndian.PutUint64(b[8:], uint64(h.CreationTime))
	copy(b[16:48], h.Parent[:])
	binary.LittleEndian.PutUint16(b[48:], uint16(len(h.Adjacents)))
	p := 50
	for _, a := range h.Adjacents {
		binary.LittleEndian.PutUint32(b[p:], uint32(a.Chain))
		copy(b[p+4:p+36], a.Hash[:])
		p += adjacentRecLen
	}
	t := b[p:]
	h.Target.PutLE(t[offTarget:])
	copy(t[offPayloadHash:], h.PayloadHash[:])
	binary.LittleEndian.PutUint32(t[offChainID:], uint32(h.ChainID))
	h.Weight.PutLE(t[offWeight:])
	binary.LittleEndian.PutUint64(t[offHeight:], h.Height)
	binary.LittleEndian.PutUint32(t[offVersion:], h.Version)
	binary.LittleEndian.PutUint64(t[offEpochStart:], uint64(h.EpochStart))
	binary.LittleEndian.PutUint64(t[offNonce:], h.Nonce)
	copy(t[offHash:], h.Hash[:])
}

// DecodeHeaderB64 decodes the unpadded base64url text of the binary form (the default JSON
// encoding of a header is this text as a JSON string).
func DecodeHeaderB64(s string) (*Header, error) {
	if len(s) > 4*SizeForDegree(MaxAdjacents)/3+4 {
		return nil, fmt.Errorf("decode header: base64url text too long (%d characters)", len(s))
	}
	b, err := DecodeB64(s)
	if err != nil {
		return nil, fmt.Errorf("decode header: %w", err)
	}
	return DecodeHeader(b)
}

// B64 returns the unpadded base64url text of the binary form.
func (h *Header) B64() string {
	var buf [HeaderSize]byte
	return EncodeB64(h.AppendBinary(buf[:0]))
}

// AdjacentHash returns the adjacent-parent hash recorded for chain c.
func (h *Header) AdjacentHash(c ChainID) (Hash, bool) {
	for _, a := range h.Adjacents {
		if a.Chain == c {
			return a.Hash, true
		}
	}
	return Hash{}, false
}

// Clone returns a deep copy.
func (h *Header) Clone() *Header {
	c := *h
	c.Adjacents = slices.Clone(h.Adjacents)
	return &c
}

// ForkNumber is the low 32 bits of the feature flags.
func (h *Header) ForkNumber() uint32 { return uint32(h.FeatureFlags) }

// ForkVotes is the high 32 bits of the feature flags.
func (h *Header) ForkVotes() uint32 { return uint32(h.FeatureFlags >> 32) }
