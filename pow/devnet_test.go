package pow

import (
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
)

// The genesis target follows the block delay, and the delay can be read back from it.
func TestDevGenesisTarget(t *testing.T) {
	var prev ledger.U256
	for _, d := range []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 2 * time.Second, 3 * time.Second,
		30 * time.Second, 31 * time.Second, time.Hour} {
		g := DevGenesisTarget(d)
		if got := DevBlockDelayOf(g); got != d {
			t.Errorf("delay %v: read back %v", d, got)
		}
		if got := LegacyDevBlockDelayOf(LegacyDevGenesisTarget(d)); got != d {
			t.Errorf("delay %v: read back %v from an earlier build's target", d, got)
		}
		// A longer delay, a harder target: each delay has its own genesis. (wallclock: block
		// delays compared, nothing timed.)
		if d > 10*time.Millisecond && g.Big().Cmp(prev.Big()) >= 0 {
			t.Errorf("delay %v: target not below the shorter delay's", d)
		}
		prev = g
	}
	// 30 s: 8 M hashes/s per core × 2 cores × 30 s / 20 chains = 24 M hashes per block, and the
	// first epoch 20 times faster (√(24 M × 60 k) = 1.2 M); 2 s: 1.6 M, first epoch √(1.6 M ×
	// 60 k) ≈ 309,839; 20 ms: 16 k, no speed-up.
	for _, c := range []struct {
		d          time.Duration
		first, was uint64
	}{{30 * time.Second, 1_200_000, 24_000_000}, {2 * time.Second, 309_839, 1_600_000}, {20 * time.Millisecond, 16_000, 16_000}} {
		if got, _ := Difficulty(DevGenesisTarget(c.d)); got != (ledger.U256{c.first}) {
			t.Errorf("difficulty at %v is %s, want %d", c.d, got, c.first)
		}
		if got, _ := Difficulty(LegacyDevGenesisTarget(c.d)); got != (ledger.U256{c.was}) {
			t.Errorf("earlier builds' difficulty at %v is %s, want %d", c.d, got, c.was)
		}
	}
	if DevBlockDelayOf(ledger.U256{}) != 0 || LegacyDevBlockDelayOf(ledger.U256{}) != 0 {
		t.Error("the zero target reads back as a delay")
	}
}
