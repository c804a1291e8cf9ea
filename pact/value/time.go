package value

import "github.com/ledgernode/ledger-node/pact/timefmt"

// Time is a Pact time: UTC with microsecond resolution, stored as
// microseconds since the POSIX epoch. pact-time stores microseconds since
// the Modified Julian Day epoch in an Int64; the two differ by a constant,
// so wrapping int64 arithmetic here matches its overflow behaviour.
type Time struct {
	micros int64
}

func (Time) Kind() Kind       { return KindTime }
func (t Time) String() string { return Pretty(t) }

// TimeFromMicros makes a time from POSIX microseconds.
func TimeFromMicros(us int64) Time { return Time{micros: us} }

// Micros is the POSIX microsecond count.
func (t Time) Micros() int64 { return t.micros }

const (
	microsPerSecond = 1_000_000
	microsPerDay    = 86_400 * microsPerSecond
	// posixEpochMJD is 1970-01-01 as a Modified Julian Day.
	posixEpochMJD = 40587
)

// MjdMicros is the pact-time internal representation.
func (t Time) MjdMicros() int64 { return t.micros + posixEpochMJD*microsPerDay }

// ISO8601 is the format of `time`, of the {"time": ...} JSON form and of
// time display.
const ISO8601 = timefmt.ISO8601

// isoHighPrec is the {"timep": ...} JSON form.
const isoHighPrec = timefmt.ISO8601Micros

// FormatTime is pact-time's formatTime (package timefmt has the codes).
func FormatTime(format string, t Time) string { return timefmt.Format(format, t.micros) }

// ParseTime is pact-time's parseTime (package timefmt has the codes).
func ParseTime(format, s string) (Time, bool) {
	us, ok := timefmt.Parse(format, s)
	return Time{micros: us}, ok
}

// ParseISOTime is the `time` native.
func ParseISOTime(s string) (Value, error) {
	t, ok := ParseTime(ISO8601, s)
	if !ok {
		return nil, NativeError("time", "time default format parse failure")
	}
	return t, nil
}

// ParseTimeNative is the `parse-time` native.
func ParseTimeNative(format, s string) (Value, error) {
	t, ok := ParseTime(format, s)
	if !ok {
		return nil, NativeError("parse-time", "parse-time parse failure")
	}
	return t, nil
}

// decimalToMicros is pact-time's fromSeconds: round(d * 10^6) with
// banker's rounding, truncated to an Int64 as Haskell's fromInteger does.
func decimalToMicros(d Decimal) int64 {
	m := d.Mul(DecimalFromInt(NewInt(microsPerSecond))).RoundTo(0, RoundHalfEven).mant
	if m.IsSmall() {
		return m.small
	}
	// The low 64 bits of the two's complement: negate the magnitude's low bits.
	return int64(m.big.Uint64()) * int64(m.big.Sign())
}

// AddTime is `add-time`: seconds as an integer or a decimal, rounded to
// microseconds with banker's rounding.
func AddTime(t, secs Value) (Value, error) {
	tt, ok := t.(Time)
	if !ok {
		return nil, ArgsError("add-time", t, secs)
	}
	var d Decimal
	switch s := secs.(type) {
	case Integer:
		d = DecimalFromInt(s)
	case Decimal:
		d = s
	default:
		return nil, ArgsError("add-time", t, secs)
	}
	return Time{micros: tt.micros + decimalToMicros(d)}, nil
}

// DiffTime is `diff-time`: (a - b) in decimal seconds, normalized.
func DiffTime(a, b Value) (Value, error) {
	x, ok1 := a.(Time)
	y, ok2 := b.(Time)
	if !ok1 || !ok2 {
		return nil, ArgsError("diff-time", a, b)
	}
	us := DecimalFromInt(NewInt(x.micros - y.micros))
	return us.Quo(DecimalFromInt(NewInt(microsPerSecond))), nil
}

func secondsOf(native string, n Value, factor int64) (Value, error) {
	switch x := n.(type) {
	case Integer:
		return DecimalFromInt(x.Mul(NewInt(factor))), nil
	case Decimal:
		return x.Mul(DecimalFromInt(NewInt(factor))), nil
	}
	return nil, ArgsError(native, n)
}

// Days, Hours and Minutes convert a count to decimal seconds.
func Days(n Value) (Value, error)    { return secondsOf("days", n, 86400) }
func Hours(n Value) (Value, error)   { return secondsOf("hours", n, 3600) }
func Minutes(n Value) (Value, error) { return secondsOf("minutes", n, 60) }

// FormatTimeNative is the `format-time` native.
func FormatTimeNative(format, t Value) (Value, error) {
	f, ok1 := format.(String)
	tt, ok2 := t.(Time)
	if !ok1 || !ok2 {
		return nil, ArgsError("format-time", format, t)
	}
	return String(FormatTime(string(f), tt)), nil
}
