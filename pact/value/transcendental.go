package value

import (
	"math/big"
	"sync"
)

// Pact 5 computes exp, ln, sqrt, log and decimal ^ with MPFR at its
// default precision (53 bits) and round-to-nearest-even: the decimal
// arguments are first rounded to 53-bit binary floats, the function is
// correctly rounded to 53 bits, and the binary result is converted exactly
// to a decimal (rounded to 255 places, normalized). MPFR's exponent range
// is ±(2^30-1), far wider than float64's, so exp(1000) is a finite
// 434-digit integer rather than an overflow.
//
// Go's math package is neither correctly rounded nor wide enough, so this
// file reproduces MPFR with math/big: each function is evaluated at a
// working precision well above 53 bits with a known error bound, and the
// precision is raised until both ends of the error interval round to the
// same 53-bit float (Ziv's strategy).

const (
	mpfrPrec = 53
	// mpfrEmax is MPFR's default maximum exponent; a result at or above
	// 2^mpfrEmax is +Inf.
	mpfrEmax = 1<<30 - 1
	mpfrEmin = -(1<<30 - 1)
	// zivMaxPrec caps the precision search. Reaching it means the exact
	// result sits on (or astonishingly near) a rounding boundary; the
	// last approximation is then rounded as is.
	zivMaxPrec = 8192
)

// transResult is MPFR's result classes, as Pact's TransResult.
type transResult int

const (
	transNumber transResult = iota
	transNaN
	transInf
	// transTooLarge is our bound, not MPFR's: a finite result whose exact
	// decimal expansion would have more than maxResultBits bits.
	transTooLarge
)

// fromFloat converts a finite result, refusing ones too large to print in
// reasonable time (MPFR's own range reaches 2^(2^30)).
func fromFloat(f *big.Float) (Decimal, transResult) {
	if f.MantExp(nil) > maxResultBits {
		return Decimal{}, transTooLarge
	}
	return floatToDecimal(f), transNumber
}

func newFloat(prec uint) *big.Float {
	return new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven)
}

// decimalToFloat is mpfr_set_q at 53 bits: the decimal's exact value
// correctly rounded.
func decimalToFloat(d Decimal) *big.Float {
	z := newFloat(mpfrPrec)
	if d.places == 0 {
		return z.SetInt(d.mant.Big())
	}
	// The quotient of the exact mantissa and power of ten, correctly
	// rounded, as SetRat would give, without reducing the fraction first
	// (a GCD as long as the mantissa).
	num := new(big.Float).SetInt(d.mant.Big())
	den := new(big.Float).SetInt(pow10(int(d.places)))
	return z.Quo(num, den)
}

// floatToDecimal is mpfr_get_q followed by Data.Decimal's fromRational.
func floatToDecimal(f *big.Float) Decimal {
	if f.Sign() == 0 {
		return Decimal{}
	}
	// Below 2^-860 (about 1.3e-259) the value rounds to 0 at 255 places;
	// skip building the huge power of two.
	if f.MantExp(nil) < -860 {
		return Decimal{}
	}
	if f.IsInt() {
		i, _ := f.Int(nil)
		return Decimal{mant: NewIntBig(i)}
	}
	r, _ := f.Rat(nil)
	return DecimalFromRat(r)
}

// inMpfrRange classifies a correctly rounded result against MPFR's
// exponent range. MPFR represents x = 0.m * 2^e with m in [1/2, 1), which
// is big.Float's MantExp convention.
func inMpfrRange(f *big.Float) (transResult, bool) {
	if f.Sign() == 0 {
		return transNumber, true
	}
	e := f.MantExp(nil)
	if e > mpfrEmax {
		return transInf, false
	}
	if e < mpfrEmin {
		return transNumber, false // underflow: the caller substitutes 0
	}
	return transNumber, true
}

// zivRound rounds the approximation y, whose relative error is below
// 2^-errBits, to 53 bits if that rounding is certain.
func zivRound(y *big.Float, errBits uint) (*big.Float, bool) {
	if y.Sign() == 0 {
		return newFloat(mpfrPrec), true
	}
	eps := new(big.Float).SetPrec(y.Prec()).SetMantExp(big.NewFloat(1), y.MantExp(nil)-int(errBits))
	lo := new(big.Float).SetPrec(y.Prec()+8).Sub(y, eps)
	hi := new(big.Float).SetPrec(y.Prec()+8).Add(y, eps)
	a := newFloat(mpfrPrec).Set(lo)
	b := newFloat(mpfrPrec).Set(hi)
	if a.Cmp(b) == 0 {
		return a, true
	}
	return nil, false
}

// ziv runs approx at increasing precisions until its result rounds
// unambiguously. approx(p) must return a value within relative error
// 2^-p of the exact result.
func ziv(approx func(p uint) *big.Float) *big.Float {
	for p := uint(mpfrPrec + 24); ; p += p / 2 {
		y := approx(p)
		if r, ok := zivRound(y, p); ok {
			return r
		}
		if p > zivMaxPrec {
			return newFloat(mpfrPrec).Set(y)
		}
	}
}

// ln2 is cached at the highest precision computed so far.
var (
	ln2Mu   sync.Mutex
	ln2Val  *big.Float
	ln2Prec uint
)

func ln2(prec uint) *big.Float {
	ln2Mu.Lock()
	defer ln2Mu.Unlock()
	if ln2Val == nil || ln2Prec < prec {
		p := prec + 32
		third := newFloat(p).Quo(newFloat(p).SetInt64(1), newFloat(p).SetInt64(3))
		ln2Val = atanhSeries(third, p)
		ln2Val.Mul(ln2Val, newFloat(p).SetInt64(2))
		ln2Prec = prec
	}
	return newFloat(prec).Set(ln2Val)
}

// atanhSeries sums z + z^3/3 + z^5/5 + ... at precision p, for |z| <= 1/3.
func atanhSeries(z *big.Float, p uint) *big.Float {
	sum := newFloat(p).Set(z)
	z2 := newFloat(p).Mul(z, z)
	pow := newFloat(p).Set(z)
	term := newFloat(p)
	limit := sum.MantExp(nil) - int(p) - 8
	for n := int64(3); ; n += 2 {
		pow.Mul(pow, z2)
		if pow.Sign() == 0 || pow.MantExp(nil) < limit {
			break
		}
		term.Quo(pow, newFloat(p).SetInt64(n))
		sum.Add(sum, term)
	}
	return sum
}

// lnApprox returns ln(x) for x > 0 with relative error below 2^-p.
func lnApprox(x *big.Float, p uint) *big.Float {
	mant := new(big.Float)
	e := x.MantExp(mant) // x = mant * 2^e, mant in [1/2, 1)
	// Move the mantissa into [1/sqrt2, sqrt2) so the series converges fast.
	if mant.Cmp(big.NewFloat(0.7071067811865476)) < 0 {
		mant.SetMantExp(mant, 1)
		e--
	}
	wp := p + 40 + uint(bitLen64(int64(e)))
	m := newFloat(wp).Set(mant)
	one := newFloat(wp).SetInt64(1)
	z := newFloat(wp).Quo(newFloat(wp).Sub(m, one), newFloat(wp).Add(m, one))
	res := atanhSeries(z, wp)
	res.Mul(res, newFloat(wp).SetInt64(2))
	if e != 0 {
		t := newFloat(wp).Mul(ln2(wp), newFloat(wp).SetInt64(int64(e)))
		res.Add(res, t)
	}
	return res
}

// expApprox returns exp(x) with relative error below 2^-p. The caller has
// ruled out overflow, so |x| < 2^31.
func expApprox(x *big.Float, p uint) *big.Float {
	xb := x.MantExp(nil)
	wp := p + 48 + uint(max(xb, 0))
	l2 := ln2(wp)
	// x = k*ln2 + r with |r| <= ln2/2.
	kf := newFloat(wp).Quo(x, l2)
	k, _ := kf.Int64()
	if frac := newFloat(wp).Sub(kf, newFloat(wp).SetInt64(k)); frac.Cmp(big.NewFloat(0.5)) > 0 {
		k++
	} else if frac.Cmp(big.NewFloat(-0.5)) < 0 {
		k--
	}
	r := newFloat(wp).Sub(newFloat(wp).Set(x), newFloat(wp).Mul(l2, newFloat(wp).SetInt64(k)))
	// Halve r s times so the Taylor series converges quickly, then square
	// the sum s times.
	const s = 12
	r.SetMantExp(r, -s)
	sum := newFloat(wp).SetInt64(1)
	term := newFloat(wp).SetInt64(1)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, newFloat(wp).SetInt64(n))
		if term.Sign() == 0 || term.MantExp(nil) < -int(wp)-4 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < s; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

func bitLen64(v int64) int {
	if v < 0 {
		v = -v
	}
	n := 0
	for v != 0 {
		n++
		v >>= 1
	}
	return n
}

// mpfrExp is mpfr_exp at 53 bits.
func mpfrExp(d Decimal) (Decimal, transResult) {
	x := decimalToFloat(d)
	if x.Sign() == 0 {
		return Decimal{mant: NewInt(1)}, transNumber
	}
	// exp overflows MPFR's range above (2^30-1)*ln2 ~ 7.44e8 and
	// underflows below about -7.44e8.
	if x.MantExp(nil) > 31 {
		if x.Sign() > 0 {
			return Decimal{}, transInf
		}
		return Decimal{}, transNumber
	}
	r := ziv(func(p uint) *big.Float { return expApprox(x, p) })
	if cls, ok := inMpfrRange(r); !ok {
		return Decimal{}, cls
	}
	return fromFloat(r)
}

// mpfrLn is mpfr_log at 53 bits. Callers rule out x <= 0 except where
// P5 lets it through (log bases), for which lnFloat handles 0.
func mpfrLn(d Decimal) (Decimal, transResult) {
	f, cls := lnFloat(decimalToFloat(d))
	if cls != transNumber {
		return Decimal{}, cls
	}
	return fromFloat(f)
}

// lnFloat is the correctly rounded natural logarithm: ln 0 = -Inf (reported
// as transInf with a nil value), ln of a negative number is NaN.
func lnFloat(x *big.Float) (*big.Float, transResult) {
	switch x.Sign() {
	case 0:
		return nil, transInf
	case -1:
		return nil, transNaN
	}
	if x.Cmp(big.NewFloat(1)) == 0 {
		return newFloat(mpfrPrec), transNumber
	}
	return ziv(func(p uint) *big.Float { return lnApprox(x, p) }), transNumber
}

// mpfrSqrt is mpfr_sqrt at 53 bits, computed exactly with an integer
// square root and a sticky bit.
func mpfrSqrt(d Decimal) (Decimal, transResult) {
	x := decimalToFloat(d)
	switch x.Sign() {
	case 0:
		return Decimal{}, transNumber
	case -1:
		return Decimal{}, transNaN
	}
	// x = M * 2^E with M an integer of at most 53 bits.
	mant := new(big.Float)
	e := x.MantExp(mant)
	mant.SetMantExp(mant, mpfrPrec)
	m, _ := mant.Int(nil)
	e -= mpfrPrec
	// Scale M up so its root has at least 56 bits, keeping E even.
	shift := 2*(mpfrPrec+4) - m.BitLen()
	if shift < 0 {
		shift = 0
	}
	if (e-shift)%2 != 0 {
		shift++
	}
	n := new(big.Int).Lsh(m, uint(shift))
	root := new(big.Int).Sqrt(n)
	rem := new(big.Int).Sub(n, new(big.Int).Mul(root, root))
	// Append a sticky bit so rounding to 53 bits sees an inexact tail.
	root.Lsh(root, 1)
	if rem.Sign() != 0 {
		root.SetBit(root, 0, 1)
	}
	r := newFloat(mpfrPrec).SetInt(root)
	r.SetMantExp(r, (e-shift)/2-1)
	return fromFloat(r)
}

// mpfrPow is mpfr_pow at 53 bits. P5 rejects 0 to a negative power
// before calling it.
func mpfrPow(bd, ed Decimal) (Decimal, transResult) {
	x := decimalToFloat(bd)
	y := decimalToFloat(ed)
	one := big.NewFloat(1)
	switch {
	case y.Sign() == 0 || x.Cmp(one) == 0:
		return Decimal{mant: NewInt(1)}, transNumber
	case x.Sign() == 0:
		if y.Sign() > 0 {
			return Decimal{}, transNumber
		}
		return Decimal{}, transInf
	}
	neg := false
	if x.Sign() < 0 {
		if !y.IsInt() {
			return Decimal{}, transNaN
		}
		yi, _ := y.Int(nil)
		neg = yi.Bit(0) == 1
		x = new(big.Float).Neg(x)
	}
	var r *big.Float
	if y.IsInt() && y.MantExp(nil) <= 16 {
		r = powExactInt(x, y)
	} else {
		// Overflow/underflow screen: |y*log2(x)| far beyond 2^30 cannot be
		// represented.
		lx := newFloat(64).Set(lnApprox(x, 64))
		t := newFloat(64).Mul(lx, y)
		if t.MantExp(nil) > 31 {
			if t.Sign() > 0 {
				return Decimal{}, transInf
			}
			return Decimal{}, transNumber
		}
		r = ziv(func(p uint) *big.Float {
			wp := p + 16 + uint(max(t.MantExp(nil), 0))
			l := lnApprox(x, wp)
			return expApprox(newFloat(wp).Mul(l, y), wp)
		})
	}
	if r == nil {
		return Decimal{}, transInf
	}
	if cls, ok := inMpfrRange(r); !ok {
		return Decimal{}, cls
	}
	if neg {
		r.Neg(r)
	}
	return fromFloat(r)
}

// powExactInt computes x^y for x > 0 and integral |y| <= 2^16 exactly and
// rounds once, which also gets the results that sit exactly between two
// floats right. It returns nil on overflow.
func powExactInt(x, y *big.Float) *big.Float {
	yi, _ := y.Int64()
	n := yi
	if n < 0 {
		n = -n
	}
	mant := new(big.Float)
	e := x.MantExp(mant)
	mant.SetMantExp(mant, mpfrPrec)
	m, _ := mant.Int(nil)
	e -= mpfrPrec
	// Screen the exponent before building m^n.
	approxExp := (int64(e) + int64(m.BitLen())) * n
	if approxExp > 2*mpfrEmax || approxExp < -2*mpfrEmax {
		if (approxExp > 0) == (yi > 0) {
			return nil
		}
		return newFloat(mpfrPrec)
	}
	p := new(big.Int).Exp(m, big.NewInt(n), nil)
	exp2 := int64(e) * n
	var r *big.Float
	if yi > 0 {
		r = newFloat(mpfrPrec).SetInt(p)
		return r.SetMantExp(r, int(exp2))
	}
	num := new(big.Float).SetInt64(1)
	den := new(big.Float).SetInt(p)
	r = newFloat(mpfrPrec).Quo(num, den)
	return r.SetMantExp(r, int(-exp2))
}

// mpfrLog is Pact's mpfr_log base x: ln(x)/ln(base), each logarithm and
// the quotient separately rounded to 53 bits as P5's C code does.
func mpfrLog(base, x Decimal) (Decimal, transResult) {
	lb, cb := lnFloat(decimalToFloat(base))
	lx, cx := lnFloat(decimalToFloat(x))
	if cb == transNaN || cx == transNaN {
		return Decimal{}, transNaN
	}
	switch {
	case cx == transInf && cb == transInf:
		return Decimal{}, transNaN // -Inf / -Inf
	case cx == transInf:
		return Decimal{}, transInf
	case cb == transInf:
		return Decimal{}, transNumber // finite / -Inf = -0
	case lb.Sign() == 0:
		if lx.Sign() == 0 {
			return Decimal{}, transNaN
		}
		return Decimal{}, transInf
	}
	q := newFloat(mpfrPrec).Quo(lx, lb)
	return fromFloat(q)
}
