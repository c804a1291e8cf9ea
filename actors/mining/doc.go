// Package mining makes blocks on the node's runtime (package actors): the built-in miner and
// the state behind the mining API for external miners. Both are clients of the runtime, as a
// peer is: they read the published cut, have each chain's executor build payloads, and hand
// what they find to the chain actors through Runtime.Insert. The rules they apply live in pow
// (targets, nonce search, the cut's weight) and chain (payloads).
//
//	node.go          Node, what they need of the runtime (*actors.Runtime satisfies it).
//	miner.go         the PoW miner: one search goroutine per core over the chains that can
//	                 advance; it waits while peer sync catches up a cut the node is behind, and
//	                 never mines a block that would not make the cut heavier. Start attaches it
//	                 to the runtime (actors.Part), which wakes it on each new cut, tells it of
//	                 /send's transactions and stops it.
//	minerclaims.go   keeps two workers off one parent, and bounds the blocks mined on one.
//	minerpriority.go the miner's workers step aside while other goroutines wait for a CPU.
//	ondemand.go      on-demand mining (make-blocks, sent transactions, start-up and idle
//	                 blocks), and its pacing without proof of work, which keeps the cut's
//	                 weight from wrapping.
//	coordinator.go   the mining API's state for external miners: work primed per miner and
//	                 chain (each miner's coinbase, built by the executors), the work handed out
//	                 by payload hash, solutions checked and inserted, update-stream slots and
//	                 events.
package mining
