package value

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

// PrimName is a primitive type's P5 name: keyset is the guard type.
func PrimName(p string) string {
	if p == "keyset" {
		return "guard"
	}
	return p
}

// LookupSchemaField is the field of s named name, nil if it has none.
func LookupSchemaField(s *Schema, name string) *SchemaField {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}
