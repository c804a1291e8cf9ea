package jsontext

import (
	"strings"
	"testing"
)

// tree is a Builder that writes the values back as text, to show what
// Parse read.
type tree struct{}

func (tree) Null() string            { return "null" }
func (tree) Bool(v bool) string      { return map[bool]string{true: "true", false: "false"}[v] }
func (tree) String(s string) string  { return string(AppendString(nil, s)) }
func (tree) Number(t string) string  { return "#" + t }
func (tree) Array(e []string) string { return "[" + strings.Join(e, ",") + "]" }
func (tree) Object(keys, vals []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + vals[i]
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func TestParseValues(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{` {"b":[1,-0.5e+3,true,false,null],"a":{},"b":[]} `, `{b=[#1,#-0.5e+3,true,false,null],a={},b=[]}`},
		{`"\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\"`, `"é😀/\u0008\u000c\n\r\t\"\\"`},
		{"\"\xef\xbf\xbd\"", "\"\ufffd\""}, // an encoded U+FFFD is UTF-8
	} {
		for _, opts := range []Options{{}, {ReplaceLoneSurrogates: true, CheckUTF8AtEnd: true}} {
			got, err := Parse[string]([]byte(c.in), tree{}, opts)
			if err != nil || got != c.want {
				t.Errorf("Parse(%q, %+v) = %s, %v; want %s", c.in, opts, got, err, c.want)
			}
		}
	}
}

func TestLoneSurrogates(t *testing.T) {
	replace := Options{ReplaceLoneSurrogates: true}
	for _, c := range []struct {
		in, replaced string
		rejectAt     int
	}{
		{`"\udc00"`, "\"\ufffd\"", 7},
		{`"\ud800"`, "\"\ufffd\"", 7},
		{`"\ud800\u0041"`, "\"\ufffdA\"", 13},
		{`"\ud800x"`, "\"\ufffdx\"", 7},
	} {
		if got, err := Parse[string]([]byte(c.in), tree{}, replace); err != nil || got != c.replaced {
			t.Errorf("replacing %s: %s, %v; want %s", c.in, got, err, c.replaced)
		}
		_, err := Parse[string]([]byte(c.in), tree{}, Options{})
		if e, ok := err.(*SyntaxError); !ok || e.Problem != LoneSurrogate || e.Offset != c.rejectAt {
			t.Errorf("rejecting %s: %v; want LoneSurrogate at %d", c.in, err, c.rejectAt)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	atEnd := Options{CheckUTF8AtEnd: true}
	for _, c := range []struct {
		in      string
		opts    Options
		problem Problem
		offset  int
		text    string
	}{
		{``, Options{}, EndOfInput, 0, "invalid JSON at offset 0: unexpected end of input"},
		{strings.Repeat("[", MaxDepth+2), Options{}, TooDeep, MaxDepth + 1, "nested more than 512 deep"},
		{`[tru]`, Options{}, UnexpectedChar, 1, "unexpected character 't'"},
		{`{1:2}`, Options{}, ExpectedKey, 1, "expected a string key"},
		{`{"k" 2}`, Options{}, ExpectedColon, 5, `expected ':' after key "k"`},
		{`{"k":2]`, Options{}, ExpectedObjectEnd, 6, "expected ',' or '}'"},
		{`[1}`, Options{}, ExpectedArrayEnd, 2, "expected ',' or ']'"},
		{`"abc`, Options{}, UnterminatedString, 4, "unterminated string"},
		{`"ab\`, Options{}, EndInEscape, 4, "unterminated string"},
		{"\"a\x01\"", Options{}, ControlChar, 2, "control character 0x01 in string"},
		{`"\q"`, Options{}, BadEscape, 3, `invalid escape \q`},
		{`"\u12g4"`, Options{}, BadUnicodeEscape, 3, `invalid \u escape`},
		{`-x`, Options{}, NumberNoDigits, 1, "invalid number"},
		{`1.e5`, Options{}, NumberNoFraction, 2, "invalid number: no digits after '.'"},
		{`1e+`, Options{}, NumberNoExponent, 3, "invalid number: no digits in the exponent"},
		{`1 2`, Options{}, TrailingData, 2, "unexpected data after the JSON value"},
		// Rune by rune, the first bad byte is the error; at the end, the
		// closing quote (past it after an escape), and a later control
		// character wins.
		{"\"a\xffb\"", Options{}, InvalidUTF8, 2, "invalid UTF-8 in string"},
		{"\"a\xffb\"", atEnd, InvalidUTF8, 4, "invalid UTF-8 in string"},
		{"\"\\n\xffb\"", atEnd, InvalidUTF8, 6, "invalid UTF-8 in string"},
		{"\"\xff\x01\"", Options{}, InvalidUTF8, 1, "invalid UTF-8 in string"},
		{"\"\xff\x01\"", atEnd, ControlChar, 2, "control character 0x01 in string"},
		{"\"\\n\xe2\x82", Options{}, InvalidUTF8, 3, "invalid UTF-8 in string"},
	} {
		_, err := Parse[string]([]byte(c.in), tree{}, c.opts)
		e, ok := err.(*SyntaxError)
		if !ok || e.Problem != c.problem || e.Offset != c.offset || !strings.HasSuffix(e.Error(), c.text) {
			t.Errorf("Parse(%q, %+v): %v; want problem %d at %d, %q", c.in, c.opts, err, c.problem, c.offset, c.text)
		}
	}
}

func TestAppendString(t *testing.T) {
	got := string(AppendString([]byte("x"), "a\"\\\n\r\t\x00\x1fé\xff</>"))
	if want := `x"a\"\\\n\r\t\u0000\u001fé` + "\ufffd" + `</>"`; got != want {
		t.Errorf("AppendString = %s, want %s", got, want)
	}
}
