package httpkit

import (
	"bytes"
	"strconv"
)

// MaxSegments bounds the path depth a router looks at; deeper paths match nothing. The deepest
// route is /chainweb/0.0/{v}/chain/{c}/contract/api/v1/<op> (8 segments).
const MaxSegments = 12

// SplitPath splits a raw request path (as it came on the request line, not fasthttp's
// normalized Path) into its segments, percent-decoding each segment on its own as Warp's
// decodePathSegments does: "%2F" is a byte of its segment, not a separator, and "//", "." and
// ".." are segments like any other (which no route has), so a path means what it says. A single
// trailing slash is ignored, as servant ignores an empty last path piece. ok is false for a
// path deeper than MaxSegments or with an empty segment (SplitProblem says which). Only a
// segment with a '%' allocates.
func SplitPath(path []byte, out *[MaxSegments][]byte) (segs [][]byte, ok bool) {
	if len(path) == 0 || path[0] != '/' {
		return nil, false
	}
	path = path[1:]
	if n := len(path); n > 0 && path[n-1] == '/' {
		path = path[:n-1]
	}
	n := 0
	for len(path) > 0 {
		if n == MaxSegments {
			return nil, false
		}
		i := 0
		for i < len(path) && path[i] != '/' {
			i++
		}
		if i == 0 {
			return nil, false
		}
		out[n] = decodeSegment(path[:i])
		n++
		if i == len(path) {
			break
		}
		path = path[i+1:]
	}
	return out[:n], true
}

// decodeSegment percent-decodes one path segment. A '%' not followed by two hex digits stays
// as it is, as in http-types' urlDecode; '+' is not a space in a path.
func decodeSegment(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] != '%' {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[:i]...)
	for ; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
			out = append(out, unhex(b[i+1])<<4|unhex(b[i+2]))
			i += 2
			continue
		}
		out = append(out, b[i])
	}
	return out
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// SplitProblem says why SplitPath refused a path, as the tail of a 404's reason.
func SplitProblem(path []byte) string {
	switch {
	case len(path) == 0 || path[0] != '/':
		return ": a path starts with /"
	case bytes.Contains(path[1:], []byte("//")) || string(path) == "//":
		return ": empty path segment (paths are not normalized: // is not /)"
	}
	return ": more than " + strconv.Itoa(MaxSegments) + " path segments"
}

// maxEcho bounds how much of a client's path, segment or header a reason repeats.
const maxEcho = 120

// Echo shows a client's raw path or decoded path segment in a reason: as sent, cut short when
// long. Decoding can produce any byte, so one that is not printable ASCII (or a quote) makes
// the whole text Go-quoted.
func Echo(b []byte) string { return EchoText(b, false) }

// EchoText is Echo for a header value, where spaces may be ordinary ("text/html, */*").
func EchoText(b []byte, spaces bool) string {
	cut := len(b) > maxEcho
	if cut {
		b = b[:maxEcho]
	}
	s := string(b)
	for _, c := range b {
		if (c < 0x21 && !(spaces && c == ' ')) || c > 0x7e || c == '"' {
			s = strconv.Quote(s)
			break
		}
	}
	if cut {
		s += "…"
	}
	return s
}
