package peersync

import (
	"math/big"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
)

// delayForTarget inverts the development network's genesis target rule (target ∝ 1/delay):
// from our delay and target and a peer's target, the peer's delay; and it gives up (0) rather
// than naming an absurd delay for a target no --block-delay makes.
func TestDelayForTarget(t *testing.T) {
	// (2^256 − 1) / 24e6, the shape of the 30 s development target.
	ours := u256(t, new(big.Int).Div(ledger.MaxU256.Big(), big.NewInt(24_000_000)))
	v := ledger.Development.WithBlockDelay((30 * time.Second).Microseconds()).WithGenesisTarget(ours)
	for _, c := range []struct {
		perBlock int64 // the peer's expected hashes per block
		want     time.Duration
	}{
		{4_000_000, 5 * time.Second},
		{1_600_000, 2 * time.Second},
		{24_000_000, 30 * time.Second},
		{48_000_000, time.Minute},
		{4_000, 5 * time.Millisecond},
		{4_000 * 3_600 * 200 * 30, 0}, // 30 hours: not a block delay this node would take
	} {
		peer := u256(t, new(big.Int).Div(ledger.MaxU256.Big(), big.NewInt(c.perBlock)))
		if got := delayForTarget(v, peer); got != c.want {
			t.Errorf("%d hashes a block: %v, want %v", c.perBlock, got, c.want)
		}
	}
	if got := delayForTarget(v, ledger.U256{1}); got != 0 {
		t.Errorf("target 1: %v", got)
	}
	if got := delayForTarget(v, ledger.U256{}); got != 0 {
		t.Errorf("target 0: %v", got)
	}
}

func u256(t *testing.T, b *big.Int) ledger.U256 {
	t.Helper()
	u, ok := ledger.U256FromBig(b)
	if !ok {
		t.Fatalf("%v does not fit", b)
	}
	return u
}
