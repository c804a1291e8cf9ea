package value

import (
	"cmp"
	"slices"
	"strings"
)

// Equal is `=` (P5 valEqGassed): structural and deep. Numbers compare
// numerically within a type (1.0 = 1.00) but an integer never equals a
// decimal; objects compare as maps; module references compare by module
// name only; capability tokens by name, hash and arguments. Table
// references are never equal to anything, as in P5. Closures are never
// equal.
func Equal(a, b Value) bool { return equal(a, b, false) }

// StructEqual is the equality `expect` uses (Haskell's derived Eq on
// PactValue). It differs from Equal only for table references, which it
// compares by name, module, hash and schema.
func StructEqual(a, b Value) bool { return equal(a, b, true) }

func equal(a, b Value, tables bool) bool {
	switch x := a.(type) {
	case Integer:
		y, ok := b.(Integer)
		return ok && x.Equal(y)
	case Decimal:
		y, ok := b.(Decimal)
		return ok && x.Equal(y)
	case String:
		y, ok := b.(String)
		return ok && x == y
	case Bool:
		y, ok := b.(Bool)
		return ok && x == y
	case Unit:
		_, ok := b.(Unit)
		return ok
	case Time:
		y, ok := b.(Time)
		return ok && x == y
	case List:
		y, ok := b.(List)
		return ok && equalLists(x, y, tables)
	case *Object:
		y, ok := b.(*Object)
		return ok && slices.Equal(x.keys, y.keys) && equalLists(x.vals, y.vals, tables)
	case *ModRef:
		y, ok := b.(*ModRef)
		return ok && x.Module == y.Module
	case *CapToken:
		y, ok := b.(*CapToken)
		return ok && x.Name == y.Name && equalLists(x.Args, y.Args, tables)
	case *Table:
		y, ok := b.(*Table)
		return tables && ok && x.Name == y.Name && x.Module == y.Module && x.Hash == y.Hash &&
			equalSchemas(&x.Schema, &y.Schema)
	case *KeySet:
		y, ok := b.(*KeySet)
		return ok && x.Pred == y.Pred && slices.Equal(x.Keys, y.Keys)
	case *KeySetRef:
		y, ok := b.(*KeySetRef)
		return ok && *x == *y
	case *UserGuard:
		y, ok := b.(*UserGuard)
		return ok && x.Fun == y.Fun && equalLists(x.Args, y.Args, tables)
	case *CapabilityGuard:
		y, ok := b.(*CapabilityGuard)
		return ok && x.Name == y.Name && x.HasPactID == y.HasPactID && x.PactID == y.PactID &&
			equalLists(x.Args, y.Args, tables)
	case *ModuleGuard:
		y, ok := b.(*ModuleGuard)
		return ok && *x == *y
	case *PactGuard:
		y, ok := b.(*PactGuard)
		return ok && *x == *y
	}
	return false
}

func equalLists(x, y []Value, tables bool) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !equal(x[i], y[i], tables) {
			return false
		}
	}
	return true
}

func equalSchemas(a, b *Schema) bool {
	if a.Name != b.Name || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name || !EqualTypes(&a.Fields[i].Type, &b.Fields[i].Type) {
			return false
		}
	}
	return true
}

// EqualTypes compares field types. A schema named inside a type is
// compared by name only: schemas may refer to themselves
// (`next:object{row}` in row), and a field-by-field walk would not end.
func EqualTypes(a, b *Type) bool {
	if a.Kind != b.Kind || a.Prim != b.Prim || !slices.Equal(a.ModRefs, b.ModRefs) {
		return false
	}
	if (a.Elem == nil) != (b.Elem == nil) || (a.Elem != nil && !EqualTypes(a.Elem, b.Elem)) {
		return false
	}
	if (a.Schema == nil) != (b.Schema == nil) || (a.Schema != nil && a.Schema.Name != b.Schema.Name) {
		return false
	}
	return true
}

// Compare orders two values of the same literal type (integer, decimal,
// string, bool, unit) or two times, as P5's `<` family does. ok is false
// for any other pair, mixed integer/decimal included.
func Compare(a, b Value) (c int, ok bool) {
	switch x := a.(type) {
	case Integer:
		if y, ok := b.(Integer); ok {
			return x.Cmp(y), true
		}
	case Decimal:
		if y, ok := b.(Decimal); ok {
			return x.Cmp(y), true
		}
	case String:
		if y, ok := b.(String); ok {
			return strings.Compare(string(x), string(y)), true
		}
	case Bool:
		if y, ok := b.(Bool); ok {
			return boolCmp(bool(x), bool(y)), true
		}
	case Unit:
		if _, ok := b.(Unit); ok {
			return 0, true
		}
	case Time:
		if y, ok := b.(Time); ok {
			return cmpInt64(x.micros, y.micros), true
		}
	}
	return 0, false
}

func boolCmp(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

func cmpInt64(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func cmpNative(native string, a, b Value, pred func(int) bool) (Value, error) {
	c, ok := Compare(a, b)
	if !ok {
		return nil, ArgsError(native, a, b)
	}
	return Bool(pred(c)), nil
}

// Lt, Gt, Leq and Geq are `<`, `>`, `<=` and `>=`.
func Lt(a, b Value) (Value, error) {
	return cmpNative("<", a, b, func(c int) bool { return c < 0 })
}

func Gt(a, b Value) (Value, error) {
	return cmpNative(">", a, b, func(c int) bool { return c > 0 })
}

func Leq(a, b Value) (Value, error) {
	return cmpNative("<=", a, b, func(c int) bool { return c <= 0 })
}

func Geq(a, b Value) (Value, error) {
	return cmpNative(">=", a, b, func(c int) bool { return c >= 0 })
}

// literalRank is the constructor order of P5's Literal type, which `sort`
// uses to order literals of different types.
func literalRank(v Value) int {
	switch v.Kind() {
	case KindString:
		return 0
	case KindInteger:
		return 1
	case KindDecimal:
		return 2
	case KindUnit:
		return 3
	case KindBool:
		return 4
	}
	return -1
}

// sortCompare is P5's ordering for `sort`: literals by constructor then by
// value, times after all literals, and every other pair "equal".
func sortCompare(a, b Value) int {
	ra, rb := literalRank(a), literalRank(b)
	switch {
	case ra >= 0 && rb >= 0:
		if ra != rb {
			return ra - rb
		}
		c, _ := Compare(a, b)
		return c
	case ra >= 0 && b.Kind() == KindTime:
		return -1
	case a.Kind() == KindTime && rb >= 0:
		return 1
	case a.Kind() == KindTime && b.Kind() == KindTime:
		c, _ := Compare(a, b)
		return c
	}
	return 0
}

// Sort is one-argument `sort`: ascending, literals and times ordered as
// sortCompare says. The sort is stable, so values P5 cannot order keep
// their relative positions.
func Sort(a Value) (Value, error) {
	l, ok := a.(List)
	if !ok {
		return nil, ArgsError("sort", a)
	}
	out := slices.Clone(l)
	if sortSmallInts(out) || sortStrings(out) {
		return out, nil
	}
	consistent := true
	for _, v := range out {
		if literalRank(v) < 0 && v.Kind() != KindTime {
			consistent = false
			break
		}
	}
	sortStable(out, consistent, sortCompare)
	return out, nil
}

// sortSmallInts sorts vs when every element is an integer that fits a
// machine word, comparing the words themselves (the common case, and ten
// times faster than comparing Values). Equal integers are the same value,
// so their order among themselves is immaterial. It reports whether it
// sorted.
func sortSmallInts(vs []Value) bool {
	// The keys hold no pointers, so the sort moves them without the
	// garbage collector's write barriers.
	type key struct {
		k int64
		i int
	}
	keys := make([]key, len(vs))
	for i, v := range vs {
		x, ok := v.(Integer)
		if !ok || x.big != nil {
			return false
		}
		keys[i] = key{x.small, i}
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Compare(a.k, b.k) })
	sorted := make([]Value, len(vs))
	for i, k := range keys {
		sorted[i] = vs[k.i]
	}
	copy(vs, sorted)
	return true
}

// sortStrings is sortSmallInts for lists of strings only. The sort moves
// positions, not strings: moving pointers costs write barriers while the
// garbage collector runs.
func sortStrings(vs []Value) bool {
	strs := make([]string, len(vs))
	for i, v := range vs {
		s, ok := v.(String)
		if !ok {
			return false
		}
		strs[i] = string(s)
	}
	pos := make([]int32, len(vs))
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortFunc(pos, func(i, j int32) int { return strings.Compare(strs[i], strs[j]) })
	sorted := make([]Value, len(vs))
	for i, p := range pos {
		sorted[i] = vs[p]
	}
	copy(vs, sorted)
	return true
}

// sortStable sorts vs stably by cmp. When cmp is a total preorder
// (consistent), every stable sort gives the same order and an O(n log n)
// one is used: pdqsort of the positions, ties broken by position. P5's
// orders are not total preorders when values they cannot order sit among
// ones they can (such a value is "equal" to every other), and stable sorts
// then disagree: those lists keep the standard library's symmerge sort,
// the order this implementation has always given (it is sort.SliceStable's
// algorithm, without reflection), O(n log² n).
func sortStable[E any](vs []E, consistent bool, cmp func(a, b E) int) {
	if !consistent {
		slices.SortStableFunc(vs, cmp)
		return
	}
	pos := make([]int32, len(vs))
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortFunc(pos, func(i, j int32) int {
		if c := cmp(vs[i], vs[j]); c != 0 {
			return c
		}
		return int(i - j)
	})
	sorted := make([]E, len(vs))
	for i, p := range pos {
		sorted[i] = vs[p]
	}
	copy(vs, sorted)
}

// SortObjects is `(sort fields objects)`. Objects are compared field by
// field on literal values only (a missing or non-literal field compares
// equal). P5 folds the comparison from the right, so the LAST listed field
// decides first and earlier fields only break its ties; we keep that.
func SortObjects(fields, objs Value) (Value, error) {
	fl, ok1 := fields.(List)
	ol, ok2 := objs.(List)
	if !ok1 || !ok2 {
		return nil, ArgsError("sort", fields, objs)
	}
	if len(fl) == 0 || len(ol) == 0 {
		return ol, nil
	}
	os := make([]*Object, len(ol))
	for i, v := range ol {
		o, ok := v.(*Object)
		if !ok {
			return nil, ArgsError("sort", v)
		}
		os[i] = o
	}
	names := make([]string, len(fl))
	for i, v := range fl {
		s, ok := v.(String)
		if !ok {
			return nil, ArgsError("sort", v)
		}
		names[i] = string(s)
	}
	cmp := func(x, y *Object) int {
		for i := len(names) - 1; i >= 0; i-- {
			a, okA := x.Get(names[i])
			b, okB := y.Get(names[i])
			if !okA || !okB || literalRank(a) < 0 || literalRank(b) < 0 {
				continue
			}
			ra, rb := literalRank(a), literalRank(b)
			if ra != rb {
				return ra - rb
			}
			if c, _ := Compare(a, b); c != 0 {
				return c
			}
		}
		return 0
	}
	sortStable(os, objectFieldsConsistent(os, names), cmp)
	out := make(List, len(os))
	for i, o := range os {
		out[i] = o
	}
	return out, nil
}

// objectFieldsConsistent reports whether sorting os by the fields names
// is a total preorder: on each field either every object holds a literal,
// which orders them, or none does, which makes them all equal there.
func objectFieldsConsistent(os []*Object, names []string) bool {
	for _, name := range names {
		literals := 0
		for _, o := range os {
			if v, ok := o.Get(name); ok && literalRank(v) >= 0 {
				literals++
			}
		}
		if literals != 0 && literals != len(os) {
			return false
		}
	}
	return true
}

// Distinct is `distinct`: the first occurrence of each value (by Equal).
func Distinct(a Value) (Value, error) {
	l, ok := a.(List)
	if !ok {
		return nil, ArgsError("distinct", a)
	}
	out := make(List, 0, len(l))
outer:
	for _, v := range l {
		for _, w := range out {
			if Equal(v, w) {
				continue outer
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// Contains is `contains`: a key of an object, a substring of a string, or
// an element of a list (by Equal).
func Contains(needle, hay Value) (Value, error) {
	switch h := hay.(type) {
	case *Object:
		if s, ok := needle.(String); ok {
			return Bool(h.Has(string(s))), nil
		}
	case String:
		if s, ok := needle.(String); ok {
			return Bool(strings.Contains(string(h), string(s))), nil
		}
	case List:
		if needle.Kind() != KindClosure {
			for _, v := range h {
				if Equal(needle, v) {
					return True, nil
				}
			}
			return False, nil
		}
	}
	return nil, ArgsError("contains", needle, hay)
}
