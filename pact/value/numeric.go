package value

// The pure cores of the numeric natives. Each takes the evaluated
// arguments and returns the result or a *Error with P5's text. Typing
// follows P5's CoreBuiltin: integer op integer stays integer; any decimal
// operand promotes the other (an integer becomes a 0-place decimal).

// NumPair classifies two numeric arguments: both integers, or both
// decimals after promotion. ok is false if either is not a number.
func NumPair(a, b Value) (ai, bi Integer, ad, bd Decimal, ints, ok bool) {
	switch x := a.(type) {
	case Integer:
		switch y := b.(type) {
		case Integer:
			return x, y, Decimal{}, Decimal{}, true, true
		case Decimal:
			return Integer{}, Integer{}, DecimalFromInt(x), y, false, true
		}
	case Decimal:
		switch y := b.(type) {
		case Integer:
			return Integer{}, Integer{}, x, DecimalFromInt(y), false, true
		case Decimal:
			return Integer{}, Integer{}, x, y, false, true
		}
	}
	return
}

// Add is `+`: numbers, and concatenation of strings, lists and objects
// (objects merge left-biased: the left operand's keys win).
func Add(a, b Value) (Value, error) {
	if ai, bi, ad, bd, ints, ok := NumPair(a, b); ok {
		if ints {
			return ai.Add(bi), nil
		}
		return ad.Add(bd), nil
	}
	switch x := a.(type) {
	case String:
		if y, ok := b.(String); ok {
			return x + y, nil
		}
	case List:
		if y, ok := b.(List); ok {
			out := make(List, 0, len(x)+len(y))
			return append(append(out, x...), y...), nil
		}
	case *Object:
		if y, ok := b.(*Object); ok {
			return x.Union(y), nil
		}
	}
	return nil, ArgsError("+", a, b)
}

// Sub is binary `-`.
func Sub(a, b Value) (Value, error) {
	ai, bi, ad, bd, ints, ok := NumPair(a, b)
	switch {
	case !ok:
		return nil, ArgsError("-", a, b)
	case ints:
		return ai.Sub(bi), nil
	}
	return ad.Sub(bd), nil
}

// Mul is `*`.
func Mul(a, b Value) (Value, error) {
	if err := mulSizeCheck(a, b); err != nil {
		return nil, err
	}
	ai, bi, ad, bd, ints, ok := NumPair(a, b)
	switch {
	case !ok:
		return nil, ArgsError("*", a, b)
	case ints:
		return ai.Mul(bi), nil
	}
	return ad.Mul(bd), nil
}

// Div is `/`: floor division on integers, Data.Decimal division otherwise.
func Div(a, b Value) (Value, error) {
	ai, bi, ad, bd, ints, ok := NumPair(a, b)
	switch {
	case !ok:
		return nil, ArgsError("/", a, b)
	case ints:
		if bi.IsZero() {
			return nil, arithErr("div by zero")
		}
		return ai.DivFloor(bi), nil
	}
	if bd.IsZero() {
		return nil, arithErr("div by zero, decimal")
	}
	return ad.Quo(bd), nil
}

// Mod is `mod` (Haskell mod: the result has the divisor's sign). P5 lets
// Haskell's DivideByZero escape, which surfaces as an unknown exception.
func Mod(a, b Value) (Value, error) {
	x, ok1 := a.(Integer)
	y, ok2 := b.(Integer)
	if !ok1 || !ok2 {
		return nil, ArgsError("mod", a, b)
	}
	if y.IsZero() {
		return nil, EvalError("Unknown exception: divide by zero")
	}
	return x.ModFloor(y), nil
}

// Negate is `negate` and unary `-`; decimals keep their places.
func Negate(a Value) (Value, error) {
	switch x := a.(type) {
	case Integer:
		return x.Neg(), nil
	case Decimal:
		return x.Neg(), nil
	}
	return nil, ArgsError("negate", a)
}

// Abs is `abs`; decimals keep their places.
func Abs(a Value) (Value, error) {
	switch x := a.(type) {
	case Integer:
		return x.Abs(), nil
	case Decimal:
		return x.Abs(), nil
	}
	return nil, ArgsError("abs", a)
}

// Dec is `dec`: an integer as a 0-place decimal.
func Dec(a Value) (Value, error) {
	if x, ok := a.(Integer); ok {
		return DecimalFromInt(x), nil
	}
	return nil, ArgsError("dec", a)
}

func transErr() error {
	return floatErr("Floating operation resulted in Infinity or NaN")
}

func transValue(d Decimal, r transResult) (Value, error) {
	switch r {
	case transNumber:
		return d, nil
	case transTooLarge:
		return nil, arithErr("result too large")
	}
	return nil, transErr()
}

// Pow is `^`. Integer powers are exact; any decimal operand goes through
// MPFR's pow at 53 bits.
func Pow(a, b Value) (Value, error) {
	ai, bi, ad, bd, ints, ok := NumPair(a, b)
	switch {
	case !ok:
		return nil, ArgsError("^", a, b)
	case ints:
		if bi.Sign() < 0 {
			return nil, arithErr("negative exponent in integer power")
		}
		return ai.Pow(bi)
	}
	if ad.IsZero() && bd.Sign() < 0 {
		return nil, floatErr("zero to a negative power is undefined")
	}
	return transValue(mpfrPow(ad, bd))
}

// Log is `log base x`. Two integers give the banker's-rounded integer of
// the decimal result; otherwise the result is a decimal.
func Log(base, x Value) (Value, error) {
	bi, xi, bd, xd, ints, ok := NumPair(base, x)
	if !ok {
		return nil, ArgsError("log", base, x)
	}
	if ints {
		bd, xd = DecimalFromInt(bi), DecimalFromInt(xi)
	}
	switch {
	case bd.Cmp(Decimal{mant: NewInt(1)}) == 0:
		return nil, arithErr("Base 1 not supported")
	case bd.Sign() < 0:
		return nil, arithErr("Negative log base")
	case xd.Sign() <= 0:
		return nil, arithErr("Non-positive log argument")
	}
	d, r := mpfrLog(bd, xd)
	if r != transNumber {
		return nil, transErr()
	}
	if ints {
		return d.RoundTo(0, RoundHalfEven).mant, nil
	}
	return d, nil
}

func asDecimalArg(native string, a Value) (Decimal, error) {
	switch x := a.(type) {
	case Integer:
		return DecimalFromInt(x), nil
	case Decimal:
		return x, nil
	}
	return Decimal{}, ArgsError(native, a)
}

// Exp is `exp`; the result is always a decimal.
func Exp(a Value) (Value, error) {
	d, err := asDecimalArg("exp", a)
	if err != nil {
		return nil, err
	}
	return transValue(mpfrExp(d))
}

// Ln is `ln`; the result is always a decimal.
func Ln(a Value) (Value, error) {
	d, err := asDecimalArg("ln", a)
	if err != nil {
		return nil, err
	}
	if d.Sign() <= 0 {
		return nil, arithErr("Natural logarithm must be greater then 0")
	}
	return transValue(mpfrLn(d))
}

// Sqrt is `sqrt`; the result is always a decimal.
func Sqrt(a Value) (Value, error) {
	d, err := asDecimalArg("sqrt", a)
	if err != nil {
		return nil, err
	}
	if d.Sign() < 0 {
		return nil, arithErr("Square root must be non-negative")
	}
	return transValue(mpfrSqrt(d))
}

// Round is `round`, `floor` and `ceiling` (native names "round", "floor",
// "ceiling" by mode). Without a precision the result is an integer; with
// one it is a decimal with exactly that many places, the precision being
// taken modulo 256 as P5's Word8 conversion does (-1 means 255 places).
func Round(mode RoundMode, a Value, prec ...Value) (Value, error) {
	native := [...]string{RoundHalfEven: "round", RoundFloor: "floor", RoundCeiling: "ceiling"}[mode]
	d, ok := a.(Decimal)
	if !ok || len(prec) > 1 {
		return nil, ArgsError(native, append([]Value{a}, prec...)...)
	}
	if len(prec) == 0 {
		return d.RoundTo(0, mode).mant, nil
	}
	p, ok := prec[0].(Integer)
	if !ok {
		return nil, ArgsError(native, a, prec[0])
	}
	return d.RoundTo(p.ToWord8(), mode), nil
}

// Bitwise natives on integers.

func intArgs(native string, a, b Value) (Integer, Integer, error) {
	x, ok1 := a.(Integer)
	y, ok2 := b.(Integer)
	if !ok1 || !ok2 {
		return Integer{}, Integer{}, ArgsError(native, a, b)
	}
	return x, y, nil
}

// BitAnd is `&`.
func BitAnd(a, b Value) (Value, error) {
	x, y, err := intArgs("&", a, b)
	if err != nil {
		return nil, err
	}
	return x.And(y), nil
}

// BitOr is `|`.
func BitOr(a, b Value) (Value, error) {
	x, y, err := intArgs("|", a, b)
	if err != nil {
		return nil, err
	}
	return x.Or(y), nil
}

// BitXor is `xor`.
func BitXor(a, b Value) (Value, error) {
	x, y, err := intArgs("xor", a, b)
	if err != nil {
		return nil, err
	}
	return x.Xor(y), nil
}

// BitNot is `~`.
func BitNot(a Value) (Value, error) {
	x, ok := a.(Integer)
	if !ok {
		return nil, ArgsError("~", a)
	}
	return x.Not(), nil
}

// Shift is `shift`: left for a positive count, arithmetic right for a
// negative one.
func Shift(a, b Value) (Value, error) {
	x, y, err := intArgs("shift", a, b)
	if err != nil {
		return nil, err
	}
	return x.Shift(y)
}

// mulSizeCheck refuses products of more than maxResultBits bits: repeated
// squaring would otherwise build numbers no one can print (P5 leaves this
// to gas).
func mulSizeCheck(a, b Value) error {
	if mantissaBits(a)+mantissaBits(b) > maxResultBits {
		return arithErr("multiplication result too large")
	}
	return nil
}

func mantissaBits(v Value) int {
	switch x := v.(type) {
	case Integer:
		if x.big == nil {
			return 64
		}
		return x.big.BitLen()
	case Decimal:
		if x.mant.big == nil {
			return 64
		}
		return x.mant.big.BitLen()
	}
	return 0
}
