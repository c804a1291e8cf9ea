package pow

import (
	"maps"
	"sync/atomic"

	"github.com/ledgernode/ledger-node/ledger"
)

// Every header is checked against its chain's genesis parent hash (a genesis header must have
// it, any other must not). Computing it costs five SHA-512/256 calls, about a fifth of the block
// hash itself, and the value depends only on the version code and the chain, so it is cached.
//
// The cache is a copy-on-write map behind an atomic pointer: lookups take no lock and allocate
// nothing; a miss copies the map, which happens once per (version, chain) for the life of the
// process. Only chains that exist in the version are cached, so headers with made-up chain ids
// cannot grow it; maxGenesisCache bounds it against callers cycling through made-up versions.

const maxGenesisCache = 4096

var genesisParents atomic.Pointer[map[uint64]ledger.Hash]

func genesisParentHash(v *ledger.Version, c ledger.ChainID) ledger.Hash {
	key := uint64(v.Code)<<32 | uint64(c)
	m := genesisParents.Load()
	if m != nil {
		if h, ok := (*m)[key]; ok {
			return h
		}
	}
	h := ledger.GenesisParentHash(v, c)
	if !v.HasChain(c) {
		return h
	}
	for {
		var next map[uint64]ledger.Hash
		if m == nil {
			next = make(map[uint64]ledger.Hash, 32)
		} else {
			if len(*m) >= maxGenesisCache {
				return h
			}
			next = maps.Clone(*m)
		}
		next[key] = h
		if genesisParents.CompareAndSwap(m, &next) {
			return h
		}
		m = genesisParents.Load() // another goroutine added an entry; merge into the newer map
	}
}
