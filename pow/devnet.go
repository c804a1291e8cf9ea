package pow

import (
	"math"
	"math/big"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
)

// The development network's genesis difficulty.
//
// Our development network mines with real proof of work (DECISIONS.md), so its genesis target
// decides how long the first blocks take, until the difficulty adjustment (DA) takes over: the
// first epochs are 12 blocks long (EffectiveWindow), after which every chain's target follows its
// measured block rate towards the block delay. A genesis target far off the mark means minutes of
// blocks at the wrong rate (or a first block that takes hours), so it is derived from what a
// reference machine can do:
//
//	hash rate    devHashRatePerCore × devCores. One core runs the midstate nonce search
//	             (Work) at 8.9–9.6 M hashes/s on the 2-vCPU AMD EPYC dev VM (go test -bench
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
// The first epoch runs faster than the block delay: the genesis target asks for F = √(H × f0)
// hashes per block instead of H (f0 = devFirstBlockFloor; F = H below f0, F = H / 20 above
// 400 × f0). A fresh node mines the first 2 blocks of every chain before it serves (the
// command's mineFirstBlocks), so that a transaction sent as soon as it answers is not refused for
// a creation time far ahead of the 2019 genesis blocks: at H those 40 blocks take a minute at the
// default 30 s delay, at F (1.2 M hashes, 20 times fewer) about 3 s. The DA's first adjustment
// (block 12, measured over blocks 1 to 11) then brings the rate to the delay in one step, as
// long as a block's hashing takes well over the node's own work per block (executing the
// coinbase, storing, a synced Pact state write: a few milliseconds), so that the measured epoch
// reflects the hash rate. Hence the square root rather than a fixed factor: the speed-up is 20
// at 30 s, 5 at 2 s (310 k hashes, about 20 ms a block), none at short delays whose blocks are
// cheap anyway. (Chainweb's development network starts at 1/100,000 of the maximum target, a
// few milliseconds per block here, where the node's own work would dominate the measure and
// throw the DA off for several epochs.) F grows with H, so each delay keeps its own genesis.
//
// The genesis target goes into every genesis header, so a data directory created with one block
// delay has different genesis hashes than another; the node refuses to mix them, and names the
// delay a directory was made with by inverting the derivation (DevBlockDelayOf).
const (
	devHashRatePerCore = 8e6
	devCores           = 2
	// devFirstBlockFloor (f0) and devMaxSpeedup shape the first epoch's hashes per block.
	devFirstBlockFloor = 60_000
	devMaxSpeedup      = 20
)

// DevGenesisTarget is the development network's genesis target for block delay d: (2^256 − 1)
// / the first epoch's hashes per block F (firstEpochHashes), at least 1 hash per block.
func DevGenesisTarget(d time.Duration) ledger.U256 {
	return targetFor(firstEpochHashes(devHashesPerBlock(d)))
}

// LegacyDevGenesisTarget is the genesis target earlier builds derived for block delay d (H, no
// speed-up): their data directories are told apart from those of another delay.
func LegacyDevGenesisTarget(d time.Duration) ledger.U256 {
	return targetFor(devHashesPerBlock(d))
}

// DevBlockDelayOf inverts DevGenesisTarget (to the millisecond), to tell a user which delay a
// data directory was created with; 0 for the zero target.
func DevBlockDelayOf(target ledger.U256) time.Duration {
	if target.IsZero() {
		return 0
	}
	return delayOf(hashesFromFirstEpoch(hashesOf(target)))
}

// LegacyDevBlockDelayOf inverts LegacyDevGenesisTarget.
func LegacyDevBlockDelayOf(target ledger.U256) time.Duration {
	if target.IsZero() {
		return 0
	}
	return delayOf(hashesOf(target))
}

// devHashesPerBlock is H for block delay d.
func devHashesPerBlock(d time.Duration) float64 {
	return devHashRatePerCore * devCores * d.Seconds() / float64(len(ledger.Development.Chains()))
}

// firstEpochHashes is F for H: √(H × f0), within [H / devMaxSpeedup, H].
func firstEpochHashes(h float64) float64 {
	return math.Min(h, math.Max(h/devMaxSpeedup, math.Sqrt(h*devFirstBlockFloor)))
}

// hashesFromFirstEpoch inverts firstEpochHashes.
func hashesFromFirstEpoch(f float64) float64 {
	switch {
	case f <= devFirstBlockFloor:
		return f
	case f >= devMaxSpeedup*devFirstBlockFloor:
		return f * devMaxSpeedup
	}
	return f * f / devFirstBlockFloor
}

// targetFor is the target at which a block takes hashes hashes on average (at least 1).
func targetFor(hashes float64) ledger.U256 {
	q := new(big.Int).Div(ledger.MaxU256.Big(), big.NewInt(int64(math.Round(math.Max(1, hashes)))))
	t, _ := ledger.U256FromBig(q)
	return t
}

// hashesOf is the expected hashes per block at target.
func hashesOf(target ledger.U256) float64 {
	h, _ := new(big.Float).Quo(new(big.Float).SetInt(ledger.MaxU256.Big()), new(big.Float).SetInt(target.Big())).Float64()
	return h
}

// delayOf is the block delay whose H is h, to the millisecond.
func delayOf(h float64) time.Duration {
	secs := h * float64(len(ledger.Development.Chains())) / (devHashRatePerCore * devCores)
	return time.Duration(secs * float64(time.Second)).Round(time.Millisecond)
}
