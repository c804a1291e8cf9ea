package records

// Record types stored as MessagePack (msgp). Raw block headers are not here: they keep their
// 318-byte wire form so the serving path can copy them out without re-encoding.
//
// Structs are map-encoded with short field names, so a later schema can add a field without a
// migration: old readers skip unknown fields and new readers see zero values in old records.
// Byte-string fields are decoded zero-copy: goleveldb's Get already hands us a private copy of
// the value, so aliasing it saves one allocation per transaction.
//
//go:generate go tool msgp

// Schema is stored under metaKey(metaSchema). Open refuses a store whose version it does
// not know, so a future layout change cannot be misread silently.
type Schema struct {
	Version uint32 `msg:"v"`
}

// Network is stored under metaKey(metaNetwork): the chainweb version name the store was
// first opened for (mainnet01, testnet04, development...).
type Network struct {
	Name string `msg:"n"`
}

// Heads is stored under metaKey(metaHeads): the heads of the best cut, one per chain,
// ascending by chain so that equal maps encode to equal bytes.
type Heads struct {
	Heads []HeadEntry `msg:"h"`
}

// HeadEntry is one chain's head. A tuple: it will never grow fields, and 20 of them are
// written on every cut change.
//
//msgp:tuple HeadEntry
type HeadEntry struct {
	Chain uint32
	Hash  [32]byte
}

// Payload is the payload without outputs, keyed by payload hash. The payload hash is the
// key, so it is not repeated; a reader re-derives it from the two hashes below as an integrity
// check.
type Payload struct {
	Transactions     [][]byte `msg:"tx,zerocopy"`
	MinerData        []byte   `msg:"md,zerocopy"`
	TransactionsHash [32]byte `msg:"th"`
	OutputsHash      [32]byte `msg:"oh"`
}

// Outputs holds the outputs of a payload, keyed by the same payload hash. Separate from
// Payload because most reads (payload by hash, block validation) never need outputs.
type Outputs struct {
	Outputs  [][]byte `msg:"out,zerocopy"`
	Coinbase []byte   `msg:"cb,zerocopy"`
}
