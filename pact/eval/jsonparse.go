package eval

import (
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A strict RFC 8259 parser into a small tree (aeson accepts the same
// documents), plus the number conversions aeson's Scientific and
// Haskell's Read perform.

// jnode is the parsed JSON tree.
type jnode struct {
	kind byte // 'n' null, 'b' bool, 's' string, 'd' number, 'a' array, 'o' object
	b    bool
	str  string // string value, or number text
	arr  []*jnode
	obj  map[string]*jnode
	keys []string // object keys, sorted, unique
}

type jsonParser struct {
	s []byte
	i int
}

func (p *jsonParser) fail(msg string) error {
	return &Error{Kind: ErrJSON, Msg: "JSON decode error at offset " + strconv.Itoa(p.i) + ": " + msg}
}

func (p *jsonParser) skipWS() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) lit(word string) bool {
	if strings.HasPrefix(string(p.s[p.i:min(len(p.s), p.i+len(word))]), word) {
		p.i += len(word)
		return true
	}
	return false
}

func (p *jsonParser) value(depth int) (*jnode, error) {
	if depth > maxJSONDepth {
		return nil, p.fail("nesting too deep")
	}
	if p.i >= len(p.s) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		p.i++
		n := &jnode{kind: 'a'}
		p.skipWS()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n, nil
		}
		for {
			p.skipWS()
			e, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.arr = append(n.arr, e)
			p.skipWS()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return n, nil
			}
			return nil, p.fail("expected ',' or ']'")
		}
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: 's', str: s}, nil
	case c == 't' && p.lit("true"):
		return &jnode{kind: 'b', b: true}, nil
	case c == 'f' && p.lit("false"):
		return &jnode{kind: 'b'}, nil
	case c == 'n' && p.lit("null"):
		return &jnode{kind: 'n'}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.fail("unexpected character")
}

func (p *jsonParser) object(depth int) (*jnode, error) {
	p.i++
	n := &jnode{kind: 'o', obj: map[string]*jnode{}}
	p.skipWS()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return n, nil
	}
	for {
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.fail("expected object key")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.fail("expected ':'")
		}
		p.i++
		p.skipWS()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.obj[k] = v // a repeated key keeps its last value
		p.skipWS()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			break
		}
		return nil, p.fail("expected ',' or '}'")
	}
	for k := range n.obj {
		n.keys = append(n.keys, k)
	}
	slices.Sort(n.keys)
	return n, nil
}

func (p *jsonParser) string() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.fail("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.fail("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.fail("bad \\u escape")
				}
				if utf16.IsSurrogate(r) {
					if r >= 0xdc00 || !p.lit(`\u`) {
						return "", p.fail("lone surrogate")
					}
					lo, ok := p.hex4()
					if !ok || lo < 0xdc00 || lo > 0xdfff {
						return "", p.fail("lone surrogate")
					}
					r = utf16.DecodeRune(r, lo)
				}
				b.WriteRune(r)
			default:
				return "", p.fail("bad escape")
			}
		default:
			r, size := utf8.DecodeRune(p.s[p.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.fail("invalid UTF-8")
			}
			b.Write(p.s[p.i : p.i+size])
			p.i += size
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.s[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

func (p *jsonParser) number() (*jnode, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.i += digitRun(string(p.s[p.i:]))
	default:
		return nil, p.fail("bad number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		k := digitRun(string(p.s[p.i:]))
		if k == 0 {
			return nil, p.fail("bad number")
		}
		p.i += k
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		k := digitRun(string(p.s[p.i:]))
		if k == 0 {
			return nil, p.fail("bad number")
		}
		p.i += k
	}
	return &jnode{kind: 'd', str: string(p.s[start:p.i])}, nil
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
	b, ok := new(big.Int).SetString(s, base)
	if !ok {
		return Integer{}, false
	}
	if neg {
		b.Neg(b)
	}
	return NewIntBig(b), true
}
