package gas

import "math"

// The cost formulas of upstream's runTableModel, each on the measures the
// interpreter takes of its operands. Bit lengths follow GHC: Bits(n) is the
// length of |n| in bits, and 1 for 0; the integer comparisons use a machine
// word's 64 bits for any integer that fits one (see ComparisonBits).

// intCostUpperBound is the bit length of 10^200: up to it integer addition
// is flat and multiplication linear; past it both turn quadratic.
const intCostUpperBound = 664

// IntAdd is the cost of adding or subtracting integers, given the bit
// length of the operand with the larger signed value (upstream picks
// max(a, b), not the larger magnitude).
func IntAdd(bitsOfMax int) MilliGas {
	if bitsOfMax <= intCostUpperBound {
		return 30
	}
	return MilliGas(uint64(bitsOfMax) * uint64(bitsOfMax) / 6400)
}

// IntMul is the cost of multiplying or dividing integers, given the bit
// length of the operand with the larger signed value.
func IntMul(bitsOfMax int) MilliGas {
	if bitsOfMax <= intCostUpperBound {
		return MilliGas(3*uint64(bitsOfMax)/20 + 26)
	}
	return MilliGas(uint64(bitsOfMax) * uint64(bitsOfMax) / 6400)
}

// IntPow is the cost of base^power by squaring, given the bit lengths of
// the base and the power.
func IntPow(baseBits, powerBits int) MilliGas {
	return squaringCost(uint64(baseBits), uint64(powerBits), 2)
}

// squaringCost is upstream's estimate for exponentiation by squaring: 2L-2
// multiplications of operands of n0·2^((L-1)/2) bits on average, each
// costing that size to the power alpha.
func squaringCost(n0, l uint64, alpha float64) MilliGas {
	mults := uint64(0)
	if l > 0 {
		mults = Mul(2, l) - 2
	}
	lm1 := uint64(0)
	if l > 0 {
		lm1 = l - 1
	}
	avg := Mul(n0, ceilSat(math.Pow(2, float64(lm1)/2)))
	var per float64
	if alpha == 2 {
		x := float64(avg)
		per = x * x
	} else {
		per = powFrac(float64(avg), alpha)
	}
	return MilliGas(Mul(mults, ceilSat(per)))
}

// powFrac is x**alpha for alpha = k + 1/2, computed as Go's math.Pow does
// (the integer part by squaring times a square root).
func powFrac(x, alpha float64) float64 { return math.Pow(x, alpha) }

// Exp is the cost of exp(p) given the bit length of p (the integer, or
// the decimal's mantissa).
func Exp(powerBits int) MilliGas { return squaringCost(2, uint64(powerBits), 2.5) }

// Shift is the cost of shifting x by k: k > 0 costs like 2^k plus a
// multiplication; k <= 0 is free. kSat is k as a count (saturated).
func Shift(xBits int, k int64, kBits int, kSat uint64) MilliGas {
	if k <= 0 {
		return 0
	}
	m := max(uint64(xBits), kSat)
	return IntPow(2, kBits).Add(MilliGas(add(Mul(3, m)/20, 26)))
}

// Ln is the cost of a natural logarithm of a number of n bits:
// n·⌈(ln n)²⌉·⌈ln ln n⌉, which is 0 for n <= 2.
func Ln(nBits int) uint64 {
	n := float64(nBits)
	l := math.Log(n)
	return Mul(Mul(uint64(nBits), ceilSat(l*l)), ceilSat(math.Log(l)))
}

// LogBase is the cost of log(b, x): the two logarithms' costs.
func LogBase(baseBits, xBits int) MilliGas {
	return MilliGas(add(Ln(baseBits), Ln(xBits)))
}

// Sqrt is the cost of a square root of a positive number of n bits:
// n·⌈ln n⌉·⌈ln ln n⌉. Non-positive arguments cost nothing (positive is
// whether the argument itself is > 0).
func Sqrt(nBits int, positive bool) MilliGas {
	if !positive {
		return 0
	}
	n := float64(nBits)
	l := math.Log(n)
	return MilliGas(Mul(Mul(uint64(nBits), ceilSat(l)), ceilSat(math.Log(l))))
}

// TextConcat is the cost of making a string of n characters by
// concatenation (also take, reverse, show and format).
func TextConcat(c *Config, n int64) MilliGas { return MilliGas(Mul(FromInt(n), c.ConcatFactor)) }

// TextListConcat is concat's cost: n characters from k strings.
func TextListConcat(c *Config, n, k int64) MilliGas {
	return MilliGas(add(Mul(FromInt(n), c.ConcatFactor), Mul(FromInt(k), 40)))
}

// ListConcat is the cost of making a list of n elements (list literals,
// list +, take, reverse).
func ListConcat(c *Config, n int64) MilliGas { return MilliGas(Mul(FromInt(n), c.ConcatFactor)) }

// ObjConcat is the cost of making an object of n fields.
func ObjConcat(c *Config, n int64) MilliGas { return MilliGas(Mul(FromInt(n), c.ConcatFactor)) }

// Apply is the cost of applying a closure to n arguments.
func Apply(c *Config, n int64) MilliGas {
	return MilliGas(add(Mul(FromInt(n), c.FunctionArgumentCost), 50))
}

// MakeList is make-list's and enumerate's cost: n elements of size bytes.
func MakeList(n int64, size uint64) MilliGas { return MilliGas(Mul(FromInt(n), size)) }

// Write is the cost of writing an estimated bytes.
func Write(c *Config, bytes uint64) MilliGas { return MilliGas(Mul(bytes, c.PerByteWriteCost)) }

// Read is the cost of reading an estimated bytes.
func Read(c *Config, bytes uint64) MilliGas { return MilliGas(Mul(bytes, c.PerByteReadCost)) }

// TextCompare is the cost of comparing strings, the first of which has n
// characters.
func TextCompare(c *Config, n int) MilliGas { return MilliGas(add(uint64(n), c.NativeBasicWork)) }

// IntCompare is the cost of comparing integers of the given comparison
// bit lengths (ComparisonBits).
func IntCompare(c *Config, aBits, bBits int) MilliGas {
	return MilliGas(add(uint64(max(aBits, bBits)), c.NativeBasicWork))
}

// DecimalCompare is the cost of comparing decimals: a division of their
// mantissas plus an integer comparison of them. maxBits is the bit length
// of the mantissa with the larger signed value; aBits and bBits are the
// mantissas' comparison bit lengths.
func DecimalCompare(c *Config, maxBits, aBits, bBits int) MilliGas {
	return IntMul(maxBits).Add(IntCompare(c, aBits, bBits))
}

// ListCompare is the cost of comparing lists (or objects, or argument
// lists) of n elements.
func ListCompare(c *Config, n int) MilliGas { return MilliGas(Mul(uint64(n), c.NativeBasicWork)) }

// Sort is the cost of sorting n elements the largest of which has an
// estimated size of maxBytes.
func Sort(c *Config, maxBytes uint64, n int) MilliGas {
	return MilliGas(Mul(Mul(maxBytes, uint64(n)), uint64(n)) / c.SortBytePenaltyReduction)
}

// SubstringSearch is the cost of looking for a needle of n characters in
// a haystack of h characters.
func SubstringSearch(c *Config, n, h int) MilliGas {
	return MilliGas(add(uint64(n+h), c.NativeBasicWork))
}

// FieldSearch is the cost of looking for a field in an object of n fields.
func FieldSearch(c *Config, n int) MilliGas { return MilliGas(add(uint64(n), c.NativeBasicWork)) }

// ModuleLoad is the cost of reading a module whose stored encoding has
// the given length.
func ModuleLoad(c *Config, encodedBytes int) MilliGas {
	return MilliGas(add(uint64(encodedBytes)/c.ModuleLoadSlope, c.ModuleLoadIntercept))
}

// MergeDeps is the cost of adding a module's a definitions (its own and
// its dependencies) to the l definitions already loaded.
func MergeDeps(l, a int) MilliGas { return MilliGas(Mul(Mul(uint64(l), uint64(a)), 10)) }

// Desugar is the cost of desugaring a module of an estimated size.
func Desugar(c *Config, bytes uint64) MilliGas { return MilliGas(Mul(bytes, c.DesugarBytePenalty)) }

// StrLength is length's cost on a string of n characters.
func StrLength(n int) MilliGas { return MilliGas(uint64(n)/100 + 1) }

// StrToInt is the cost of converting a string of n characters to an
// integer (read-integer and read-decimal of a string).
func StrToInt(n int) MilliGas { return MilliGas(Mul(uint64(n), 20) + 1) }

// StrParse is the cost of a scanning parse of n characters.
func StrParse(n int) MilliGas { return MilliGas(Mul(uint64(n), 5) + 1) }

// StrExplode is str-to-list's cost on n characters.
func StrExplode(n int) MilliGas { return MilliGas(Mul(uint64(n), 100) + 1) }

// ParseTime is parse-time's cost for a format of f and an input of s
// characters.
func ParseTime(f, s int) MilliGas {
	return MilliGas(add(add(Mul(uint64(f), uint64(f))/4, Mul(10, uint64(s))), 1))
}

// FormatTime is format-time's cost for a format of f characters.
func FormatTime(f int) MilliGas { return MilliGas(Mul(uint64(f), 20) + 1) }

// ObjLookup is the cost of finding a key of k characters in an object of
// n fields.
func ObjLookup(k, n int) MilliGas { return MilliGas(Mul(uint64(Bits64(uint64(n))), uint64(k))) }

// ObjRemove is the cost of removing a key of k characters from an object
// of n fields.
func ObjRemove(k, n int) MilliGas { return MilliGas(Mul(Mul(uint64(n), uint64(k)), 10)) }

// RequireCap is require-capability's cost for n capability-stack entries.
func RequireCap(n int) MilliGas { return MilliGas(Mul(uint64(n), 100)) }

// Hash is the cost of BLAKE2b-hashing an estimated n bytes.
func Hash(c *Config, n uint64) MilliGas { return MilliGas(Mul(n, c.HashBytePenalty)) }

// Poseidon is the cost of a Poseidon hash of n integers.
func Poseidon(c *Config, n int) MilliGas {
	nn := uint64(n)
	return MilliGas(add(Mul(Mul(nn, nn), c.PoseidonQuadraticFactor), Mul(nn, c.PoseidonLinearFactor)))
}

// Keccak is hash-keccak256's cost on chunks of the given byte lengths:
// per started 100 bytes of their sum, plus per chunk.
func Keccak(c *Config, chunkBytes []int) MilliGas {
	total := 0
	for _, b := range chunkBytes {
		total += b
	}
	hundreds := uint64(total / 100)
	if total%100 != 0 {
		hundreds++
	}
	return MilliGas(add(Mul(c.Keccak256Per100Bytes, hundreds), Mul(c.Keccak256PerChunk, uint64(len(chunkBytes)))))
}

// Zero-knowledge groups.
const (
	G1 = 1
	G2 = 2
)

// PointAdd is point-add's cost in group g.
func PointAdd(g int) MilliGas {
	if g == G2 {
		return 30_000
	}
	return 5_000
}

// ScalarMult is scalar-mult's cost in group g.
func ScalarMult(g int) MilliGas {
	if g == G2 {
		return 1_450_000
	}
	return 360_000
}

// Pairing is pairing-check's cost for n pairs.
func Pairing(n int) MilliGas {
	if n > 0 {
		return MilliGas(uint64(n)*3_760 + 11_600)
	}
	return 100_000
}

// Bits64 is the bit length of a non-negative count, 1 for 0 (GHC's
// integerLog2 + 1).
func Bits64(n uint64) int {
	if n == 0 {
		return 1
	}
	l := 0
	for n != 0 {
		n >>= 1
		l++
	}
	return l
}
