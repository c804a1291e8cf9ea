// Package devtx builds signed commands for the development network's
// published test accounts (pact/contracts): what tests, benchmarks and the
// examples in the README send to a node.
package devtx
