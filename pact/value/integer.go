package value

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Integer is an unbounded Pact integer (Haskell Integer). Values that fit
// in an int64 live in small and big is nil; larger ones live in big, which
// is then never mutated. The zero Integer is 0.
//
// The fast path matters: gas arithmetic, list indices and most contract
// integers are small, and boxing a *big.Int per operation would dominate.
type Integer struct {
	small int64
	big   *big.Int
}

func (Integer) Kind() Kind       { return KindInteger }
func (i Integer) String() string { return i.Text() }
func (i Integer) IsSmall() bool  { return i.big == nil }
func (i Integer) Int64() int64   { return i.small } // valid when IsSmall
func (i Integer) IsZero() bool   { return i.big == nil && i.small == 0 }
func (i Integer) Text() string   { return i.TextBase(10) }
func (i Integer) TextBase(b int) string {
	if i.big == nil {
		return strconv.FormatInt(i.small, b)
	}
	return i.big.Text(b)
}

// NewInt makes a small Integer.
func NewInt(v int64) Integer { return Integer{small: v} }

// smallInts are the integers 0 to 1023 already held in Values: turning an
// Integer (two words) into a Value allocates, and counts and lengths are
// mostly small.
var smallInts = func() (t [1024]Value) {
	for i := range t {
		t[i] = Integer{small: int64(i)}
	}
	return
}()

// IntValue is NewInt(v) as a Value, without allocating for 0 to 1023.
func IntValue(v int64) Value {
	if v >= 0 && v < int64(len(smallInts)) {
		return smallInts[v]
	}
	return Integer{small: v}
}

// NewIntBig makes an Integer from b without copying it; b must not be
// modified afterwards.
func NewIntBig(b *big.Int) Integer {
	if b.IsInt64() {
		return Integer{small: b.Int64()}
	}
	return Integer{big: b}
}

// ParseInteger parses an optionally signed run of decimal digits, the form
// of P5's integer literals. It reports false on anything else. Long runs
// are read in time close to linear (syntax.ParseDigits).
func ParseInteger(s string) (Integer, bool) {
	if len(s) <= 19 {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && s[0] != '+' {
			return NewInt(v), true
		}
	}
	b, ok := syntax.ParseDigits(s)
	if !ok {
		return Integer{}, false
	}
	return NewIntBig(b), true
}

// Big returns the value as a *big.Int. For large values the shared
// internal pointer is returned: callers must not modify it.
func (i Integer) Big() *big.Int {
	if i.big != nil {
		return i.big
	}
	return big.NewInt(i.small)
}

// Sign is -1, 0 or +1.
func (i Integer) Sign() int {
	if i.big != nil {
		return i.big.Sign()
	}
	switch {
	case i.small < 0:
		return -1
	case i.small > 0:
		return 1
	}
	return 0
}

// Cmp compares two integers.
func (i Integer) Cmp(j Integer) int {
	if i.big == nil && j.big == nil {
		switch {
		case i.small < j.small:
			return -1
		case i.small > j.small:
			return 1
		}
		return 0
	}
	return i.Big().Cmp(j.Big())
}

func (i Integer) Equal(j Integer) bool { return i.Cmp(j) == 0 }

// Add returns i + j.
func (i Integer) Add(j Integer) Integer {
	if i.big == nil && j.big == nil {
		s := i.small + j.small
		// Overflow iff both operands have the sign the sum lacks.
		if (s^i.small)&(s^j.small) >= 0 {
			return Integer{small: s}
		}
	}
	return NewIntBig(new(big.Int).Add(i.Big(), j.Big()))
}

// Sub returns i - j.
func (i Integer) Sub(j Integer) Integer {
	if i.big == nil && j.big == nil {
		d := i.small - j.small
		if (i.small^j.small)&(d^i.small) >= 0 {
			return Integer{small: d}
		}
	}
	return NewIntBig(new(big.Int).Sub(i.Big(), j.Big()))
}

// Mul returns i * j. A product by 0, 1 or -1 makes no new digits:
// multiplying by -1 is priced like a small product however long the other
// factor is.
func (i Integer) Mul(j Integer) Integer {
	if i.big != nil && j.isUnit() || j.big != nil && i.isUnit() {
		return mulUnit(i, j)
	}
	if i.big == nil && j.big == nil {
		a, b := i.small, j.small
		if a == 0 || b == 0 {
			return Integer{}
		}
		hi, lo := bits.Mul64(uabs(a), uabs(b))
		neg := (a < 0) != (b < 0)
		if hi == 0 {
			if !neg && lo <= math.MaxInt64 {
				return Integer{small: int64(lo)}
			}
			if neg && lo <= 1<<63 {
				return Integer{small: int64(-lo)}
			}
		}
	}
	return NewIntBig(new(big.Int).Mul(i.Big(), j.Big()))
}

// isUnit reports whether i is 0, 1 or -1.
func (i Integer) isUnit() bool { return i.big == nil && i.small >= -1 && i.small <= 1 }

// mulUnit is the product of a large integer and 0, 1 or -1.
func mulUnit(i, j Integer) Integer {
	if i.big == nil {
		i, j = j, i
	}
	switch j.small {
	case 0:
		return Integer{}
	case 1:
		return i
	}
	return i.Neg()
}

func uabs(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// Neg returns -i. A large value's negation shares its digits (big values
// are never modified): negate and abs cost P5's flat 100 mg whatever the
// size, so they must not copy a million bits.
func (i Integer) Neg() Integer {
	if i.big == nil {
		if i.small != math.MinInt64 {
			return Integer{small: -i.small}
		}
		return NewIntBig(new(big.Int).Neg(i.Big()))
	}
	n := new(big.Int).SetBits(i.big.Bits()) // |i|, sharing the words
	if i.big.Sign() > 0 {
		n.Neg(n) // in place: only the sign changes
	}
	return NewIntBig(n)
}

// Abs returns |i|.
func (i Integer) Abs() Integer {
	if i.Sign() < 0 {
		return i.Neg()
	}
	return i
}

// DivFloor is Haskell `div`: the quotient rounded toward negative
// infinity. j must not be zero.
func (i Integer) DivFloor(j Integer) Integer {
	if i.big == nil && j.big == nil && !(i.small == math.MinInt64 && j.small == -1) {
		q := i.small / j.small
		if (i.small%j.small != 0) && ((i.small < 0) != (j.small < 0)) {
			q--
		}
		return Integer{small: q}
	}
	q, m := new(big.Int), new(big.Int)
	q.DivMod(i.Big(), j.Big(), m) // Euclidean: m >= 0
	if m.Sign() != 0 && j.Sign() < 0 {
		// Euclidean and floor division differ only for negative divisors
		// with a remainder.
		q.Add(q, big.NewInt(1))
	}
	return NewIntBig(q)
}

// ModFloor is Haskell `mod`: the remainder takes the divisor's sign.
// j must not be zero.
func (i Integer) ModFloor(j Integer) Integer {
	if i.big == nil && j.big == nil {
		if j.small == -1 {
			return Integer{}
		}
		m := i.small % j.small
		if m != 0 && ((m < 0) != (j.small < 0)) {
			m += j.small
		}
		return Integer{small: m}
	}
	m := new(big.Int).Rem(i.Big(), j.Big()) // sign of dividend
	if m.Sign() != 0 && (m.Sign() < 0) != (j.Sign() < 0) {
		m.Add(m, j.Big())
	}
	return NewIntBig(m)
}

// quoRem is Haskell quotRem (truncating division).
func (i Integer) quoRem(j Integer) (Integer, Integer) {
	q, r := new(big.Int).QuoRem(i.Big(), j.Big(), new(big.Int))
	return NewIntBig(q), NewIntBig(r)
}

// And, Or, Xor, Not and Shift are two's-complement operations on the
// unbounded integers, as Haskell's Data.Bits instances for Integer.
func (i Integer) And(j Integer) Integer {
	if i.big == nil && j.big == nil {
		return Integer{small: i.small & j.small}
	}
	return NewIntBig(new(big.Int).And(i.Big(), j.Big()))
}

func (i Integer) Or(j Integer) Integer {
	if i.big == nil && j.big == nil {
		return Integer{small: i.small | j.small}
	}
	return NewIntBig(new(big.Int).Or(i.Big(), j.Big()))
}

func (i Integer) Xor(j Integer) Integer {
	if i.big == nil && j.big == nil {
		return Integer{small: i.small ^ j.small}
	}
	return NewIntBig(new(big.Int).Xor(i.Big(), j.Big()))
}

func (i Integer) Not() Integer {
	if i.big == nil {
		return Integer{small: ^i.small}
	}
	return NewIntBig(new(big.Int).Not(i.big))
}

// maxResultBits bounds numbers built by `shift`, `^` and `*` (about 315,000
// decimal digits, which print in about 50 ms). P5 would try to build them
// (gas normally stops it first); an unbounded request here would take the
// whole node down, so we refuse with an arithmetic error instead.
const maxResultBits = 1 << 20

// Shift shifts left for n > 0 and arithmetically right for n < 0. The
// count is first truncated to a 64-bit Int, as Haskell's fromIntegral does.
func (i Integer) Shift(n Integer) (Integer, error) {
	c := n.small
	if n.big != nil {
		c = int64(new(big.Int).And(n.big, new(big.Int).SetUint64(math.MaxUint64)).Uint64())
	}
	switch {
	case c == 0 || i.IsZero():
		return i, nil
	case c > 0:
		if c > maxResultBits || int64(i.Big().BitLen())+c > maxResultBits {
			return Integer{}, arithErr("shift result too large")
		}
		return NewIntBig(new(big.Int).Lsh(i.Big(), uint(c))), nil
	default:
		if c < -(1 << 40) {
			// Far beyond any representable magnitude: only the sign
			// extension is left.
			if i.Sign() < 0 {
				return NewInt(-1), nil
			}
			return Integer{}, nil
		}
		return NewIntBig(new(big.Int).Rsh(i.Big(), uint(-c))), nil
	}
}

// Pow returns i^e for e >= 0.
func (i Integer) Pow(e Integer) (Integer, error) {
	if e.IsZero() {
		return NewInt(1), nil
	}
	switch {
	case i.IsZero():
		return Integer{}, nil
	case i.big == nil && (i.small == 1 || i.small == -1):
		if i.small == -1 && e.Big().Bit(0) == 1 {
			return NewInt(-1), nil
		}
		return NewInt(1), nil
	}
	if !e.IsSmall() || e.small > maxResultBits || int64(i.Big().BitLen()-1)*e.small > maxResultBits {
		return Integer{}, arithErr("integer power result too large")
	}
	return NewIntBig(new(big.Int).Exp(i.Big(), e.Big(), nil)), nil
}

// ToWord8 is Haskell's fromIntegral :: Integer -> Word8, the low 8 bits of
// the two's-complement representation. P5 converts `round` precisions this
// way, so -1 becomes 255.
func (i Integer) ToWord8() uint8 {
	if i.big == nil {
		return uint8(i.small)
	}
	return uint8(new(big.Int).And(i.big, big.NewInt(255)).Int64())
}

// ClampInt converts to int, saturating at the int range. List and string
// counts are clamped against lengths afterwards, so saturation is exact.
func (i Integer) ClampInt() int {
	if i.big == nil {
		if i.small > math.MaxInt {
			return math.MaxInt
		}
		if i.small < math.MinInt {
			return math.MinInt
		}
		return int(i.small)
	}
	if i.big.Sign() < 0 {
		return math.MinInt
	}
	return math.MaxInt
}

// BitLen is GHC's integerLog2 |i| + 1: the bit length of |i|, 1 for 0.
func (i Integer) BitLen() int {
	if i.big == nil {
		return WordBitLen(i.small)
	}
	return i.big.BitLen()
}

// WordBitLen is the bit length of |v|, 1 for 0: BitLen of a small
// integer.
func WordBitLen(v int64) int {
	if v == 0 {
		return 1
	}
	u := uint64(v)
	if v < 0 {
		u = -u // -MinInt64 wraps to 2^63, which is right as unsigned
	}
	return bits.Len64(u)
}

// CmpBits is the bit length upstream's integer comparisons use: 64 for any
// integer that fits a machine word (GHC's small-integer constructor),
// otherwise the real bit length.
func (i Integer) CmpBits() int {
	if i.big == nil {
		return 64
	}
	return i.big.BitLen()
}
