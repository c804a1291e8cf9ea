package store

import "github.com/ledgernode/ledger-node/ledger"

// compactHeader holds a header and, for the usual degree of 3, its adjacent records in one
// allocation. Cached headers are built this way: one object per header instead of two halves the
// allocations of a cache fill and keeps each cached header on consecutive cache lines, which is
// what a cache hit followed by AppendBinary pays for.
type compactHeader struct {
	hdr ledger.Header
	adj [3]ledger.Adjacent
}

// compactClone returns a deep copy of h, laid out compactly when its degree allows.
func compactClone(h *ledger.Header) *ledger.Header {
	if len(h.Adjacents) > 3 {
		return h.Clone()
	}
	c := &compactHeader{hdr: *h}
	n := copy(c.adj[:], h.Adjacents)
	c.hdr.Adjacents = c.adj[:n:n] // full slice expression: an append must not write into c
	return &c.hdr
}

// decodeCompact decodes a binary header into a compact allocation.
func decodeCompact(raw []byte) (*ledger.Header, error) {
	c := new(compactHeader)
	c.hdr.Adjacents = c.adj[:0]
	if err := c.hdr.UnmarshalBinary(raw); err != nil {
		return nil, err
	}
	n := len(c.hdr.Adjacents)
	c.hdr.Adjacents = c.hdr.Adjacents[:n:n]
	return &c.hdr, nil
}
