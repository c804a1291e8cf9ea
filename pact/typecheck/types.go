package typecheck

import (
	"slices"
	"strings"

	"github.com/ledgernode/ledger-node/pact/value"
)

// kind is what the checker knows of a value's type.
type kind uint8

const (
	// kAny: nothing is known. A check against it cannot decide.
	kAny kind = iota
	// kNever: the expression does not return (error): it fits anywhere.
	kNever
	kInt
	kDec
	kStr
	kBool
	kTime
	kUnit
	// kGuard is a guard of any sort, keysets included: Pact 5 has no
	// separate keyset type at run time.
	kGuard
	kCapToken
	kList   // elem: nil for a list of unknown elements
	kObject // row: nil for an object of unknown fields
	kTable  // row: nil for a table of unknown schema
	// kModRef: ifaces are the interfaces the module is known to
	// implement; module, when set, names the very module (a literal).
	kModRef
	// kFun is a function value: params and result, or, with params nil
	// and unknown set, a function of unknown shape.
	kFun
	// kUnion is one of alts: the branches of an if, the elements of a
	// list literal that do not agree.
	kUnion
	// kVar is a type variable of a native's signature; it never escapes
	// the matching of one call.
	kVar
	// kParam is the value of a parameter declared without a type: the
	// function is generic in it, so what it is passed to constrains its
	// callers, not the function (each check of it passes).
	kParam
)

// ty is a type. Types are immutable once built and shared freely.
type ty struct {
	kind    kind
	elem    *ty
	row     *row
	ifaces  []value.ModuleName
	module  *value.ModuleName
	params  []*ty
	result  *ty
	unknown bool
	// exact: a module's function, which takes no more than its
	// parameters (fewer make a closure only a native may call).
	exact bool
	alts  []*ty
	v     int
}

// row is an object's or table's fields, sorted by name. schema names the
// schema it came from, for messages.
type row struct {
	names  []string
	types  []*ty
	schema string
}

func (r *row) field(name string) (*ty, bool) {
	i, ok := slices.BinarySearch(r.names, name)
	if !ok {
		return nil, false
	}
	return r.types[i], true
}

var (
	tAny      = &ty{kind: kAny}
	tNever    = &ty{kind: kNever}
	tInt      = &ty{kind: kInt}
	tDec      = &ty{kind: kDec}
	tStr      = &ty{kind: kStr}
	tBool     = &ty{kind: kBool}
	tTime     = &ty{kind: kTime}
	tUnit     = &ty{kind: kUnit}
	tGuard    = &ty{kind: kGuard}
	tCapToken = &ty{kind: kCapToken}
	tAnyList  = &ty{kind: kList}
	tAnyObj   = &ty{kind: kObject}
	tAnyTable = &ty{kind: kTable}
	tAnyFun   = &ty{kind: kFun, unknown: true}
	tParam    = &ty{kind: kParam}
)

func listOf(e *ty) *ty { return &ty{kind: kList, elem: e} }

func objectOf(r *row) *ty { return &ty{kind: kObject, row: r} }

// union is the type of a value that is one of ts: the alternatives that
// do return, flattened and without repeats; one alternative is itself, and
// an unknown alternative makes the whole unknown.
func union(ts ...*ty) *ty {
	var alts []*ty
	add := func(t *ty) {
		if len(alts) > maxUnion {
			return
		}
		for _, a := range alts {
			if same(a, t) {
				return
			}
		}
		alts = append(alts, t)
	}
	for _, t := range ts {
		switch t.kind {
		case kNever:
			continue
		case kAny:
			return tAny
		case kUnion:
			for _, a := range t.alts {
				add(a)
			}
		default:
			add(t)
		}
	}
	switch len(alts) {
	case 0:
		return tNever
	case 1:
		return alts[0]
	}
	if len(alts) > maxUnion {
		return tAny
	}
	return &ty{kind: kUnion, alts: alts}
}

// maxUnion bounds a union's alternatives: each new one is compared with
// those before it, and a list literal of thousands of objects of distinct
// shapes must not cost their square.
const maxUnion = 16

// same reports whether a and b are the same type, as far as it is known.
func same(a, b *ty) bool {
	if a == b {
		return true
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kList:
		if a.elem == nil || b.elem == nil {
			return a.elem == b.elem
		}
		return same(a.elem, b.elem)
	case kObject, kTable:
		if a.row == nil || b.row == nil {
			return a.row == b.row
		}
		if !slices.Equal(a.row.names, b.row.names) {
			return false
		}
		for i := range a.row.types {
			if !same(a.row.types[i], b.row.types[i]) {
				return false
			}
		}
		return true
	case kModRef, kFun, kUnion, kVar:
		return false
	}
	return true
}

// fromDeclared is a declared type (a parameter's, a result's, a schema
// field's): nil, written nothing, is unknown.
func fromDeclared(t *value.Type) *ty {
	if t == nil {
		return tAny
	}
	switch t.Kind {
	case value.TyPrim:
		switch t.Prim {
		case "integer":
			return tInt
		case "decimal":
			return tDec
		case "string":
			return tStr
		case "bool":
			return tBool
		case "time":
			return tTime
		case "unit":
			return tUnit
		case "guard", "keyset":
			return tGuard
		}
		return tAny
	case value.TyList:
		return listOf(fromDeclared(t.Elem))
	case value.TyAnyList:
		return tAnyList
	case value.TyObject:
		return objectOf(schemaRow(t.Schema))
	case value.TyAnyObject:
		return tAnyObj
	case value.TyTable:
		return &ty{kind: kTable, row: schemaRow(t.Schema)}
	case value.TyCapToken:
		return tCapToken
	case value.TyModRef:
		return &ty{kind: kModRef, ifaces: t.ModRefs}
	}
	return tAny
}

// schemaRow is a schema's fields as a row (nil, unknown, without one).
func schemaRow(s *value.Schema) *row {
	if s == nil {
		return nil
	}
	r := &row{schema: s.Name.Name}
	fields := slices.Clone(s.Fields)
	slices.SortFunc(fields, func(a, b value.SchemaField) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range fields {
		r.names = append(r.names, f.Name)
		ft := f.Type
		r.types = append(r.types, fromDeclared(&ft))
	}
	return r
}

// fromValue is the type of a value known at load time (a constant's).
func fromValue(v value.Value) *ty {
	switch x := v.(type) {
	case *value.ModRef:
		mn := x.Module
		return &ty{kind: kModRef, ifaces: x.Implemented, module: &mn}
	case *value.Table:
		return &ty{kind: kTable, row: schemaRow(&x.Schema)}
	case value.List:
		ts := make([]*ty, len(x))
		for i, e := range x {
			ts[i] = fromValue(e)
		}
		return listOf(union(ts...))
	case *value.Object:
		r := &row{names: slices.Clone(x.Keys())}
		for i := range r.names {
			r.types = append(r.types, fromValue(x.Val(i)))
		}
		return objectOf(r)
	}
	switch v.Kind() {
	case value.KindInteger:
		return tInt
	case value.KindDecimal:
		return tDec
	case value.KindString:
		return tStr
	case value.KindBool:
		return tBool
	case value.KindUnit:
		return tUnit
	case value.KindTime:
		return tTime
	case value.KindGuard:
		return tGuard
	case value.KindCapToken:
		return tCapToken
	case value.KindClosure:
		return tAnyFun
	}
	return tAny
}

// String renders a type as Pact writes types.
func (t *ty) String() string {
	switch t.kind {
	case kAny, kParam:
		return "*"
	case kNever:
		return "<error>"
	case kInt:
		return "integer"
	case kDec:
		return "decimal"
	case kStr:
		return "string"
	case kBool:
		return "bool"
	case kTime:
		return "time"
	case kUnit:
		return "unit"
	case kGuard:
		return "guard"
	case kCapToken:
		return "capability"
	case kList:
		if t.elem == nil {
			return "list"
		}
		return "[" + t.elem.String() + "]"
	case kObject, kTable:
		word := "object"
		if t.kind == kTable {
			word = "table"
		}
		if t.row == nil {
			return word
		}
		if t.row.schema != "" {
			return word + "{" + t.row.schema + "}"
		}
		fields := make([]string, len(t.row.names))
		for i, n := range t.row.names {
			fields[i] = n + ":" + t.row.types[i].String()
		}
		return word + "{" + strings.Join(fields, ", ") + "}"
	case kModRef:
		if t.module != nil {
			return "module " + t.module.String()
		}
		names := make([]string, len(t.ifaces))
		for i, m := range t.ifaces {
			names[i] = m.String()
		}
		return "module{" + strings.Join(names, ", ") + "}"
	case kFun:
		if t.unknown {
			return "function"
		}
		ps := make([]string, len(t.params))
		for i, p := range t.params {
			ps[i] = p.String()
		}
		return "(" + strings.Join(append(ps, "->", t.result.String()), " ") + ")"
	case kUnion:
		as := make([]string, len(t.alts))
		for i, a := range t.alts {
			as[i] = a.String()
		}
		return strings.Join(as, " or ")
	case kVar:
		return string(rune('a' + t.v%26))
	}
	return "?"
}
