package api

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ledgernode/ledger-node/pact/eval"
)

// A document (JSON, or YAML read as P5 reads it) is decoded into a tree of
// nodes first; the typed decoders then walk the tree, naming the path of
// whatever they reject.

type kind byte

const (
	kNull kind = iota
	kBool
	kString
	kNumber
	kArray
	kObject
)

func (k kind) String() string {
	switch k {
	case kNull:
		return "null"
	case kBool:
		return "a boolean"
	case kString:
		return "a string"
	case kNumber:
		return "a number"
	case kArray:
		return "an array"
	}
	return "an object"
}

// node is a JSON value. Objects keep their keys in document order,
// repetitions included (YAML mappings arrive with repetitions resolved).
type node struct {
	kind  kind
	b     bool
	str   string // a string's value; a number's JSON text
	elems []*node
	keys  []string
	vals  []*node
	// line is the YAML line of the value, 0 for JSON.
	line int
}

// describe names the value for an error message: its kind, and for
// scalars the value itself.
func (n *node) describe() string {
	switch n.kind {
	case kBool:
		return "the boolean " + strconv.FormatBool(n.b)
	case kString:
		return "the string " + quoteShort(n.str)
	case kNumber:
		return "the number " + n.str
	}
	return n.kind.String()
}

func quoteShort(s string) string {
	const max = 80
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "..."
	}
	return strconv.Quote(s)
}

// get returns the last value of key k (aeson and Data.Yaml keep the last).
func (n *node) get(k string) (*node, bool) {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == k {
			return n.vals[i], true
		}
	}
	return nil, false
}

// opt is aeson's .:? — a missing key and null are both absent.
func (n *node) opt(k string) (*node, bool) {
	v, ok := n.get(k)
	if !ok || v.kind == kNull {
		return nil, false
	}
	return v, true
}

// firstDuplicate returns a key that occurs twice, if any.
func (n *node) firstDuplicate() (string, bool) {
	if len(n.keys) < 2 {
		return "", false
	}
	if len(n.keys) <= 16 {
		for i := 1; i < len(n.keys); i++ {
			for j := 0; j < i; j++ {
				if n.keys[i] == n.keys[j] {
					return n.keys[i], true
				}
			}
		}
		return "", false
	}
	seen := make(map[string]struct{}, len(n.keys))
	for _, k := range n.keys {
		if _, dup := seen[k]; dup {
			return k, true
		}
		seen[k] = struct{}{}
	}
	return "", false
}

// appendJSON writes n back as compact JSON (numbers as written).
func (n *node) appendJSON(buf []byte) []byte {
	switch n.kind {
	case kNull:
		return append(buf, "null"...)
	case kBool:
		return strconv.AppendBool(buf, n.b)
	case kString:
		return appendString(buf, n.str)
	case kNumber:
		return append(buf, n.str...)
	case kArray:
		buf = append(buf, '[')
		for i, e := range n.elems {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = e.appendJSON(buf)
		}
		return append(buf, ']')
	}
	buf = append(buf, '{')
	for i, k := range n.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, k)
		buf = append(buf, ':')
		buf = n.vals[i].appendJSON(buf)
	}
	return append(buf, '}')
}

// appendString writes s as a JSON string, escaped as P5 escapes it.
func appendString(buf []byte, s string) []byte {
	out, _ := eval.AppendJSON(buf, eval.String(s))
	return out
}

// maxDepth bounds the nesting of documents (as eval.DecodeJSON does), so
// that decoding runs in bounded stack.
const maxDepth = 512

// parseJSON parses one JSON document (RFC 8259, UTF-8, surrounding
// whitespace allowed).
func parseJSON(data []byte) (*node, error) {
	p := jsonParser{s: data}
	p.ws()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.errorf("unexpected data after the JSON value")
	}
	return n, nil
}

type jsonParser struct {
	s    []byte
	i    int
	slab []node // nodes are allocated in chunks
}

func (p *jsonParser) newNode(k kind) *node {
	if len(p.slab) == 0 {
		p.slab = make([]node, 16)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.kind = k
	return n
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested more than %d deep", maxDepth)
	}
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		n := p.newNode(kString)
		n.str = s
		return n, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case p.word("true"):
		n := p.newNode(kBool)
		n.b = true
		return n, nil
	case p.word("false"):
		return p.newNode(kBool), nil
	case p.word("null"):
		return p.newNode(kNull), nil
	}
	return nil, p.errorf("unexpected character %q", p.s[p.i])
}

func (p *jsonParser) word(w string) bool {
	if len(p.s)-p.i >= len(w) && string(p.s[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

func (p *jsonParser) object(depth int) (*node, error) {
	p.i++
	n := p.newNode(kObject)
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return n, nil
	}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.errorf("expected a string key")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("expected ':' after key %q", k)
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, k)
		n.vals = append(n.vals, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return n, nil
		}
		return nil, p.errorf("expected ',' or '}'")
	}
}

func (p *jsonParser) array(depth int) (*node, error) {
	p.i++
	n := p.newNode(kArray)
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return n, nil
	}
	for {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n, nil
		}
		return nil, p.errorf("expected ',' or ']'")
	}
}

func (p *jsonParser) string() (string, error) {
	p.i++ // the opening quote
	start := p.i
	// Fast path: no escapes.
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			s := p.s[start:p.i]
			if !utf8.Valid(s) {
				return "", p.errorf("invalid UTF-8 in string")
			}
			p.i++
			return string(s), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	var b strings.Builder
	b.Write(p.s[start:p.i])
	for {
		if p.i >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			s := b.String()
			if !utf8.ValidString(s) {
				return "", p.errorf("invalid UTF-8 in string")
			}
			return s, nil
		case c < 0x20:
			return "", p.errorf("control character %#02x in string", c)
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		e := p.s[p.i]
		p.i++
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
				return "", p.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				if r < 0xdc00 && p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
						r = utf16.DecodeRune(r, r2)
					} else {
						p.i = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			return "", p.errorf("invalid escape \\%c", e)
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
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

func (p *jsonParser) number() (*node, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.errorf("invalid number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errorf("invalid number: no digits after '.'")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number: no digits in the exponent")
		}
	}
	n := p.newNode(kNumber)
	n.str = string(p.s[start:p.i])
	return n, nil
}
