package store

import (
	"encoding/binary"

	"github.com/ledgernode/ledger-node/ledger"
)

// Key layout. Every key starts with a one-byte tag naming its key space, so a later feature adds
// a space with a new tag and never has to reinterpret existing keys; the schema record (metaSchema)
// changes only when an existing space changes shape.
//
//	0x00 name                                  meta records: schema, network, heads (msgp);
//	                                           logend (u64 BE, see below); repair (text, a
//	                                           read met damage: integrity.go)
//	0x01 (retired)                             schema 1 kept raw headers here; they now live in
//	                                           headers.log (hlog.go). Never reuse the tag.
//	0x02 chain u32 BE | height u64 BE | hash   height index; value: u64 BE offset of the
//	                                           header's record in headers.log
//	0x03 payloadHash[32]                       records.Payload (msgp)
//	0x04 payloadHash[32]                       records.Outputs (msgp)
//	0x05 chain u32 BE | ...                    the key space of a chain's versioned Pact state
//	                                           (chain/state's layout under this prefix), which
//	                                           also holds the node's records of each block, its
//	                                           request-key index included (pact.go)
//
// Tags 0x06.. are free. Take the next free tag and list it here. Backups need none: their
// bookkeeping is files in the backup directory (backup.go).
//
// The height index is big-endian so that goleveldb's bytewise order is (chain, height, raw hash
// bytes): exactly the order chainweb's GET /hash, /header and /block endpoints page in
// (chainweb-api.md §2.5), orphans included, and one chain's keys are contiguous. Its value points
// straight at the record, so a scan reads headers without probing the hash index.
//
// The logend record is the header-log length covered by the height index: every record below it
// has its height-index entry. It is written in the same batch as the entries it covers, so after
// any crash Open can re-index the records past it (hlog.go, reconcileHeightIndex). It is a bare
// 8-byte value rather than msgp because it is rewritten on every header write.
const (
	tagMeta    byte = 0x00
	tagHeight  byte = 0x02
	tagPayload byte = 0x03
	tagOutputs byte = 0x04
	tagPact    byte = 0x05
)

// Names of the meta records, appended to tagMeta.
const (
	metaSchema  = "schema"
	metaNetwork = "network"
	metaHeads   = "heads"
	metaLogEnd  = "logend"
	// metaRepair is present when a read met damaged data: the next Open rebuilds the header
	// and height indexes (integrity.go). Its value is the first error, as text.
	metaRepair = "repair"
	// metaLost is present when a repair found data lost that it could not bring back (MarkLost):
	// the node refuses to start. Its value is what was lost, as text.
	metaLost = "lost"
)

var (
	repairKey = metaKey(metaRepair)
	lostKey   = metaKey(metaLost)
)

// logEndKey is built once: PutHeaders writes it every time.
var logEndKey = metaKey(metaLogEnd)

const (
	hashKeyLen     = 1 + ledger.HashSize
	chainPrefixLen = 1 + 4
	heightKeyLen   = chainPrefixLen + 8 + ledger.HashSize
)

func metaKey(name string) []byte { return append([]byte{tagMeta}, name...) }

// hashKey is the key of a record addressed by a hash in key space tag. It is an array so that
// building it does not allocate.
func hashKey(tag byte, h ledger.Hash) (k [hashKeyLen]byte) {
	k[0] = tag
	copy(k[1:], h[:])
	return k
}

// chainPrefix is the common prefix of chain c's height-index keys.
func chainPrefix(c ledger.ChainID) (k [chainPrefixLen]byte) {
	k[0] = tagHeight
	binary.BigEndian.PutUint32(k[1:], uint32(c))
	return k
}

// chainLimit is the first key after every height-index key of chain c.
func chainLimit(c ledger.ChainID) []byte {
	if c == ^ledger.ChainID(0) {
		return []byte{tagHeight + 1}
	}
	k := chainPrefix(c + 1)
	return k[:]
}

func heightKey(c ledger.ChainID, height uint64, h ledger.Hash) (k [heightKeyLen]byte) {
	p := chainPrefix(c)
	copy(k[:], p[:])
	binary.BigEndian.PutUint64(k[chainPrefixLen:], height)
	copy(k[chainPrefixLen+8:], h[:])
	return k
}

// parseLogOffset reads a height-index value.
func parseLogOffset(v []byte) (uint64, bool) {
	if len(v) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(v), true
}

// parseHeightKey splits a height-index key; ok is false for anything that is not one.
func parseHeightKey(k []byte) (c ledger.ChainID, height uint64, h ledger.Hash, ok bool) {
	if len(k) != heightKeyLen || k[0] != tagHeight {
		return 0, 0, h, false
	}
	c = ledger.ChainID(binary.BigEndian.Uint32(k[1:]))
	height = binary.BigEndian.Uint64(k[chainPrefixLen:])
	copy(h[:], k[chainPrefixLen+8:])
	return c, height, h, true
}
