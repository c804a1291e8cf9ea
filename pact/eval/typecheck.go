package eval

import (
	"slices"

	"github.com/ledgernode/ledger-node/pact/value"
)

// typeCheck is P5's gassedRuntimeTypecheck of a value against a type: a
// list of k elements costs k ticks and every element is checked (no short
// cut); an object against a schema of as many fields costs a tick per field
// and stops at the first field that fails; a table's schema is compared
// field by field; a module reference implementing ten or more interfaces
// costs a tick per interface. Everything else is free. `keyset` is P5's
// guard type.
func (in *Interp) typeCheck(t *value.Type, v value.Value) (bool, error) {
	switch t.Kind {
	case value.TyAny:
		return true, nil
	case value.TyPrim:
		switch t.Prim {
		case "integer":
			return v.Kind() == value.KindInteger, nil
		case "decimal":
			return v.Kind() == value.KindDecimal, nil
		case "string":
			return v.Kind() == value.KindString, nil
		case "bool":
			return v.Kind() == value.KindBool, nil
		case "time":
			return v.Kind() == value.KindTime, nil
		case "unit":
			return v.Kind() == value.KindUnit, nil
		case "guard", "keyset":
			return v.Kind() == value.KindGuard, nil
		}
		return false, nil
	case value.TyAnyList:
		return v.Kind() == value.KindList, nil
	case value.TyList:
		l, ok := v.(value.List)
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
	case value.TyAnyObject:
		return v.Kind() == value.KindObject, nil
	case value.TyObject:
		o, ok := v.(*value.Object)
		if !ok {
			return false, nil
		}
		if t.Schema == nil {
			return true, nil
		}
		return in.typeCheckObject(o, t.Schema)
	case value.TyTable:
		tb, ok := v.(*value.Table)
		if !ok {
			return false, nil
		}
		if t.Schema == nil {
			return true, nil
		}
		return in.sameSchema(&tb.Schema, t.Schema)
	case value.TyModRef:
		r, ok := v.(*value.ModRef)
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
	case value.TyCapToken:
		return v.Kind() == value.KindCapToken, nil
	}
	return false, nil
}

// typeCheckObject is P5's gassedTypecheckObj: the object must have as many
// fields as the schema (else it fails for free), then costs a tick per
// field, and its fields are compared with the schema's in order.
func (in *Interp) typeCheckObject(o *value.Object, s *value.Schema) (bool, error) {
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
func (in *Interp) typeCheckPartial(o *value.Object, s *value.Schema) (bool, error) {
	if err := in.chargeTick(o.Len()); err != nil {
		return false, err
	}
	for _, k := range o.Keys() {
		if value.LookupSchemaField(s, k) == nil {
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
		ok, err := in.typeCheck(&value.LookupSchemaField(s, k).Type, o.Val(i))
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// sameSchema is P5's gassedTypecheckSchemas: schemas of as many fields cost
// a tick per field and are compared field by field (names ignored).
func (in *Interp) sameSchema(a, b *value.Schema) (bool, error) {
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

func (in *Interp) sameType(a, b *value.Type) (bool, error) {
	switch {
	case a.Kind == value.TyPrim && b.Kind == value.TyPrim:
		return value.PrimName(a.Prim) == value.PrimName(b.Prim), nil
	case a.Kind == value.TyList && b.Kind == value.TyList:
		return in.sameType(a.Elem, b.Elem)
	case a.Kind == value.TyObject && b.Kind == value.TyObject, a.Kind == value.TyTable && b.Kind == value.TyTable:
		if a.Schema == nil || b.Schema == nil {
			return a.Schema == b.Schema, nil
		}
		return in.sameSchema(a.Schema, b.Schema)
	case a.Kind == value.TyModRef && b.Kind == value.TyModRef:
		return slices.Equal(a.ModRefs, b.ModRefs), nil
	}
	return a.Kind == b.Kind && (a.Kind == value.TyCapToken || a.Kind == value.TyAny || a.Kind == value.TyAnyList || a.Kind == value.TyAnyObject), nil
}
