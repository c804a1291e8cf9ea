// Package nodenet runs a network of ledger-node processes on loopback and measures it as one
// network: whether the nodes agree, whose blocks their cuts hold, how fast blocks spread, how
// deep the reorgs go, how often blocks are executed again, and how long each takes to stop.
// The convergence test (converge_test.go) and the soak harness (bench/converge) use it.
//
//	net.go     Net and Node: data directories, ports, peers, start, SIGTERM, restart; each
//	           node's log in <dir>/<name>.log
//	record.go  the recorder: every node's block update stream (block/updates), each block's
//	           header fields, its miner (from the payload's miner data) and when each node's
//	           cut took it in
//	report.go  Report: the nodes' cuts read back through the service API, the block each
//	           node holds some heights below the lowest tip, each miner's share of each cut,
//	           the orphan rate, propagation latency, and the nodes' execution and reorg
//	           counters (the Prometheus metrics), summed over restarts
//
// Every node mines with an account of its own (--miner-account miner-<name>), so that a block's
// miner is known from its payload.
package nodenet
