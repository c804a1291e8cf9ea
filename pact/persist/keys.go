package persist

import (
	"encoding/binary"

	"github.com/ledgernode/ledger-node/pact/db"
)

// Key layout. Every key starts with a one-byte tag naming its key space:
//
//	0x00 name                          meta records: "schema" (uvarint layout version),
//	                                   "txid" (u64 BE, the next transaction id)
//	0x01 table                         a user table exists; empty value
//	0x02 uvarint len(table) table key  a user table's row; value: an entry (codec.go)
//	0x03 domain key                    a system domain's row (keysets, modules,
//	                                   namespaces, defpacts); value: an entry
//	0x04 uvarint len(name) name hash   every installed module version by full name and
//	                                   hash; value: the module's entry
//
// The table name is length-prefixed so that one table's rows are exactly the
// keys under its prefix, whatever bytes table names hold, and goleveldb's
// bytewise order within a prefix is the keys' byte order, which is what Keys
// returns.
const (
	tagMeta    byte = 0x00
	tagTable   byte = 0x01
	tagUser    byte = 0x02
	tagSys     byte = 0x03
	tagVersion byte = 0x04
)

const (
	metaSchema = "schema"
	metaTxID   = "txid"
)

// schemaVersion is the layout this build reads and writes.
const schemaVersion = 1

func metaKey(name string) []byte { return append([]byte{tagMeta}, name...) }

func tableKey(table string) []byte { return append([]byte{tagTable}, table...) }

// userPrefix is the prefix of a user table's rows.
func userPrefix(table string) string {
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(table))
	b = append(b, tagUser)
	b = binary.AppendUvarint(b, uint64(len(table)))
	return string(append(b, table...))
}

// sysPrefix is the prefix of a system domain's rows.
func sysPrefix(d db.Domain) string { return string([]byte{tagSys, byte(d)}) }

// rowKey is prefix followed by key.
func rowKey(prefix, key string) []byte {
	b := make([]byte, 0, len(prefix)+len(key))
	return append(append(b, prefix...), key...)
}

// versionKey names one version of a module.
func versionKey(name, hash string) []byte {
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(name)+len(hash))
	b = append(b, tagVersion)
	b = binary.AppendUvarint(b, uint64(len(name)))
	return append(append(b, name...), hash...)
}
