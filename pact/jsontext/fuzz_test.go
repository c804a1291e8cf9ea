package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"
)

// anyBuilder builds what encoding/json's Decoder (with UseNumber) makes of a document: repeated
// object keys keep their last value, as there.
type anyBuilder struct{}

func (anyBuilder) Null() any              { return nil }
func (anyBuilder) Bool(v bool) any        { return v }
func (anyBuilder) String(s string) any    { return s }
func (anyBuilder) Number(text string) any { return json.Number(text) }
func (anyBuilder) Array(elems []any) any {
	if elems == nil {
		elems = []any{}
	}
	return elems
}
func (anyBuilder) Object(keys []string, vals []any) any {
	m := make(map[string]any, len(keys))
	for i, k := range keys {
		m[k] = vals[i]
	}
	return m
}

// FuzzParse holds the parser to RFC 8259 as encoding/json reads it: what Parse accepts in its
// strict mode, encoding/json accepts and decodes to the same tree; what encoding/json accepts
// in valid UTF-8, Parse accepts unless it is nested too deep or escapes a lone surrogate (which
// the strict mode refuses); and every error names an offset inside the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,-0,true,null,"x\u00e9\ud83d\ude00"]}`, `[]`, `"\ud800"`, `{"a":1,"a":2}`,
		` 1 `, `[1,]`, `{"a" 1}`, "\"\x01\"", `01`, `1.`, `1e`, `"\q"`, "[\"\xff\"]", `[[[[]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []Options{{}, {ReplaceLoneSurrogates: true, CheckUTF8AtEnd: true}} {
			got, err := Parse[any](data, anyBuilder{}, opts)
			var se *SyntaxError
			if err != nil {
				if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
					t.Fatalf("%+v: error %v (offset outside the input of %d bytes)", opts, err, len(data))
				}
			}
			if opts != (Options{}) {
				continue
			}
			valid := json.Valid(data)
			if err == nil {
				if !valid {
					t.Fatalf("accepted what encoding/json refuses: %q", data)
				}
				d := json.NewDecoder(bytes.NewReader(data))
				d.UseNumber()
				var want any
				if err := d.Decode(&want); err != nil {
					t.Fatalf("encoding/json: %v", err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%q: parsed %#v, encoding/json %#v", data, got, want)
				}
			} else if valid && utf8.Valid(data) && se.Problem != TooDeep && se.Problem != LoneSurrogate {
				t.Fatalf("refused what encoding/json accepts: %q: %v", data, err)
			}
		}
	})
}
