// Package actors is the node's runtime: the actors that serialise writes, on protoactor-go's
// actor package (only that package: no remote, no cluster), the state they publish for reads
// (the best cut, each chain's executed head and Pact state), and the Runtime that wires them.
// The rules they apply live elsewhere: the header and cut rules in pow, block execution in
// chain, the admission rules in mempool. The parts that run over the runtime as its clients
// are packages of their own: the miner and the mining API's coordinator (actors/mining), peer
// sync (actors/peersync); they attach to it (parts.go). Header import, which validates as the
// chain actors do on a data directory no node runs on, is actors/headerimport.
//
//	chain.go      one chain actor per chain: the only writer of that chain's headers. It validates
//	              a header with every pow rule against its parent and adjacent parents read from
//	              the store, checks the payload, stores both in one batch and tells the cut actor.
//	              With execution, Insert has the executor validate the payload between the
//	              checks and the write (two messages), so that no actor waits for another.
//	cut.go        the cut actor: keeps the best cut (braided, heaviest), publishes it through an
//	              atomic pointer, hands the blocks that enter it to the updates hub and the heads
//	              to the heads writer.
//	genesis.go    the genesis blocks this node makes (development network, test-singleton): computed
//	              at start, written into a new data directory with its heads, checked against a
//	              used one (GenesisMismatchError).
//	heads.go      persists the best cut's heads off the cut actor's path, coalescing bursts.
//	recover.go    the cut a node resumes from: the stored heads, made braided, plus stored blocks
//	              a crash kept out of the heads record.
//	updates.go    the updates hub that fans blocks out to the header update streams.
//	mempool.go    a mempool actor per chain over mempool.Pool: checked inserts, pending
//	              transactions by gas price for blocks, eviction. Lookups read an index, not
//	              the actor.
//	executor.go   an executor actor per chain over the chain's versioned Pact state (chain/state
//	              in the store's key space), applying block execution's rules (package chain):
//	              builds payloads for the miner (and for each external miner, apart) from the
//	              pending transactions its build request carries, validates payloads it did not
//	              build by executing them, follows the cut's head (on a reorg: rewind, then apply
//	              the new branch, from kept writes where it can; branches.go), records each block
//	              and its request-key index in the state.
//	branches.go   the executor's kept blocks and branch heads: a block of a branch the Pact
//	              state does not hold is validated on a view of that branch, without moving
//	              the state, and a fork the cut switches to is applied from the kept writes.
//	reader.go     the executor's Reader, its reads on views of the state, never through the
//	              actor: results, local's view, the mempool's gas payer and tx index checks, SPV
//	              proofs (chain.OutputProof) against the executed heads and their check in the
//	              blocks a chain executes.
//	contract.go   ChainContract, a chain's contract endpoints over its mempool and Reader.
//	transfers.go, continuations.go the indexes of transfers by account and of continuations
//	              by pact id, read from views of the state at the executed head.
//	staterepair.go a chain's Pact state whose block was lost with a damaged header log is
//	              rewound to the highest surviving block it holds, or replayed from genesis.
//	slots.go      the evaluation slots that bound /local and private commands run at once.
//	writehealth.go the write-health state: after a failed store write the miner and peer sync
//	              pause, one ERROR is logged, a probe write is retried with back-off, and the
//	              first that succeeds resumes them (one INFO).
//	observe.go    what the metrics read: blocks stored and orphaned, failures by rule, build
//	              and apply times, each chain's transactions, gas and /send outcomes; atomics
//	              the actors keep on their paths, read without asking them.
//	parts.go      the parts attached to the runtime (Part: the miner, peer sync), told of each
//	              new cut (CatchUp, TxWatcher and MinerCounts are what some of them offer
//	              besides), and what they read of it.
//	runtime.go    Start and Stop: wiring the above. Stop first makes the executors refuse work
//	              and leave replays between blocks, then stops the attached parts, so that it
//	              returns promptly whatever runs.
//
// Data flows one way: a header (mined here or fetched from a peer) goes to its chain actor, then
// to the cut actor, then to the updates hub, the executors and the attached parts. Reads never
// go through an actor: the service API reads the store and the published cut directly.
package actors
