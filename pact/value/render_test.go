package value

import (
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/pretty"
)

// Vectors from P5 format-regression.repl (Show, through `format`) and
// spec/pact.md §4.3 (REPL rendering); the multi-line keyset layouts follow
// prettyprinter's layoutPretty at 80 columns as P5 uses it.

var (
	someModule = ModuleName{Name: "some-module"}
	capGuardQN = QualifiedName{Module: someModule, Name: "CAPGUARD"}
	emptyHash  = "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"
)

func TestFormatRegression(t *testing.T) {
	cases := []struct {
		name string
		arg  Value
		want string
	}{
		{"integer", NewInt(123), "123"},
		{"decimal 1", num(t, "123.0"), "123.0"},
		{"decimal 2", num(t, "123.456"), "123.456"},
		{"bool", List{True, False}, "[true, false]"},
		{"time", mustTime(t, "2024-07-22T12:00:00Z"), `"2024-07-22T12:00:00Z"`},
		{"object", NewObject(Field{Key: "hello", Val: NewInt(1)}, Field{Key: "goodbye", Val: String("bob")}),
			`{"goodbye": "bob","hello": 1}`},
		{"list", List{NewInt(1), NewInt(2), NewInt(3), num(t, "4.567")}, "[1, 2, 3, 4.567]"},
		{"modref", NewModRef(someModule, nil), "some-module"},
		{"captoken", &CapToken{Name: FullyQualifiedName{Module: someModule, Name: "CAPGUARD", Hash: emptyHash},
			Args: []Value{NewInt(1), NewInt(2)}}, "CapToken(some-module.CAPGUARD 1 2)"},
		{"keyset 1", NewKeySet([]string{"robert"}, ""), "KeySet {keys: [robert],pred: keys-all}"},
		{"keyset 2", NewKeySet([]string{"robert", "jose", "edmund", "chessai"}, Keys2),
			"KeySet {keys: [chessai, edmund, jose, robert],pred: keys-2}"},
		{"capguard 1", &CapabilityGuard{Name: capGuardQN, Args: []Value{NewInt(2), NewInt(3)}},
			"CapabilityGuard {name: some-module.CAPGUARD,args: [2, 3],pactId: }"},
		{"capguard 2", &CapabilityGuard{Name: capGuardQN, Args: []Value{NewInt(1), NewInt(23)}, PactID: emptyHash, HasPactID: true},
			"CapabilityGuard {name: some-module.CAPGUARD,args: [1, 23],pactId: " + emptyHash + "}"},
		{"modguard", &ModuleGuard{Module: someModule, Name: "beepboop"}, "ModuleGuard {module: some-module,name: beepboop}"},
		{"keyset ref", &KeySetRef{Name: "my-ks"}, "'my-ks"},
		{"pact guard", &PactGuard{PactID: emptyHash, Name: "1"}, "PactGuard {pactId: " + emptyHash + ",name: 1}"},
	}
	for _, c := range cases {
		got, err := Format(String("{}"), List{c.arg})
		if err != nil || got != String(c.want) {
			t.Errorf("%s: format = %v, %v; want %q", c.name, got, err, c.want)
		}
	}
	got, err := Format(String("a {} b {} c"), List{String("x"), NewInt(1), NewInt(99)})
	if err != nil || got != String("a x b 1 c") {
		t.Errorf("format with extra args = %v, %v", got, err)
	}
	got, _ = Format(String("no holes"), List{})
	if got != String("no holes") {
		t.Errorf("format without holes = %v", got)
	}
	if _, err := Format(String("{} {}"), List{NewInt(1)}); err == nil ||
		err.Error() != "native execution failure, format failed with message: not enough arguments for template" {
		t.Errorf("format with too few args: %v", err)
	}
}

func TestPrettyREPL(t *testing.T) {
	cases := []struct {
		v    Value
		want string
	}{
		{String("a\"b"), `"a"b"`}, // no escaping
		{List{NewInt(1), NewInt(2), NewInt(3)}, "[1 2 3]"},
		{List{}, "[]"},
		{NewObject(Field{Key: "b", Val: NewInt(2)}, Field{Key: "a", Val: NewInt(1)}), `{"a": 1,"b": 2}`},
		{EmptyObject, "{}"},
		{UnitValue, "()"},
		{num(t, "2.00"), "2.0"},
		{&CapToken{Name: FullyQualifiedName{Module: someModule, Name: "C", Hash: emptyHash}}, "CapToken(some-module.C)"},
		{&KeySetRef{Namespace: "free", Name: "ks"}, "'free.ks"},
		{&Table{Name: "accounts", Module: ModuleName{Namespace: "free", Name: "coin"}}, "free.coin_accounts"},
		{NewKeySet([]string{"robert"}, ""), "KeySet {keys: [robert],pred: keys-all}"},
		{&UserGuard{Fun: QualifiedName{Module: someModule, Name: "f"}, Args: []Value{String("a"), NewInt(1)}},
			`UserGuard {fun: some-module.f,args: ["a", 1]}`},
		{List{&PactGuard{PactID: "p", Name: "n"}, NewInt(1)}, "[PactGuard {pactId: p,name: n} 1]"},
	}
	for _, c := range cases {
		if got := Pretty(c.v); got != c.want {
			t.Errorf("Pretty = %q, want %q", got, c.want)
		}
	}
}

func TestPrettyLongKeysets(t *testing.T) {
	k1 := "368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca"
	k2 := "6be2f485a7af75fedb4b7f153a903f7e6000ca4aa501179c91a2450b777bd2a7"
	// 97 columns: the outer braces break, the one-key list still fits.
	one := NewKeySet([]string{k1}, "")
	if got, want := Pretty(one), "KeySet {keys: ["+k1+"]\n,pred: keys-all}"; got != want {
		t.Errorf("one long key:\n%s\nwant\n%s", got, want)
	}
	// Two keys: the key list breaks too, with prettyprinter's "[ " and " ]".
	two := NewKeySet([]string{k2, k1}, "")
	if got, want := Pretty(two), "KeySet {keys: [ "+k1+"\n, "+k2+" ]\n,pred: keys-all}"; got != want {
		t.Errorf("two long keys:\n%s\nwant\n%s", got, want)
	}
	// Show never breaks.
	if got := Show(two); strings.Contains(got, "\n") {
		t.Errorf("Show broke a line: %q", got)
	}
}

func TestTypeOf(t *testing.T) {
	cases := []struct {
		v    Value
		want string
	}{
		{NewInt(1), "integer"}, {num(t, "1.0"), "decimal"}, {String(""), "string"}, {True, "bool"},
		{UnitValue, "unit"}, {TimeFromMicros(0), "time"}, {List{}, "list"}, {EmptyObject, "object"},
		{NewKeySet(nil, ""), "guard"}, {&KeySetRef{Name: "k"}, "guard"},
		{NewModRef(someModule, []ModuleName{{Name: "i2"}, {Namespace: "ns", Name: "i1"}}), "module{ns.i1, i2}"},
		{&Table{Schema: Schema{Name: QualifiedName{Module: someModule, Name: "s"}}}, "table{some-module.s}"},
	}
	for _, c := range cases {
		if got := TypeOf(c.v); got != c.want {
			t.Errorf("typeof %v = %q, want %q", c.v, got, c.want)
		}
	}
}

// dag is a list holding its predecessor twice, depth levels deep: depth
// steps to build, 2^depth leaves to render.
func dag(depth int, leaf Value) Value {
	v := List{leaf}
	for range depth {
		v = List{v, v}
	}
	return v
}

// Values of more than prettyNodeLimit nodes render on one line, cut at
// PrettyLimit bytes: a value that would print 2^64 leaves (an error message
// naming it, the REPL echoing it) takes milliseconds, not forever, and
// what is shown is the start of the exact rendering.
func TestPrettyBoundsHugeValues(t *testing.T) {
	ks := NewKeySet([]string{"robert"}, "")
	obj := func(v Value) Value { return NewObject(Field{Key: "a", Val: v}, Field{Key: "b", Val: v}) }
	objDag := Value(EmptyObject)
	for range 64 {
		objDag = obj(objDag)
	}
	for _, tc := range []struct {
		name   string
		v      Value
		prefix string
	}{
		{"list", dag(64, NewInt(1)), "[[[[[[[[[["},
		{"object", objDag, `{"a": {"a": {"a": `},
		{"keysets", dag(64, ks), "[[[[[[[[[["},
		{"user guard", &UserGuard{Fun: capGuardQN, Args: []Value{dag(64, String("x"))}},
			"UserGuard {fun: some-module.CAPGUARD,args: [[[[["},
		{"capability token", &CapToken{Name: FullyQualifiedName{Module: someModule, Name: "C"}, Args: []Value{dag(64, True)}},
			"CapToken(some-module.C [[[["},
	} {
		start := time.Now()
		got := Pretty(tc.v)
		if d := time.Since(start); d > hangguard.Limit {
			// A hang guard: rendering must stop at PrettyLimit, not walk the whole DAG.
			t.Errorf("%s: %v to render: the shared value was walked whole", tc.name, d)
		}
		if len(got) != PrettyLimit+len("...") || !strings.HasSuffix(got, "...") || !strings.HasPrefix(got, tc.prefix) {
			t.Errorf("%s: %d bytes, %.40q...%q", tc.name, len(got), got, got[max(0, len(got)-10):])
		}
	}
	// The cut rendering is the start of the exact one: a value just over
	// the node limit but short renders whole, exactly as prettyFlat does.
	big := dag(18, NewInt(7)) // 2^18 leaves, 2^19 nodes, about 1 MB of text
	var want strings.Builder
	prettyFlat(&want, big)
	if got := Pretty(big); got != want.String() {
		t.Errorf("a large value under the byte limit renders %d bytes, want %d", len(got), want.Len())
	}
	// Small values keep P5's layout (guards break lines past 80 columns).
	small := List{ks, ks, ks}
	if got := Pretty(small); got != pretty.Render(prettyDoc(small)) {
		t.Errorf("small value: %q", got)
	}
	if got := Pretty(&CapToken{Name: FullyQualifiedName{Module: someModule, Name: "C"}}); got != "CapToken(some-module.C)" {
		t.Errorf("token without arguments: %q", got)
	}
}
