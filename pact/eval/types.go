package eval

import (
	"slices"
	"strings"
)

// String renders a type the way P5's renderType does.
func (t *Type) String() string {
	switch t.Kind {
	case TyPrim:
		return t.Prim
	case TyAnyList:
		return "list"
	case TyAnyObject:
		return "object"
	case TyAny:
		return "*"
	case TyCapToken:
		return "CAPTOKEN"
	case TyList:
		return "[" + t.Elem.String() + "]"
	case TyObject:
		if t.Schema == nil {
			return "object"
		}
		return "object{" + t.Schema.Name.String() + "}"
	case TyTable:
		if t.Schema == nil {
			return "table"
		}
		return "table{" + t.Schema.Name.String() + "}"
	case TyModRef:
		names := make([]string, len(t.ModRefs))
		for i, m := range t.ModRefs {
			names[i] = m.String()
		}
		return "module{" + strings.Join(names, ", ") + "}"
	}
	return "?"
}

// typeCheck is P5's gassedRuntimeTypecheck of a value against a type: a
// list of k elements costs k ticks and every element is checked (no short
// cut); an object against a schema of as many fields costs a tick per field
// and stops at the first field that fails; a table's schema is compared
// field by field; a module reference implementing ten or more interfaces
// costs a tick per interface. Everything else is free. `keyset` is P5's
// guard type.
func (in *Interp) typeCheck(t *Type, v Value) (bool, error) {
	switch t.Kind {
	case TyAny:
		return true, nil
	case TyPrim:
		switch t.Prim {
		case "integer":
			return v.Kind() == KindInteger, nil
		case "decimal":
			return v.Kind() == KindDecimal, nil
		case "string":
			return v.Kind() == KindString, nil
		case "bool":
			return v.Kind() == KindBool, nil
		case "time":
			return v.Kind() == KindTime, nil
		case "unit":
			return v.Kind() == KindUnit, nil
		case "guard", "keyset":
			return v.Kind() == KindGuard, nil
		}
		return false, nil
	case TyAnyList:
		return v.Kind() == KindList, nil
	case TyList:
		l, ok := v.(List)
		if !ok {
			return false, nil
		}
		if err := in.chargeTick(len(l)); err != nil {
			return false, err
		}
		all := true
		for _, e := range l {
			ok, err := in.typeCheck(t.Elem, e)
			if err != nil {
				return false, err
			}
			all = all && ok
		}
		return all, nil
	case TyAnyObject:
		return v.Kind() == KindObject, nil
	case TyObject:
		o, ok := v.(*Object)
		if !ok {
			return false, nil
		}
		if t.Schema == nil {
			return true, nil
		}
		return in.typeCheckObject(o, t.Schema)
	case TyTable:
		tb, ok := v.(*Table)
		if !ok {
			return false, nil
		}
		if t.Schema == nil {
			return true, nil
		}
		return in.sameSchema(&tb.Schema, t.Schema)
	case TyModRef:
		r, ok := v.(*ModRef)
		if !ok {
			return false, nil
		}
		if len(r.Implemented) >= 10 {
			if err := in.chargeTick(len(r.Implemented)); err != nil {
				return false, err
			}
		}
		for _, want := range t.ModRefs {
			if !slices.Contains(r.Implemented, want) {
				return false, nil
			}
		}
		return true, nil
	case TyCapToken:
		return v.Kind() == KindCapToken, nil
	}
	return false, nil
}

// typeCheckObject is P5's gassedTypecheckObj: the object must have as many
// fields as the schema (else it fails for free), then costs a tick per
// field, and its fields are compared with the schema's in order.
func (in *Interp) typeCheckObject(o *Object, s *Schema) (bool, error) {
	if o.Len() != len(s.Fields) {
		return false, nil
	}
	if err := in.chargeTick(o.Len()); err != nil {
		return false, err
	}
	for i, k := range o.Keys() {
		if s.Fields[i].Name != k {
			return false, nil
		}
		ok, err := in.typeCheck(&s.Fields[i].Type, o.Val(i))
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// typeCheckPartial is P5's checkPartialSchema (update): a tick per field of
// the object, then, if every field is in the schema, the object against the
// schema restricted to its fields.
func (in *Interp) typeCheckPartial(o *Object, s *Schema) (bool, error) {
	if err := in.chargeTick(o.Len()); err != nil {
		return false, err
	}
	for _, k := range o.Keys() {
		if schemaField(s, k) == nil {
			return false, nil
		}
	}
	// typeCheckObject against the schema restricted to o's fields, in o's
	// order, without building that schema: the counts match by
	// construction, and so do the names.
	if err := in.chargeTick(o.Len()); err != nil {
		return false, err
	}
	for i, k := range o.Keys() {
		ok, err := in.typeCheck(&schemaField(s, k).Type, o.Val(i))
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// sameSchema is P5's gassedTypecheckSchemas: schemas of as many fields cost
// a tick per field and are compared field by field (names ignored).
func (in *Interp) sameSchema(a, b *Schema) (bool, error) {
	if len(a.Fields) != len(b.Fields) {
		return false, nil
	}
	if err := in.chargeTick(len(a.Fields)); err != nil {
		return false, err
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name {
			return false, nil
		}
		ok, err := in.sameType(&a.Fields[i].Type, &b.Fields[i].Type)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (in *Interp) sameType(a, b *Type) (bool, error) {
	switch {
	case a.Kind == TyPrim && b.Kind == TyPrim:
		return primName(a.Prim) == primName(b.Prim), nil
	case a.Kind == TyList && b.Kind == TyList:
		return in.sameType(a.Elem, b.Elem)
	case a.Kind == TyObject && b.Kind == TyObject, a.Kind == TyTable && b.Kind == TyTable:
		if a.Schema == nil || b.Schema == nil {
			return a.Schema == b.Schema, nil
		}
		return in.sameSchema(a.Schema, b.Schema)
	case a.Kind == TyModRef && b.Kind == TyModRef:
		return slices.Equal(a.ModRefs, b.ModRefs), nil
	}
	return a.Kind == b.Kind && (a.Kind == TyCapToken || a.Kind == TyAny || a.Kind == TyAnyList || a.Kind == TyAnyObject), nil
}

// primName is a primitive type's P5 name: keyset is the guard type.
func primName(p string) string {
	if p == "keyset" {
		return "guard"
	}
	return p
}

func schemaField(s *Schema, name string) *SchemaField {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}
