package pow

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ledgernode/ledger-node/ledger"
)

// Difficulty adjustment and epochs (chainweb-header.md §4.2–§4.4; upstream powTarget, epochStart,
// effectiveWindow, isLastInEpoch, slowEpoch in BlockHeader/Internal.hs and adjust, legacyAdjust
// in Difficulty.hs).
//
// Fork guards are "before" guards: a guard with fork height f is active at height h iff h < f,
// so a fork height of 0 (the ledger's "at genesis") never activates it.

// EffectiveWindow returns the epoch length, in blocks, that applies to a block whose parent is at
// parentHeight: a tenth of the version's window (at least 1) while the parent height is at most
// the window, so that the first 120 blocks of a network see ten adjustments; the full window
// after that. The height is absolute, so chains added later get the full window at once.
func EffectiveWindow(v *ledger.Version, parentHeight uint64) uint64 {
	w := v.WindowWidth
	if parentHeight <= w {
		return max(1, w/10)
	}
	return w
}

// IsLastInEpoch reports whether a block at parentHeight is the last of its epoch, i.e. whether
// its child starts a new epoch and gets a new target: (parentHeight+1) mod window == 0.
func IsLastInEpoch(v *ledger.Version, parentHeight uint64) bool {
	w := EffectiveWindow(v, parentHeight)
	if w == 0 {
		return false // a version without a window never adjusts
	}
	// parentHeight % w == w-1 is (parentHeight+1) % w == 0 without the wrap at 2^64-1.
	return parentHeight%w == w-1
}

// guardActive reports whether a "before" fork guard with fork height f is active at height h.
func guardActive(f, h uint64) bool { return h < f }

// childHeight is parent height + 1, saturating so that guards on the child's height never see a
// wrapped 0 for a (bogus) parent at 2^64-1.
func childHeight(parentHeight uint64) uint64 {
	if parentHeight == ^uint64(0) {
		return parentHeight
	}
	return parentHeight + 1
}

// NextEpochStart returns the epoch start of a block created at ct on top of parent (§4.3; the
// first matching rule wins). It needs no adjacent parents: upstream's epochStart takes them but
// only for an experimental adjustment it does not use. parent must not be nil.
func NextEpochStart(v *ledger.Version, parent *ledger.Header, ct int64) int64 {
	p := parent
	switch {
	// 1. Development networks: the genesis time is not when mining began, so the first epoch
	// is measured from block 1 instead of from genesis.
	case v.FakeFirstEpochStart && p.Height == 1:
		return p.CreationTime
	// 2. The first block after the genesis of a chain added in a later graph, for the same
	// reason: its genesis time is the network's, not the chain's.
	case p.Height > 1 && isFirstOnNewChain(v, p):
		return p.CreationTime
	// 3. Legacy epoch start: the new block's own time (mainnet parent height < 452,820).
	case IsLastInEpoch(v, p.Height) && guardActive(v.Forks.OldTargetGuard, p.Height):
		return ct
	// 4. An epoch starts at its predecessor's creation time.
	case IsLastInEpoch(v, p.Height):
		return p.CreationTime
	// 5. Within an epoch.
	default:
		return p.EpochStart
	}
}

// isFirstOnNewChain reports whether p is the block right after its chain's genesis (upstream
// parentIsFirstOnNewChain without the height > 1 part). Unknown chains have no genesis.
func isFirstOnNewChain(v *ledger.Version, p *ledger.Header) bool {
	g, ok := v.GenesisHeight(p.ChainID)
	return ok && g != ^uint64(0) && p.Height == g+1
}

// NextTarget returns the target of a block created at ct on top of parent, whose adjacent
// parents are adjParents (§4.4). Outside an epoch boundary (and outside mainnet's early
// emergency adjustment) it is the parent's target and adjParents are not read. At a boundary the
// current rule averages over the parent and every adjacent parent given, so adjParents must be
// exactly the header's adjacent parents (upstream does not check the set either).
//
// The error is non-nil for inputs upstream could not compute (nil headers, a version without a
// block delay or window, a non-positive epoch length under the legacy rule, a negative epoch
// length or zero target where one is divided by); valid parents never produce one.
func NextTarget(v *ledger.Version, parent *ledger.Header, adjParents []*ledger.Header, ct int64) (ledger.U256, error) {
	if v == nil || parent == nil {
		return ledger.U256{}, errors.New("pow: next target: nil version or parent")
	}
	p := parent
	w := EffectiveWindow(v, p.Height)
	if w == 0 || v.BlockDelay <= 0 {
		return ledger.U256{}, fmt.Errorf("pow: next target: version %s has window %d and block delay %d", v.Name, v.WindowWidth, v.BlockDelay)
	}
	// Emergency DA is tested before the epoch test (upstream powTarget's guard order).
	if guardActive(v.Forks.SlowEpoch, p.Height) && slowEpoch(v, p, ct) {
		return activeAdjust(v, w, p, adjParents, ct)
	}
	if IsLastInEpoch(v, p.Height) {
		return activeAdjust(v, w, p, adjParents, ct)
	}
	return p.Target, nil
}

// slowEpoch is upstream's emergency test: the current epoch has lasted more than five times its
// targeted length (the full window, not the effective one).
func slowEpoch(v *ledger.Version, p *ledger.Header, ct int64) bool {
	actual := new(big.Int).Sub(big.NewInt(ct), big.NewInt(p.EpochStart))
	expected := new(big.Int).Mul(big.NewInt(v.BlockDelay), new(big.Int).SetUint64(v.WindowWidth))
	expected.Mul(expected, big.NewInt(5))
	return actual.Cmp(expected) > 0
}

func activeAdjust(v *ledger.Version, w uint64, p *ledger.Header, adjParents []*ledger.Header, ct int64) (ledger.U256, error) {
	if guardActive(v.Forks.OldDAGuard, childHeight(p.Height)) {
		// Under OldTargetGuard the epoch ends at the new block's time, later at the parent's.
		t := p.CreationTime
		if guardActive(v.Forks.OldTargetGuard, p.Height) {
			t = ct
		}
		d, ok := sub64(t, p.EpochStart)
		if !ok {
			return ledger.U256{}, fmt.Errorf("pow: next target: epoch length %d - %d overflows", t, p.EpochStart)
		}
		return LegacyAdjust(v.BlockDelay, w, d, p.Target)
	}
	// Current rule: average of each block's own adjustment over parent and adjacent parents.
	sum := new(big.Int)
	n := int64(1)
	a, err := adjustHeader(v.BlockDelay, w, p)
	if err != nil {
		return ledger.U256{}, err
	}
	sum.Add(sum, bigOf(a))
	for _, x := range adjParents {
		if x == nil {
			return ledger.U256{}, errors.New("pow: next target: nil adjacent parent")
		}
		a, err := adjustHeader(v.BlockDelay, w, x)
		if err != nil {
			return ledger.U256{}, err
		}
		sum.Add(sum, bigOf(a))
		n++
	}
	sum.Quo(sum, big.NewInt(n))     // floor: the sum is non-negative
	t, _ := ledger.U256FromBig(sum) // an average of values <= 2^256-1 fits
	return t, nil
}

func adjustHeader(blockDelay int64, w uint64, x *ledger.Header) (ledger.U256, error) {
	d, ok := sub64(x.CreationTime, x.EpochStart)
	if !ok {
		return ledger.U256{}, fmt.Errorf("pow: next target: epoch length %d - %d overflows", x.CreationTime, x.EpochStart)
	}
	return Adjust(blockDelay, w, d, x.Target)
}

// sub64 returns a - b and whether it did not overflow. Real times are microseconds since 1970 and
// never come close; decoded garbage can.
func sub64(a, b int64) (int64, bool) {
	d := a - b
	// Overflow iff the operands have different signs and the result's sign differs from a's.
	return d, (a >= 0) == (b >= 0) || (d >= 0) == (a >= 0)
}

// Adjust is one block's share of the current difficulty adjustment (upstream adjust):
// min(2^256-1, ceiling(delta / (window * blockDelay) * oldTarget)), in exact arithmetic, where
// delta is the block's creation time minus its epoch start in microseconds. A negative delta is
// an error (a validated block never has its epoch start after its creation time).
//
// Upstream converts the ceiling to a Word256 before taking the minimum, which would wrap rather
// than clamp a result of 2^256 or more; this follows the specified clamp (§4.4). The two differ
// only for targets near 2^256-1 after an epoch over the targeted length, which no recorded
// network history contains.
func Adjust(blockDelay int64, window uint64, delta int64, oldTarget ledger.U256) (ledger.U256, error) {
	if blockDelay <= 0 || window == 0 {
		return ledger.U256{}, fmt.Errorf("pow: adjust: block delay %d, window %d", blockDelay, window)
	}
	if delta < 0 {
		return ledger.U256{}, fmt.Errorf("pow: adjust: negative epoch length %d µs", delta)
	}
	num := new(big.Int).Mul(big.NewInt(delta), bigOf(oldTarget))
	den := new(big.Int).Mul(big.NewInt(blockDelay), new(big.Int).SetUint64(window))
	q := ceilDiv(num, den)
	if t, ok := ledger.U256FromBig(q); ok {
		return t, nil
	}
	return ledger.MaxU256, nil
}

// LegacyAdjust is the difficulty adjustment used while OldDAGuard is active (upstream
// legacyAdjust): with oldDiff = (2^256-1) / oldTarget and newDiff = oldDiff * blockDelay *
// window / delta as exact rationals, the target is (2^256-1) div ceiling(newDiff).
//
// A delta <= 0 (upstream: division by zero, or a negative value wrapped into a Word256) and a
// zero target are errors; they cannot occur under validated parents.
func LegacyAdjust(blockDelay int64, window uint64, delta int64, oldTarget ledger.U256) (ledger.U256, error) {
	if blockDelay <= 0 || window == 0 {
		return ledger.U256{}, fmt.Errorf("pow: legacy adjust: block delay %d, window %d", blockDelay, window)
	}
	if delta <= 0 {
		return ledger.U256{}, fmt.Errorf("pow: legacy adjust: non-positive epoch length %d µs", delta)
	}
	if oldTarget.IsZero() {
		return ledger.U256{}, ErrZeroTarget
	}
	maxT := bigOf(ledger.MaxU256)
	// ceiling((max/oldTarget) * bd * w / delta) = ceiling(max*bd*w / (oldTarget*delta)).
	num := new(big.Int).Mul(maxT, big.NewInt(blockDelay))
	num.Mul(num, new(big.Int).SetUint64(window))
	den := new(big.Int).Mul(bigOf(oldTarget), big.NewInt(delta))
	newDiff := ceilDiv(num, den) // >= 1 since num, den > 0
	t, _ := ledger.U256FromBig(new(big.Int).Quo(maxT, newDiff))
	return t, nil
}

// ceilDiv returns ceiling(a / b) for a >= 0, b > 0.
func ceilDiv(a, b *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(a, b, new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}
