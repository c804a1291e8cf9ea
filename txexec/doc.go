// Package txexec runs Pact commands as a chain runs them in blocks: genesis
// transactions, the coinbase that pays the miner, and user commands whose
// gas is bought from the sender before the code runs and settled after it
// (coin.buy-gas, coin.redeem-gas). It writes each command's CommandResult
// (pact/result) and knows nothing of blocks beyond the chain data Pact code
// can read and the gas left in the block: the node's executor (actors)
// hands it a db.DB view of the chain's state as of the parent block, and a
// Block.
//
// A command is charged as chainweb-node 2.32 charges it with Pact 5
// (applyCmd), on one gas meter of Pact 5's table model:
//
//  1. The size charge (InitialGas) must not exceed the gas limit, or the
//     command is invalid (upstream's "tx too big for gas limit").
//  2. coin.buy-gas takes gas limit × gas price from the sender, metered
//     with a limit of 1,500 gas (BuyGasLimit); what it uses stays on the
//     meter, so the sender pays for it. When buying fails the command is
//     invalid: nothing it did is kept and it must not go into a block
//     (BuyGasError).
//  3. The limit becomes the command's gas limit again, the size charge is
//     added as a constant, and the payload runs.
//  4. Gas used is the meter's total rounded up to whole gas; a failure in
//     3 charges the whole gas limit and rolls the payload back.
//  5. coin.redeem-gas, free of gas, pays gas used × gas price (rounded to
//     12 places) to the miner and returns the rest.
//
// The coinbase, genesis transactions and redeem-gas run free of gas.
//
// Besides gas, a command's result has a size limit (Config.MaxResultBytes):
// a payload whose result would pass it fails like any other failure. And a
// command's time may be bounded (ApplyTimed for a block being built,
// Config.LocalTimeLimit for local; TxTimeLimit is chainweb's figure): Pact 5
// prices some natives far below their cost, so gas alone does not bound
// CPU. A command past its bound is a *TimeoutError, not a result.
// A command's result holds the payload's value or error, its tx id and
// logs, and the events of the payload followed by the gas TRANSFER to the
// miner.
//
//	txexec.go   the Runner, its Config, the Block and Miner it is given, its errors
//	apply.go    a user command as applyCmd runs it: buy-gas, the payload, redeem-gas;
//	            CanPay, the mempool's gas payer check
//	canpay.go   surelyPays: CanPay without running buy-gas, for the coin it knows
//	encode.go   a result's encoding, in a scratch buffer kept from one command to the next
//	gas.go      the size charge (InitialGas) and gas arithmetic
//	local.go    /local: a command run and rolled back, with or without preflight
//	special.go  the coinbase and genesis transactions
package txexec
