package value

import (
	"math"
	"math/big"
	"math/bits"
)

// Integers as digits. Pact 5 prices int-to-str and str-to-int by the
// number of digits, and integers reach maxResultBits bits (315,653 decimal
// digits): any step that works a digit at a time over the whole number (a
// division per digit, a multiplication per digit) is quadratic and takes
// seconds at that size. Digits are read by syntax.ParseDigits and written
// by math/big (whose conversion divides by halves, not by digits).

// IntLogBase is GHC's integerLogBase b x: the floor of log_b x, 0 for
// x <= 0. int-to-str charges by it before converting. For a power-of-two
// base it is the bit length's quotient; otherwise the logarithm of x's
// leading 64 bits decides it, unless x lies within a hair of a power of b,
// where one exact power of b settles it.
func IntLogBase(b int64, x Integer) int {
	if x.Sign() <= 0 || b < 2 {
		return 0
	}
	if x.IsSmall() {
		n := 0
		for v, ub := uint64(x.small), uint64(b); v >= ub; v /= ub {
			n++
		}
		return n
	}
	xb := x.big
	n := xb.BitLen()
	if b&(b-1) == 0 {
		return (n - 1) / bits.TrailingZeros64(uint64(b))
	}
	// x = top·2^shift + rest with top in [2^63, 2^64), so log2 x lies in
	// [shift + log2 top, shift + log2 top + 2^-62].
	shift := n - 64
	top := new(big.Int).Rsh(xb, uint(shift)).Uint64()
	est := (float64(shift) + math.Log2(float64(top))) / math.Log2(float64(b))
	// The estimate's rounding error is below 1e-9 for any exponent up to
	// 2^30; floor(log_b x) is certain unless est is that close to an integer.
	const margin = 1e-6
	lo, hi := math.Floor(est-margin), math.Floor(est+margin)
	if lo == hi {
		return int(lo)
	}
	// est is within margin of the integer hi: log_b x >= hi iff x >= b^hi.
	k := int64(hi)
	if new(big.Int).Exp(big.NewInt(b), big.NewInt(k), nil).Cmp(xb) > 0 {
		return int(k - 1)
	}
	return int(k)
}
