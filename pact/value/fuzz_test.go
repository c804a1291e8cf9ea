package value

import (
	"testing"
)

// truncateJSONTimes applies the lossy part of the JSON encoding: a time
// with whole milliseconds is written at second precision (spec §2.6).
func truncateJSONTimes(v Value) Value {
	mapAll := func(vs []Value) []Value {
		out := make([]Value, len(vs))
		for i, e := range vs {
			out[i] = truncateJSONTimes(e)
		}
		return out
	}
	switch x := v.(type) {
	case Time:
		if x.micros%1000 == 0 {
			secs := x.micros / microsPerSecond // floored, below
			if x.micros%microsPerSecond < 0 {
				secs--
			}
			return TimeFromMicros(secs * microsPerSecond)
		}
	case List:
		return List(mapAll(x))
	case *Object:
		return newObjectSorted(x.keys, mapAll(x.vals))
	case *UserGuard:
		return &UserGuard{Fun: x.Fun, Args: mapAll(x.Args)}
	case *CapabilityGuard:
		g := *x
		g.Args = mapAll(x.Args)
		return &g
	case *CapToken:
		return &CapToken{Name: x.Name, Args: mapAll(x.Args)}
	}
	return v
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"gas-price":0,"gas-limit":{"int":0},"sender":"","prev-block-hash":"","chain-id":"","block-height":{"int":0},"block-time":{"time":"1970-01-01T00:00:00Z"}}`,
		`{"foo":{"int":1}}`, `[1,1.5,-2.5e3,"s",true,null]`, `{"int":"9007199254740992"}`,
		`{"decimal":"1.50"}`, `{"keys":["b","a"],"pred":"keys-any"}`, `{"keysetref":{"ns":"n","ksn":"k"}}`,
		`{"args":[],"fun":"m.f"}`, `{"cgPactId":"p","cgArgs":[1],"cgName":"ns.m.C"}`,
		`{"moduleName":{"namespace":null,"name":"m"},"name":"n"}`, `{"pactId":"p","name":"n"}`,
		`{"refSpec":[{"namespace":null,"name":"i"}],"refName":{"namespace":"ns","name":"m"}}`,
		`{"timep":"2016-07-22T11:26:35.001500Z"}`, `{"time":"2016-07-22T11:26:35Z"}`,
		`{"#ctName":"m.C.{DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g}","#ctArgs":[{"int":1}]}`,
		`{":tableName":"m:t",":moduleHash":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g",":schema":{"sc_name":"m.s","sc_fields":{"a":{"tylist":"integer"}}}}`,
		`"\ud83d\ude00\u0000"`, `1e-300`, `{"int":2.5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeJSON(data)
		if err != nil {
			return
		}
		enc, err := EncodeJSON(v)
		if err != nil {
			t.Fatalf("decoded value %v does not encode: %v", v, err)
		}
		back, err := DecodeJSON(enc)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		if want := truncateJSONTimes(v); !StructEqual(want, back) {
			t.Fatalf("round trip changed the value:\n in  %s\n enc %s\n v   %v\n got %v", data, enc, want, back)
		}
	})
}

func FuzzDecimalParse(f *testing.F) {
	for _, s := range []string{"1.50", "-0.5", "0", "123456789012345678901234567890.000001", "1.", ".5", "1e5", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := ReadDecimal(s); ok {
			if back, ok := ReadDecimal(d.Text()); !ok || back.Text() != d.Text() || back.Places() != d.Places() {
				t.Fatalf("ReadDecimal(%q) = %s does not read back", s, d.Text())
			}
		}
		v, err := ParseNumber(s)
		if err != nil {
			return
		}
		var text string
		switch x := v.(type) {
		case Decimal:
			text = x.Text()
		case Integer:
			text = x.Text()
		}
		back, err := ParseNumber(text)
		if err != nil || back.Kind() != v.Kind() || !Equal(back, v) {
			t.Fatalf("ParseNumber(%q) = %s, which re-parses as %v, %v", s, text, back, err)
		}
		if d, ok := v.(Decimal); ok && back.(Decimal).Places() != d.Places() {
			t.Fatalf("places changed: %q -> %s", s, text)
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, c := range [][2]string{
		{ISO8601, "2016-07-22T11:26:35Z"}, {"%Y-%m-%d", "2016-07-22"},
		{"%a, %_d %b %Y %H:%M:%S %Z", "Tue, 21 Dec 2010 13:23:45 UTC"},
		{"%Y-%m-%d %H:%M:%S.%v", "2010-12-21 13:23:45.001002"}, {"%s", "-1"},
		{"%G-W%V-%u", "2010-W51-2"}, {"%e%m", "512"}, {"%c", "Thu Jan  1 00:00:00 UTC 1970"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, format, s string) {
		tm, ok := ParseTime(format, s)
		_ = FormatTime(format, tm)
		if !ok {
			return
		}
		iso := FormatTime(isoHighPrec, tm)
		back, ok := ParseTime(isoHighPrec, iso)
		if !ok || back != tm {
			t.Fatalf("parse-time %q %q = %s, which does not parse back (%v, %d vs %d)", format, s, iso, ok,
				back.micros, tm.micros)
		}
	})
}
