package value

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// unionByMap is Union's definition written the slow way: every key of
// both, the receiver's value on a shared key, in key order.
func unionByMap(o, p *Object) *Object {
	var fs []Field
	for i, k := range p.keys {
		if !o.Has(k) {
			fs = append(fs, Field{k, p.vals[i]})
		}
	}
	for i, k := range o.keys {
		fs = append(fs, Field{k, o.vals[i]})
	}
	return NewObject(fs...)
}

// Union agrees with its definition on objects whose keys overlap in every
// way (one within the other, disjoint, interleaved, empty), above and
// below the size of a cell, and leaves both operands as they were.
func TestUnion(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	names := []string{"a", "b", "balance", "c", "guard", "x", "y", "z"}
	randomObject := func(tag string) *Object {
		var fs []Field
		for _, k := range names {
			if r.Intn(2) == 0 {
				fs = append(fs, Field{k, String(tag + k)})
			}
		}
		return NewObject(fs...)
	}
	for range 2000 {
		o, p := randomObject("o"), randomObject("p")
		if r.Intn(4) == 0 {
			p = o.Restrict(p.Keys()) // within o: an update's fields
			p = NewObject(fieldsOf(p, "p")...)
		}
		ok, ov := slices.Clone(o.keys), slices.Clone(o.vals)
		pk, pv := slices.Clone(p.keys), slices.Clone(p.vals)
		got, want := o.Union(p), unionByMap(o, p)
		if !slices.Equal(got.keys, want.keys) || !slices.EqualFunc(got.vals, want.vals, func(a, b Value) bool { return Equal(a, b) }) {
			t.Fatalf("%v + %v = %v, want %v", o, p, got, want)
		}
		if !slices.Equal(o.keys, ok) || !slices.Equal(o.vals, ov) || !slices.Equal(p.keys, pk) || !slices.Equal(p.vals, pv) {
			t.Fatalf("union changed an operand: %v, %v", o, p)
		}
	}
}

func fieldsOf(o *Object, tag string) []Field {
	fs := make([]Field, o.Len())
	for i, k := range o.keys {
		fs[i] = Field{k, String(tag + k)}
	}
	return fs
}

// An object literal's values are its own: objects cut from one chunk do
// not share values, and a literal of more fields than a cell holds is
// whole.
func TestArenaObjects(t *testing.T) {
	var a ObjectCells
	keys := []string{"a", "b", "c"}
	var objs []*Object
	for i := range 40 {
		o, vals := a.Object(keys)
		for j := range vals {
			vals[j] = NewInt(int64(i*10 + j))
		}
		objs = append(objs, o)
	}
	for i, o := range objs {
		for j := range keys {
			if v, _ := o.Get(keys[j]); !Equal(v, NewInt(int64(i*10+j))) {
				t.Fatalf("object %d field %s = %v", i, keys[j], v)
			}
		}
		if cap(o.vals) != len(keys) {
			t.Fatalf("object %d: values have room beyond the object (%d)", i, cap(o.vals))
		}
	}
	big := []string{"a", "b", "c", "d", "e", "f"}
	o, vals := a.Object(big)
	if len(vals) != len(big) || o.Len() != len(big) {
		t.Fatalf("large object: %d values for %d keys", len(vals), o.Len())
	}
}

// NewObject keeps keys sorted and unique, a repeated key with its last
// value, whether it inserts the fields one by one (a few) or sorts them
// (more than insertionFields).
func TestNewObjectOrdersAndDeduplicates(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 5, insertionFields, insertionFields + 1, 200} {
		for round := 0; round < 20; round++ {
			fields := make([]Field, n)
			last := map[string]int64{}
			for i := range fields {
				k := fmt.Sprint("k", rng.Intn(n/2+1))
				fields[i] = Field{Key: k, Val: NewInt(int64(i))}
				last[k] = int64(i)
			}
			o := NewObject(fields...)
			if o.Len() != len(last) {
				t.Fatalf("n=%d: %d keys, want %d", n, o.Len(), len(last))
			}
			if !slices.IsSorted(o.keys) {
				t.Fatalf("n=%d: keys out of order: %q", n, o.keys)
			}
			for k, want := range last {
				v, ok := o.Get(k)
				if !ok || !Equal(v, NewInt(want)) {
					t.Fatalf("n=%d: %s = %v, want %d (the last value given)", n, k, v, want)
				}
			}
		}
	}
}

// TestRestrictLooksUpOrFilters checks take of keys from an object, by
// lookups (a few keys of a wide object) or by one pass over the fields,
// against filtering the fields: keys missing or repeated, in any order.
func TestRestrictLooksUpOrFilters(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	for _, width := range []int{0, 1, 5, 40, 300} {
		fs := make([]Field, width)
		for i := range fs {
			fs[i] = Field{Key: "k" + strconv.Itoa(i), Val: NewInt(int64(i))}
		}
		o := NewObject(fs...)
		for _, nkeys := range []int{0, 1, 2, 3, 10, 100} {
			ks := make([]string, nkeys)
			want := map[string]bool{}
			for i := range ks {
				ks[i] = "k" + strconv.Itoa(r.Intn(width*2+1)) // about half are missing
				want[ks[i]] = true
			}
			got := o.Restrict(ks)
			var wantKeys []string
			for _, k := range o.Keys() {
				if want[k] {
					wantKeys = append(wantKeys, k)
				}
			}
			if !slices.Equal(got.Keys(), wantKeys) {
				t.Fatalf("Restrict(%d fields, %v) keys %v, want %v", width, ks, got.Keys(), wantKeys)
			}
			for i, k := range got.Keys() {
				if v, _ := o.Get(k); v != got.Val(i) {
					t.Fatalf("Restrict kept %s = %v", k, got.Val(i))
				}
			}
		}
	}
}
