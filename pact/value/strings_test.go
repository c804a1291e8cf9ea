package value

import (
	"testing"
)

// Vectors from P5 ops.repl (take/drop), lists.repl, strings.repl,
// base64.repl and spec/pact.md §4.3.

func ints(vs ...int64) List {
	l := make(List, len(vs))
	for i, v := range vs {
		l[i] = NewInt(v)
	}
	return l
}

func TestTakeDrop(t *testing.T) {
	l := ints(1, 2, 3, 4, 5)
	big := num(t, "9223372036854775808")
	negBig := num(t, "-9223372036854775808")
	cases := []struct {
		name string
		f    func(n, c Value) (Value, error)
		n, c Value
		want Value
	}{
		{"drop 2", Drop, NewInt(2), l, ints(3, 4, 5)},
		{"drop -2", Drop, NewInt(-2), l, ints(1, 2, 3)},
		{"drop 10", Drop, NewInt(10), l, ints()},
		{"drop -10", Drop, NewInt(-10), l, ints()},
		{"drop 2^63", Drop, big, l, ints()},
		{"drop -2^63", Drop, negBig, l, ints()},
		{"drop str 2", Drop, NewInt(2), String("12345"), String("345")},
		{"drop str -2", Drop, NewInt(-2), String("12345"), String("123")},
		{"drop str 10", Drop, NewInt(10), String("12345"), String("")},
		{"drop str -10", Drop, NewInt(-10), String("12345"), String("")},
		{"take 2", Take, NewInt(2), l, ints(1, 2)},
		{"take -2", Take, NewInt(-2), l, ints(4, 5)},
		{"take 10", Take, NewInt(10), l, l},
		{"take -10", Take, NewInt(-10), l, l},
		{"take 2^63", Take, big, l, l},
		{"take -2^63", Take, negBig, l, l},
		{"take str 2", Take, NewInt(2), String("12345"), String("12")},
		{"take str -2", Take, NewInt(-2), String("abc"), String("bc")}, // spec §4.3
		{"take unicode", Take, NewInt(2), String("h\u00e9llo"), String("h\u00e9")},
		{"take keys", Take, List{String("a"), String("c")}, NewObject(Field{Key: "a", Val: NewInt(1)}, Field{Key: "b", Val: NewInt(2)}),
			NewObject(Field{Key: "a", Val: NewInt(1)})},
		{"drop keys", Drop, List{String("a")}, NewObject(Field{Key: "a", Val: NewInt(1)}, Field{Key: "b", Val: NewInt(2)}),
			NewObject(Field{Key: "b", Val: NewInt(2)})},
	}
	for _, c := range cases {
		got, err := c.f(c.n, c.c)
		if err != nil || !Equal(got, c.want) {
			t.Errorf("%s = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

func TestListStringHelpers(t *testing.T) {
	n, _ := Length(String("h\u00e9llo"))
	if !Equal(n, NewInt(5)) {
		t.Errorf("length counts characters: %v", n)
	}
	n, _ = Length(NewObject(Field{Key: "a", Val: UnitValue}, Field{Key: "b", Val: UnitValue}))
	if !Equal(n, NewInt(2)) {
		t.Errorf("length of an object = %v", n)
	}
	r, _ := Reverse(String("ab\u00e9"))
	if r != String("\u00e9ba") {
		t.Errorf("reverse = %v", r)
	}
	r, _ = Reverse(ints(1, 2, 3))
	if !Equal(r, ints(3, 2, 1)) {
		t.Errorf("reverse list = %v", r)
	}
	s, _ := StrToList(String("abc"))
	if !Equal(s, List{String("a"), String("b"), String("c")}) {
		t.Errorf("str-to-list = %v", s)
	}
	s, _ = StrToList(String(""))
	if !Equal(s, List{}) {
		t.Errorf("str-to-list \"\" = %v", s)
	}
	for _, c := range []struct {
		in   List
		want String
	}{{List{}, ""}, {List{String("a"), String("b"), String("c")}, "abc"}, {List{String("aa"), String("bb")}, "aabb"}} {
		got, err := Concat(c.in)
		if err != nil || got != c.want {
			t.Errorf("concat %v = %v, %v", c.in, got, err)
		}
	}
	if _, err := Concat(List{String("a"), NewInt(2)}); err == nil ||
		err.Error() != "Type error: failed to call native function concat with argument(s) of type(s): integer" {
		t.Errorf("concat with a non-string: %v", err)
	}
	if _, err := StrToList(List{}); err == nil || err.Error()[:10] != "Type error" {
		t.Errorf("str-to-list of a list: %v", err)
	}
	// at
	v, err := At(NewInt(1), ints(7, 8))
	if err != nil || !Equal(v, NewInt(8)) {
		t.Errorf("at 1 = %v, %v", v, err)
	}
	_, err = At(NewInt(2), ints(7, 8))
	if e, ok := err.(*Error); !ok || e.Recoverable() || e.Msg != "Array index out of bounds. Length (2), Index (2)" {
		t.Errorf("at out of bounds: %v", err)
	}
	_, err = At(String("z"), NewObject(Field{Key: "a", Val: NewInt(1)}))
	if e, ok := err.(*Error); !ok || e.Recoverable() || e.Msg != `Key "z" not found in object: {"a": 1}` {
		t.Errorf("at missing key: %v", err)
	}
	// make-list
	for _, k := range []int64{-1, 0, -100} {
		got, _ := MakeList(NewInt(k), True)
		if !Equal(got, List{}) {
			t.Errorf("make-list %d = %v", k, got)
		}
	}
	got, _ := MakeList(NewInt(3), String("hello"))
	if !Equal(got, List{String("hello"), String("hello"), String("hello")}) {
		t.Errorf("make-list 3 = %v", got)
	}
	// remove, union
	o := NewObject(Field{Key: "a", Val: NewInt(1)}, Field{Key: "b", Val: NewInt(2)})
	rm, _ := Remove(String("a"), o)
	if !Equal(rm, NewObject(Field{Key: "b", Val: NewInt(2)})) {
		t.Errorf("remove = %v", rm)
	}
	u, _ := Add(NewObject(Field{Key: "a", Val: NewInt(4)}), NewObject(Field{Key: "a", Val: True}))
	if !Equal(u, NewObject(Field{Key: "a", Val: NewInt(4)})) {
		t.Errorf("left-biased merge = %v", u)
	}
	u, _ = Add(NewObject(Field{Key: "a", Val: NewInt(2)}), NewObject(Field{Key: "b", Val: NewInt(4)}, Field{Key: "c", Val: False}))
	if !Equal(u, NewObject(Field{Key: "a", Val: NewInt(2)}, Field{Key: "b", Val: NewInt(4)}, Field{Key: "c", Val: False})) {
		t.Errorf("object + = %v", u)
	}
	l, _ := Add(ints(1, 2, 3), ints(4, 5))
	if !Equal(l, ints(1, 2, 3, 4, 5)) {
		t.Errorf("list + = %v", l)
	}
}

func TestEnumerate(t *testing.T) {
	cases := []struct {
		args []Value
		want List
	}{
		{[]Value{NewInt(0), NewInt(10)}, ints(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)},
		{[]Value{NewInt(0), NewInt(10), NewInt(2)}, ints(0, 2, 4, 6, 8, 10)},
		{[]Value{NewInt(10), NewInt(0), NewInt(-2)}, ints(10, 8, 6, 4, 2, 0)},
		{[]Value{NewInt(10), NewInt(0)}, ints(10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)},
		{[]Value{NewInt(0), NewInt(10), NewInt(0)}, ints()},
		{[]Value{NewInt(10), NewInt(10)}, ints(10)},
		{[]Value{NewInt(0), NewInt(10), NewInt(11)}, ints(0)},
		{[]Value{NewInt(10), NewInt(0), NewInt(-11)}, ints(10)},
		{[]Value{NewInt(-1), NewInt(-10)}, ints(-1, -2, -3, -4, -5, -6, -7, -8, -9, -10)},
		{[]Value{NewInt(1), NewInt(10), NewInt(3)}, ints(1, 4, 7, 10)},
		{[]Value{NewInt(-1), NewInt(-10), NewInt(-3)}, ints(-1, -4, -7, -10)},
	}
	for _, c := range cases {
		got, err := Enumerate(c.args[0], c.args[1], c.args[2:]...)
		if err != nil || !Equal(got, c.want) {
			t.Errorf("enumerate %v = %v, %v", c.args, got, err)
		}
	}
	if _, err := Enumerate(NewInt(0), NewInt(10), NewInt(-1)); err == nil ||
		err.Error() != "Enumeration error: enumerate: increment diverges below from interval bounds." {
		t.Errorf("enumerate 0 10 -1: %v", err)
	}
	if _, err := Enumerate(NewInt(10), NewInt(0), NewInt(1)); err == nil ||
		err.Error() != "Enumeration error: enumerate: increment diverges above from interval bounds." {
		t.Errorf("enumerate 10 0 1: %v", err)
	}
}

func TestBase64AndCharset(t *testing.T) {
	d, err := Base64Decode(String("aGVsbG8gd29ybGQh"))
	if err != nil || d != String("hello world!") {
		t.Errorf("base64-decode = %v, %v", d, err)
	}
	e, _ := Base64Encode(String("hello world!"))
	if e != String("aGVsbG8gd29ybGQh") {
		t.Errorf("base64-encode = %v", e)
	}
	for _, bad := range []string{"aGVsbG8gd29ybGQh%", "aaa", "asdflk", "!@#$%&", "ZE=="} {
		if _, err := Base64Decode(String(bad)); err == nil || err.Error() != "Decoding error: invalid b64 encoding" {
			t.Errorf("base64-decode %q: %v", bad, err)
		}
	}
	for _, c := range []struct {
		set  int64
		s    string
		want bool
	}{{0, "abc", true}, {0, "\u00e9", false}, {1, "\u00e9", true}, {1, "\u0100", false},
		{0, "", true}, {1, "", true}, {0, "abc\x7f", true}, {0, "ab\u00e9c", false}, {1, "ab\u00e9c\u00ff", true},
		{1, "abc\u00e9\u0100", false}, {1, "k:\u20ac", false}, {0, "abcdefgh\u0080", false}} {
		got, err := IsCharset(NewInt(c.set), String(c.s))
		if err != nil || got != Bool(c.want) {
			t.Errorf("is-charset %d %q = %v, %v", c.set, c.s, got, err)
		}
	}
	if _, err := IsCharset(NewInt(2), String("")); err == nil {
		t.Error("is-charset 2 succeeded")
	}
}
