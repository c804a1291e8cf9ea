package chain

import (
	"errors"
	"strconv"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/txexec"
)

// MaxBlockGasLimit bounds the gas of every block, whoever made it: a block whose commands
// would spend more is invalid. It is chainweb's consensus bound of mainnet and testnet since
// Chainweb 2.16 (_versionMaxBlockGasLimit), applied to our development network too (upstream's
// development network has none), so that no block from a peer can make this node execute more
// than 180,000 gas. The blocks this node builds spend at most its configured block gas limit
// (150,000 by default), as chainweb's gasLimitOfBlock.
const MaxBlockGasLimit = 180_000

// DefaultMaxBlockOutputBytes caps a block's outputs at 32 MiB: 32 results of the largest size a
// command may produce (txexec.DefaultMaxResultBytes), while a full block of transfers (some
// 600 transactions at 150,000 gas) takes under 1 MiB. Peers fetch payloads in batches and the
// store keeps every block, so a block must not carry without bound what a few cheap commands
// could make. It is a validity rule: every node of a network must use the same value.
const DefaultMaxBlockOutputBytes = 32 << 20

// ResultOverhead is what a command's result may add, once its gas is settled, to the size
// txexec caps (the gas TRANSFER event): a block being built keeps this much room beyond the
// cap for its next transaction.
const ResultOverhead = 16 << 10

// ErrInvalidPayload is wrapped by the errors of a payload that does not execute to its
// outputs.
var ErrInvalidPayload = errors.New("invalid payload")

// IsGenesis reports whether h is its chain's genesis block in network v.
func IsGenesis(v *ledger.Version, h *ledger.Header) bool {
	g, ok := v.GenesisHeight(h.ChainID)
	return ok && h.Height == g
}

// ChainIDText is a chain id as Pact code sees it (chain-data's chain-id).
func ChainIDText(c ledger.ChainID) string { return strconv.FormatUint(uint64(c), 10) }

// BlockContext is what Pact code sees of block h, child of parent (nil for genesis), mined by
// miner; its SPV check is the caller's to add.
func BlockContext(v *ledger.Version, h, parent *ledger.Header, miner txexec.Miner) *txexec.Block {
	b := &txexec.Block{ChainID: ChainIDText(h.ChainID), Height: h.Height, Miner: miner}
	if parent != nil && !IsGenesis(v, h) {
		b.ParentTime, b.ParentHash = parent.CreationTime, api.Hash(parent.Hash)
	}
	return b
}

// NextBlockContext is the context of the block that would follow parent, at height+1, mined by
// miner: where local and the gas payer check run.
func NextBlockContext(parent *ledger.Header, miner txexec.Miner) *txexec.Block {
	return &txexec.Block{ChainID: ChainIDText(parent.ChainID), Height: parent.Height + 1,
		ParentTime: parent.CreationTime, ParentHash: api.Hash(parent.Hash), Miner: miner}
}
