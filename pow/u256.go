package pow

import (
	"errors"
	"math/big"
	"math/bits"

	"github.com/ledgernode/ledger-node/ledger"
)

// ErrZeroTarget is returned for a target of 0. No hash is below it except the all-zero one, and
// its difficulty (2^256-1)/0 is undefined; upstream would abort with a division by zero.
var ErrZeroTarget = errors.New("pow: target 0 has no difficulty")

// Difficulty returns floor((2^256-1) / target), the work a block with this target adds to its
// chain's weight. It is computed for every header that is validated, so it uses a 256-by-256-bit
// long division on machine words rather than math/big (no allocation).
func Difficulty(target ledger.U256) (ledger.U256, error) {
	if target.IsZero() {
		return ledger.U256{}, ErrZeroTarget
	}
	return div256(ledger.MaxU256, target), nil
}

// TargetFromDifficulty is the inverse mapping used for display and for choosing easy test targets:
// floor((2^256-1) / difficulty). A difficulty of 0 is an error, as for Difficulty.
func TargetFromDifficulty(difficulty ledger.U256) (ledger.U256, error) {
	if difficulty.IsZero() {
		return ledger.U256{}, errors.New("pow: difficulty 0 has no target")
	}
	return div256(ledger.MaxU256, difficulty), nil
}

// AddWeight returns w + d modulo 2^256. Upstream block weights are Word256 values whose addition
// wraps, so a wrapped sum is what upstream stores and compares; real weights are far below 2^256.
func AddWeight(w, d ledger.U256) ledger.U256 {
	var r ledger.U256
	var c uint64
	r[0], c = bits.Add64(w[0], d[0], 0)
	r[1], c = bits.Add64(w[1], d[1], c)
	r[2], c = bits.Add64(w[2], d[2], c)
	r[3], _ = bits.Add64(w[3], d[3], c)
	return r
}

// Weight returns the weight of a block with the given target on top of a parent of the given
// weight: parentWeight + Difficulty(target).
func Weight(parentWeight, target ledger.U256) (ledger.U256, error) {
	d, err := Difficulty(target)
	if err != nil {
		return ledger.U256{}, err
	}
	return AddWeight(parentWeight, d), nil
}

// CheckTarget reports whether a PoW hash, read as a little-endian integer, meets the target.
// Equality is accepted (upstream checkTarget is powHashNat <= target).
func CheckTarget(target, powInt ledger.U256) bool {
	return powInt.Cmp(target) <= 0
}

// sigLimbs is the number of significant 64-bit limbs of u (0 for u == 0).
func sigLimbs(u ledger.U256) int {
	for n := 4; n > 0; n-- {
		if u[n-1] != 0 {
			return n
		}
	}
	return 0
}

// div256 returns floor(u / v) for v != 0. It is Knuth's algorithm D (TAOCP vol. 2, 4.3.1) on
// 64-bit digits, the same scheme math/big uses, specialised to at most four digits so that it
// runs on the stack.
func div256(u, v ledger.U256) ledger.U256 {
	n := sigLimbs(v)
	if n == 0 {
		panic("pow: division by zero") // unreachable: every caller rejects v == 0 first
	}
	if u.Cmp(v) < 0 {
		return ledger.U256{}
	}
	var q ledger.U256
	if n == 1 {
		// Short division: each step divides a two-digit number whose high digit (the running
		// remainder) is below the divisor, so bits.Div64 cannot overflow.
		var r uint64
		for i := 3; i >= 0; i-- {
			q[i], r = bits.Div64(r, u[i], v[0])
		}
		return q
	}

	// Normalise so the divisor's top digit has its high bit set; that bounds each quotient
	// digit estimate to at most one too large after the two-digit correction below.
	s := uint(bits.LeadingZeros64(v[n-1]))
	var vn [4]uint64
	for i := n - 1; i > 0; i-- {
		vn[i] = v[i]<<s | v[i-1]>>(64-s)
	}
	vn[0] = v[0] << s
	// For s == 0 the right shifts by 64-s = 64 yield 0 in Go, so no special case is needed.
	var un [5]uint64
	un[4] = u[3] >> (64 - s)
	for i := 3; i > 0; i-- {
		un[i] = u[i]<<s | u[i-1]>>(64-s)
	}
	un[0] = u[0] << s

	vTop, vNext := vn[n-1], vn[n-2]
	for j := 4 - n; j >= 0; j-- {
		// Estimate the quotient digit from the top two digits of the running remainder.
		qhat := ^uint64(0)
		if un[j+n] < vTop {
			var rhat uint64
			qhat, rhat = bits.Div64(un[j+n], un[j+n-1], vTop)
			// Refine with the next divisor digit: while qhat*vNext > rhat*2^64 + un[j+n-2],
			// qhat is too large.
			for {
				hi, lo := bits.Mul64(qhat, vNext)
				if hi < rhat || (hi == rhat && lo <= un[j+n-2]) {
					break
				}
				qhat--
				prev := rhat
				rhat += vTop
				if rhat < prev { // rhat >= 2^64: the test above can no longer succeed
					break
				}
			}
		}
		// Subtract qhat * vn from un[j : j+n+1].
		var borrow, carry uint64
		for i := 0; i < n; i++ {
			hi, lo := bits.Mul64(qhat, vn[i])
			lo, c := bits.Add64(lo, carry, 0)
			carry = hi + c
			un[j+i], borrow = bits.Sub64(un[j+i], lo, borrow)
		}
		un[j+n], borrow = bits.Sub64(un[j+n], carry, borrow)
		if borrow != 0 {
			// qhat was one too large: add the divisor back once (Knuth step D6).
			qhat--
			var c uint64
			for i := 0; i < n; i++ {
				un[j+i], c = bits.Add64(un[j+i], vn[i], c)
			}
			un[j+n] += c
		}
		q[j] = qhat
	}
	return q
}

// bigOf converts a U256 to a new big.Int (ledger's Big goes through a byte reversal; this reads
// the limbs directly).
func bigOf(u ledger.U256) *big.Int {
	words := make([]big.Word, 0, 4)
	if bits.UintSize == 64 {
		for _, l := range u {
			words = append(words, big.Word(l))
		}
	} else {
		for _, l := range u {
			words = append(words, big.Word(uint32(l)), big.Word(l>>32))
		}
	}
	return new(big.Int).SetBits(words)
}
