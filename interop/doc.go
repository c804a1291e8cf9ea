// Package interop checks our servers against Kadena's JavaScript client
// libraries, pinned in package.json and package-lock.json.
//
// Against `pact -s` (client.js, interop_test.go): @kadena/client builds and
// signs commands (Pact.builder, createSignWithKeypair) and sends them to our
// server, which must accept them and compute the same request keys;
// @kadena/cryptography-utils (hash, verifySig) must accept a command signed
// by `pact -a`; runPact's command, which has no meta, gets the node's 400,
// word for word. The server runs in process on a free port.
//
// Against a ledger-node development node (node_scenario.js, node_test.go):
// the test builds cmd/ledger-node, runs it as a child process mining every
// 20 ms for the devnet miner key, and drives the end-to-end transfer through
// the client's chain-routed endpoints: balances read with a local,
// a capability-scoped coin.transfer preflighted, submitted, listened for and
// polled, the events and balances after it (gas paid to the miner), the
// rejection of a signature by the wrong key, and a transfer-create on
// another chain. @kadena/client-utils's getBlocksGasInformation and
// estimateGasPrice read the transfer's gas price out of the blocks, the
// latest ones through block?maxheight=<tip + 1>, which the node stops at the
// tip as upstream does. runPact("(+ 1 2)") sends a command without meta to
// local, which upstream (chainweb-node 2.32, Pact 5) rejects, meta being a
// required field of the payload; the node gives the 400 "Validation failed:
// meta: missing". Then, on the same node, xchain_scenario.js drives a
// cross-chain transfer (SPV) from chain 0 to chain 7, two hops apart: step 0
// of coin.transfer-crosschain, the proof through pollCreateSpv, step 1 paid
// by sender02, exact balances on both chains, a replayed step 1 refused as
// "Requested defpact already completed", and a second transfer whose step 1
// goes unsigned through the kadena-xchain-gas gas station. Both scripts share
// scenario_lib.js (keys, report, exact decimals). The node must then stop
// cleanly on SIGTERM.
//
// The tests run `node` with a script from this directory. `make test`
// installs the npm packages first (`npm ci` in this directory, the
// interop-deps target); the tests also run it when node_modules is missing.
// Without node the tests skip; without go, so does the node test.
package interop
