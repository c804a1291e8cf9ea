package p5

import "github.com/ledgernode/ledger-node/pact/value"

// The sizes P5's SizeOf (SizeOfV0) estimates the pieces of a CBOR
// encoding at: what the size of a value, and of a module's IR, is made of.
const (
	SizeTag    = 1 // a small CBOR tag: one-constructor records, Word8, Bool
	SizeADT    = 2 // a constructor of a type with several
	SizeArray  = 5 // the overhead of a list, vector, set or map
	SizeText   = 4 // added to a text's UTF-8 length
	SizeInt    = 5 // a machine Int
	SizeWord64 = 9 // an Int64 or Word64
	SizeTime   = 8
	szHash     = 32 + SizeText // a BLAKE2b-256 hash (ModuleHash, Hash)
)

// IntSize is an Integer's size: its bit length rounded to bytes, at least
// 8 (the estimate of a machine word).
func IntSize(i value.Integer) uint64 { return uint64(max(64, i.BitLen()) / 8) }
