// Package mempool is the pure logic of a chain's mempool (DESIGN.md, "A transaction"): the
// insert checks of /send with upstream's texts and order (chainweb-api.md §6.2), the preflight
// metadata checks of /local (§6.5), and Pool, the pending set a block is filled from. No
// actors, no I/O, no clock: the time comes in as a value and the Pact state the last checks
// need (the gas payer, the request-key index) comes in through interfaces, so every rule can
// be tested without a node. actors/mempool.go runs one Pool per chain behind an actor.
//
//	config.go     Config and its defaults (block gas limit, minimum gas price, TTL, slack).
//	tx.go         Tx, a command with its payload decoded, and Decode.
//	check.go      the insert checks in upstream's order: Precheck (everything that reads no
//	              pool state, safe on any goroutine), Pool.Admit (the two pool checks, merged
//	              into the order), Check (both), and the /send aggregate text.
//	preflight.go  Preflight: /local?preflight=true's metadata checks.
//	pool.go       Pool: pending transactions ordered by gas price, the block fill, the
//	              recently included set and the bad-list, eviction by expiry.
//	expiry.go     the bounded sets keyed by request key that expire (included, bad-list).
//
// The order of §6.2, and which step each check is:
//
//	1 gas limit above the block gas limit      5 included in a recent block   (pool)
//	2 gas price with more than 12 places       6 on the bad-list              (pool)
//	3 gas price below the minimum              7 chain id, signature count, network id
//	4 creation time and TTL vs the wall clock  8 Pact-side: code parses, not on chain, hash,
//	                                             chain, signatures, times vs the parent
//	                                             block, gas payer
//
// A transaction is reported with the first step it fails, so splitting the work between a
// caller's goroutine (1–4, 7, 8) and the pool's owner (5, 6) gives the same answer as running
// them in one place.
package mempool
