package jsontext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of a document; aeson has no limit, but a
// deep document would exhaust the goroutine stack.
const MaxDepth = 512

// A Builder makes the caller's tree out of the values Parse reads, the
// innermost first. Parse hands over the slices it passes; a Builder may
// keep them.
type Builder[N any] interface {
	Null() N
	Bool(v bool) N
	String(s string) N
	// Number gets the number's text as written, which Parse has checked
	// against RFC 8259's grammar.
	Number(text string) N
	Array(elems []N) N
	// Object gets the members in document order, repeated keys included.
	Object(keys []string, vals []N) N
}

// Options are the two points on which the wire format's reader and the
// Pact value reader have always differed.
type Options struct {
	// ReplaceLoneSurrogates reads a \u escape of an unpaired UTF-16
	// surrogate as U+FFFD, as aeson's Text decoding of a command does;
	// otherwise it is a LoneSurrogate error.
	ReplaceLoneSurrogates bool
	// CheckUTF8AtEnd checks a string's UTF-8 once its closing quote is
	// read, so that a later control character or bad escape is the error
	// reported; the offset is then that of the closing quote, or just past
	// it for a string that held an escape. Otherwise each rune is checked
	// as it is read and an InvalidUTF8 error names its offset.
	CheckUTF8AtEnd bool
}

// Problem says what was wrong with a malformed document.
type Problem uint8

const (
	EndOfInput         Problem = iota // a value was expected and the input ended
	TooDeep                           // nested more than MaxDepth deep
	UnexpectedChar                    // no value starts with Char
	ExpectedKey                       // an object member does not start with a string
	ExpectedColon                     // no ':' after Key
	ExpectedObjectEnd                 // no ',' or '}' after a member
	ExpectedArrayEnd                  // no ',' or ']' after an element
	UnterminatedString                // the input ended inside a string
	EndInEscape                       // the input ended just after a backslash
	ControlChar                       // Char, a control character, stands raw in a string
	BadEscape                         // Char is no escape
	BadUnicodeEscape                  // \u is not followed by four hex digits
	LoneSurrogate                     // a surrogate escape without its pair
	InvalidUTF8                       // a string's bytes are not UTF-8
	NumberNoDigits                    // a number has no integer digits
	NumberNoFraction                  // a number has no digits after '.'
	NumberNoExponent                  // a number has no digits in its exponent
	TrailingData                      // something follows the document's value
)

// A SyntaxError is a malformed document: what was wrong and at which byte
// offset (for the problems of an input that ended, its length). Its text
// is the wire format's (pact/api's); the Pact value reader words its own.
type SyntaxError struct {
	Offset  int
	Problem Problem
	Char    byte   // for UnexpectedChar, ControlChar and BadEscape
	Key     string // for ExpectedColon
}

func (e *SyntaxError) Error() string {
	return "invalid JSON at offset " + strconv.Itoa(e.Offset) + ": " + e.what()
}

func (e *SyntaxError) what() string {
	switch e.Problem {
	case EndOfInput:
		return "unexpected end of input"
	case TooDeep:
		return "nested more than " + strconv.Itoa(MaxDepth) + " deep"
	case UnexpectedChar:
		return fmt.Sprintf("unexpected character %q", e.Char)
	case ExpectedKey:
		return "expected a string key"
	case ExpectedColon:
		return fmt.Sprintf("expected ':' after key %q", e.Key)
	case ExpectedObjectEnd:
		return "expected ',' or '}'"
	case ExpectedArrayEnd:
		return "expected ',' or ']'"
	case UnterminatedString, EndInEscape:
		return "unterminated string"
	case ControlChar:
		return fmt.Sprintf("control character %#02x in string", e.Char)
	case BadEscape:
		return fmt.Sprintf("invalid escape \\%c", e.Char)
	case BadUnicodeEscape:
		return "invalid \\u escape"
	case LoneSurrogate:
		return "unpaired surrogate in \\u escape"
	case InvalidUTF8:
		return "invalid UTF-8 in string"
	case NumberNoDigits:
		return "invalid number"
	case NumberNoFraction:
		return "invalid number: no digits after '.'"
	case NumberNoExponent:
		return "invalid number: no digits in the exponent"
	}
	return "unexpected data after the JSON value"
}

// Parse reads one JSON document (surrounding whitespace allowed) into b's
// tree.
func Parse[N any](data []byte, b Builder[N], opts Options) (N, error) {
	p := parser[N]{s: data, b: b, opts: opts}
	p.ws()
	n, err := p.value(0)
	if err != nil {
		return n, err
	}
	p.ws()
	if p.i != len(p.s) {
		var zero N
		return zero, p.fail(TrailingData)
	}
	return n, nil
}

type parser[N any] struct {
	s    []byte
	i    int
	b    Builder[N]
	opts Options
}

func (p *parser[N]) fail(what Problem) error {
	return &SyntaxError{Offset: p.i, Problem: what}
}

func (p *parser[N]) failChar(what Problem, c byte) error {
	return &SyntaxError{Offset: p.i, Problem: what, Char: c}
}

func (p *parser[N]) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser[N]) word(w string) bool {
	if len(p.s)-p.i >= len(w) && string(p.s[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

func (p *parser[N]) value(depth int) (n N, err error) {
	if depth > MaxDepth {
		return n, p.fail(TooDeep)
	}
	if p.i >= len(p.s) {
		return n, p.fail(EndOfInput)
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return n, err
		}
		return p.b.String(s), nil
	case c == '-' || c >= '0' && c <= '9':
		text, err := p.number()
		if err != nil {
			return n, err
		}
		return p.b.Number(text), nil
	case p.word("true"):
		return p.b.Bool(true), nil
	case p.word("false"):
		return p.b.Bool(false), nil
	case p.word("null"):
		return p.b.Null(), nil
	}
	return n, p.failChar(UnexpectedChar, p.s[p.i])
}

func (p *parser[N]) object(depth int) (n N, err error) {
	p.i++
	var keys []string
	var vals []N
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return p.b.Object(nil, nil), nil
	}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return n, p.fail(ExpectedKey)
		}
		k, err := p.string()
		if err != nil {
			return n, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return n, &SyntaxError{Offset: p.i, Problem: ExpectedColon, Key: k}
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return n, err
		}
		keys = append(keys, k)
		vals = append(vals, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return p.b.Object(keys, vals), nil
		}
		return n, p.fail(ExpectedObjectEnd)
	}
}

func (p *parser[N]) array(depth int) (n N, err error) {
	p.i++
	var elems []N
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return p.b.Array(nil), nil
	}
	for {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return n, err
		}
		elems = append(elems, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return p.b.Array(elems), nil
		}
		return n, p.fail(ExpectedArrayEnd)
	}
}

// firstInvalid is the offset of the first byte of b that does not begin a
// UTF-8 encoded rune, or -1. (An encoded U+FFFD is valid.)
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

func (p *parser[N]) string() (string, error) {
	p.i++ // the opening quote
	start := p.i
	// The common case: no escape and no control character, so the value
	// is the bytes between the quotes.
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			s := p.s[start:p.i]
			if !utf8.Valid(s) {
				if !p.opts.CheckUTF8AtEnd {
					p.i = start + firstInvalid(s)
				}
				return "", p.fail(InvalidUTF8)
			}
			p.i++
			return string(s), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	if !p.opts.CheckUTF8AtEnd {
		if bad := firstInvalid(p.s[start:p.i]); bad >= 0 {
			p.i = start + bad
			return "", p.fail(InvalidUTF8)
		}
	}
	var b strings.Builder
	b.Write(p.s[start:p.i])
	for {
		if p.i >= len(p.s) {
			return "", p.fail(UnterminatedString)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			s := b.String()
			if p.opts.CheckUTF8AtEnd && !utf8.ValidString(s) {
				return "", p.fail(InvalidUTF8)
			}
			return s, nil
		case c < 0x20:
			return "", p.failChar(ControlChar, c)
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf || p.opts.CheckUTF8AtEnd:
			b.WriteByte(c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.s[p.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.fail(InvalidUTF8)
			}
			b.Write(p.s[p.i : p.i+size])
			p.i += size
		}
	}
}

// escape reads the escape at p.i (a backslash) into b.
func (p *parser[N]) escape(b *strings.Builder) error {
	if p.i+1 >= len(p.s) {
		return &SyntaxError{Offset: len(p.s), Problem: EndInEscape}
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
			return p.fail(BadUnicodeEscape)
		}
		if utf16.IsSurrogate(r) {
			var err error
			if r, err = p.lowSurrogate(r); err != nil {
				return err
			}
		}
		b.WriteRune(r)
	default:
		return p.failChar(BadEscape, e)
	}
	return nil
}

// lowSurrogate completes the surrogate escape hi, just read, with the
// escape of its pair.
func (p *parser[N]) lowSurrogate(hi rune) (rune, error) {
	paired := hi < 0xdc00 && len(p.s)-p.i >= 2 && p.s[p.i] == '\\' && p.s[p.i+1] == 'u'
	if p.opts.ReplaceLoneSurrogates {
		if paired {
			save := p.i
			p.i += 2
			if lo, ok := p.hex4(); ok && lo >= 0xdc00 && lo <= 0xdfff {
				return utf16.DecodeRune(hi, lo), nil
			}
			p.i = save
		}
		return utf8.RuneError, nil
	}
	if !paired {
		return 0, p.fail(LoneSurrogate)
	}
	p.i += 2
	lo, ok := p.hex4()
	if !ok || lo < 0xdc00 || lo > 0xdfff {
		return 0, p.fail(LoneSurrogate)
	}
	return utf16.DecodeRune(hi, lo), nil
}

func (p *parser[N]) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.s[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// number reads a number and returns its text.
func (p *parser[N]) number() (string, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if p.digits() == 0 {
		return "", p.fail(NumberNoDigits)
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return "", p.fail(NumberNoFraction)
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return "", p.fail(NumberNoExponent)
		}
	}
	return string(p.s[start:p.i]), nil
}

func (p *parser[N]) digits() int {
	n := 0
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}
