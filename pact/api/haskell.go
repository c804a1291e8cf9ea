package api

import (
	"strconv"
	"strings"
	"time"
)

// hsShow is Haskell's `show` of a String (or Text): double quotes, with
// '"' and '\\' escaped, printable ASCII as is, the C escapes \a \b \t \n
// \v \f \r, other control characters by their ASCII names (\NUL, \SOH,
// ..., \DEL) and every character above DEL as a decimal escape, followed
// by "\&" when a digit comes next (and "\SO" by "\&" before an 'H').
func hsShow(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	rs := []rune(s)
	for i, r := range rs {
		next := rune(-1)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r >= ' ' && r < 0x7f:
			b.WriteRune(r)
		case r == 0x7f:
			b.WriteString(`\DEL`)
		case r > 0x7f:
			b.WriteByte('\\')
			b.WriteString(strconv.Itoa(int(r)))
			if next >= '0' && next <= '9' {
				b.WriteString(`\&`)
			}
		default:
			switch r {
			case '\a':
				b.WriteString(`\a`)
			case '\b':
				b.WriteString(`\b`)
			case '\t':
				b.WriteString(`\t`)
			case '\n':
				b.WriteString(`\n`)
			case '\v':
				b.WriteString(`\v`)
			case '\f':
				b.WriteString(`\f`)
			case '\r':
				b.WriteString(`\r`)
			default:
				b.WriteByte('\\')
				b.WriteString(asciiNames[r])
				if r == 0x0e && next == 'H' {
					b.WriteString(`\&`)
				}
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

var asciiNames = [32]string{
	"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
	"DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
}

// DefaultNonce is the nonce of a request YAML without one: the time as
// pact-time shows it ("%Y-%m-%d %H:%M:%S%Q %Z"), microseconds with the
// trailing zeros dropped, e.g. "2020-01-29 16:46:22.916695 UTC".
func DefaultNonce(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format("2006-01-02 15:04:05.999999") + " UTC"
}
