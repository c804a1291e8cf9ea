// Package chain is block execution: what running Pact inside the blocks of one chain means,
// as functions that return their writes and do no I/O of their own. The executor actor
// (actors/executor.go) serialises calls into it, reads the store and publishes; the store
// persists. The language (pact/) knows no blocks: chain gives it a block's context
// (txexec.Block) and a state (chain/state) to run in.
//
//	rules.go    the block rules: gas and output bounds, ErrInvalidPayload, what Pact code sees
//	            of a block (BlockContext, NextBlockContext)
//	genesis.go  a chain's development genesis payload, computed by executing it
//	build.go    a new payload on a parent: the coinbase, then pending transactions as
//	            chainweb fills a block (Build), and what that learnt of the pending ones;
//	            each transaction bounded in time (TxTimeLimit), one past it undone whole
//	execute.go  another block's payload executed and checked against its outputs (Execute)
//	records.go  the node's records in the state, versioned with each block: the block the state
//	            is at and the request-key index (TxLocation), as typed data
//	transfers.go the index of transfers by account (the TRANSFER events of any module, coin's
//	            TRANSFER_XCHAIN with its target chain), one of those records: rewound with
//	            forks, kept across restarts (AccountTransfers reads it)
//	continuations.go the index of continuations by pact id (a command's cont.pactId), the
//	            other end of a cross-chain transfer; kept like the transfers (PactContinuations)
//	reindex.go  both indexes rebuilt for a block already applied (ReindexBlock), block by block
//	            from genesis, for `ledger-node reindex-transfers`
//	route.go    how a state reaches a block: the fork point to rewind to and the blocks to
//	            replay (RouteTo)
//	spv.go      SPV output proofs: making one along the chain graph, checking one against a
//	            block's history
//
// Subpackage chain/state is the versioned Pact state over a key space the store provides;
// package txexec (top level, so that pact -s can run the development genesis without linking
// the node) is one command as a chain runs it (gas bought and redeemed, coinbase, genesis).
//
// It may import ledger, pow, chain/state, txexec and the language (internal/layout); it reaches
// stored headers through Headers and the database through state.KeySpace.
package chain
