package value

import (
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/jsontext"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// JSON documents are read by package jsontext into a small tree of jnodes
// (aeson accepts the same documents); this file also holds the number
// conversions aeson's Scientific and Haskell's Read perform.

// jnode is the parsed JSON tree.
type jnode struct {
	kind byte // 'n' null, 'b' bool, 's' string, 'd' number, 'a' array, 'o' object
	b    bool
	str  string // string value, or number text
	arr  []*jnode
	obj  map[string]*jnode
	keys []string // object keys, sorted, unique
}

// parseJSONTree reads one document (surrounding whitespace allowed). A
// lone surrogate escape and invalid UTF-8 are errors, reported where they
// stand.
func parseJSONTree(data []byte) (*jnode, error) {
	n, err := jsontext.Parse[*jnode](data, jnodeBuilder{}, jsontext.Options{})
	if err != nil {
		return nil, jsonSyntaxError(err.(*jsontext.SyntaxError))
	}
	return n, nil
}

// jsonSyntaxError words a malformed document as DecodeJSON always has.
func jsonSyntaxError(e *jsontext.SyntaxError) error {
	at, msg := e.Offset, ""
	switch e.Problem {
	case jsontext.EndOfInput:
		msg = "unexpected end of input"
	case jsontext.TooDeep:
		msg = "nesting too deep"
	case jsontext.UnexpectedChar:
		msg = "unexpected character"
	case jsontext.ExpectedKey:
		msg = "expected object key"
	case jsontext.ExpectedColon:
		msg = "expected ':'"
	case jsontext.ExpectedObjectEnd:
		msg = "expected ',' or '}'"
	case jsontext.ExpectedArrayEnd:
		msg = "expected ',' or ']'"
	case jsontext.UnterminatedString:
		msg = "unterminated string"
	case jsontext.EndInEscape:
		at, msg = at-1, "unterminated escape" // at the backslash
	case jsontext.ControlChar:
		msg = "control character in string"
	case jsontext.BadEscape:
		msg = "bad escape"
	case jsontext.BadUnicodeEscape:
		msg = "bad \\u escape"
	case jsontext.LoneSurrogate:
		msg = "lone surrogate"
	case jsontext.InvalidUTF8:
		msg = "invalid UTF-8"
	case jsontext.NumberNoDigits, jsontext.NumberNoFraction, jsontext.NumberNoExponent:
		msg = "bad number"
	default:
		msg = "trailing data"
	}
	return &Error{Kind: ErrJSON, Msg: "JSON decode error at offset " + strconv.Itoa(at) + ": " + msg}
}

// jnodeBuilder makes jnodes for jsontext.Parse.
type jnodeBuilder struct{}

func (jnodeBuilder) Null() *jnode                { return &jnode{kind: 'n'} }
func (jnodeBuilder) Bool(v bool) *jnode          { return &jnode{kind: 'b', b: v} }
func (jnodeBuilder) String(s string) *jnode      { return &jnode{kind: 's', str: s} }
func (jnodeBuilder) Number(text string) *jnode   { return &jnode{kind: 'd', str: text} }
func (jnodeBuilder) Array(elems []*jnode) *jnode { return &jnode{kind: 'a', arr: elems} }

// Object keeps a repeated key's last value, as aeson does; keys, which
// Parse hands over, becomes the sorted set of keys.
func (jnodeBuilder) Object(keys []string, vals []*jnode) *jnode {
	n := &jnode{kind: 'o', obj: make(map[string]*jnode, len(keys))}
	for i, k := range keys {
		n.obj[k] = vals[i]
	}
	slices.Sort(keys)
	n.keys = slices.Compact(keys)
	return n
}

// splitNumber returns a JSON number as digits * 10^exp10 with its sign.
func splitNumber(s string) (neg bool, digits string, exp10 int64, err error) {
	neg = strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, e, hasExp := strings.Cut(strings.ToLower(s), "e")
	ip, fp, _ := strings.Cut(mant, ".")
	digits = strings.TrimLeft(ip+fp, "0")
	exp10 = -int64(len(fp))
	if hasExp {
		v, perr := strconv.ParseInt(e, 10, 64)
		if perr != nil || v > maxReadExponent || v < -maxReadExponent {
			return false, "", 0, EvalError("JSON number exponent out of range: " + s)
		}
		exp10 += v
	}
	return neg, digits, exp10, nil
}

// numberToDecimal is aeson's Scientific read into a Decimal with
// fromRational: the exact value rounded to 255 places (banker's) and
// normalized.
func numberToDecimal(s string) (Decimal, error) {
	neg, digits, exp10, err := splitNumber(s)
	if err != nil {
		return Decimal{}, err
	}
	if digits == "" {
		return Decimal{}, nil
	}
	m, _ := ParseInteger(digits)
	if neg {
		m = m.Neg()
	}
	switch {
	case exp10 >= 0:
		if exp10 > maxReadExponent {
			return Decimal{}, EvalError("JSON number too large: " + s)
		}
		return Decimal{mant: m.Mul(pow10Int(int(exp10)))}, nil
	case -exp10 <= MaxPlaces:
		return normalize(Decimal{places: uint8(-exp10), mant: m}), nil
	case int64(len(digits))+exp10 < -MaxPlaces-2:
		return Decimal{}, nil // below half a unit in the 255th place
	}
	r := divRoundEven(m, pow10Int(int(-exp10-MaxPlaces)))
	return normalize(Decimal{places: MaxPlaces, mant: r}), nil
}

// numberToInteger is Haskell's `round` of the number: banker's rounding.
func numberToInteger(s string) (Integer, error) {
	neg, digits, exp10, err := splitNumber(s)
	if err != nil {
		return Integer{}, err
	}
	if digits == "" {
		return Integer{}, nil
	}
	m, _ := ParseInteger(digits)
	if neg {
		m = m.Neg()
	}
	switch {
	case exp10 >= 0:
		if exp10 > maxReadExponent {
			return Integer{}, EvalError("JSON number too large: " + s)
		}
		return m.Mul(pow10Int(int(exp10))), nil
	case int64(len(digits))+exp10 <= -1:
		return Integer{}, nil // |value| < 0.1
	}
	return divRoundEven(m, pow10Int(int(-exp10))), nil
}

// ReadInteger is Haskell's `read :: String -> Integer`, which decodes
// {"int": "..."}: surrounding spaces and parentheses, a '-' (possibly
// followed by spaces), and decimal, 0x hexadecimal or 0o octal digits.
func ReadInteger(s string) (Integer, bool) {
	s = trimHsSpace(s)
	for strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		s = trimHsSpace(s[1 : len(s)-1])
	}
	neg := false
	if strings.HasPrefix(s, "-") {
		neg = true
		s = trimHsSpace(s[1:])
	}
	base := 10
	if len(s) > 2 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			base, s = 16, s[2:]
		case 'o', 'O':
			base, s = 8, s[2:]
		}
	}
	if s == "" || strings.ContainsAny(s, "+-_") {
		return Integer{}, false
	}
	var b *big.Int
	var ok bool
	if base == 10 {
		b, ok = syntax.ParseDigits(s) // math/big is quadratic in decimal digits
	} else {
		b, ok = new(big.Int).SetString(s, base)
	}
	if !ok {
		return Integer{}, false
	}
	if neg {
		b.Neg(b)
	}
	return NewIntBig(b), true
}
