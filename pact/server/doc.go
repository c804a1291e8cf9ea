// Package server is the engine behind `pact -s` (spec pact.md §2): it
// executes Pact commands and keeps their results by request key. It has no
// HTTP; transport's contract handlers serve it (the node serves its own
// executor through the same handlers), and it implements the contract API
// in transport/contractapi's vocabulary.
//
//   - send: every command is decoded and verified (hash, signature count,
//     signatures: a failure is a 400 with the reason, interface.md, in the
//     node's words, pact/api's shared texts: "reading JSON for transaction
//     failed: ..." and "One or more transactions were invalid: ..."; see
//     checkSend), then executed in
//     order in Transactional mode, synchronously, on a fresh interpreter
//     over the shared Pact state; each CommandResult is stored. A request
//     key already stored is P5's 400 "Request key: RK has already been
//     submitted. ...". An authentic command whose code does not parse is
//     not rejected: it gets a SyntaxError result, as P5 would give it.
//   - poll: the results that exist; unknown keys are omitted.
//   - listen: waits for one result, until the caller's context ends (the
//     handler's timeout, 180 s by default, answered with 504).
//   - local: validated by contractapi.ValidateLocal, as the node validates, so that
//     both reject a bad command in the same words (chainweb's "Validation
//     failed: ..." and "Metadata validation failed: [...]"; a command
//     without meta is one, as upstream); then executes in Local mode,
//     rolls back, stores nothing.
//   - private: commands with private metadata, sealed per recipient entity
//     with nacl/box (private.go).
//   - verify: parse, resolve and typecheck modules (verify.go, package
//     typecheck).
//   - The state starts empty, as P5's server's does, or with the
//     project's development contracts (chain 0's development genesis: coin,
//     its interfaces, the namespaces, the development accounts;
//     devcontracts.go), which Config.DevContracts runs: cmd/pact gives it
//     block execution's genesis, since the engine knows no blocks. Without
//     them, an error naming one of their modules says which setting loads
//     them.
//
// Results are CommandResult JSON in P5's key order (package pact/result,
// shared with the node's block execution). Gas is free unless
// Config.GasRate is positive (DECISIONS.md). Evaluation is
// bounded beyond gas (bounds.go): a command's work, priced by the table
// gas model, is limited by Config.EvalBudget, under a gas rate too (which
// prices every operation the same, so its limit alone bounds nothing);
// list building natives by Config.MaxElements; the JSON of a result by
// Config.MaxResultSize. Commands, /send batches included, take turns on
// one lock, so memory is bounded by one evaluation's and a long batch does
// not hold other requests for all of its length. With a persistDir the
// Pact state lives in pact/persist and the history in goleveldb, both
// under that directory, and survive restarts.
package server
