package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAML is read into the same tree as JSON, with the scalar resolution of
// Data.Yaml (which P5 uses): see the package comment.

// maxYAMLNodes bounds the values a document may expand to through
// aliases (a few hundred bytes of "billion laughs" would otherwise ask for
// gigabytes).
const maxYAMLNodes = 1 << 18

func parseYAML(data []byte) (n *node, err error) {
	defer func() {
		// yaml.v3 reports some malformed input by panicking inside its
		// own code paths we do not control; a document we cannot read is
		// an error, never a crash.
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("invalid YAML: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &node{kind: kNull}, nil
		}
		return nil, fmt.Errorf("invalid YAML: %v", err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, fmt.Errorf("invalid YAML: %v", err)
		}
		return nil, errors.New("invalid YAML: more than one document")
	}
	c := yamlConverter{active: map[*yaml.Node]bool{}}
	return c.convert(&doc, 0)
}

type yamlConverter struct {
	count  int
	active map[*yaml.Node]bool
}

func (c *yamlConverter) convert(y *yaml.Node, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("line %d: YAML nested more than %d deep", y.Line, maxDepth)
	}
	c.count++
	if c.count > maxYAMLNodes {
		return nil, fmt.Errorf("line %d: YAML document expands to more than %d values", y.Line, maxYAMLNodes)
	}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &node{kind: kNull}, nil
		}
		return c.convert(y.Content[0], depth)
	case yaml.AliasNode:
		if y.Alias == nil || c.active[y.Alias] {
			return nil, fmt.Errorf("line %d: unknown alias *%s", y.Line, y.Value)
		}
		return c.convert(y.Alias, depth+1)
	case yaml.ScalarNode:
		n := scalarValue(y)
		n.line = y.Line
		return n, nil
	case yaml.SequenceNode:
		c.active[y] = true
		defer delete(c.active, y)
		n := &node{kind: kArray, line: y.Line}
		for _, e := range y.Content {
			v, err := c.convert(e, depth+1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		return n, nil
	case yaml.MappingNode:
		c.active[y] = true
		defer delete(c.active, y)
		return c.mapping(y, depth)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", y.Line)
}

// mapping is Data.Yaml's parseM: a repeated key keeps its last value, and
// the key "<<" merges a mapping (or a list of them) under the keys
// already given.
func (c *yamlConverter) mapping(y *yaml.Node, depth int) (*node, error) {
	n := &node{kind: kObject, line: y.Line}
	pos := map[string]int{}
	set := func(k string, v *node) {
		if i, ok := pos[k]; ok {
			n.vals[i] = v
			return
		}
		pos[k] = len(n.keys)
		n.keys = append(n.keys, k)
		n.vals = append(n.vals, v)
	}
	for i := 0; i+1 < len(y.Content); i += 2 {
		kn, vn := y.Content[i], y.Content[i+1]
		var key string
		switch {
		case kn.Kind == yaml.ScalarNode:
			key = kn.Value
		case kn.Kind == yaml.AliasNode && kn.Alias != nil && !c.active[kn.Alias]:
			k, err := c.convert(kn, depth+1)
			if err != nil {
				return nil, err
			}
			if k.kind != kString {
				return nil, fmt.Errorf("line %d: a mapping key alias must name a string, not %s", kn.Line, k.describe())
			}
			key = k.str
		default:
			return nil, fmt.Errorf("line %d: mapping keys must be strings", kn.Line)
		}
		v, err := c.convert(vn, depth+1)
		if err != nil {
			return nil, err
		}
		if key == "<<" && (v.kind == kObject || v.kind == kArray) {
			merge := func(m *node) {
				for j, k := range m.keys {
					if _, ok := pos[k]; !ok {
						set(k, m.vals[j])
					}
				}
			}
			if v.kind == kObject {
				merge(v)
			} else {
				for _, e := range v.elems {
					if e.kind == kObject {
						merge(e)
					}
				}
			}
			continue
		}
		set(key, v)
	}
	return n, nil
}

// scalarValue is Data.Yaml's textToValue: quoted, folded and !!str scalars
// are strings; the others are null, a boolean, a number or a string by
// their text.
func scalarValue(y *yaml.Node) *node {
	t := y.Value
	if y.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.FoldedStyle) != 0 ||
		(y.Style&yaml.TaggedStyle != 0 && y.Tag == "!!str") {
		return &node{kind: kString, str: t}
	}
	switch t {
	case "null", "Null", "NULL", "~", "":
		return &node{kind: kNull}
	}
	if isLike(t, "y", "yes", "on", "true") {
		return &node{kind: kBool, b: true}
	}
	if isLike(t, "n", "no", "off", "false") {
		return &node{kind: kBool, b: false}
	}
	if num, ok := yamlNumber(t); ok {
		return &node{kind: kNumber, str: num}
	}
	return &node{kind: kString, str: t}
}

// isLike: t is one of refs written in lower case, upper case or title
// case.
func isLike(t string, refs ...string) bool {
	for _, r := range refs {
		if t == r || t == strings.ToUpper(r) || t == strings.ToUpper(r[:1])+r[1:] {
			return true
		}
	}
	return false
}

// yamlNumber is Data.Yaml's textToScientific: "0x" and hexadecimal
// digits, "0o" and octal digits, or attoparsec's scientific
// ([+-]?digits(.digits)?([eE][+-]?digits)?). It returns the number as
// JSON number text.
func yamlNumber(t string) (string, bool) {
	if len(t) > 2 && (t[:2] == "0x" || t[:2] == "0o") {
		base := 16
		if t[1] == 'o' {
			base = 8
		}
		v, ok := new(big.Int).SetString(t[2:], base)
		if !ok || strings.ContainsAny(t[2:], "+-_") {
			return "", false
		}
		return v.String(), true
	}
	i := 0
	neg := false
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		neg = t[i] == '-'
		i++
	}
	digits := func() int {
		start := i
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		return i - start
	}
	intStart := i
	if digits() == 0 {
		return "", false
	}
	intPart := strings.TrimLeft(t[intStart:i], "0")
	if intPart == "" {
		intPart = "0"
	}
	rest := i
	if i < len(t) && t[i] == '.' {
		i++
		if digits() == 0 {
			return "", false
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if digits() == 0 {
			return "", false
		}
	}
	if i != len(t) {
		return "", false
	}
	s := intPart + t[rest:]
	if neg {
		s = "-" + s
	}
	return s, true
}

// ---------------------------------------------------------------------------
// Writing, as Data.Yaml writes: block style, indent 2, no line width limit,
// strings plain unless they would read back as something else (then
// single-quoted), with libyaml's own fallbacks (yaml.v3's emitter is a port
// of it) for strings plain style cannot hold.

func yamlString(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
	switch {
	case s == "":
		n.Style = yaml.SingleQuotedStyle
	case strings.Contains(s, "\n"):
		n.Style = yaml.LiteralStyle
	case isSpecialString(s):
		n.Style = yaml.SingleQuotedStyle
	}
	return n
}

func yamlNull() *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

func isSpecialString(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
		"true", "True", "TRUE", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~", "*":
		return true
	}
	_, num := yamlNumber(s)
	return num
}

func encodeYAML(n *yaml.Node) []byte {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		// Only invalid UTF-8 can fail here; our strings come from
		// decoded JSON and YAML and hex, which are valid.
		panic("api: encoding YAML: " + err.Error())
	}
	enc.Close()
	return buf.Bytes()
}
