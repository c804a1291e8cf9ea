package jsontext

import (
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string escaped as aeson escapes it:
// backslash and quote, \n \r \t, other control characters as \u00XX
// (lowercase hex); everything else, non-ASCII included, is copied as
// UTF-8. Invalid UTF-8 (which a Haskell Text cannot hold) is replaced by
// U+FFFD.
func AppendString(buf []byte, s string) []byte {
	if plainASCII(s) {
		// Most strings (names, keys, hashes) need no escape at all.
		return appendPlain(buf, s)
	}
	return appendEscaped(buf, s)
}

// AppendPlain appends s between quotes when it is plain ASCII (no
// control character, quote or backslash, nothing from 0x80 up), whose
// JSON is itself, and reports whether it was: a caller with its own
// handling of other strings tries this first.
func AppendPlain(buf []byte, s string) ([]byte, bool) {
	if !plainASCII(s) {
		return buf, false
	}
	return appendPlain(buf, s), true
}

func appendPlain(buf []byte, s string) []byte {
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// plainASCII says s is ASCII without a control character, quote or
// backslash: its JSON is itself between quotes. It looks at eight bytes
// at a time (a public key is 64), each test exact for the word: a byte
// below 0x20, a byte equal to '"' or '\\', a byte from 0x80 up.
func plainASCII(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		quote, backslash := x^(ones*'"'), x^(ones*'\\')
		if x&highs != 0 || (x-ones*0x20)&^x&highs != 0 ||
			(quote-ones)&^quote&highs != 0 || (backslash-ones)&^backslash&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendEscaped is AppendString for a string that is not plain ASCII.
func appendEscaped(buf []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
