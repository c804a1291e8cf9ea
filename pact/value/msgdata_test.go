package value

import "testing"

// read-integer / read-decimal / read-keyset coercions (spec §2.6 and P5
// env-data.repl: numbers round, numeric strings parse).

func TestReadCoercions(t *testing.T) {
	for _, c := range []struct {
		in   Value
		want string
		ok   bool
	}{
		{NewInt(5), "5", true}, {num(t, "2.5"), "2", true}, {num(t, "3.5"), "4", true},
		{String("123"), "123", true}, {String("1.5"), "", false}, {String("x"), "", false}, {True, "", false},
	} {
		i, ok := ReadIntegerValue(c.in)
		if ok != c.ok || (ok && i.Text() != c.want) {
			t.Errorf("read-integer %v = %v, %v", c.in, i, ok)
		}
	}
	for _, c := range []struct {
		in   Value
		want string
		ok   bool
	}{
		{NewInt(5), "5", true}, {num(t, "2.50"), "2.50", true}, {String("1.25"), "1.25", true},
		{String("7"), "7", true}, {String("1e3"), "", false}, {UnitValue, "", false},
	} {
		d, ok := ReadDecimalValue(c.in)
		if ok != c.ok || (ok && d.Text() != c.want) {
			t.Errorf("read-decimal %v = %v, %v", c.in, d, ok)
		}
	}
	want := NewKeySet([]string{"a", "b"}, KeysAll)
	for _, in := range []Value{
		want,
		List{String("b"), String("a")},
		NewObject(Field{Key: "keys", Val: List{String("a"), String("b")}}),
		NewObject(Field{Key: "keys", Val: List{String("a"), String("b")}}, Field{Key: "pred", Val: String("keys-all")}),
	} {
		ks, ok := ReadKeySetValue(in)
		if !ok || !Equal(ks, want) {
			t.Errorf("read-keyset %v = %v, %v", in, ks, ok)
		}
	}
	for _, in := range []Value{
		List{NewInt(1)},
		NewObject(Field{Key: "keys", Val: List{String("a")}}, Field{Key: "pred", Val: String("not a name!")}),
		NewObject(Field{Key: "keys", Val: List{String("a")}}, Field{Key: "pred", Val: NewInt(1)}),
		String("a"),
	} {
		if ks, ok := ReadKeySetValue(in); ok {
			t.Errorf("read-keyset %v succeeded: %v", in, ks)
		}
	}
}
