package typecheck

import (
	"strconv"
	"testing"
)

func TestUnion(t *testing.T) {
	if u := union(tInt, tInt, tNever); u != tInt {
		t.Errorf("int, int, never: %v", u)
	}
	if u := union(tInt, tAny); u != tAny {
		t.Errorf("int, any: %v", u)
	}
	if u := union(tNever); u != tNever {
		t.Errorf("never: %v", u)
	}
	if u := union(tInt, union(tStr, tBool)); u.kind != kUnion || len(u.alts) != 3 {
		t.Errorf("nested: %v", u)
	}
	// Past maxUnion shapes the type is unknown: each shape is compared
	// with those before it, so the alternatives must stay few.
	var ts []*ty
	for i := 0; i <= maxUnion; i++ {
		ts = append(ts, objectOf(&row{names: []string{"k" + strconv.Itoa(i)}, types: []*ty{tInt}}))
	}
	if u := union(ts[:maxUnion]...); u.kind != kUnion || len(u.alts) != maxUnion {
		t.Errorf("%d shapes: %v", maxUnion, u)
	}
	if u := union(ts...); u != tAny {
		t.Errorf("%d shapes: %v", len(ts), u)
	}
}

func TestFits(t *testing.T) {
	person := &row{names: []string{"age", "name"}, types: []*ty{tInt, tStr}, schema: "person"}
	cases := []struct {
		actual, expected *ty
		partial          bool
		want             verdict
	}{
		{tInt, tDec, false, mismatch},
		{tAny, tInt, false, undecided},
		{tParam, tInt, false, fitsOK},
		{objectOf(person), tParam, false, fitsOK},
		{tNever, tInt, false, fitsOK},
		{union(tInt, tStr), tInt, false, mismatch},
		{listOf(tNever), listOf(tInt), false, fitsOK},
		{listOf(union(tInt, tStr)), tAnyList, false, fitsOK},
		{objectOf(&row{names: []string{"name"}, types: []*ty{tStr}}), objectOf(person), false, mismatch},
		{objectOf(&row{names: []string{"name"}, types: []*ty{tStr}}), objectOf(person), true, fitsOK},
		{objectOf(&row{names: []string{"name"}, types: []*ty{tInt}}), objectOf(person), true, mismatch},
		{tAnyObj, objectOf(person), false, undecided},
		{objectOf(person), tAnyObj, false, fitsOK},
	}
	for _, c := range cases {
		if got, why := fits(c.actual, c.expected, c.partial); got != c.want {
			t.Errorf("fits(%v, %v, %v) = %v (%s), want %v", c.actual, c.expected, c.partial, got, why, c.want)
		}
	}
}
