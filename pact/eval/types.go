package eval

import "strings"

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

// typeMatches is P5's runtime type check of a value against an annotation.
func typeMatches(t *Type, v Value) bool {
	switch t.Kind {
	case TyAny:
		return true
	case TyPrim:
		switch t.Prim {
		case "integer":
			return v.Kind() == KindInteger
		case "decimal":
			return v.Kind() == KindDecimal
		case "string":
			return v.Kind() == KindString
		case "bool":
			return v.Kind() == KindBool
		case "time":
			return v.Kind() == KindTime
		case "unit":
			return v.Kind() == KindUnit
		case "guard":
			return v.Kind() == KindGuard
		case "keyset":
			_, ok := v.(*KeySet)
			return ok
		}
		return false
	case TyAnyList:
		return v.Kind() == KindList
	case TyList:
		l, ok := v.(List)
		if !ok {
			return false
		}
		for _, e := range l {
			if !typeMatches(t.Elem, e) {
				return false
			}
		}
		return true
	case TyAnyObject:
		return v.Kind() == KindObject
	case TyObject:
		o, ok := v.(*Object)
		if !ok {
			return false
		}
		if t.Schema == nil {
			return true
		}
		return objectMatchesSchema(o, t.Schema, false)
	case TyTable:
		tb, ok := v.(*Table)
		if !ok {
			return false
		}
		return t.Schema == nil || tb.Schema.Name == t.Schema.Name || sameFields(&tb.Schema, t.Schema)
	case TyModRef:
		r, ok := v.(*ModRef)
		if !ok {
			return false
		}
		for _, want := range t.ModRefs {
			found := false
			for _, have := range r.Implemented {
				if have == want {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case TyCapToken:
		return v.Kind() == KindCapToken
	}
	return false
}

func sameFields(a, b *Schema) bool {
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name || !equalTypes(&a.Fields[i].Type, &b.Fields[i].Type) {
			return false
		}
	}
	return true
}

// objectMatchesSchema checks an object against a schema: no unknown
// fields, every field of the right type, and (unless partial) every
// schema field present.
func objectMatchesSchema(o *Object, s *Schema, partial bool) bool {
	if !partial && o.Len() != len(s.Fields) {
		return false
	}
	for i, k := range o.Keys() {
		f := schemaField(s, k)
		if f == nil || !typeMatches(&f.Type, o.Val(i)) {
			return false
		}
	}
	return true
}

func schemaField(s *Schema, name string) *SchemaField {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}
