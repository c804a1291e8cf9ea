package mempool

import (
	"time"

	"github.com/ledgernode/ledger-node/pact/value"
)

// Defaults of Config (chainweb-api.md §6.2; upstream's command-line defaults).
const (
	// DefaultBlockGasLimit is upstream's --block-gas-limit default.
	DefaultBlockGasLimit = 150000
	// DefaultMaxSignatures is the most signatures a command may carry.
	DefaultMaxSignatures = 100
	// DefaultMaxTTL is the longest time-to-live, in seconds (two days).
	DefaultMaxTTL = 172800
	// DefaultMaxGasPricePlaces is the most decimal places of a gas price (the coin
	// contract's precision).
	DefaultMaxGasPricePlaces = 12
	// DefaultFutureSlack is how far ahead of the wall clock a creation time may be when a
	// transaction is inserted (step 4: creationTime >= now+10 s is rejected).
	DefaultFutureSlack = 10 * time.Second
	// DefaultParentSlack is how far ahead of the parent block's creation time a creation time
	// may be in the Pact-side check (step 8): 95 s, the 99th percentile of block arrivals.
	DefaultParentSlack = 95 * time.Second
	// DefaultMaxPending bounds the pending set (upstream's maxNumPending).
	DefaultMaxPending = 10000
	// DefaultMaxIncluded bounds the recently included set. Upstream allows 2^20 entries; at
	// this node's throughput (well under 50 transactions per second per chain) 2^17 covers
	// the two-day maximum TTL several times over. When it is full the entry that expires
	// first goes; a transaction forgotten that way is still caught by the request-key index
	// (TxIndex) in step 8.
	DefaultMaxIncluded = 1 << 17
	// DefaultMaxBadlisted bounds the bad-list; when full the entry that expires first goes.
	DefaultMaxBadlisted = 1 << 16
)

// DefaultMinGasPrice is upstream's --min-gas-price default, 1e-8 (shown 0.00000001).
var DefaultMinGasPrice = value.NewDecimal(value.NewInt(1), 8)

// Config holds the mempool's limits. The zero Config is not the default: start from
// DefaultConfig. Zero numeric limits are read as their defaults; MinGasPrice is taken as it
// is (zero admits any non-negative price).
type Config struct {
	// BlockGasLimit is the block gas limit: no transaction may ask for more, and a block is
	// filled up to it.
	BlockGasLimit uint64
	// MinGasPrice is the lowest gas price accepted.
	MinGasPrice value.Decimal
	// MaxGasPricePlaces is the most decimal places a gas price may be written with.
	MaxGasPricePlaces uint8
	// MaxSignatures is the most signatures a command may carry.
	MaxSignatures int
	// MaxTTL is the longest time-to-live in seconds.
	MaxTTL int64
	// FutureSlack and ParentSlack: see DefaultFutureSlack and DefaultParentSlack. Both are
	// whole seconds in upstream; finer values work.
	FutureSlack time.Duration
	ParentSlack time.Duration
	// MaxPending, MaxIncluded and MaxBadlisted bound the Pool's sets.
	MaxPending   int
	MaxIncluded  int
	MaxBadlisted int
}

// DefaultConfig returns upstream's defaults.
func DefaultConfig() Config {
	return Config{
		BlockGasLimit:     DefaultBlockGasLimit,
		MinGasPrice:       DefaultMinGasPrice,
		MaxGasPricePlaces: DefaultMaxGasPricePlaces,
		MaxSignatures:     DefaultMaxSignatures,
		MaxTTL:            DefaultMaxTTL,
		FutureSlack:       DefaultFutureSlack,
		ParentSlack:       DefaultParentSlack,
		MaxPending:        DefaultMaxPending,
		MaxIncluded:       DefaultMaxIncluded,
		MaxBadlisted:      DefaultMaxBadlisted,
	}
}

// withDefaults replaces zero limits by their defaults.
func (c Config) withDefaults() Config {
	if c.BlockGasLimit == 0 {
		c.BlockGasLimit = DefaultBlockGasLimit
	}
	if c.MaxGasPricePlaces == 0 {
		c.MaxGasPricePlaces = DefaultMaxGasPricePlaces
	}
	if c.MaxSignatures <= 0 {
		c.MaxSignatures = DefaultMaxSignatures
	}
	if c.MaxTTL <= 0 {
		c.MaxTTL = DefaultMaxTTL
	}
	if c.FutureSlack <= 0 {
		c.FutureSlack = DefaultFutureSlack
	}
	if c.ParentSlack <= 0 {
		c.ParentSlack = DefaultParentSlack
	}
	if c.MaxPending <= 0 {
		c.MaxPending = DefaultMaxPending
	}
	if c.MaxIncluded <= 0 {
		c.MaxIncluded = DefaultMaxIncluded
	}
	if c.MaxBadlisted <= 0 {
		c.MaxBadlisted = DefaultMaxBadlisted
	}
	return c
}
