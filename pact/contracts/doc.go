// Package contracts holds the project's own Pact contracts, embedded: the
// fungible-v2, fungible-xchain-v1 and gas-payer-v1 interfaces, the coin
// contract, the namespace policy module ns with the namespaces kadena, user,
// free and util, and the util.guards / util.guards1 guard utilities.
//
// Every contract is our own code, call-compatible with the Kadena contract
// of the same name (Kadena's coin v6, fungible-v2, fungible-xchain-v1 and gas-payer-v1): same module,
// interface, function and capability names, argument lists and types,
// results, managed and event capabilities, cross-chain yield, account rules
// and error texts.
//
// Genesis lists the transactions every chain's genesis block must run, in
// order; DevelopmentGenesis adds the development network's keysets,
// allocations and grants, with their data. Genesis transactions run as
// chainweb runs them (TransactionExec.runGenesisPayload): unsigned, free of
// gas, with the namespace policy that allows root definitions and calls no
// policy function, without the RequireKeysetNs flag, and with coin.GENESIS
// and coin.COINBASE granted to every transaction (they only matter once
// coin exists). After genesis the node runs ordinary transactions with the
// namespace policy "no root definitions, new namespaces need
// (ns.validate name admin-guard)".
package contracts
