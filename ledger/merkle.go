package ledger

import (
	"crypto/sha512"
	"encoding/binary"
)

// Merkle tree tags of the chainweb merkle universe. Input leaves are hashed as
// H(0x00 || tag (2 bytes big-endian) || value); tree-node leaves (hashes) are used verbatim.
// The numbers read like decimal but are hex (see chainweb-header.md §2.1).
const (
	TagChainID           uint16 = 0x0002
	TagBlockHeight       uint16 = 0x0003
	TagBlockWeight       uint16 = 0x0004
	TagFeatureFlags      uint16 = 0x0006
	TagCreationTime      uint16 = 0x0007
	TagVersion           uint16 = 0x0008
	TagHashTarget        uint16 = 0x0011
	TagTransaction       uint16 = 0x0013
	TagTransactionOutput uint16 = 0x0014
	TagMinerData         uint16 = 0x0017
	TagCoinbaseOutput    uint16 = 0x0018
	TagEpochStart        uint16 = 0x0019
	TagNonce             uint16 = 0x0020
)

// Domain prefixes of the merkle-log tree (RFC 6962 style).
const (
	leafPrefix byte = 0x00
	nodePrefix byte = 0x01
)

// LeafHash returns H(0x00 || data) for an untagged input leaf.
func LeafHash(data []byte) Hash {
	d := sha512.New512_256()
	d.Write([]byte{leafPrefix})
	d.Write(data)
	var h Hash
	d.Sum(h[:0])
	return h
}

// TaggedLeafHash returns H(0x00 || tag_be16 || data).
func TaggedLeafHash(tag uint16, data []byte) Hash {
	d := sha512.New512_256()
	var pre [3]byte
	pre[0] = leafPrefix
	binary.BigEndian.PutUint16(pre[1:], tag)
	d.Write(pre[:])
	d.Write(data)
	var h Hash
	d.Sum(h[:0])
	return h
}

// NodeHash returns H(0x01 || left || right).
func NodeHash(left, right Hash) Hash {
	var buf [1 + 2*HashSize]byte
	buf[0] = nodePrefix
	copy(buf[1:], left[:])
	copy(buf[1+HashSize:], right[:])
	return sha512.Sum512_256(buf[:])
}

// MerkleRoot returns the RFC 6962 tree hash over already-hashed leaves: a single leaf is its own
// root; otherwise split at the largest power of two strictly below n. An empty list hashes to H("").
// It reorders nothing and allocates nothing for trees of up to 64 leaves.
func MerkleRoot(leaves []Hash) Hash {
	switch len(leaves) {
	case 0:
		return sha512.Sum512_256(nil)
	case 1:
		return leaves[0]
	}
	// Iterative form of the recursive split: merge equal-height subtrees on a stack as leaves
	// arrive, then fold what is left from the right. Equivalent to the split rule for every n.
	var stackBuf [64]Hash
	var heightBuf [64]int
	stack, heights := stackBuf[:0], heightBuf[:0]
	for _, l := range leaves {
		stack = append(stack, l)
		heights = append(heights, 0)
		for len(stack) >= 2 && heights[len(heights)-1] == heights[len(heights)-2] {
			n := len(stack)
			stack[n-2] = NodeHash(stack[n-2], stack[n-1])
			heights[n-2]++
			stack, heights = stack[:n-1], heights[:n-1]
		}
	}
	root := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		root = NodeHash(stack[i], root)
	}
	return root
}

// blockLeaf hashes one tagged input leaf of a block hash. The value is at most 32 bytes, so the
// whole input fits a stack buffer and sha512.Sum512_256 needs no heap state.
func blockLeaf(tag uint16, value []byte) Hash {
	var buf [3 + 32]byte
	buf[0] = leafPrefix
	binary.BigEndian.PutUint16(buf[1:], tag)
	n := copy(buf[3:], value)
	return sha512.Sum512_256(buf[:3+n])
}

// ComputeHash returns the block hash: the merkle root over the header fields in merkle-log
// order (flags, time, parent, target, payload, chain, weight, height, version, epoch start,
// nonce, then the adjacent hashes ascending by chain id). It does not read h.Hash.
func (h *Header) ComputeHash() Hash {
	var leavesBuf [headerFixedLeaves + MaxAdjacents]Hash
	return MerkleRoot(h.appendLeaves(leavesBuf[:0]))
}

// Leaf positions in a header's merkle tree (chainweb-header.md §2.2).
const (
	headerPayloadLeaf = 4  // payloadHash, a tree node
	headerFixedLeaves = 11 // the leaves before the adjacent hashes
)

// appendLeaves appends the leaves of h's block hash tree.
func (h *Header) appendLeaves(leaves []Hash) []Hash {
	var v [32]byte
	binary.LittleEndian.PutUint64(v[:], h.FeatureFlags)
	leaves = append(leaves, blockLeaf(TagFeatureFlags, v[:8]))
	binary.LittleEndian.PutUint64(v[:], uint64(h.CreationTime))
	leaves = append(leaves, blockLeaf(TagCreationTime, v[:8]))
	leaves = append(leaves, h.Parent)
	h.Target.PutLE(v[:])
	leaves = append(leaves, blockLeaf(TagHashTarget, v[:32]))
	leaves = append(leaves, h.PayloadHash)
	binary.LittleEndian.PutUint32(v[:], uint32(h.ChainID))
	leaves = append(leaves, blockLeaf(TagChainID, v[:4]))
	h.Weight.PutLE(v[:])
	leaves = append(leaves, blockLeaf(TagBlockWeight, v[:32]))
	binary.LittleEndian.PutUint64(v[:], h.Height)
	leaves = append(leaves, blockLeaf(TagBlockHeight, v[:8]))
	binary.LittleEndian.PutUint32(v[:], h.Version)
	leaves = append(leaves, blockLeaf(TagVersion, v[:4]))
	binary.LittleEndian.PutUint64(v[:], uint64(h.EpochStart))
	leaves = append(leaves, blockLeaf(TagEpochStart, v[:8]))
	binary.LittleEndian.PutUint64(v[:], h.Nonce)
	leaves = append(leaves, blockLeaf(TagNonce, v[:8]))
	for _, a := range h.Adjacents {
		leaves = append(leaves, a.Hash)
	}
	return leaves
}

// Seal sets h.Hash to the computed block hash.
func (h *Header) Seal() { h.Hash = h.ComputeHash() }
