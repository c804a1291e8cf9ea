package gas

import (
	"math"
	"math/bits"
	"strconv"
)

// MilliGas is an amount of gas in milligas, saturating at its maximum.
type MilliGas uint64

// MaxMilliGas is the saturation point of every gas sum and product.
const MaxMilliGas = MilliGas(math.MaxUint64)

// PerGas is the number of milligas in one gas.
const PerGas = 1000

// Add is the saturating sum.
func (a MilliGas) Add(b MilliGas) MilliGas {
	s, carry := bits.Add64(uint64(a), uint64(b), 0)
	if carry != 0 {
		return MaxMilliGas
	}
	return MilliGas(s)
}

// Sub is the difference clamped at 0.
func (a MilliGas) Sub(b MilliGas) MilliGas {
	if b >= a {
		return 0
	}
	return a - b
}

// Mul is the saturating product of two counts.
func Mul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// add is the saturating sum of two counts.
func add(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return s
}

// FromInt converts a count the way upstream's fromIntegral into SatWord
// does: negative counts become 0.
func FromInt(n int64) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(n)
}

// FromGas is g gas in milligas (saturating).
func FromGas(g uint64) MilliGas { return MilliGas(Mul(g, PerGas)) }

// Gas is the amount in whole gas, rounded up: 1 milligas is 1 gas, 1000 is
// 1, 1001 is 2. Every gas figure a user sees (results, env-gas, the
// out-of-gas text) is rounded this way.
func (a MilliGas) Gas() uint64 {
	q, r := uint64(a)/PerGas, uint64(a)%PerGas
	if r != 0 {
		q++
	}
	return q
}

// String renders the amount as the REPL's gas log does: "1250mG".
func (a MilliGas) String() string { return strconv.FormatUint(uint64(a), 10) + "mG" }

// ceilSat is Haskell's ceiling of a Double at type SatWord: negative values
// and -Inf give 0, values past 2^64 (and +Inf) saturate.
func ceilSat(x float64) uint64 {
	if !(x > 0) { // negatives, -0, -Inf and (never seen) NaN
		return 0
	}
	c := math.Ceil(x)
	if c >= 18446744073709551616.0 {
		return math.MaxUint64
	}
	return uint64(c)
}
