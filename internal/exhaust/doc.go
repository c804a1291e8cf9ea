// Package exhaust holds what the resource-exhaustion tests share: Pact
// programs that would take a node or `pact -s` down if evaluation were
// bounded by gas alone (issue 14, "Hard bounds"), and a reader of a child
// process's resident memory.
//
// Each program is cheap to send (a few hundred bytes) and either costs
// little gas per unit of memory or time it takes, or makes a value whose
// JSON encoding is far larger than the work that built it. The tests run
// them against pact/server in process (fast, every configuration) and
// against the ledger-node and pact binaries (cmd/ledger-node's
// exhaust_test.go), where peak RSS and the latency of other requests can be
// measured.
package exhaust
