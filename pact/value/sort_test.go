package value

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// randomSortable is a list of n values drawn from few distinct ones (so
// ties abound): integers, decimals equal in value but not in places,
// strings, booleans, units, times and, when mixed is set, values sort
// cannot order (lists, objects), which make its order inconsistent.
func randomSortable(r *rand.Rand, n int, mixed bool) List {
	pool := []Value{NewInt(1), NewInt(-3), NewInt(7), NewDecimal(NewInt(10), 1), NewDecimal(NewInt(100), 2),
		NewDecimal(NewInt(-25), 1), String("a"), String("ab"), String("é"), True, False, UnitValue,
		Time{micros: 5}, Time{micros: -5}}
	if mixed {
		pool = append(pool, List{NewInt(1)}, EmptyObject)
	}
	kind := r.IntN(3)
	l := make(List, n)
	for i := range l {
		switch kind {
		case 0:
			l[i] = NewInt(r.Int64N(int64(n/3 + 1)))
		case 1:
			l[i] = NewDecimal(NewInt(r.Int64N(40)), uint8(r.IntN(3)))
		default:
			l[i] = pool[r.IntN(len(pool))]
		}
	}
	if mixed && n > 0 {
		l[r.IntN(n)] = List{}
	}
	return l
}

// TestSortMatchesStableSort checks sort against sort.SliceStable with P5's
// order, the implementation it replaces, element by element (identity, not
// just equality: 1.0 and 1.00 must keep their places), on consistent and
// inconsistent lists alike.
func TestSortMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for n := range 120 {
		for _, mixed := range []bool{false, true} {
			l := randomSortable(r, n, mixed)
			want := append(List(nil), l...)
			sort.SliceStable(want, func(i, j int) bool { return sortCompare(want[i], want[j]) < 0 })
			got, err := Sort(l)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if Show(got.(List)[i]) != Show(want[i]) || TypeOf(got.(List)[i]) != TypeOf(want[i]) {
					t.Fatalf("sort %v = %v, want %v", Show(l), Show(got), Show(want))
				}
			}
		}
	}
}

// TestSortObjectsMatchesStableSort does the same for sorting objects by
// fields, some objects missing a field or holding a non-literal in it.
func TestSortObjectsMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for n := range 80 {
		for _, holes := range []bool{false, true} {
			objs := make(List, n)
			for i := range objs {
				fs := []Field{{"a", NewInt(r.Int64N(4))}, {"b", String([]string{"x", "y"}[r.IntN(2)])}, {"id", NewInt(int64(i))}}
				if holes && r.IntN(4) == 0 {
					fs[r.IntN(2)].Val = List{}
				}
				objs[i] = NewObject(fs...)
			}
			fields := List{String("b"), String("a")}
			got, err := SortObjects(fields, objs)
			if err != nil {
				t.Fatal(err)
			}
			want := append(List(nil), objs...)
			names := []string{"b", "a"}
			sort.SliceStable(want, func(i, j int) bool {
				x, y := want[i].(*Object), want[j].(*Object)
				for k := len(names) - 1; k >= 0; k-- {
					a, _ := x.Get(names[k])
					b, _ := y.Get(names[k])
					if literalRank(a) < 0 || literalRank(b) < 0 {
						continue
					}
					if c, _ := Compare(a, b); c != 0 {
						return c < 0
					}
				}
				return false
			})
			if Show(got) != Show(want) {
				t.Fatalf("sort fields of %v = %v, want %v", Show(objs), Show(got), Show(want))
			}
		}
	}
}
