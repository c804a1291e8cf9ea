package txexec

import "github.com/ledgernode/ledger-node/pact/gas"

// DefaultGasModel is the gas model of the node's chains: Pact 5's table
// model, as chainweb-node 2.32 charges.
var DefaultGasModel = gas.Table
