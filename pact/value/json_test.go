package value

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/keyorder"
)

// Every case of spec/pact.md §2.6 (tables and examples), §2.4's hash check
// values, and the decoding rules of §2.6/§3.6.

func encode(t *testing.T, v Value) string {
	t.Helper()
	b, err := EncodeJSON(v)
	if err != nil {
		t.Fatalf("EncodeJSON(%v): %v", v, err)
	}
	return string(b)
}

func TestEncodeScalars(t *testing.T) {
	cases := []struct {
		v    Value
		want string
	}{
		{String("hi \"there\"\n\\"), `"hi \"there\"\n\\"`},
		{String("tab\there\x01\x1f\r"), `"tab\there\u0001\u001f\r"`},
		{String("héllo ☃"), `"héllo ☃"`},
		{True, "true"},
		{False, "false"},
		{UnitValue, "null"},
		{NewInt(1), `{"int":1}`},
		{NewInt(-5), `{"int":-5}`},
		// The 2^53-1 rule.
		{num(t, "9007199254740991"), `{"int":9007199254740991}`},
		{num(t, "-9007199254740991"), `{"int":-9007199254740991}`},
		{num(t, "9007199254740992"), `{"int":"9007199254740992"}`},
		{num(t, "-9007199254740992"), `{"int":"-9007199254740992"}`},
		{num(t, "123456789012345678901234567890"), `{"int":"123456789012345678901234567890"}`},
	}
	for _, c := range cases {
		if got := encode(t, c.v); got != c.want {
			t.Errorf("encode %v = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestEncodeDecimalFormatting(t *testing.T) {
	cases := []struct{ lit, want string }{
		{"3.0", "3"},
		{"100.00", "100"},
		{"1.5", "1.5"},
		{"0.1", "0.1"},
		{"1234567.5", "1234567.5"},
		{"0.05", "5.0e-2"},
		{"0.00001", "1.0e-5"},
		{"12345678.5", "1.23456785e7"},
		{"-1.5", "-1.5"},
		{"-0.05", "-5.0e-2"},
		{"-12345678.5", "-1.23456785e7"},
		{"0.0", "0"},
		{"0.125", "0.125"},
		{"0.0125", "1.25e-2"},
		{"1.50", "1.5"},
		// Mantissa at the limit is still a number ...
		{"90071992547.40991", "9.007199254740991e10"},
	}
	for _, c := range cases {
		if got := encode(t, num(t, c.lit)); got != c.want {
			t.Errorf("encode %s = %s, want %s", c.lit, got, c.want)
		}
	}
	if got := encode(t, NewDecimal(NewInt(maxSafeInteger), 0)); got != "9007199254740991" {
		t.Errorf("encode 2^53-1 with 0 places = %s", got)
	}
	// ... and one past it (trailing zeros count: the mantissa is tested,
	// not the value) is {"decimal": show}.
	big := []struct{ lit, want string }{
		{"9007199254740991.0", `{"decimal":"9007199254740991.0"}`},
		{"9007199254740992.0", `{"decimal":"9007199254740992.0"}`},
		{"90071992547409.920", `{"decimal":"90071992547409.920"}`},
		{"1.0000000000000000", `{"decimal":"1.0000000000000000"}`},
	}
	for _, c := range big {
		if got := encode(t, num(t, c.lit)); got != c.want {
			t.Errorf("encode %s = %s, want %s", c.lit, got, c.want)
		}
	}
}

func TestEncodeTimeQuirk(t *testing.T) {
	cases := []struct {
		us   int64
		want string
	}{
		{0, `{"time":"1970-01-01T00:00:00Z"}`},
		{1_000_000, `{"time":"1970-01-01T00:00:01Z"}`},
		// Whole milliseconds but not whole seconds: "time", truncated.
		{1_001_000, `{"time":"1970-01-01T00:00:01Z"}`},
		{1_500_000, `{"time":"1970-01-01T00:00:01Z"}`},
		// Otherwise "timep" with six digits.
		{1_000_001, `{"timep":"1970-01-01T00:00:01.000001Z"}`},
		{1_001_500, `{"timep":"1970-01-01T00:00:01.001500Z"}`},
		{-1, `{"timep":"1969-12-31T23:59:59.999999Z"}`},
	}
	for _, c := range cases {
		if got := encode(t, TimeFromMicros(c.us)); got != c.want {
			t.Errorf("encode time %dus = %s, want %s", c.us, got, c.want)
		}
	}
}

func TestEncodeStructured(t *testing.T) {
	mod := ModuleName{Name: "m"}
	nsMod := ModuleName{Namespace: "free", Name: "coin2"}
	cases := []struct {
		name string
		v    Value
		want string
	}{
		{"list", List{NewInt(1), String("a"), List{}}, `[{"int":1},"a",[]]`},
		{"keyset", NewKeySet([]string{"bob", "alice", "bob"}, ""),
			`{"pred":"keys-all","keys":["alice","bob"]}`},
		{"keyset custom pred", NewKeySet([]string{"k"}, "m.f"), `{"pred":"m.f","keys":["k"]}`},
		{"keyset ref", &KeySetRef{Name: "admin"}, `{"keysetref":"admin"}`},
		{"keyset ref ns", &KeySetRef{Namespace: "free", Name: "admin"},
			`{"keysetref":{"ns":"free","ksn":"admin"}}`},
		{"user guard", &UserGuard{Fun: QualifiedName{Module: mod, Name: "fn"}, Args: []Value{NewInt(1)}},
			`{"args":[{"int":1}],"fun":"m.fn"}`},
		{"cap guard", &CapabilityGuard{Name: QualifiedName{Module: nsMod, Name: "CAP"}, Args: []Value{String("a")}},
			`{"cgPactId":null,"cgArgs":["a"],"cgName":"free.coin2.CAP"}`},
		{"cap pact guard", &CapabilityGuard{Name: QualifiedName{Module: mod, Name: "C"}, PactID: "pid", HasPactID: true},
			`{"cgPactId":"pid","cgArgs":[],"cgName":"m.C"}`},
		{"module guard", &ModuleGuard{Module: mod, Name: "n"},
			`{"moduleName":{"namespace":null,"name":"m"},"name":"n"}`},
		{"pact guard", &PactGuard{PactID: "p1", Name: "n"}, `{"pactId":"p1","name":"n"}`},
		{"modref", NewModRef(nsMod, []ModuleName{{Name: "fungible-v2"}, {Name: "fungible-xchain-v1"}}),
			`{"refSpec":[{"namespace":null,"name":"fungible-v2"},{"namespace":null,"name":"fungible-xchain-v1"}],` +
				`"refName":{"namespace":"free","name":"coin2"}}`},
		{"cap token", &CapToken{Name: FullyQualifiedName{Module: mod, Name: "CAP"}, Args: []Value{NewInt(2)}},
			`{"#ctName":"m.CAP","#ctArgs":[{"int":2}]}`},
		{"cap token with hash", &CapToken{Name: FullyQualifiedName{Module: mod, Name: "CAP",
			Hash: "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"}},
			`{"#ctName":"m.CAP.{DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g}","#ctArgs":[]}`},
		{"table", &Table{Name: "accounts", Module: mod, Hash: "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g",
			Schema: Schema{Name: QualifiedName{Module: mod, Name: "acct"},
				Fields: []SchemaField{{Name: "balance", Type: Type{Kind: TyPrim, Prim: "decimal"}}}}},
			`{":tableName":"m:accounts",":moduleHash":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g",` +
				`":schema":{"sc_name":"m.acct","sc_fields":{"balance":"decimal"}}}`},
	}
	for _, c := range cases {
		if got := encode(t, c.v); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestLegacyKeyOrder(t *testing.T) {
	for _, want := range [][]string{
		{"gas", "result", "reqKey", "logs", "events", "metaData", "continuation", "txId"},
		{"creationTime", "ttl", "gasLimit", "chainId", "gasPrice", "sender"},
	} {
		got := keyorder.Legacy(want) // the input order does not matter
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("legacy order = %v, want %v", got, want)
		}
		// Objects use the same order.
		fs := make([]Field, len(want))
		for i, k := range want {
			fs[i] = Field{Key: k, Val: UnitValue}
		}
		enc := encode(t, NewObject(fs...))
		var keys []string
		for _, part := range strings.Split(strings.Trim(enc, "{}"), ",") {
			keys = append(keys, strings.Trim(strings.TrimSuffix(part, ":null"), `"`))
		}
		if strings.Join(keys, ",") != strings.Join(want, ",") {
			t.Errorf("object key order = %v, want %v", keys, want)
		}
	}
}

// chainData is the REPL's default (chain-data) object.
func chainData() *Object {
	return NewObject(
		Field{Key: "chain-id", Val: String("")},
		Field{Key: "block-height", Val: NewInt(0)},
		Field{Key: "block-time", Val: TimeFromMicros(0)},
		Field{Key: "prev-block-hash", Val: String("")},
		Field{Key: "sender", Val: String("")},
		Field{Key: "gas-limit", Val: NewInt(0)},
		Field{Key: "gas-price", Val: NewDecimal(NewInt(0), 1)},
	)
}

func TestChainDataEncoding(t *testing.T) {
	want := `{"gas-price":0,"gas-limit":{"int":0},"sender":"","prev-block-hash":"","chain-id":"",` +
		`"block-height":{"int":0},"block-time":{"time":"1970-01-01T00:00:00Z"}}`
	if got := encode(t, chainData()); got != want {
		t.Errorf("chain-data encodes as\n%s\nwant\n%s", got, want)
	}
}

func TestHashValues(t *testing.T) {
	cases := []struct {
		v    Value
		want string
	}{
		{String("hello"), "Mk3PAn3UowqTLEQfNlol6GsXPe-kuOWJSCU0cbgbcs8"},
		{String(""), "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"},
		{NewObject(Field{Key: "foo", Val: NewInt(1)}), "h9BZgylRf_M4HxcBXr15IcSXXXSz74ZC2IAViGle_z4"},
		{chainData(), "JRdgzVN17Xy4-8dWegAKj_BPNv6ffNpbtT6YOCiUcY8"},
	}
	for _, c := range cases {
		got, err := HashValue(c.v)
		if err != nil || got != String(c.want) {
			t.Errorf("hash %v = %v, %v; want %s", c.v, got, err, c.want)
		}
	}
	if got := HashBytes([]byte(`{"foo":{"int":1}}`)); got != "h9BZgylRf_M4HxcBXr15IcSXXXSz74ZC2IAViGle_z4" {
		t.Errorf("hash of the object bytes = %s", got)
	}
}

func decode(t *testing.T, s string) Value {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("DecodeJSON(%s): %v", s, err)
	}
	return v
}

func TestDecodeShapes(t *testing.T) {
	mod := ModuleName{Name: "m"}
	cases := []struct {
		in   string
		want Value
	}{
		// Numbers always become decimals, normalized.
		{"1", NewDecimal(NewInt(1), 0)},
		{"1.50", NewDecimal(NewInt(15), 1)},
		{"-2.5e3", NewDecimal(NewInt(-2500), 0)},
		{"1e-300", NewDecimal(NewInt(0), 0)},
		{`"s"`, String("s")},
		{"true", True},
		{"null", UnitValue},
		{`{"int":1}`, NewInt(1)},
		{`{"int":"123456789012345678901234567890"}`, num(t, "123456789012345678901234567890")},
		{`{"int":2.5}`, NewInt(2)}, // Haskell round: banker's
		{`{"int":3.5}`, NewInt(4)},
		{`{"int":" (-7) "}`, NewInt(-7)},
		{`{"decimal":"1.50"}`, num(t, "1.50")},
		{`[1,"a"]`, List{NewDecimal(NewInt(1), 0), String("a")}},
		{`{"keys":["b","a"],"pred":"keys-any"}`, NewKeySet([]string{"a", "b"}, KeysAny)},
		{`{"keys":["a"]}`, NewKeySet([]string{"a"}, KeysAll)},
		{`{"keys":["a"],"pred":null}`, NewKeySet([]string{"a"}, KeysAll)},
		{`{"keys":["a"],"pred":"ns.m.f"}`, NewKeySet([]string{"a"}, "ns.m.f")},
		{`{"keysetref":"admin"}`, &KeySetRef{Name: "admin"}},
		{`{"keysetref":{"ns":"free","ksn":"admin"}}`, &KeySetRef{Namespace: "free", Name: "admin"}},
		{`{"args":[{"int":1}],"fun":"m.fn"}`, &UserGuard{Fun: QualifiedName{Module: mod, Name: "fn"}, Args: []Value{NewInt(1)}}},
		{`{"cgPactId":null,"cgArgs":[],"cgName":"m.C"}`, &CapabilityGuard{Name: QualifiedName{Module: mod, Name: "C"}, Args: []Value{}}},
		{`{"moduleName":{"namespace":null,"name":"m"},"name":"n"}`, &ModuleGuard{Module: mod, Name: "n"}},
		{`{"pactId":"p","name":"n"}`, &PactGuard{PactID: "p", Name: "n"}},
		{`{"refSpec":[],"refName":{"namespace":null,"name":"m"}}`, NewModRef(mod, nil)},
		{`{"time":"2016-07-22T11:26:35Z"}`, TimeFromMicros(1469186795_000000)},
		{`{"timep":"2016-07-22T11:26:35.000001Z"}`, TimeFromMicros(1469186795_000001)},
		{`{"#ctName":"m.C.{DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g}","#ctArgs":[]}`,
			&CapToken{Name: FullyQualifiedName{Module: mod, Name: "C", Hash: "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"}, Args: []Value{}}},
		// A list stays a list even when it looks like keys.
		{`["a","b"]`, List{String("a"), String("b")}},
		// Shapes that do not parse fall through to a plain object.
		{`{"int":"abc"}`, NewObject(Field{Key: "int", Val: String("abc")})},
		{`{"keys":[1]}`, NewObject(Field{Key: "keys", Val: List{NewDecimal(NewInt(1), 0)}})},
		{`{"keys":["a"],"pred":"bad pred!"}`, NewObject(Field{Key: "keys", Val: List{String("a")}}, Field{Key: "pred", Val: String("bad pred!")})},
		{`{"time":"yesterday"}`, NewObject(Field{Key: "time", Val: String("yesterday")})},
		{`{"a":1,"a":2}`, NewObject(Field{Key: "a", Val: NewDecimal(NewInt(2), 0)})},
	}
	for _, c := range cases {
		got := decode(t, c.in)
		if !StructEqual(got, c.want) || got.Kind() != c.want.Kind() {
			t.Errorf("decode %s = %v (%T), want %v (%T)", c.in, got, got, c.want, c.want)
		}
	}
	// Decoded decimals keep the places their source implies.
	checkDec(t, "1.50", decode(t, "1.50"), "1.5", 1)
	checkDec(t, `{"decimal":"1.50"}`, decode(t, `{"decimal":"1.50"}`), "1.50", 2)
	for _, bad := range []string{"", "{", "[1,]", `{"a"}`, "01", "1.", "tru", `"\x"`, `"a` + "\x01" + `"`,
		"\"\xff\"", `"\ud800"`, "1 2", "[" + strings.Repeat("[", 600) + strings.Repeat("]", 601)} {
		if _, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("DecodeJSON(%q) succeeded", bad)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, v := range []Value{
		chainData(),
		List{num(t, "9007199254740992.5"), num(t, "-0.000001"), num(t, "123456789123456789")},
		NewObject(Field{Key: "ks", Val: NewKeySet([]string{"k1", "k2"}, Keys2)}, Field{Key: "t", Val: TimeFromMicros(1_000_001)}),
		&Table{Name: "t", Module: ModuleName{Namespace: "ns", Name: "m"}, Hash: "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g",
			Schema: Schema{Name: QualifiedName{Module: ModuleName{Name: "m"}, Name: "s"}, Fields: []SchemaField{
				{Name: "a", Type: Type{Kind: TyList, Elem: &Type{Kind: TyPrim, Prim: "string"}}},
				{Name: "b", Type: Type{Kind: TyModRef, ModRefs: []ModuleName{{Name: "i"}}}},
				{Name: "c", Type: Type{Kind: TyAny}},
			}}},
	} {
		enc := encode(t, v)
		back := decode(t, enc)
		if !StructEqual(v, back) {
			t.Errorf("round trip of %s gave %v", enc, back)
		}
	}
}
