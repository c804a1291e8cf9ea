package ledger

import "encoding/binary"

// genesisMagic is the first leaf of every genesis parent hash.
var genesisMagic = []byte("CHAINWEB_GENESIS")

// GenesisParentHash is the parent hash of chain c's genesis block: the merkle root of three
// untagged input leaves, "CHAINWEB_GENESIS", the version code and the chain id (both u32 LE).
func GenesisParentHash(v *Version, c ChainID) Hash {
	var code, cid [4]byte
	binary.LittleEndian.PutUint32(code[:], v.Code)
	binary.LittleEndian.PutUint32(cid[:], uint32(c))
	return MerkleRoot([]Hash{LeafHash(genesisMagic), LeafHash(code[:]), LeafHash(cid[:])})
}

// IsGenesisParent reports whether h is the genesis parent hash of chain c.
func IsGenesisParent(v *Version, c ChainID, h Hash) bool { return GenesisParentHash(v, c) == h }

// GenesisHeader builds chain c's genesis header around the given payload hash. Its adjacents are
// the neighbours' genesis *parent* hashes, not their genesis block hashes; it carries no PoW.
func GenesisHeader(v *Version, c ChainID, payloadHash Hash) *Header {
	height, ok := v.GenesisHeight(c)
	if !ok {
		return nil
	}
	g := v.GraphAt(height)
	h := &Header{
		CreationTime: v.GenesisTime,
		Parent:       GenesisParentHash(v, c),
		Target:       v.GenesisTarget(c),
		PayloadHash:  payloadHash,
		ChainID:      c,
		Height:       height,
		Version:      v.Code,
		EpochStart:   v.GenesisTime,
	}
	for _, n := range g.Neighbors(c) {
		h.Adjacents = append(h.Adjacents, Adjacent{Chain: n, Hash: GenesisParentHash(v, n)})
	}
	h.Seal()
	return h
}

// UpstreamGenesisHeader builds chain c's genesis header with the upstream genesis payload hash
// recorded for the version; ok is false when none is recorded or the chain does not exist.
func UpstreamGenesisHeader(v *Version, c ChainID) (*Header, bool) {
	ph, ok := v.UpstreamGenesisPayloadHash(c)
	if !ok || !v.HasChain(c) {
		return nil, false
	}
	return GenesisHeader(v, c, ph), true
}
