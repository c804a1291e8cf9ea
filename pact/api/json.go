package api

import (
	"strconv"
	"unicode/utf8"

	"github.com/ledgernode/ledger-node/pact/jsontext"
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
		return jsontext.AppendString(buf, n.str)
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
		buf = jsontext.AppendString(buf, k)
		buf = append(buf, ':')
		buf = n.vals[i].appendJSON(buf)
	}
	return append(buf, '}')
}

// maxDepth bounds the nesting of documents, JSON's and YAML's alike, so
// that decoding runs in bounded stack.
const maxDepth = jsontext.MaxDepth

// parseJSON parses one JSON document (RFC 8259, UTF-8, surrounding
// whitespace allowed). A lone surrogate escape reads as U+FFFD, as aeson
// reads it into a Text.
func parseJSON(data []byte) (*node, error) {
	b := &nodeBuilder{}
	b.slab = b.first[:]
	return jsontext.Parse[*node](data, b, jsontext.Options{ReplaceLoneSurrogates: true, CheckUTF8AtEnd: true})
}

// nodeBuilder makes nodes for jsontext.Parse, allocating them in chunks.
// The builder escapes to the heap (Parse calls it through an interface),
// so the first chunk is part of it: one allocation, not two.
type nodeBuilder struct {
	slab  []node
	first [16]node
}

func (b *nodeBuilder) newNode(k kind) *node {
	if len(b.slab) == 0 {
		b.slab = make([]node, 16)
	}
	n := &b.slab[0]
	b.slab = b.slab[1:]
	n.kind = k
	return n
}

func (b *nodeBuilder) Null() *node { return b.newNode(kNull) }

func (b *nodeBuilder) Bool(v bool) *node {
	n := b.newNode(kBool)
	n.b = v
	return n
}

func (b *nodeBuilder) String(s string) *node {
	n := b.newNode(kString)
	n.str = s
	return n
}

func (b *nodeBuilder) Number(text string) *node {
	n := b.newNode(kNumber)
	n.str = text
	return n
}

func (b *nodeBuilder) Array(elems []*node) *node {
	n := b.newNode(kArray)
	n.elems = elems
	return n
}

func (b *nodeBuilder) Object(keys []string, vals []*node) *node {
	n := b.newNode(kObject)
	n.keys, n.vals = keys, vals
	return n
}
