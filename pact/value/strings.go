package value

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Pure cores of the string, list and object natives. Strings are counted
// in characters (code points), as Haskell's Text is.

// maxBuiltLength bounds lists and strings the natives build from a count
// (make-list, enumerate). P5 would attempt any size and rely on gas; an
// absurd count here would take the node down, so it is an error instead.
const maxBuiltLength = 1 << 24

// RunePrefix returns the first n characters of s (all of s if it has
// fewer).
func RunePrefix(s string, n int) string { return s[:charOffset(s, n)] }

// Length is `length` of a string, list or object.
func Length(a Value) (Value, error) {
	switch x := a.(type) {
	case String:
		return IntValue(int64(runeLen(string(x)))), nil
	case List:
		return IntValue(int64(len(x))), nil
	case *Object:
		return IntValue(int64(x.Len())), nil
	}
	return nil, ArgsError("length", a)
}

// keep computes P5's clamped counts: for n >= 0 the first min(n, length)
// items, for n < 0 the last min(-n, length). It returns the start and end
// of the kept range.
func takeRange(n Integer, length int) (int, int) {
	if n.Sign() >= 0 {
		return 0, min(n.ClampInt(), length)
	}
	c := n.Add(NewInt(int64(length)))
	if c.Sign() < 0 {
		return 0, length
	}
	return c.ClampInt(), length
}

func stringKeys(native string, l List) ([]string, error) {
	ks := make([]string, len(l))
	for i, v := range l {
		s, ok := v.(String)
		if !ok {
			return nil, ArgsError(native, v)
		}
		ks[i] = string(s)
	}
	return ks, nil
}

// charFinder finds characters in strings: by scanning (scanChars), or
// through an interpreter's indexes of long strings (CharIndexCache).
type charFinder interface {
	charOffset(s string, n int) int
	charOffsetFromEnd(s string, n int) int
}

type scanChars struct{}

func (scanChars) charOffset(s string, n int) int        { return charOffset(s, n) }
func (scanChars) charOffsetFromEnd(s string, n int) int { return charOffsetFromEnd(s, n) }

// Take is `take`: a count (negative counts from the end) of a string or a
// list, or a list of keys selecting from an object.
func Take(n, coll Value) (Value, error) { return take(scanChars{}, n, coll) }

// TakeCached is Take finding characters through cache (an interpreter's,
// kept from call to call).
func TakeCached(cache *CharIndexCache, n, coll Value) (Value, error) { return take(cache, n, coll) }

func take(f charFinder, n, coll Value) (Value, error) {
	switch c := n.(type) {
	case Integer:
		switch x := coll.(type) {
		case String:
			// Only the characters kept (or, from the end, the ones
			// skipped) are read, not the whole string.
			s := string(x)
			if c.Sign() >= 0 {
				return String(s[:f.charOffset(s, c.ClampInt())]), nil
			}
			return String(s[f.charOffsetFromEnd(s, c.Neg().ClampInt()):]), nil
		case List:
			lo, hi := takeRange(c, len(x))
			return x[lo:hi:hi], nil
		}
	case List:
		if o, ok := coll.(*Object); ok {
			ks, err := stringKeys("take", c)
			if err != nil {
				return nil, err
			}
			return o.Restrict(ks), nil
		}
	}
	return nil, ArgsError("take", n, coll)
}

// Drop is `drop`: the complement of Take.
func Drop(n, coll Value) (Value, error) { return drop(scanChars{}, n, coll) }

// DropCached is Drop finding characters through cache (see TakeCached).
func DropCached(cache *CharIndexCache, n, coll Value) (Value, error) { return drop(cache, n, coll) }

func drop(f charFinder, n, coll Value) (Value, error) {
	switch c := n.(type) {
	case Integer:
		switch x := coll.(type) {
		case String:
			// drop costs a flat 100 mg: only the characters dropped (or
			// kept, from the end) are read, or an index of a long string,
			// and the rest is shared.
			s := string(x)
			if c.Sign() >= 0 {
				return String(s[f.charOffset(s, c.ClampInt()):]), nil
			}
			return String(s[:f.charOffsetFromEnd(s, c.Neg().ClampInt())]), nil
		case List:
			lo, hi := takeRange(c, len(x))
			if lo == 0 {
				return x[hi:len(x):len(x)], nil
			}
			return x[:lo:lo], nil
		}
	case List:
		if o, ok := coll.(*Object); ok {
			ks, err := stringKeys("drop", c)
			if err != nil {
				return nil, err
			}
			return o.Without(ks), nil
		}
	}
	return nil, ArgsError("drop", n, coll)
}

// Reverse is `reverse` of a list or a string.
func Reverse(a Value) (Value, error) {
	switch x := a.(type) {
	case List:
		out := make(List, len(x))
		for i, v := range x {
			out[len(x)-1-i] = v
		}
		return out, nil
	case String:
		return String(reverseChars(string(x))), nil
	}
	return nil, ArgsError("reverse", a)
}

// Concat is `concat` of a list of strings.
func Concat(a Value) (Value, error) {
	l, ok := a.(List)
	if !ok {
		return nil, ArgsError("concat", a)
	}
	var b strings.Builder
	for _, v := range l {
		s, ok := v.(String)
		if !ok {
			return nil, ArgsError("concat", v)
		}
		b.WriteString(string(s))
	}
	return String(b.String()), nil
}

// StrToList is `str-to-list`: one string per character.
func StrToList(a Value) (Value, error) {
	s, ok := a.(String)
	if !ok {
		return nil, ArgsError("str-to-list", a)
	}
	return explode(string(s)), nil
}

// Remove is `remove` of a key from an object.
func Remove(k, o Value) (Value, error) {
	s, ok1 := k.(String)
	obj, ok2 := o.(*Object)
	if !ok1 || !ok2 {
		return nil, ArgsError("remove", k, o)
	}
	return obj.Remove(string(s)), nil
}

// WrapInt is Haskell's fromIntegral :: Integer -> Int: the low 64 bits.
func WrapInt(i Integer) int64 {
	if i.IsSmall() {
		return i.small
	}
	return int64(new(big.Int).And(i.big, new(big.Int).SetUint64(math.MaxUint64)).Uint64())
}

// At is `at`: an index into a list, or a key of an object. Both misses are
// non-recoverable errors in P5. The index is first truncated to a 64-bit
// Int, as P5's fromIntegral does.
func At(idx, coll Value) (Value, error) {
	switch i := idx.(type) {
	case Integer:
		if l, ok := coll.(List); ok {
			n := WrapInt(i)
			if n < 0 || n >= int64(len(l)) {
				return nil, OutOfBoundsError(len(l), n)
			}
			return l[n], nil
		}
	case String:
		if o, ok := coll.(*Object); ok {
			return o.At(string(i))
		}
	}
	return nil, ArgsError("at", idx, coll)
}

// MakeList is `make-list`: n copies of v (none for n <= 0).
func MakeList(n, v Value) (Value, error) {
	c, ok := n.(Integer)
	if !ok || v.Kind() == KindClosure {
		return nil, ArgsError("make-list", n, v)
	}
	k := WrapInt(c)
	if k > maxBuiltLength {
		return nil, NativeError("make-list", "list too large")
	}
	out := make(List, max(k, 0))
	for i := range out {
		out[i] = v
	}
	return out, nil
}

// Enumerate is `enumerate from to [step]`: inclusive; without a step it
// counts by 1 or -1 toward `to`. A zero step gives []; a step moving away
// from `to` is an error.
func Enumerate(from, to Value, step ...Value) (Value, error) {
	f, ok1 := from.(Integer)
	t, ok2 := to.(Integer)
	if !ok1 || !ok2 || len(step) > 1 {
		return nil, ArgsError("enumerate", append([]Value{from, to}, step...)...)
	}
	inc := NewInt(1)
	if f.Cmp(t) > 0 {
		inc = NewInt(-1)
	}
	if len(step) == 1 {
		s, ok := step[0].(Integer)
		if !ok {
			return nil, ArgsError("enumerate", from, to, step[0])
		}
		inc = s
	}
	switch {
	case f.Equal(t):
		return List{f}, nil
	case inc.IsZero():
		return List{}, nil
	case f.Cmp(t) < 0 && inc.Sign() < 0:
		return nil, enumErr("enumerate: increment diverges below from interval bounds.")
	case f.Cmp(t) > 0 && inc.Sign() > 0:
		return nil, enumErr("enumerate: increment diverges above from interval bounds.")
	}
	n := f.Sub(t).Abs().DivFloor(inc.Abs()).Add(NewInt(1))
	if !n.IsSmall() || n.small > maxBuiltLength {
		return nil, NativeError("enumerate", "list too large")
	}
	out := make(List, n.small)
	cur := f
	for i := range out {
		out[i] = cur
		cur = cur.Add(inc)
	}
	return out, nil
}

// Format is `format`: each {} in the template takes the next argument,
// strings verbatim and other values as Show renders them. Missing
// arguments are an error; extra ones are ignored.
func Format(tmpl, args Value) (Value, error) {
	t, ok1 := tmpl.(String)
	l, ok2 := args.(List)
	if !ok1 || !ok2 {
		return nil, ArgsError("format", tmpl, args)
	}
	parts := strings.Split(string(t), "{}")
	if len(parts) == 1 {
		return t, nil
	}
	if len(parts)-len(l) > 1 {
		return nil, NativeError("format", "not enough arguments for template")
	}
	texts := make([]string, len(parts)-1)
	for i, v := range l[:len(parts)-1] {
		if s, ok := v.(String); ok {
			texts[i] = string(s)
		} else {
			texts[i] = Show(v)
		}
	}
	return String(Interleave(parts, texts)), nil
}

// Interleave joins a template's pieces and the texts that fill its holes,
// texts[i] after parts[i].
func Interleave(parts, texts []string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	for _, t := range texts {
		n += len(t)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		b.WriteString(p)
		if i < len(texts) {
			b.WriteString(texts[i])
		}
	}
	return b.String()
}

// IntToStr is `int-to-str base n`: lowercase digits for bases 2-16, and
// for base 64 the unpadded base64url of n's minimal big-endian bytes.
func IntToStr(base, n Value) (Value, error) {
	b, ok1 := base.(Integer)
	v, ok2 := n.(Integer)
	if !ok1 || !ok2 {
		return nil, ArgsError("int-to-str", base, n)
	}
	switch {
	case v.Sign() < 0:
		return nil, NativeError("int-to-str", "int-to-str error: cannot show negative integer")
	case b.Cmp(NewInt(2)) >= 0 && b.Cmp(NewInt(16)) <= 0:
		return String(v.TextBase(int(b.small))), nil
	case b.Equal(NewInt(64)):
		bs := v.Big().Bytes()
		if len(bs) == 0 {
			bs = []byte{0}
		}
		return String(EncodeBase64URL(bs)), nil
	}
	return nil, NativeError("int-to-str", "invalid base for base64URL conversion")
}

// StrToInt is `str-to-int [base] s`. Without a base, base 10 without a
// sign; bases 2-16 accept 0-9, a-f, A-F; base 64 decodes base64url as a
// big-endian unsigned integer. At most 512 characters.
func StrToInt(args ...Value) (Value, error) {
	var base Integer
	var sv Value
	switch len(args) {
	case 1:
		base, sv = NewInt(10), args[0]
	case 2:
		b, ok := args[0].(Integer)
		if !ok {
			return nil, ArgsError("str-to-int", args...)
		}
		base, sv = b, args[1]
	default:
		return nil, ArgsError("str-to-int", args...)
	}
	s, ok := sv.(String)
	if !ok {
		return nil, ArgsError("str-to-int", args...)
	}
	checkLen := func() error {
		if runeLen(string(s)) > 512 {
			return decodeErr("Invalid input, only up to 512 length supported")
		}
		return nil
	}
	switch {
	case base.Equal(NewInt(64)):
		if err := checkLen(); err != nil {
			return nil, err
		}
		bs, err := DecodeBase64URL(string(s))
		if err != nil {
			return nil, decodeErr("invalid b64 encoding")
		}
		return NewIntBig(new(big.Int).SetBytes(bs)), nil
	case base.Cmp(NewInt(2)) >= 0 && base.Cmp(NewInt(16)) <= 0:
		if err := checkLen(); err != nil {
			return nil, err
		}
		return baseStrToInt(base.small, string(s))
	}
	return nil, NativeError("str-to-int", "Base value must be >= 2 and <= 16, or 64")
}

func hexDigitValue(r rune) (int64, bool) {
	switch {
	case r >= '0' && r <= '9':
		return int64(r - '0'), true
	case r >= 'a' && r <= 'f':
		return int64(r-'a') + 10, true
	case r >= 'A' && r <= 'F':
		return int64(r-'A') + 10, true
	}
	return 0, false
}

// baseStrToInt parses s in base 2-16 after P5's checks, in P5's order:
// every character a hexadecimal digit, then each digit below the base.
// The digits are then converted all at once: one multiplication per digit
// into a growing integer is quadratic.
func baseStrToInt(base int64, s string) (Value, error) {
	if s == "" {
		return nil, decodeErr("empty text: ")
	}
	for i := 0; i < len(s); i++ {
		if _, ok := hexDigitValue(rune(s[i])); !ok {
			return nil, decodeErr("invalid digit: supported digits are 0-9, A-F")
		}
	}
	// Every byte is an ASCII digit from here on.
	for i := 0; i < len(s); i++ {
		if d, _ := hexDigitValue(rune(s[i])); d >= base {
			return nil, decodeErr("character '" + s[i:i+1] + "' is out of range for base " +
				strconv.FormatInt(base, 10) + ": " + s)
		}
	}
	if base == 10 {
		z, _ := syntax.ParseDigits(s)
		return NewIntBig(z), nil
	}
	acc, ok := new(big.Int).SetString(s, int(base))
	if !ok {
		return nil, decodeErr("invalid digit: supported digits are 0-9, A-F")
	}
	return NewIntBig(acc), nil
}

// Base64Encode is `base64-encode`: unpadded base64url of the UTF-8 bytes.
func Base64Encode(a Value) (Value, error) {
	s, ok := a.(String)
	if !ok {
		return nil, ArgsError("base64-encode", a)
	}
	return String(EncodeBase64URL([]byte(s))), nil
}

// Base64Decode is `base64-decode`; the bytes must be valid UTF-8.
func Base64Decode(a Value) (Value, error) {
	s, ok := a.(String)
	if !ok {
		return nil, ArgsError("base64-decode", a)
	}
	b, err := DecodeBase64URL(string(s))
	if err != nil || !utf8.Valid(b) {
		return nil, decodeErr("invalid b64 encoding")
	}
	return String(b), nil
}

// IsCharset is `is-charset`: 0 tests ASCII, 1 Latin-1.
func IsCharset(set, s Value) (Value, error) {
	c, ok1 := set.(Integer)
	str, ok2 := s.(String)
	if !ok1 || !ok2 {
		return nil, ArgsError("is-charset", set, s)
	}
	var limit rune
	switch {
	case c.Equal(NewInt(0)):
		limit = 0x7f
	case c.Equal(NewInt(1)):
		limit = 0xff
	default:
		return nil, NativeError("is-charset", "Unsupported character set")
	}
	// Bytes below 0x80 are ASCII characters, and a string of them is in
	// either set; from the first other byte on, its characters decide.
	for i := 0; i < len(str); i++ {
		if str[i] >= 0x80 {
			for _, r := range string(str[i:]) {
				if r > limit {
					return False, nil
				}
			}
			return True, nil
		}
	}
	return True, nil
}

// ShowNative is the `show` native.
func ShowNative(a Value) (Value, error) {
	if a.Kind() == KindClosure {
		return nil, ArgsError("show", a)
	}
	return String(Show(a)), nil
}
