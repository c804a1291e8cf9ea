// Package pow holds the consensus rules of a block header that go beyond its encoding: the
// proof-of-work hash, difficulty and weight, difficulty adjustment, the fork-state (feature flag)
// rules and the validation rules of a header against its parent and adjacent parents; and the
// cut rules (cutrules.go): which sets of heads are braided, how a cut is extended, which chains
// can be mined, how a header joins a heavier cut, and which blocks enter a cut; and the
// development network's genesis target for a block delay, and back (devnet.go). The actors
// package applies them (its cut actor, miner and start-up); pow/powtest builds braids of mined
// headers in memory for the tests of both.
//
// Everything here is pure: functions read headers and a version and return values or errors.
// There is no I/O, no clock and no mutable state that changes a result (the only shared state is a
// cache of genesis parent hashes, which are fixed values). The caller supplies the clock ("now"),
// the parent and the adjacent parents it looked up.
//
// The rules follow shared/spec/chainweb-header.md §2.3 and §4, which transcribe chainweb-node
// 2.32.0 (src/Chainweb/BlockHeader/Internal.hs, Validation.hs, Difficulty.hs, ForkState.hs).
// Validation failures are *ValidationError values whose Rule carries the upstream failure name.
package pow
