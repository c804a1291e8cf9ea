package value

import (
	"math/bits"
	"slices"
	"strings"
)

// Object is a Pact object: a map from field names to values, kept sorted
// by key (P5 stores objects as a Haskell Map Field, whose order is the
// code-point order Go's string comparison gives). Display, iteration and
// equality follow that order; JSON encoding reorders keys with the legacy
// hash order (see keyorder.go).
//
// Objects are immutable; every operation returns a new object.
type Object struct {
	keys []string
	vals []Value
}

func (*Object) Kind() Kind         { return KindObject }
func (o *Object) String() string   { return Pretty(o) }
func (o *Object) Len() int         { return len(o.keys) }
func (o *Object) Keys() []string   { return o.keys } // sorted; do not modify
func (o *Object) Values() []Value  { return o.vals } // in key order; do not modify
func (o *Object) Key(i int) string { return o.keys[i] }
func (o *Object) Val(i int) Value  { return o.vals[i] }

// EmptyObject is {}.
var EmptyObject = &Object{}

// Field is one key/value pair, for building objects.
type Field struct {
	Key string
	Val Value
}

// NewObject builds an object from pairs in any order. A repeated key keeps
// its last value, as Haskell's Map.fromList does.
func NewObject(fields ...Field) *Object {
	if len(fields) <= insertionFields {
		// The objects a node builds per command (chain data, gas data)
		// have a few fields: inserted in order, without a copy to sort.
		o := &Object{keys: make([]string, 0, len(fields)), vals: make([]Value, 0, len(fields))}
		for _, f := range fields {
			i, found := slices.BinarySearch(o.keys, f.Key)
			if found {
				o.vals[i] = f.Val
				continue
			}
			o.keys = slices.Insert(o.keys, i, f.Key)
			o.vals = slices.Insert(o.vals, i, f.Val)
		}
		return o
	}
	fs := slices.Clone(fields)
	slices.SortStableFunc(fs, func(a, b Field) int { return strings.Compare(a.Key, b.Key) })
	o := &Object{keys: make([]string, 0, len(fs)), vals: make([]Value, 0, len(fs))}
	for _, f := range fs {
		if n := len(o.keys); n > 0 && o.keys[n-1] == f.Key {
			o.vals[n-1] = f.Val
			continue
		}
		o.keys = append(o.keys, f.Key)
		o.vals = append(o.vals, f.Val)
	}
	return o
}

// insertionFields is the most fields NewObject inserts one by one: more,
// and it sorts a copy (insertion is quadratic).
const insertionFields = 16

// newObjectSorted wraps keys already sorted and unique, without copying.
func newObjectSorted(keys []string, vals []Value) *Object {
	return &Object{keys: keys, vals: vals}
}

func (o *Object) find(k string) (int, bool) {
	return slices.BinarySearch(o.keys, k)
}

// Get looks a field up.
func (o *Object) Get(k string) (Value, bool) {
	if i, ok := o.find(k); ok {
		return o.vals[i], true
	}
	return nil, false
}

// Has reports whether the key is present (`contains` on objects).
func (o *Object) Has(k string) bool {
	_, ok := o.find(k)
	return ok
}

// At is `(at "k" obj)`: a missing key is P5's non-recoverable
// ObjectIsMissingField error.
func (o *Object) At(k string) (Value, error) {
	if v, ok := o.Get(k); ok {
		return v, nil
	}
	return nil, MissingFieldError(k, o)
}

// Set returns a copy with k bound to v.
func (o *Object) Set(k string, v Value) *Object {
	i, ok := o.find(k)
	keys := slices.Clone(o.keys)
	vals := slices.Clone(o.vals)
	if ok {
		vals[i] = v
	} else {
		keys = slices.Insert(keys, i, k)
		vals = slices.Insert(vals, i, v)
	}
	return newObjectSorted(keys, vals)
}

// Remove is `remove`: a copy without k (unchanged if absent).
func (o *Object) Remove(k string) *Object {
	i, ok := o.find(k)
	if !ok {
		return o
	}
	keys := slices.Delete(slices.Clone(o.keys), i, i+1)
	vals := slices.Delete(slices.Clone(o.vals), i, i+1)
	return newObjectSorted(keys, vals)
}

// Union is object `+`: all keys of both, the receiver's values winning on
// shared keys (Haskell's left-biased Map.union). When one object's keys
// hold the other's (an update's fields and the row it updates), the union
// shares that key list, and its values come with it in one allocation.
func (o *Object) Union(p *Object) *Object { return o.UnionIn(p, nil) }

// UnionIn is Union, the result cut from a's cells when a is not nil.
func (o *Object) UnionIn(p *Object, a *ObjectCells) *Object {
	n, onlyO, onlyP := 0, 0, 0
	for i, j := 0, 0; i < len(o.keys) || j < len(p.keys); n++ {
		switch {
		case j == len(p.keys) || (i < len(o.keys) && o.keys[i] < p.keys[j]):
			i, onlyO = i+1, onlyO+1
		case i == len(o.keys) || p.keys[j] < o.keys[i]:
			j, onlyP = j+1, onlyP+1
		default:
			i, j = i+1, j+1
		}
	}
	var keys []string
	switch {
	case onlyP == 0:
		keys = o.keys
	case onlyO == 0:
		keys = p.keys
	default:
		keys = make([]string, 0, n)
	}
	var u *Object
	if n <= len(objectCell{}.buf) {
		if a != nil {
			u = a.Cell(n)
		} else {
			c := new(objectCell)
			c.obj.vals = c.buf[:0:n]
			u = &c.obj
		}
	} else {
		u = &Object{vals: make([]Value, 0, n)}
	}
	fresh := onlyP != 0 && onlyO != 0
	for i, j := 0, 0; i < len(o.keys) || j < len(p.keys); {
		var k string
		var v Value
		switch {
		case j == len(p.keys) || (i < len(o.keys) && o.keys[i] < p.keys[j]):
			k, v = o.keys[i], o.vals[i]
			i++
		case i == len(o.keys) || p.keys[j] < o.keys[i]:
			k, v = p.keys[j], p.vals[j]
			j++
		default:
			k, v = o.keys[i], o.vals[i]
			i++
			j++
		}
		if fresh {
			keys = append(keys, k)
		}
		u.vals = append(u.vals, v)
	}
	u.keys = keys
	return u
}

// Restrict is `take` with a key list: only the listed keys that exist.
func (o *Object) Restrict(ks []string) *Object {
	// take charges by the keys asked for, not the fields: a few keys of a
	// wide object are looked up rather than every field visited.
	if len(ks)*bits.Len(uint(len(o.keys))) < len(o.keys) {
		found := make([]int, 0, len(ks))
		for _, k := range ks {
			if i, ok := o.find(k); ok {
				found = append(found, i)
			}
		}
		if len(found) == 0 {
			return newObjectSorted(nil, nil)
		}
		slices.Sort(found)
		found = slices.Compact(found)
		keys, vals := make([]string, len(found)), make([]Value, len(found))
		for j, i := range found {
			keys[j], vals[j] = o.keys[i], o.vals[i]
		}
		return newObjectSorted(keys, vals)
	}
	set := make(map[string]bool, len(ks))
	for _, k := range ks {
		set[k] = true
	}
	return o.filter(func(k string) bool { return set[k] })
}

// Without is `drop` with a key list: every key except the listed ones.
func (o *Object) Without(ks []string) *Object {
	set := make(map[string]bool, len(ks))
	for _, k := range ks {
		set[k] = true
	}
	return o.filter(func(k string) bool { return !set[k] })
}

func (o *Object) filter(keep func(string) bool) *Object {
	var keys []string
	var vals []Value
	for i, k := range o.keys {
		if keep(k) {
			keys = append(keys, k)
			vals = append(vals, o.vals[i])
		}
	}
	return newObjectSorted(keys, vals)
}

// objectCell is an object with room for its values: most objects a
// transaction builds (literals, merged rows) have a few fields, and
// making both at once saves an allocation each. pairCell is the same for
// one or two fields (a balance, a balance and a guard), a third smaller.
type objectCell struct {
	obj Object
	buf [4]Value
}

type pairCell struct {
	obj Object
	buf [2]Value
}

// ObjectCells cuts small objects from chunks of cells (see objectCell), for
// an evaluation that makes many: the evaluator's arena holds one.
type ObjectCells struct {
	cells     []objectCell
	pairCells []pairCell
}

// Cell returns an empty object with room for n <= 4 values.
func (a *ObjectCells) Cell(n int) *Object {
	if n <= len(pairCell{}.buf) {
		c := cutCell(&a.pairCells)
		c.obj.vals = c.buf[:0:n]
		return &c.obj
	}
	c := cutCell(&a.cells)
	c.obj.vals = c.buf[:0:n]
	return &c.obj
}

// Object returns an object over keys (sorted and unique) and its values
// to fill in, zeroed: cut from a chunk when they fit a cell.
func (a *ObjectCells) Object(keys []string) (*Object, []Value) {
	if len(keys) > len(objectCell{}.buf) {
		vals := make([]Value, len(keys))
		return newObjectSorted(keys, vals), vals
	}
	o := a.Cell(len(keys))
	o.keys, o.vals = keys, o.vals[:len(keys)]
	return o, o.vals
}

// cellChunk is the number of small objects a chunk holds (1.8 KiB).
const cellChunk = 16

// cutCell returns the next zeroed cell of chunk, a new chunk of
// cellChunk cells when it is used up.
func cutCell[T any](chunk *[]T) *T {
	if len(*chunk) == 0 {
		*chunk = make([]T, cellChunk)
	}
	t := &(*chunk)[0]
	*chunk = (*chunk)[1:]
	return t
}
