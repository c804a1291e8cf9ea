package main

import (
	"math"
	"math/big"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
)

// The development network's difficulty.
//
// Our development network mines with real proof of work (DECISIONS.md), so its genesis target
// decides how long the first blocks take, until the difficulty adjustment (DA) takes over: the
// first epochs are 12 blocks long (pow.EffectiveWindow), after which every chain's target
// follows its measured block rate towards the block delay. A genesis target far off the mark
// means minutes of blocks at the wrong rate (or a first block that takes hours), so it is
// derived from what a reference machine can do:
//
//	hash rate    devHashRatePerCore × devCores. One core runs the midstate nonce search
//	             (pow.Work) at 8.9–9.6 M hashes/s on the 2-vCPU AMD EPYC dev VM (go test -bench
//	             WorkSearch -cpu 1 ./pow; bench/RESULTS.md "Miner hash rate"); we take 8 M to leave
//	             room for the rest of the node (validation, storage, HTTP) on the same cores.
//	block rate   20 chains each making one block per block delay d: 20/d blocks/s.
//	per block    expected hashes H = hash rate × d / 20 (8e6 × 2 × 30 / 20 = 24 M at 30 s;
//	             1.6 M at 2 s). A hash meets target T with probability (T+1)/2^256, so
//	             T = (2^256 − 1) / H gives H hashes per block on average.
//
// The miner spreads its workers over the chains that can advance, so the braid does not cost
// hash power: when a chain waits for its neighbours, its share goes to them. On a faster or
// slower machine the DA corrects the rate within the first epochs.
//
// The genesis target goes into every genesis header, so a data directory created with one block
// delay has different genesis hashes than another; the node refuses to mix them (node.go).
const (
	devHashRatePerCore = 8e6
	devCores           = 2

	defaultBlockDelay = 30 * time.Second
	// The bounds keep the DA in range: below a few milliseconds creation times (µs) and the
	// node's own overhead dominate; above an hour a development network is not much use.
	minBlockDelay = 5 * time.Millisecond
	maxBlockDelay = time.Hour
)

// devGenesisTarget is the genesis target for block delay d: (2^256 − 1) / expected hashes per
// block, at least 1 hash per block.
func devGenesisTarget(d time.Duration) ledger.U256 {
	chains := float64(len(ledger.Development.Chains()))
	perBlock := math.Max(1, devHashRatePerCore*devCores*d.Seconds()/chains)
	q := new(big.Int).Div(ledger.MaxU256.Big(), big.NewInt(int64(math.Round(perBlock))))
	t, _ := ledger.U256FromBig(q)
	return t
}

// devBlockDelayOf inverts devGenesisTarget (to the millisecond), to tell a user which delay a
// data directory was created with.
func devBlockDelayOf(target ledger.U256) time.Duration {
	if target.IsZero() {
		return 0
	}
	perBlock, _ := new(big.Float).Quo(new(big.Float).SetInt(ledger.MaxU256.Big()), new(big.Float).SetInt(target.Big())).Float64()
	chains := float64(len(ledger.Development.Chains()))
	secs := perBlock * chains / (devHashRatePerCore * devCores)
	return time.Duration(secs * float64(time.Second)).Round(time.Millisecond)
}

// nodeVersion is the version the node runs for cfg: the registered network, except that the
// development network gets the configured block delay and the genesis target derived from it
// (or, in tests, an explicit one).
func nodeVersion(cfg Config, genesisTarget *ledger.U256) *ledger.Version {
	v, _ := ledger.VersionByName(cfg.Network)
	if v != ledger.Development {
		return v
	}
	d := cfg.Mining.BlockDelay
	if d == 0 {
		d = defaultBlockDelay
	}
	t := devGenesisTarget(d)
	if genesisTarget != nil {
		t = *genesisTarget
	}
	return v.WithBlockDelay(d.Microseconds()).WithGenesisTarget(t)
}

// minerData is the miner data of the blocks this node mines: the configured account (k:<key>
// when only a key is given) and key, or upstream's NoMiner when neither is set.
func (m *MiningConfig) minerData() []byte {
	switch {
	case m.Account == "" && m.PublicKey == "":
		return ledger.NoMinerData
	case m.PublicKey == "":
		return ledger.MinerData(m.Account)
	case m.Account == "":
		return ledger.MinerData("k:"+m.PublicKey, m.PublicKey)
	}
	return ledger.MinerData(m.Account, m.PublicKey)
}
