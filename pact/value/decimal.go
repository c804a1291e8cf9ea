package value

import (
	"cmp"
	"math/big"
	"math/bits"
	"strings"
	"sync"
	"unicode"
)

// MaxPlaces is Data.Decimal's limit: places are a Word8.
const MaxPlaces = 255

// Decimal is a Pact decimal with Data.Decimal 0.5.2 semantics: a mantissa
// and a count of decimal places (0..255); its value is mant / 10^places.
// The places are part of the value's identity for display (`1.50` shows as
// 1.50) but not for equality or ordering, which are numeric.
type Decimal struct {
	places uint8
	mant   Integer
}

func (Decimal) Kind() Kind       { return KindDecimal }
func (d Decimal) String() string { return Pretty(d) }

// NewDecimal builds mant / 10^places.
func NewDecimal(mant Integer, places uint8) Decimal { return Decimal{places: places, mant: mant} }

// DecimalFromInt is `dec` and the integer promotion of mixed arithmetic:
// the integer with 0 places.
func DecimalFromInt(i Integer) Decimal { return Decimal{mant: i} }

func (d Decimal) Places() uint8     { return d.places }
func (d Decimal) Mantissa() Integer { return d.mant }
func (d Decimal) Sign() int         { return d.mant.Sign() }
func (d Decimal) IsZero() bool      { return d.mant.IsZero() }

// pow10 caches 10^n for the exponents decimal arithmetic needs; the
// cached values are shared and never modified.
var (
	pow10Once  sync.Once
	pow10Table [2*MaxPlaces + 2]*big.Int
)

func pow10(n int) *big.Int {
	if n < len(pow10Table) {
		pow10Once.Do(func() {
			p := big.NewInt(1)
			ten := big.NewInt(10)
			for i := range pow10Table {
				pow10Table[i] = new(big.Int).Set(p)
				p.Mul(p, ten)
			}
		})
		return pow10Table[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// pow10Int is 10^n as an Integer, small when it fits.
func pow10Int(n int) Integer {
	if n < len(pow10Small) {
		return Integer{small: pow10Small[n]}
	}
	return Integer{big: pow10(n)}
}

// pow10Small are the powers of ten that fit an int64: comparing decimals
// of different places scales one of them by one.
var pow10Small = [...]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// scale returns d's mantissa expressed with `places` places (>= d.places).
func (d Decimal) scale(places uint8) Integer {
	if places == d.places {
		return d.mant
	}
	return d.mant.Mul(pow10Int(int(places - d.places)))
}

// Cmp compares numerically.
func (d Decimal) Cmp(e Decimal) int {
	if d.places != e.places {
		// Operands of different signs (a zero among them: amounts are
		// checked against 0.0) are ordered by sign, without scaling one
		// of them up.
		if ds, es := d.mant.Sign(), e.mant.Sign(); ds != es || ds == 0 {
			return cmp.Compare(ds, es)
		}
	}
	p := max(d.places, e.places)
	return d.scale(p).Cmp(e.scale(p))
}

// Equal is numeric equality: 1.5 equals 1.50.
func (d Decimal) Equal(e Decimal) bool { return d.Cmp(e) == 0 }

// IsIntegral reports whether the value is a whole number.
func (d Decimal) IsIntegral() bool {
	if d.places == 0 || d.mant.IsZero() {
		return true
	}
	return d.mant.ModFloor(pow10Int(int(d.places))).IsZero()
}

// Add is Data.Decimal (+): exact, with max(places) places; adding a zero
// operand returns the other operand unchanged (places included).
func (d Decimal) Add(e Decimal) Decimal {
	if d.mant.IsZero() {
		return e
	}
	if e.mant.IsZero() {
		return d
	}
	p := max(d.places, e.places)
	return Decimal{places: p, mant: d.scale(p).Add(e.scale(p))}
}

// Sub is Data.Decimal (-). 0 - e keeps e's places; d - 0 is d.
func (d Decimal) Sub(e Decimal) Decimal {
	if d.mant.IsZero() {
		return Decimal{places: e.places, mant: e.mant.Neg()}
	}
	if e.mant.IsZero() {
		return d
	}
	p := max(d.places, e.places)
	return Decimal{places: p, mant: d.scale(p).Sub(e.scale(p))}
}

// Neg keeps the places (Haskell negate x = 0 - x).
func (d Decimal) Neg() Decimal { return Decimal{places: d.places, mant: d.mant.Neg()} }

// Abs keeps the places.
func (d Decimal) Abs() Decimal { return Decimal{places: d.places, mant: d.mant.Abs()} }

// Mul is Data.Decimal (*): a zero operand gives 0 with 0 places; otherwise
// the exact product is rounded to 255 places (banker's) and normalized.
func (d Decimal) Mul(e Decimal) Decimal {
	if d.mant.IsZero() || e.mant.IsZero() {
		return Decimal{}
	}
	m := d.mant.Mul(e.mant)
	p := int(d.places) + int(e.places)
	if p > MaxPlaces {
		m = divRoundEven(m, pow10Int(p-MaxPlaces))
		p = MaxPlaces
	}
	return normalize(Decimal{places: uint8(p), mant: m})
}

// Quo is Data.Decimal (/): the exact quotient rounded to 255 places
// (banker's) and normalized. e must not be zero; DivDecimal checks.
func (d Decimal) Quo(e Decimal) Decimal {
	// d/e = (dm * 10^ep) / (em * 10^dp); at 255 places the mantissa is
	// dm * 10^(ep + 255 - dp) / em.
	k := int(e.places) + MaxPlaces - int(d.places)
	num := d.mant.Mul(pow10Int(k))
	return normalize(Decimal{places: MaxPlaces, mant: divRoundEven(num, e.mant)})
}

// divRoundEven is Data.Decimal's divRound: n / q rounded to the nearest
// integer, ties to even.
func divRoundEven(n, q Integer) Integer {
	if n.IsSmall() && q.IsSmall() && q.small != -1 {
		a, b := n.small, q.small
		quo, rem := a/b, a%b
		ar, ab := uabs(rem)*2, uabs(b)
		if ar > ab || (ar == ab && quo%2 != 0) {
			if (a < 0) != (b < 0) {
				quo--
			} else {
				quo++
			}
		}
		return NewInt(quo)
	}
	quo, rem := new(big.Int).QuoRem(n.Big(), q.Big(), new(big.Int))
	if rem.Sign() != 0 {
		switch cmp := new(big.Int).Lsh(new(big.Int).Abs(rem), 1).Cmp(new(big.Int).Abs(q.Big())); {
		case cmp > 0 || (cmp == 0 && quo.Bit(0) == 1):
			if n.Sign()*q.Sign() < 0 {
				quo.Sub(quo, big.NewInt(1))
			} else {
				quo.Add(quo, big.NewInt(1))
			}
		}
	}
	return NewIntBig(quo)
}

// normalize is Data.Decimal's normalizeDecimal: the fewest places that
// represent the value exactly (trailing zeros of the mantissa stripped).
func normalize(d Decimal) Decimal {
	if d.mant.IsZero() {
		return Decimal{}
	}
	if d.mant.IsSmall() {
		m, p := d.mant.small, d.places
		for p > 0 && m%10 == 0 {
			m /= 10
			p--
		}
		return Decimal{places: p, mant: NewInt(m)}
	}
	p := int(d.places)
	if p == 0 || d.mant.big.Bit(0) == 1 {
		return d // no trailing zero to strip (an odd mantissa has none)
	}
	// The low 19 digits, from one pass of single-word remainders, say how
	// many zeros end the mantissa when that is fewer than 19: the common
	// case, settled by at most one more such pass.
	switch tz := min(trailingZeros19(d.mant.big), p); {
	case tz == 0:
		return d
	case tz < 19:
		q := new(big.Int).Quo(d.mant.big, pow10(tz))
		return Decimal{places: uint8(p - tz), mant: NewIntBig(q)}
	}
	m := new(big.Int).Set(d.mant.big)
	q, r := new(big.Int), new(big.Int)
	// Strip zeros in shrinking chunks so a 255-place quotient costs a
	// handful of divisions rather than one per digit.
	for _, step := range []int{128, 64, 32, 16, 8, 4, 2, 1} {
		for p >= step {
			q.QuoRem(m, pow10(step), r)
			if r.Sign() != 0 {
				break
			}
			m, q = q, m
			p -= step
		}
	}
	return Decimal{places: uint8(p), mant: NewIntBig(m)}
}

// trailingZeros19 is the number of decimal zeros that end |x| (x != 0),
// or 19 when there are 19 or more: x mod 10^19, word by word from the top,
// without allocating.
func trailingZeros19(x *big.Int) int {
	const p19 = 1e19
	var r uint64
	ws := x.Bits()
	for i := len(ws) - 1; i >= 0; i-- {
		w := uint64(ws[i])
		if bits.UintSize == 32 {
			_, r = bits.Div64(r>>32, r<<32|w, p19) // r·2^32 + w
			continue
		}
		_, r = bits.Div64(r, w, p19) // r·2^64 + w
	}
	n := 0
	for r != 0 && r%10 == 0 && n < 19 {
		r /= 10
		n++
	}
	if r == 0 {
		return 19
	}
	return n
}

// Rat returns the exact value.
func (d Decimal) Rat() *big.Rat {
	return new(big.Rat).SetFrac(d.mant.Big(), pow10(int(d.places)))
}

// DecimalFromRat is Data.Decimal's fromRational: the value rounded to 255
// places (banker's), then normalized.
func DecimalFromRat(r *big.Rat) Decimal {
	num := NewIntBig(new(big.Int).Mul(r.Num(), pow10(MaxPlaces)))
	return normalize(Decimal{places: MaxPlaces, mant: divRoundEven(num, NewIntBig(r.Denom()))})
}

// RoundMode selects the rounding function of Data.Decimal's roundTo'.
type RoundMode int

const (
	RoundHalfEven RoundMode = iota // Prelude.round: banker's rounding
	RoundFloor
	RoundCeiling
)

// RoundTo is Data.Decimal's roundTo' f places: the value rounded by f to
// exactly `places` places. A zero value becomes 0 with `places` places.
func (d Decimal) RoundTo(places uint8, mode RoundMode) Decimal {
	if d.mant.IsZero() {
		return Decimal{places: places}
	}
	if places >= d.places {
		return Decimal{places: places, mant: d.scale(places)}
	}
	div := pow10Int(int(d.places - places))
	var m Integer
	switch mode {
	case RoundFloor:
		m = d.mant.DivFloor(div)
	case RoundCeiling:
		m = d.mant.Neg().DivFloor(div).Neg()
	default:
		m = divRoundEven(d.mant, div)
	}
	return Decimal{places: places, mant: m}
}

// Text is Haskell's `show` for Decimal: the mantissa's digits with exactly
// `places` fractional digits ("1.500" for Decimal 3 1500, "-0.05").
func (d Decimal) Text() string {
	digits := d.mant.Abs().Text()
	sign := ""
	if d.mant.Sign() < 0 {
		sign = "-"
	}
	if d.places == 0 {
		return sign + digits
	}
	e := int(d.places)
	if pad := e + 1 - len(digits); pad > 0 {
		digits = strings.Repeat("0", pad) + digits
	}
	cut := max(1, len(digits)-e)
	return sign + digits[:cut] + "." + digits[cut:]
}

// ParseNumber parses P5's numeric literal syntax (Literal.parseNumLiteral):
// `-?[0-9]+` gives an Integer, `-?[0-9]+\.[0-9]+` a Decimal keeping its
// written places. More than 255 fractional digits is an error.
func ParseNumber(s string) (Value, error) {
	body := s
	neg := false
	if strings.HasPrefix(body, "-") {
		neg = true
		body = body[1:]
	}
	intPart, frac, hasDot := strings.Cut(body, ".")
	if !allDigits(intPart) || (hasDot && !allDigits(frac)) {
		return nil, EvalError("invalid number literal: " + s)
	}
	if !hasDot {
		i, _ := ParseInteger(s)
		return i, nil
	}
	if len(frac) > MaxPlaces {
		return nil, EvalError("decimal precision overflow (255 max): " + s)
	}
	m, _ := ParseInteger(intPart + frac)
	if neg {
		m = m.Neg()
	}
	return Decimal{places: uint8(len(frac)), mant: m}, nil
}

// ParseDecimal is ParseNumber restricted to decimal literals (`1.0`, not
// `1`), the lexer's DECIMAL token.
func ParseDecimal(s string) (Decimal, error) {
	v, err := ParseNumber(s)
	if err != nil {
		return Decimal{}, err
	}
	d, ok := v.(Decimal)
	if !ok {
		return Decimal{}, EvalError("invalid decimal literal: " + s)
	}
	return d, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxReadExponent bounds the positive exponent ReadDecimal accepts.
// Data.Decimal would build the integer whatever its size; a decimal of a
// million digits is no use to a contract and a cheap way to exhaust memory.
const maxReadExponent = 10000

// ReadDecimal is Data.Decimal's Read instance, which decodes the
// {"decimal": "..."} JSON form: optional surrounding spaces, an optional
// sign, digits, optional `.digits`, optional exponent. A negative effective
// exponent beyond 255 places fails; a positive one yields places 0.
func ReadDecimal(s string) (Decimal, bool) {
	s = trimHsSpace(s)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := digitRun(s)
	if n == 0 {
		return Decimal{}, false
	}
	intPart := s[:n]
	s = s[n:]
	frac := ""
	if len(s) > 1 && s[0] == '.' {
		if k := digitRun(s[1:]); k > 0 {
			frac = s[1 : 1+k]
			s = s[1+k:]
		}
	}
	var exp int64
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		rest := s[1:]
		eneg := false
		if rest != "" && (rest[0] == '-' || rest[0] == '+') {
			eneg = rest[0] == '-'
			rest = rest[1:]
		}
		if k := digitRun(rest); k > 0 {
			// Haskell folds the digits into an Int, wrapping on overflow.
			for i := 0; i < k; i++ {
				exp = exp*10 + int64(rest[i]-'0')
			}
			if eneg {
				exp = -exp
			}
			s = rest[k:]
		}
	}
	if s != "" {
		return Decimal{}, false
	}
	m, _ := ParseInteger(intPart + frac)
	if neg {
		m = m.Neg()
	}
	e := int64(len(frac)) - exp
	switch {
	case e < 0:
		if e < -maxReadExponent {
			return Decimal{}, false
		}
		return Decimal{mant: m.Mul(pow10Int(int(-e)))}, true
	case e <= MaxPlaces:
		return Decimal{places: uint8(e), mant: m}, true
	}
	return Decimal{}, false
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// hsIsSpace is Haskell's Data.Char.isSpace: the Latin-1 spaces (tab, LF,
// VT, FF, CR, space, NBSP) and Unicode category Zs.
func hsIsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0xa0:
		return true
	}
	if r < 0x100 {
		return false
	}
	return unicode.Is(unicode.Zs, r)
}

func trimHsSpace(s string) string {
	return strings.TrimFunc(s, hsIsSpace)
}
