// Package result writes CommandResult JSON (spec pact.md §2.3,
// chainweb-api.md §6.3) in P5's key order: gas, result, reqKey, logs,
// events (omitted when there are none), metaData, continuation, txId. The
// continuation carries "contractId" beside "pactId", with the same value
// (DECISIONS.md, "continuation id field"). `pact -s` (pact/server) and the
// node's transaction execution (txexec) write their results through it,
// so that both answer the same bytes for the same outcome.
package result
