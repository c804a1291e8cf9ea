package value

import (
	"testing"
)

// Equality and ordering rules of spec/pact.md §3.4 and P5 ops.repl.

func TestEquality(t *testing.T) {
	mod := ModuleName{Name: "tm"}
	cases := []struct {
		name string
		a, b Value
		want bool
	}{
		{"decimal decimal", num(t, "10.0"), num(t, "10.0"), true},
		{"decimal places", num(t, "1.0"), num(t, "1.00"), true},
		{"decimal !=", num(t, "10.0"), num(t, "10.1"), false},
		{"int dec", num(t, "10"), num(t, "10.0"), false},
		{"dec int", num(t, "10.0"), num(t, "10"), false},
		{"dec 1 = 1.0", DecimalFromInt(NewInt(1)), num(t, "1.0"), true},
		{"strings", String("hello"), String("hello"), true},
		{"bools", False, True, false},
		{"units", UnitValue, UnitValue, true},
		{"lists", List{NewInt(1), NewInt(2), NewInt(3)}, List{NewInt(1), NewInt(2), NewInt(3)}, true},
		{"lists order", List{NewInt(1), NewInt(3), NewInt(2)}, List{NewInt(1), NewInt(2), NewInt(3)}, false},
		{"objects", NewObject(Field{Key: "a", Val: NewInt(1)}), NewObject(Field{Key: "a", Val: NewInt(1)}), true},
		{"objects extra key", NewObject(Field{Key: "a", Val: NewInt(1)}), NewObject(Field{Key: "a", Val: NewInt(1)}, Field{Key: "b", Val: NewInt(2)}), false},
		{"objects order-free", NewObject(Field{Key: "a", Val: NewInt(1)}, Field{Key: "b", Val: num(t, "2.0")}),
			NewObject(Field{Key: "b", Val: num(t, "2.00")}, Field{Key: "a", Val: NewInt(1)}), true},
		{"keysets", NewKeySet([]string{"k1"}, ""), NewKeySet([]string{"k1"}, ""), true},
		{"keysets differ", NewKeySet([]string{"k1"}, ""), NewKeySet([]string{"k2"}, ""), false},
		{"keyset refs", &KeySetRef{Name: "k1"}, &KeySetRef{Name: "k1"}, true},
		{"keyset refs differ", &KeySetRef{Name: "k1"}, &KeySetRef{Name: "k2"}, false},
		{"module guards", &ModuleGuard{Module: mod, Name: "1"}, &ModuleGuard{Module: mod, Name: "1"}, true},
		{"module guards differ", &ModuleGuard{Module: mod, Name: "2"}, &ModuleGuard{Module: mod, Name: "1"}, false},
		{"pact guards", &PactGuard{PactID: "YQo", Name: "1"}, &PactGuard{PactID: "YQo", Name: "2"}, false},
		{"user guards", &UserGuard{Fun: QualifiedName{mod, "ug"}, Args: []Value{String("1")}},
			&UserGuard{Fun: QualifiedName{mod, "ug"}, Args: []Value{String("1")}}, true},
		{"user guards differ", &UserGuard{Fun: QualifiedName{mod, "ug"}, Args: []Value{String("2")}},
			&UserGuard{Fun: QualifiedName{mod, "ug"}, Args: []Value{String("1")}}, false},
		{"modrefs by name", NewModRef(ModuleName{Name: "mx"}, []ModuleName{{Name: "ix"}}),
			NewModRef(ModuleName{Name: "mx"}, nil), true},
		{"modrefs differ", NewModRef(ModuleName{Name: "my"}, nil), NewModRef(ModuleName{Name: "mx"}, nil), false},
		{"times", TimeFromMicros(5), TimeFromMicros(5), true},
		{"cap tokens", &CapToken{Name: FullyQualifiedName{mod, "C", "h"}, Args: []Value{num(t, "1.0")}},
			&CapToken{Name: FullyQualifiedName{mod, "C", "h"}, Args: []Value{num(t, "1.00")}}, true},
		{"cap tokens hash", &CapToken{Name: FullyQualifiedName{mod, "C", "h"}},
			&CapToken{Name: FullyQualifiedName{mod, "C", "g"}}, false},
		{"kinds differ", String("1"), NewInt(1), false},
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("%s: = gives %v", c.name, got)
		}
	}
	// Tables: never equal for `=`, structurally equal for `expect`.
	tbl := &Table{Name: "t", Module: mod, Hash: "h"}
	if Equal(tbl, tbl) {
		t.Error("a table equals itself under =; P5 says never")
	}
	if !StructEqual(tbl, &Table{Name: "t", Module: mod, Hash: "h"}) {
		t.Error("StructEqual of equal tables is false")
	}
}

func TestOrdering(t *testing.T) {
	type cmp func(a, b Value) (Value, error)
	cases := []struct {
		name string
		op   cmp
		a, b Value
		want bool
	}{
		{"< dec", Lt, num(t, "10.0"), num(t, "11.0"), true},
		{"<= dec", Leq, num(t, "11.0"), num(t, "11.0"), true},
		{"> dec", Gt, num(t, "11.0"), num(t, "10.0"), true},
		{">= dec", Geq, num(t, "11.1"), num(t, "11.0"), true},
		{"< int", Lt, NewInt(10), NewInt(11), true},
		{"<= int", Leq, NewInt(11), NewInt(11), true},
		{"> int", Gt, NewInt(11), NewInt(10), true},
		{">= int", Geq, NewInt(12), NewInt(11), true},
		{"< str", Lt, String("a"), String("b"), true},
		{">= str", Geq, String("ba"), String("a"), true},
		{"code points", Lt, String("Z"), String("a"), true},
		{"code points 2", Lt, String("\u00e9"), String("\U0001F600"), true},
		{"bools", Lt, False, True, true},
		{"units", Leq, UnitValue, UnitValue, true},
		{"units <", Lt, UnitValue, UnitValue, false},
		{"times", Lt, TimeFromMicros(1), TimeFromMicros(2), true},
	}
	for _, c := range cases {
		got, err := c.op(c.a, c.b)
		if err != nil || got != Bool(c.want) {
			t.Errorf("%s: %v, %v", c.name, got, err)
		}
	}
	for _, bad := range []struct {
		op   cmp
		a, b Value
		msg  string
	}{
		{Lt, num(t, "10.0"), NewInt(11), "Type error: failed to call native function < with argument(s) of type(s): decimal, integer"},
		{Geq, NewInt(12), num(t, "11.0"), "Type error: failed to call native function >= with argument(s) of type(s): integer, decimal"},
		{Lt, List{}, List{}, "Type error: failed to call native function < with argument(s) of type(s): list, list"},
		{Gt, EmptyObject, EmptyObject, "Type error: failed to call native function > with argument(s) of type(s): object, object"},
	} {
		_, err := bad.op(bad.a, bad.b)
		if err == nil || err.Error() != bad.msg {
			t.Errorf("error %v, want %q", err, bad.msg)
		}
	}
}

func TestSortDistinctContains(t *testing.T) {
	got, _ := Sort(List{NewInt(3), NewInt(1), NewInt(2)})
	if !Equal(got, List{NewInt(1), NewInt(2), NewInt(3)}) {
		t.Errorf("sort ints = %v", got)
	}
	// Mixed literals: strings, then integers, decimals, unit, bools; times
	// after all literals (P5's Literal constructor order).
	mixed := List{True, TimeFromMicros(0), num(t, "1.5"), UnitValue, NewInt(7), String("z")}
	got, _ = Sort(mixed)
	want := List{String("z"), NewInt(7), num(t, "1.5"), UnitValue, True, TimeFromMicros(0)}
	if !Equal(got, want) {
		t.Errorf("sort mixed = %v, want %v", got, want)
	}
	// Objects by fields; the last listed field decides first (P5 folds
	// from the right).
	o := func(a, b int64) *Object {
		return NewObject(Field{Key: "a", Val: NewInt(a)}, Field{Key: "b", Val: NewInt(b)})
	}
	got, _ = SortObjects(List{String("a"), String("b")}, List{o(1, 2), o(2, 1), o(0, 2)})
	want = List{o(2, 1), o(0, 2), o(1, 2)}
	if !Equal(got, want) {
		t.Errorf("sort objects = %v, want %v", got, want)
	}
	got, _ = SortObjects(List{String("a")}, List{o(2, 0), o(1, 0)})
	if !Equal(got, List{o(1, 0), o(2, 0)}) {
		t.Errorf("sort objects by a = %v", got)
	}
	got, _ = Distinct(List{NewInt(1), num(t, "1.0"), NewInt(1), num(t, "1.00"), String("a")})
	if !Equal(got, List{NewInt(1), num(t, "1.0"), String("a")}) {
		t.Errorf("distinct = %v", got)
	}
	for _, c := range []struct {
		needle, hay Value
		want        bool
	}{
		{NewInt(2), List{NewInt(1), NewInt(2)}, true},
		{num(t, "2.0"), List{NewInt(1), NewInt(2)}, false},
		{String("k"), NewObject(Field{Key: "k", Val: UnitValue}), true},
		{String("ell"), String("hello"), true},
		{String("x"), String("hello"), false},
	} {
		got, err := Contains(c.needle, c.hay)
		if err != nil || got != Bool(c.want) {
			t.Errorf("contains %v %v = %v, %v", c.needle, c.hay, got, err)
		}
	}
}

// A schema may name itself (`next:object{row}` in row); comparing two
// tables over it must terminate.
func TestStructEqualSelfReferentialSchema(t *testing.T) {
	row := &Schema{Name: QualifiedName{Module: ModuleName{Name: "m"}, Name: "row"}}
	row.Fields = []SchemaField{
		{Name: "a", Type: Type{Kind: TyPrim, Prim: "integer"}},
		{Name: "next", Type: Type{Kind: TyObject, Schema: row}},
	}
	a := &Table{Name: "t", Module: ModuleName{Name: "m"}, Hash: "h", Schema: *row}
	b := &Table{Name: "t", Module: ModuleName{Name: "m"}, Hash: "h", Schema: *row}
	if !StructEqual(a, b) {
		t.Fatal("identical tables over a self-referential schema compare unequal")
	}
	other := *row
	other.Fields = append([]SchemaField(nil), row.Fields...)
	other.Fields[0].Type.Prim = "decimal"
	if StructEqual(a, &Table{Name: "t", Module: ModuleName{Name: "m"}, Hash: "h", Schema: other}) {
		t.Fatal("tables whose schemas differ in a field type compare equal")
	}
}
