// Package private serves private commands on the node (DECISIONS.md, "private"): a command with
// private metadata {"address": {"from": ENTITY, "to": [ENTITY...]}} sent to a chain's /private is
// executed by the entities it names and by no one else, and only they can read its result. As in
// Pact's original design it runs on a private Pact state of its own, apart from the chain's
// public state (which every node must agree on): one pact/server Engine per chain, kept in
// <Dir>/<chain>, opened on the chain's first private command. The sending node seals the command
// with nacl/box for each recipient and posts the envelope to the recipients' nodes, at the same
// chain's /private; poll and listen on a chain answer private results too.
//
// Files:
//
//	chains.go    Chains: the entity key (<Dir>/entity.key, made on first use) and the per-chain
//	             engines, opened lazily and closed together
//	contract.go  Contract: a chain's contract API as the service serves it, the chain's own
//	             (actors.ChainContract) with private commands added and private results answered
//	             by poll and listen
//
// It sits beside the service, above the runtime: it imports ledger, actors (the chain's contract
// API and its evaluation slots), pact/api, pact/server (the engine it runs private commands on),
// transport (the contract API interface and the deliverer that posts envelopes to other nodes)
// and transport/contractapi. Neither actors nor transport may import pact/server, so this is the
// one place the node meets the pact -s engine; the command (cmd/ledger-node) only wires it.
package private
