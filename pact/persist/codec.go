package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/value"
)

// The value codec: a compact tagged binary format for everything the
// interpreter stores.
//
// An entry (the value of one stored row) is
//
//	version byte (1) | entry tag | body
//
// with the entry tags below. Bodies are built from:
//
//	uvarint   Go's unsigned LEB128, minimal (no redundant trailing 0x80/0x00 bytes)
//	varint    zigzag of a signed integer, as a uvarint
//	bool      one byte, 0 or 1
//	string    uvarint length | bytes
//	modname   string name | string namespace
//	qualname  modname | string member
//	value     value tag | payload (see the value tags)
//	optvalue  0 for none, or a value
//
// Decoding is strict: every input has at most one decoding, and a decoded
// entry encodes back to exactly the bytes it came from (the fuzz targets
// check this). Lengths are checked against the remaining input before
// anything is allocated, nesting is bounded by maxDepth, and anything
// malformed is an error wrapping kv.ErrCorrupt, never a panic.

const codecVersion = 1

// maxDepth bounds the nesting of values (lists, objects, guard arguments,
// types, nested defpacts) on both sides: a value too deep to decode is
// refused when written.
const maxDepth = 1024

// Entry tags.
const (
	entryNil       byte = iota // an untyped nil
	entryValue                 // an eval.Value
	entryNamespace             // *eval.Namespace
	entryPact                  // *eval.PactExec
	entryPactDone              // (*eval.PactExec)(nil): a completed defpact
	entryModule                // *eval.Module, as an eval.ModuleRecord
)

// Value tags. 0 is "none" in optional positions.
const (
	tagNone byte = iota
	tagInt
	tagBigInt // sign byte (0 positive, 1 negative) | uvarint n | n magnitude bytes, big-endian
	tagDecimal
	tagString
	tagTrue
	tagFalse
	tagUnit
	tagTime // varint POSIX microseconds
	tagList
	tagObject // uvarint n | n × (string key | value), keys strictly ascending
	tagKeySet
	tagKeySetRef
	tagUserGuard
	tagCapGuard
	tagModuleGuard
	tagPactGuard
	tagModRef
	tagCapToken
	tagTableRef
)

// Schema references inside types.
const (
	schemaNone byte = iota
	schemaInline
	schemaRef // uvarint index of a schema met earlier in the same entry
)

var (
	errTooDeep = errors.New("value nested too deeply")
	errNilPtr  = errors.New("nil value")
)

// encoder appends one entry to buf.
type encoder struct {
	buf   []byte
	depth int
	// schemas numbers the schemas met so far, so that shared and
	// self-referential schemas are written once.
	schemas map[*value.Schema]int
	// record turns a module into what is stored for it.
	record func(*eval.Module) (eval.ModuleRecord, error)
}

// EncodeEntry appends the encoding of v to buf; record gives the record a
// module is stored as.
func EncodeEntry(buf []byte, v any, record func(*eval.Module) (eval.ModuleRecord, error)) ([]byte, error) {
	e := &encoder{buf: append(buf, codecVersion), record: record}
	if err := e.entry(v); err != nil {
		return nil, err
	}
	return e.buf, nil
}

func (e *encoder) entry(v any) error {
	switch x := v.(type) {
	case nil:
		e.byte(entryNil)
	case *eval.Namespace:
		if x == nil {
			return errNilPtr
		}
		e.byte(entryNamespace)
		e.str(x.Name)
		if err := e.optValue(x.User); err != nil {
			return err
		}
		return e.optValue(x.Admin)
	case *eval.PactExec:
		if x == nil {
			e.byte(entryPactDone)
			return nil
		}
		e.byte(entryPact)
		return e.pact(x)
	case *eval.Module:
		if x == nil {
			return errNilPtr
		}
		if e.record == nil {
			return errors.New("modules cannot be stored here")
		}
		rec, err := e.record(x)
		if err != nil {
			return err
		}
		e.byte(entryModule)
		e.moduleRecord(&rec)
	case value.Value:
		e.byte(entryValue)
		return e.value(x)
	default:
		return fmt.Errorf("cannot store a %T", v)
	}
	return nil
}

func (e *encoder) byte(b byte)                { e.buf = append(e.buf, b) }
func (e *encoder) uvarint(n uint64)           { e.buf = binary.AppendUvarint(e.buf, n) }
func (e *encoder) varint(n int64)             { e.buf = binary.AppendVarint(e.buf, n) }
func (e *encoder) str(s string)               { e.uvarint(uint64(len(s))); e.buf = append(e.buf, s...) }
func (e *encoder) modName(m value.ModuleName) { e.str(m.Name); e.str(m.Namespace) }

func (e *encoder) bool(b bool) {
	if b {
		e.byte(1)
	} else {
		e.byte(0)
	}
}

func (e *encoder) qualName(q value.QualifiedName) {
	e.modName(q.Module)
	e.str(q.Name)
}

func (e *encoder) enter() error {
	e.depth++
	if e.depth > maxDepth {
		return errTooDeep
	}
	return nil
}

func (e *encoder) optValue(v value.Value) error {
	if v == nil {
		e.byte(tagNone)
		return nil
	}
	return e.value(v)
}

func (e *encoder) values(vs []value.Value) error {
	e.uvarint(uint64(len(vs)))
	for _, v := range vs {
		if v == nil {
			return errNilPtr
		}
		if err := e.value(v); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) integer(i value.Integer) {
	if i.IsSmall() {
		e.byte(tagInt)
		e.varint(i.Int64())
		return
	}
	b := i.Big()
	e.byte(tagBigInt)
	if b.Sign() < 0 {
		e.byte(1)
	} else {
		e.byte(0)
	}
	mag := b.Bytes() // absolute value, big-endian, no leading zeros
	e.uvarint(uint64(len(mag)))
	e.buf = append(e.buf, mag...)
}

func (e *encoder) value(v value.Value) error {
	if err := e.enter(); err != nil {
		return err
	}
	defer func() { e.depth-- }()
	switch x := v.(type) {
	case value.Integer:
		e.integer(x)
	case value.Decimal:
		e.byte(tagDecimal)
		e.byte(x.Places())
		e.integer(x.Mantissa())
	case value.String:
		e.byte(tagString)
		e.str(string(x))
	case value.Bool:
		if x {
			e.byte(tagTrue)
		} else {
			e.byte(tagFalse)
		}
	case value.Unit:
		e.byte(tagUnit)
	case value.Time:
		e.byte(tagTime)
		e.varint(x.Micros())
	case value.List:
		e.byte(tagList)
		return e.values(x)
	case *value.Object:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagObject)
		e.uvarint(uint64(x.Len()))
		for i, k := range x.Keys() {
			e.str(k)
			fv := x.Val(i)
			if fv == nil {
				return errNilPtr
			}
			if err := e.value(fv); err != nil {
				return err
			}
		}
	case *value.KeySet:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagKeySet)
		e.uvarint(uint64(len(x.Keys)))
		for _, k := range x.Keys {
			e.str(k)
		}
		e.str(x.Pred)
	case *value.KeySetRef:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagKeySetRef)
		e.str(x.Name)
		e.str(x.Namespace)
	case *value.UserGuard:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagUserGuard)
		e.qualName(x.Fun)
		return e.values(x.Args)
	case *value.CapabilityGuard:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagCapGuard)
		e.qualName(x.Name)
		e.bool(x.HasPactID)
		e.str(x.PactID)
		return e.values(x.Args)
	case *value.ModuleGuard:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagModuleGuard)
		e.modName(x.Module)
		e.str(x.Name)
	case *value.PactGuard:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagPactGuard)
		e.str(x.PactID)
		e.str(x.Name)
	case *value.ModRef:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagModRef)
		e.modName(x.Module)
		e.uvarint(uint64(len(x.Implemented)))
		for _, m := range x.Implemented {
			e.modName(m)
		}
	case *value.CapToken:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagCapToken)
		e.modName(x.Name.Module)
		e.str(x.Name.Name)
		e.str(x.Name.Hash)
		return e.values(x.Args)
	case *value.Table:
		if x == nil {
			return errNilPtr
		}
		e.byte(tagTableRef)
		e.str(x.Name)
		e.modName(x.Module)
		e.str(x.Hash)
		return e.schemaBody(&x.Schema)
	default:
		if v.Kind() == value.KindClosure {
			return errors.New("cannot store a function value")
		}
		return fmt.Errorf("cannot store a %T", v)
	}
	return nil
}

func (e *encoder) schemaBody(s *value.Schema) error {
	e.qualName(s.Name)
	e.uvarint(uint64(len(s.Fields)))
	for i := range s.Fields {
		e.str(s.Fields[i].Name)
		if err := e.typ(&s.Fields[i].Type); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) typ(t *value.Type) error {
	if err := e.enter(); err != nil {
		return err
	}
	defer func() { e.depth-- }()
	e.byte(byte(t.Kind))
	e.str(t.Prim)
	if t.Elem == nil {
		e.byte(0)
	} else {
		e.byte(1)
		if err := e.typ(t.Elem); err != nil {
			return err
		}
	}
	switch s := t.Schema; {
	case s == nil:
		e.byte(schemaNone)
	default:
		if i, ok := e.schemas[s]; ok {
			e.byte(schemaRef)
			e.uvarint(uint64(i))
			break
		}
		if e.schemas == nil {
			e.schemas = map[*value.Schema]int{}
		}
		e.schemas[s] = len(e.schemas)
		e.byte(schemaInline)
		if err := e.schemaBody(s); err != nil {
			return err
		}
	}
	e.uvarint(uint64(len(t.ModRefs)))
	for _, m := range t.ModRefs {
		e.modName(m)
	}
	return nil
}

func (e *encoder) pact(p *eval.PactExec) error {
	if err := e.enter(); err != nil {
		return err
	}
	defer func() { e.depth-- }()
	e.str(p.PactID)
	e.varint(int64(p.StepCount))
	e.varint(int64(p.Step))
	if y := p.Yield; y == nil {
		e.byte(0)
	} else {
		e.byte(1)
		if y.Data == nil {
			e.byte(tagNone)
		} else if err := e.value(y.Data); err != nil {
			return err
		}
		e.str(y.TargetChain)
		e.bool(y.HasTarget)
		e.str(y.SourceChain)
		e.str(y.ModuleHash)
	}
	e.bool(p.StepHasRollback)
	if d := p.Def; d == nil {
		e.byte(0)
	} else {
		if d.Module == nil {
			return fmt.Errorf("defpact %s has no module", d.Name)
		}
		e.byte(1)
		e.modName(d.Module.Name)
		e.str(d.Name)
		e.str(d.Module.Hash)
	}
	if err := e.values(p.Args); err != nil {
		return err
	}
	if p.Nested == nil {
		e.uvarint(0)
		return nil
	}
	e.uvarint(uint64(len(p.Nested)) + 1)
	for _, k := range slices.Sorted(maps.Keys(p.Nested)) {
		n := p.Nested[k]
		if n == nil {
			return errNilPtr
		}
		e.str(k)
		if err := e.pact(n); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) moduleRecord(r *eval.ModuleRecord) {
	e.modName(r.Name)
	e.bool(r.Interface)
	e.str(r.Code)
	e.str(r.Hash)
	e.str(r.TxHash)
	e.uvarint(uint64(len(r.Blessed)))
	for _, h := range r.Blessed {
		e.str(h)
	}
	e.str(r.GovKeyset)
	e.str(r.GovCap)
	e.uvarint(uint64(len(r.Deps)))
	for _, d := range r.Deps {
		e.modName(d.Name)
		e.str(d.Hash)
	}
}

// Resolver rebuilds what entries store by reference: modules from their
// records, and a defpact state's definition from its module's name and
// hash and its own name.
type Resolver interface {
	RestoreModule(rec eval.ModuleRecord) (*eval.Module, error)
	PactDef(mod value.ModuleName, name, hash string) (*eval.Def, error)
}

// decoder reads one entry. The first error sticks: later reads return
// zero values, and loops stop because lengths are checked against the
// remaining input.
type decoder struct {
	b       []byte
	pos     int
	depth   int
	err     error
	schemas []*value.Schema
	res     Resolver
}

// DecodeEntry decodes one entry; every failure wraps kv.ErrCorrupt.
func DecodeEntry(b []byte, res Resolver) (any, error) {
	d := &decoder{b: b, res: res}
	v := d.entry()
	if d.err == nil && d.pos != len(d.b) {
		d.fail("%d trailing bytes", len(d.b)-d.pos)
	}
	if d.err != nil {
		return nil, d.err
	}
	return v, nil
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: offset %d: %s", errCorrupt, d.pos, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) failErr(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) entry() any {
	if v := d.byte(); d.err == nil && v != codecVersion {
		d.fail("codec version %d", v)
	}
	tag := d.byte()
	if d.err != nil {
		return nil
	}
	switch tag {
	case entryNil:
		return nil
	case entryValue:
		return d.value()
	case entryNamespace:
		ns := &eval.Namespace{Name: d.str()}
		ns.User = d.optValue()
		ns.Admin = d.optValue()
		return ns
	case entryPactDone:
		return (*eval.PactExec)(nil)
	case entryPact:
		return d.pact()
	case entryModule:
		rec := d.moduleRecord()
		if d.err != nil {
			return nil
		}
		if d.pos != len(d.b) {
			d.fail("%d trailing bytes", len(d.b)-d.pos)
			return nil
		}
		if d.res == nil {
			d.fail("module entry where none is expected")
			return nil
		}
		m, err := d.res.RestoreModule(rec)
		if err != nil {
			d.failErr(err)
			return nil
		}
		return m
	}
	d.fail("unknown entry tag %d", tag)
	return nil
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.pos >= len(d.b) {
		d.fail("unexpected end of input")
		return 0
	}
	c := d.b[d.pos]
	d.pos++
	return c
}

// uvarint reads a minimally encoded uvarint.
func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	for i := 0; ; i++ {
		if d.pos >= len(d.b) {
			d.fail("unexpected end of input")
			return 0
		}
		c := d.b[d.pos]
		d.pos++
		if i == binary.MaxVarintLen64-1 && c > 1 {
			d.fail("varint overflows 64 bits")
			return 0
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if c == 0 && i > 0 {
				d.fail("varint not minimally encoded")
				return 0
			}
			return x
		}
	}
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// count reads a length whose items take at least one byte each.
func (d *decoder) count() int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)-d.pos) {
		d.fail("length %d exceeds the input", n)
		return 0
	}
	return int(n)
}

func (d *decoder) bool() bool {
	switch c := d.byte(); c {
	case 0:
		return false
	case 1:
		return true
	default:
		d.fail("bad bool %d", c)
		return false
	}
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := string(d.b[d.pos : d.pos+n])
	d.pos += n
	return s
}

func (d *decoder) modName() value.ModuleName {
	name := d.str()
	return value.ModuleName{Name: name, Namespace: d.str()}
}

func (d *decoder) qualName() value.QualifiedName {
	m := d.modName()
	return value.QualifiedName{Module: m, Name: d.str()}
}

func (d *decoder) enter() bool {
	d.depth++
	if d.depth > maxDepth {
		d.failErr(fmt.Errorf("%w: %v", errCorrupt, errTooDeep))
		return false
	}
	return d.err == nil
}

func (d *decoder) optValue() value.Value {
	if d.err != nil {
		return nil
	}
	if d.pos < len(d.b) && d.b[d.pos] == tagNone {
		d.pos++
		return nil
	}
	return d.value()
}

func (d *decoder) values() []value.Value {
	n := d.count()
	if d.err != nil {
		return nil
	}
	vs := make([]value.Value, n)
	for i := range vs {
		if vs[i] = d.value(); d.err != nil {
			return nil
		}
	}
	return vs
}

// integer reads an integer whose tag has already been read.
func (d *decoder) integer(tag byte) value.Integer {
	switch tag {
	case tagInt:
		return value.NewInt(d.varint())
	case tagBigInt:
		neg := d.bool()
		n := d.count()
		if d.err != nil {
			return value.Integer{}
		}
		mag := d.b[d.pos : d.pos+n]
		d.pos += n
		if n == 0 || mag[0] == 0 {
			d.fail("big integer not minimally encoded")
			return value.Integer{}
		}
		b := new(big.Int).SetBytes(mag)
		if neg {
			b.Neg(b)
		}
		if b.IsInt64() {
			d.fail("big integer fits 64 bits")
			return value.Integer{}
		}
		return value.NewIntBig(b)
	}
	d.fail("want an integer, got tag %d", tag)
	return value.Integer{}
}

func (d *decoder) value() value.Value {
	if !d.enter() {
		return nil
	}
	defer func() { d.depth-- }()
	tag := d.byte()
	if d.err != nil {
		return nil
	}
	var v value.Value
	switch tag {
	case tagInt, tagBigInt:
		v = d.integer(tag)
	case tagDecimal:
		places := d.byte()
		v = value.NewDecimal(d.integer(d.byte()), places)
	case tagString:
		v = value.String(d.str())
	case tagTrue:
		v = value.True
	case tagFalse:
		v = value.False
	case tagUnit:
		v = value.UnitValue
	case tagTime:
		v = value.TimeFromMicros(d.varint())
	case tagList:
		v = value.List(d.values())
	case tagObject:
		v = d.object()
	case tagKeySet:
		n := d.count()
		keys := make([]string, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			keys = append(keys, d.str())
		}
		v = &value.KeySet{Keys: keys, Pred: d.str()}
	case tagKeySetRef:
		name := d.str()
		v = &value.KeySetRef{Name: name, Namespace: d.str()}
	case tagUserGuard:
		fun := d.qualName()
		v = &value.UserGuard{Fun: fun, Args: d.values()}
	case tagCapGuard:
		g := &value.CapabilityGuard{Name: d.qualName()}
		g.HasPactID = d.bool()
		g.PactID = d.str()
		g.Args = d.values()
		v = g
	case tagModuleGuard:
		m := d.modName()
		v = &value.ModuleGuard{Module: m, Name: d.str()}
	case tagPactGuard:
		id := d.str()
		v = &value.PactGuard{PactID: id, Name: d.str()}
	case tagModRef:
		r := &value.ModRef{Module: d.modName()}
		n := d.count()
		r.Implemented = make([]value.ModuleName, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			r.Implemented = append(r.Implemented, d.modName())
		}
		v = r
	case tagCapToken:
		t := &value.CapToken{}
		t.Name.Module = d.modName()
		t.Name.Name = d.str()
		t.Name.Hash = d.str()
		t.Args = d.values()
		v = t
	case tagTableRef:
		t := &value.Table{Name: d.str()}
		t.Module = d.modName()
		t.Hash = d.str()
		d.schemaBody(&t.Schema)
		v = t
	default:
		d.fail("unknown value tag %d", tag)
	}
	if d.err != nil {
		return nil
	}
	return v
}

func (d *decoder) object() value.Value {
	n := d.count()
	if d.err != nil {
		return nil
	}
	fields := make([]value.Field, n)
	for i := range fields {
		k := d.str()
		if d.err != nil {
			return nil
		}
		if i > 0 && k <= fields[i-1].Key {
			d.fail("object keys out of order")
			return nil
		}
		fields[i] = value.Field{Key: k, Val: d.value()}
		if d.err != nil {
			return nil
		}
	}
	return value.NewObject(fields...)
}

func (d *decoder) schemaBody(s *value.Schema) {
	s.Name = d.qualName()
	n := d.count()
	if d.err != nil {
		return
	}
	s.Fields = make([]value.SchemaField, n)
	for i := range s.Fields {
		s.Fields[i].Name = d.str()
		d.typ(&s.Fields[i].Type)
		if d.err != nil {
			return
		}
	}
}

func (d *decoder) typ(t *value.Type) {
	if !d.enter() {
		return
	}
	defer func() { d.depth-- }()
	t.Kind = value.TypeKind(d.byte())
	if d.err == nil && t.Kind > value.TyAny {
		d.fail("unknown type kind %d", t.Kind)
		return
	}
	t.Prim = d.str()
	if d.bool() {
		t.Elem = &value.Type{}
		d.typ(t.Elem)
	}
	switch c := d.byte(); c {
	case schemaNone:
	case schemaInline:
		s := &value.Schema{}
		d.schemas = append(d.schemas, s)
		d.schemaBody(s)
		t.Schema = s
	case schemaRef:
		i := d.uvarint()
		if d.err != nil {
			return
		}
		if i >= uint64(len(d.schemas)) {
			d.fail("schema reference %d out of range", i)
			return
		}
		t.Schema = d.schemas[i]
	default:
		d.fail("bad schema marker %d", c)
		return
	}
	n := d.count()
	if d.err != nil || n == 0 {
		return
	}
	t.ModRefs = make([]value.ModuleName, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		t.ModRefs = append(t.ModRefs, d.modName())
	}
}

func (d *decoder) pact() *eval.PactExec {
	if !d.enter() {
		return nil
	}
	defer func() { d.depth-- }()
	p := &eval.PactExec{PactID: d.str()}
	p.StepCount = d.int()
	p.Step = d.int()
	if d.bool() {
		y := &eval.Yield{}
		if v := d.optValue(); v != nil {
			o, ok := v.(*value.Object)
			if !ok {
				d.fail("yield data is not an object")
				return nil
			}
			y.Data = o
		}
		y.TargetChain = d.str()
		y.HasTarget = d.bool()
		y.SourceChain = d.str()
		y.ModuleHash = d.str()
		p.Yield = y
	}
	p.StepHasRollback = d.bool()
	if d.bool() {
		mn := d.modName()
		name := d.str()
		hash := d.str()
		if d.err != nil {
			return nil
		}
		if d.res == nil {
			d.fail("defpact state where none is expected")
			return nil
		}
		def, err := d.res.PactDef(mn, name, hash)
		if err != nil {
			d.failErr(err)
			return nil
		}
		p.Def = def
	}
	p.Args = d.values()
	// Nested: 0 for a nil map, else 1 + the number of entries.
	if n := d.uvarint(); d.err == nil && n > 0 {
		n--
		if n > uint64(len(d.b)-d.pos) {
			d.fail("length %d exceeds the input", n)
			return nil
		}
		p.Nested = make(map[string]*eval.PactExec, min(n, 64))
		prev := ""
		for i := uint64(0); i < n && d.err == nil; i++ {
			k := d.str()
			if d.err == nil && i > 0 && k <= prev {
				d.fail("nested defpact ids out of order")
			}
			prev = k
			if np := d.pact(); d.err == nil {
				p.Nested[k] = np
			}
		}
	}
	if d.err != nil {
		return nil
	}
	return p
}

// int reads a varint that must fit an int.
func (d *decoder) int() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.fail("integer %d out of range", v)
		return 0
	}
	return int(v)
}

func (d *decoder) moduleRecord() eval.ModuleRecord {
	var r eval.ModuleRecord
	r.Name = d.modName()
	r.Interface = d.bool()
	r.Code = d.str()
	r.Hash = d.str()
	r.TxHash = d.str()
	if n := d.count(); n > 0 {
		r.Blessed = make([]string, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			h := d.str()
			if d.err == nil && i > 0 && h <= r.Blessed[i-1] {
				d.fail("blessed hashes out of order")
			}
			r.Blessed = append(r.Blessed, h)
		}
	}
	r.GovKeyset = d.str()
	r.GovCap = d.str()
	if n := d.count(); n > 0 {
		r.Deps = make([]eval.ModuleDep, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			dep := eval.ModuleDep{Name: d.modName()}
			dep.Hash = d.str()
			if d.err == nil && i > 0 && compareModuleNames(dep.Name, r.Deps[i-1].Name) <= 0 {
				d.fail("module dependencies out of order")
			}
			r.Deps = append(r.Deps, dep)
		}
	}
	return r
}

// compareModuleNames is eval's order on module names: the name, then the
// namespace.
func compareModuleNames(a, b value.ModuleName) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Namespace, b.Namespace)
}
