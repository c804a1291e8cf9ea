// Package ledger is the data model every other package speaks: networks, chain graphs, block
// headers and their encodings, block hashes, payloads and their hashes, cuts and SPV proof
// objects, byte-compatible with chainweb-node 2.32. It is pure: no I/O, no clock, and it imports
// no other package of this module.
//
//	version.go       networks (Version): code, graphs by height, genesis, fork heights
//	graph.go         chain graphs: which chains exist and which are adjacent
//	header.go        the header and its 318-byte binary form (210 + 36 × degree bytes)
//	header_json.go   the header's base64url and object JSON encodings
//	hash.go          32-byte hashes and their base64url form
//	merkle.go        chainweb's merkle universe: tagged leaves, the block hash as a merkle root
//	genesis.go       genesis parent hashes and genesis headers
//	payload.go       payloads with and without outputs, their three hashes, their JSON
//	empty_payload.go payloads of blocks without transactions or without a miner
//	miner_payload.go miner data and the payload of a mined block without transactions
//	cut.go           cuts: one block per chain, with height, weight and their JSON
//	proof.go         merkle-log inclusion proofs and chainweb's SPV output proofs
//	u256.go          256-bit unsigned integers: targets, weights, PoW hashes
package ledger
