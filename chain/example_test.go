package chain_test

import (
	"fmt"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/txexec"
)

// What Pact code sees of a block (chain-data) comes from its header and its parent's, as
// chainweb-node defines it: the chain, the height of the block being made, and the creation time
// and hash of the parent (block-time and prev-block-hash), not the block's own. Here the block
// is a child of mainnet01's chain 0 genesis, whose time and hash are upstream's.
func ExampleBlockContext() {
	v := ledger.Mainnet01
	genesis := map[ledger.ChainID]*ledger.Header{}
	for _, c := range v.Chains() {
		genesis[c], _ = ledger.UpstreamGenesisHeader(v, c)
	}
	parent := genesis[0]
	var adjacents []*ledger.Header
	for _, a := range parent.Adjacents {
		adjacents = append(adjacents, genesis[a.Chain])
	}
	child, err := pow.NewHeader(v, parent, adjacents, ledger.Hash{}, parent.CreationTime+30_000_000, 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}

	b := chain.BlockContext(v, child, parent, txexec.Miner{Account: "k:miner"})
	fmt.Println("chain", b.ChainID, "height", b.Height)
	fmt.Println("block-time", b.ParentTime)
	fmt.Println("prev-block-hash", b.ParentHash)
	// Output:
	// chain 0 height 1
	// block-time 1572393660000000
	// prev-block-hash SNAMXHBvZtAbeS19x12bZV2p5d1E4BaxrggceNdUxbw
}

// A transaction of a block being built may run for chainweb's bound and no longer: 2.5 µs a gas,
// five times, for the block's whole gas limit.
func ExampleTxTimeLimit() {
	fmt.Println(chain.TxTimeLimit(150_000))
	// Output: 1.875s
}
