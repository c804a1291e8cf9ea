package eval

import (
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Decoding JSON into values, as P5's FromJSON (StableEncoding PactValue)
// does for message data and env-data. Each JSON value is tried against the
// value shapes in P5's order, the first that parses winning:
//
//  1. literals: null is unit, booleans, strings; any number is a DECIMAL
//     (even 1); {"int": n|"n"} is an integer; {"decimal": "s"} a decimal;
//  2. arrays are lists;
//  3. guards: {"keys": [...], "pred"?: p} (keyset), {"keysetref": ...},
//     {"fun", "args"} (user), {"cgName", "cgArgs", "cgPactId"?}
//     (capability), {"moduleName", "name"} (module), {"pactId", "name"}
//     (pact);
//  4. {"refName", "refSpec"?}: module reference;
//  5. {"time": ISO8601} or {"timep": ISO8601 with microseconds};
//  6. {"#ctName", "#ctArgs"}: capability token;
//  7. {":tableName", ":moduleHash", ":schema"}: table reference;
//  8. any other object is an object.
//
// Extra keys never stop a shape from matching, as with aeson's parsers.

// maxJSONDepth bounds nesting; aeson has no limit, but a deep document
// would exhaust the goroutine stack.
const maxJSONDepth = 512

// DecodeJSON decodes one JSON document (surrounding whitespace allowed).
func DecodeJSON(data []byte) (Value, error) {
	p := jsonParser{s: data}
	p.skipWS()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.i != len(p.s) {
		return nil, p.fail("trailing data")
	}
	return n.toValue()
}

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

func (n *jnode) field(k string) (*jnode, bool) {
	if n.kind != 'o' {
		return nil, false
	}
	v, ok := n.obj[k]
	return v, ok
}

// optField is aeson's .:? — missing and null are both absent.
func (n *jnode) optField(k string) (*jnode, bool) {
	v, ok := n.field(k)
	if !ok || v.kind == 'n' {
		return nil, false
	}
	return v, true
}

func (n *jnode) text(k string) (string, bool) {
	v, ok := n.field(k)
	if !ok || v.kind != 's' {
		return "", false
	}
	return v.str, true
}

func (n *jnode) toValue() (Value, error) {
	switch n.kind {
	case 'n':
		return UnitValue, nil
	case 'b':
		return Bool(n.b), nil
	case 's':
		return String(n.str), nil
	case 'd':
		return numberToDecimal(n.str)
	case 'a':
		return n.toList(n.arr)
	}
	// Objects: try the shapes in order.
	if v, ok := n.field("int"); ok {
		switch v.kind {
		case 'd':
			return numberToInteger(v.str)
		case 's':
			if i, ok := ReadInteger(v.str); ok {
				return i, nil
			}
		}
	}
	if s, ok := n.text("decimal"); ok {
		if d, ok := ReadDecimal(s); ok {
			return d, nil
		}
	}
	for _, shape := range []func() (Value, bool, error){
		n.asKeySet, n.asKeySetRef, n.asUserGuard, n.asCapabilityGuard, n.asModuleGuard,
		n.asPactGuard, n.asModRef, n.asTime, n.asCapToken, n.asTable,
	} {
		if v, ok, err := shape(); err != nil || ok {
			return v, err
		}
	}
	vals := make([]Value, len(n.keys))
	for i, k := range n.keys {
		v, err := n.obj[k].toValue()
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return newObjectSorted(n.keys, vals), nil
}

func (n *jnode) toList(arr []*jnode) (List, error) {
	out := make(List, len(arr))
	for i, e := range arr {
		v, err := e.toValue()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// listField decodes an array field of values.
func (n *jnode) listField(k string) ([]Value, bool, error) {
	v, ok := n.field(k)
	if !ok || v.kind != 'a' {
		return nil, false, nil
	}
	l, err := n.toList(v.arr)
	return l, err == nil, err
}

func (n *jnode) asKeySet() (Value, bool, error) {
	ks, ok := n.field("keys")
	if !ok || ks.kind != 'a' {
		return nil, false, nil
	}
	keys := make([]string, len(ks.arr))
	for i, k := range ks.arr {
		if k.kind != 's' {
			return nil, false, nil
		}
		keys[i] = k.str
	}
	pred := KeysAll
	if p, ok := n.optField("pred"); ok {
		if p.kind != 's' || !(p.str == KeysAll || p.str == KeysAny || p.str == Keys2 || validPredName(p.str)) {
			return nil, false, nil
		}
		pred = p.str
	}
	return NewKeySet(keys, pred), true, nil
}

func (n *jnode) asKeySetRef() (Value, bool, error) {
	r, ok := n.field("keysetref")
	if !ok {
		return nil, false, nil
	}
	switch r.kind {
	case 's':
		return &KeySetRef{Name: r.str}, true, nil
	case 'o':
		name, ok := r.text("ksn")
		if !ok {
			return nil, false, nil
		}
		ref := &KeySetRef{Name: name}
		if ns, ok := r.optField("ns"); ok {
			if ns.kind != 's' {
				return nil, false, nil
			}
			ref.Namespace = ns.str
		}
		return ref, true, nil
	}
	return nil, false, nil
}

func (n *jnode) asUserGuard() (Value, bool, error) {
	f, ok := n.text("fun")
	if !ok {
		return nil, false, nil
	}
	q, ok := ParseQualifiedName(f)
	if !ok {
		return nil, false, nil
	}
	args, ok, err := n.listField("args")
	if !ok {
		return nil, false, err
	}
	return &UserGuard{Fun: q, Args: args}, true, nil
}

func (n *jnode) asCapabilityGuard() (Value, bool, error) {
	name, ok := n.text("cgName")
	if !ok {
		return nil, false, nil
	}
	q, ok := ParseQualifiedName(name)
	if !ok {
		return nil, false, nil
	}
	args, ok, err := n.listField("cgArgs")
	if !ok {
		return nil, false, err
	}
	g := &CapabilityGuard{Name: q, Args: args}
	if pid, ok := n.optField("cgPactId"); ok {
		if pid.kind != 's' {
			return nil, false, nil
		}
		g.PactID, g.HasPactID = pid.str, true
	}
	return g, true, nil
}

// moduleName decodes {"namespace"?: ns, "name": n}; the name must parse
// as a module name but is kept as written.
func (n *jnode) moduleName() (ModuleName, bool) {
	if n.kind != 'o' {
		return ModuleName{}, false
	}
	name, ok := n.text("name")
	if !ok {
		return ModuleName{}, false
	}
	if _, ok := ParseModuleName(name); !ok {
		return ModuleName{}, false
	}
	m := ModuleName{Name: name}
	if ns, ok := n.optField("namespace"); ok {
		if ns.kind != 's' {
			return ModuleName{}, false
		}
		m.Namespace = ns.str
	}
	return m, true
}

func (n *jnode) asModuleGuard() (Value, bool, error) {
	mn, ok := n.field("moduleName")
	if !ok {
		return nil, false, nil
	}
	m, ok := mn.moduleName()
	if !ok {
		return nil, false, nil
	}
	name, ok := n.text("name")
	if !ok {
		return nil, false, nil
	}
	return &ModuleGuard{Module: m, Name: name}, true, nil
}

func (n *jnode) asPactGuard() (Value, bool, error) {
	pid, ok1 := n.text("pactId")
	name, ok2 := n.text("name")
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	return &PactGuard{PactID: pid, Name: name}, true, nil
}

func (n *jnode) moduleNames(v *jnode) ([]ModuleName, bool) {
	if v.kind != 'a' {
		return nil, false
	}
	out := make([]ModuleName, len(v.arr))
	for i, e := range v.arr {
		m, ok := e.moduleName()
		if !ok {
			return nil, false
		}
		out[i] = m
	}
	return out, true
}

func (n *jnode) asModRef() (Value, bool, error) {
	rn, ok := n.field("refName")
	if !ok {
		return nil, false, nil
	}
	m, ok := rn.moduleName()
	if !ok {
		return nil, false, nil
	}
	var imp []ModuleName
	if spec, ok := n.optField("refSpec"); ok {
		if imp, ok = n.moduleNames(spec); !ok {
			return nil, false, nil
		}
	}
	return NewModRef(m, imp), true, nil
}

func (n *jnode) asTime() (Value, bool, error) {
	if s, ok := n.text("time"); ok {
		if t, ok := ParseTime(ISO8601, s); ok {
			return t, true, nil
		}
	}
	if s, ok := n.text("timep"); ok {
		if t, ok := ParseTime(isoHighPrec, s); ok {
			return t, true, nil
		}
	}
	return nil, false, nil
}

func (n *jnode) asCapToken() (Value, bool, error) {
	name, ok := n.text("#ctName")
	if !ok {
		return nil, false, nil
	}
	fq, ok := ParseFullyQualifiedName(name)
	if !ok {
		return nil, false, nil
	}
	args, ok, err := n.listField("#ctArgs")
	if !ok {
		return nil, false, err
	}
	return &CapToken{Name: fq, Args: args}, true, nil
}

func (n *jnode) asTable() (Value, bool, error) {
	tn, ok := n.text(":tableName")
	if !ok {
		return nil, false, nil
	}
	m, name, ok := parseJSONTableName(tn)
	if !ok {
		return nil, false, nil
	}
	h, ok := n.text(":moduleHash")
	if !ok {
		return nil, false, nil
	}
	if h, ok = parseModuleHash(h); !ok {
		return nil, false, nil
	}
	sn, ok := n.field(":schema")
	if !ok {
		return nil, false, nil
	}
	sc, ok := sn.schema()
	if !ok {
		return nil, false, nil
	}
	return &Table{Name: name, Module: m, Hash: h, Schema: *sc}, true, nil
}

func (n *jnode) schema() (*Schema, bool) {
	if n.kind != 'o' {
		return nil, false
	}
	name, ok := n.text("sc_name")
	if !ok {
		return nil, false
	}
	q, ok := ParseQualifiedName(name)
	if !ok {
		return nil, false
	}
	fs, ok := n.field("sc_fields")
	if !ok || fs.kind != 'o' {
		return nil, false
	}
	sc := &Schema{Name: q}
	for _, k := range fs.keys {
		t, ok := fs.obj[k].typ()
		if !ok {
			return nil, false
		}
		sc.Fields = append(sc.Fields, SchemaField{Name: k, Type: *t})
	}
	return sc, true
}

func (n *jnode) typ() (*Type, bool) {
	switch n.kind {
	case 's':
		switch n.str {
		case "integer", "decimal", "string", "bool", "time", "guard", "unit":
			return &Type{Kind: TyPrim, Prim: n.str}, true
		case "list":
			return &Type{Kind: TyAnyList}, true
		case "object":
			return &Type{Kind: TyAnyObject}, true
		case "*":
			return &Type{Kind: TyAny}, true
		case "cap-token":
			return &Type{Kind: TyCapToken}, true
		}
	case 'o':
		if e, ok := n.field("tylist"); ok {
			if t, ok := e.typ(); ok {
				return &Type{Kind: TyList, Elem: t}, true
			}
		}
		if s, ok := n.field("tyobject"); ok {
			if sc, ok := s.schema(); ok {
				return &Type{Kind: TyObject, Schema: sc}, true
			}
		}
		if s, ok := n.field("tymodref"); ok {
			if ms, ok := n.moduleNames(s); ok {
				r := NewModRef(ModuleName{}, ms)
				return &Type{Kind: TyModRef, ModRefs: r.Implemented}, true
			}
		}
		if s, ok := n.field("tytable"); ok {
			if sc, ok := s.schema(); ok {
				return &Type{Kind: TyTable, Schema: sc}, true
			}
		}
	}
	return nil, false
}
