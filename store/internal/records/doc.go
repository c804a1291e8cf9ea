// Package records holds the store's records that are stored as MessagePack (msgp): the schema,
// network and heads records, payloads and their outputs, with their generated codec
// (records_gen.go, `go generate`). It is internal to the store: a record's layout is a storage
// detail, not API.
package records
