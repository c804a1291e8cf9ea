package eval

import (
	"testing"
)

// Vectors from P5 time.repl, pact-time's test suite (formats of the POSIX
// and MJD epochs) and spec/pact.md §2.6 and §4.4.

func mustTime(t *testing.T, s string) Time {
	t.Helper()
	v, err := ParseISOTime(s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return v.(Time)
}

func TestFormatCodes(t *testing.T) {
	T := mustTime(t, "2010-12-21T13:23:45Z")
	t2v, err := AddTime(T, num(t, "0.001002"))
	if err != nil {
		t.Fatal(err)
	}
	T2 := t2v.(Time)
	cases := []struct {
		tm   Time
		fmt  string
		want string
	}{
		{T, "%%", "%"},
		{T, "%k", "13"},
		{T, "%I", "01"},
		{T, "%l", " 1"},
		{T, "%M", "23"},
		{T, "%S", "45"},
		{T2, "%q", "001002000000"},
		{T2, "%v", "001002"},
		{T2, "%Q", ".001002"},
		{T, "%s", "1292937825"},
		{T, "%D", "12/21/10"},
		{T, "%F", "2010-12-21"},
		{T, "%x", "12/21/10"},
		{T, "%Y", "2010"},
		{T, "%y", "10"},
		{T, "%C", "20"},
		{T, "%B", "December"},
		{T, "%b", "Dec"},
		{T, "%h", "Dec"},
		{T, "%m", "12"},
		{T, "%d", "21"},
		{T, "%e", "21"},
		{T, "%j", "355"},
		{T, "%G", "2010"},
		{T, "%g", "10"},
		{T, "%f", "20"},
		{T, "%V", "51"},
		{T, "%u", "2"},
		{T, "%a", "Tue"},
		{T, "%A", "Tuesday"},
		{T, "%U", "51"},
		{T, "%w", "2"},
		{T, "%W", "51"},
	}
	epoch := TimeFromMicros(0)
	for _, c := range []struct{ want, fmt string }{
		{"%", "%%"}, {"+0000", "%z"}, {"+00:00", "%N"}, {"UTC", "%Z"},
		{"Thu Jan  1 00:00:00 UTC 1970", "%c"}, {"00:00", "%R"}, {"00:00:00", "%T"},
		{"00:00:00", "%X"}, {"12:00:00 AM", "%r"}, {"am", "%P"}, {"AM", "%p"}, {"00", "%H"},
		{" 0", "%k"}, {"12", "%I"}, {"12", "%l"}, {"00", "%M"}, {"00", "%S"}, {"000000", "%v"},
		{"", "%Q"}, {"0", "%s"}, {"01/01/70", "%D"}, {"1970-01-01", "%F"}, {"01/01/70", "%x"},
		{"1970", "%Y"}, {"70", "%y"}, {"19", "%C"}, {"January", "%B"}, {"Jan", "%b"},
		{"Jan", "%h"}, {"01", "%m"}, {"01", "%d"}, {" 1", "%e"}, {"001", "%j"}, {"1970", "%G"},
		{"70", "%g"}, {"19", "%f"}, {"01", "%V"}, {"4", "%u"}, {"Thu", "%a"}, {"Thursday", "%A"},
		{"00", "%U"}, {"4", "%w"}, {"00", "%W"}, {"000000000000", "%q"},
	} {
		cases = append(cases, struct {
			tm   Time
			fmt  string
			want string
		}{epoch, c.fmt, c.want})
	}
	mjdEpoch := TimeFromMicros(-posixEpochMJD * microsPerDay)
	for _, c := range []struct{ want, fmt string }{
		{"Wed Nov 17 00:00:00 UTC 1858", "%c"}, {"-3506716800", "%s"}, {"11/17/58", "%D"},
		{"1858-11-17", "%F"}, {"1858", "%Y"}, {"58", "%y"},
	} {
		cases = append(cases, struct {
			tm   Time
			fmt  string
			want string
		}{mjdEpoch, c.fmt, c.want})
	}
	for _, c := range cases {
		if got := FormatTime(c.fmt, c.tm); got != c.want {
			t.Errorf("format-time %q %s = %q, want %q", c.fmt, FormatTime(ISO8601, c.tm), got, c.want)
		}
	}
	// Modifiers are ignored, unknown codes copied through.
	if got := FormatTime("%-d|%_d|%0d|%^d|%#d|%E|%", T); got != "21|21|21|21|21|%E|%" {
		t.Errorf("modifiers: %q", got)
	}
}

func TestParseTimeRoundTrips(t *testing.T) {
	T := mustTime(t, "2010-12-21T13:23:45Z")
	t2v, _ := AddTime(T, num(t, "0.001002"))
	T2 := t2v.(Time)
	for _, c := range []struct {
		fmt string
		tm  Time
	}{
		{"%Y-%m-%dT%H:%M:%S%N", T},
		{"%a, %_d %b %Y %H:%M:%S %Z", T},
		{"%Y-%m-%d %H:%M:%S.%v", T2},
		{"%Y-%m-%dT%H:%M:%S%QZ", T2},
		{"%c", T},
		{"%F %T", T},
		{"%D %r", T},
		{"%Y %j %H %M %S", T},
		{"%G-W%V-%u %T", T},
		{"%Y %U %w %T", T},
		{"%Y %W %a %T", T},
		{"%s", T},
		{"%Y-%m-%e %k:%M:%S", T},
		{"%B %d %C%y %l:%M:%S %P", T},
		{"%Y%m%d%H%M%S%z", T},
	} {
		s := FormatTime(c.fmt, c.tm)
		got, ok := ParseTime(c.fmt, s)
		if !ok || got != c.tm {
			t.Errorf("round trip %q via %q: got %s (ok %v), want %s", c.fmt, s,
				FormatTime(isoHighPrec, got), ok, FormatTime(isoHighPrec, c.tm))
		}
	}
}

func TestParseTimeCases(t *testing.T) {
	cases := []struct {
		fmt, in string
		want    string // ISO8601 with microseconds, or "" for a failure
	}{
		{"%Y-%m-%d", "2016-07-22", "2016-07-22T00:00:00.000000Z"}, // time.repl
		{"%Y-%m-%dT%H:%M:%SZ", "  2016-07-22T11:26:35Z  ", "2016-07-22T11:26:35.000000Z"},
		// Fields are clipped, not rejected.
		{"%Y-%m-%d", "2023-02-31", "2023-02-28T00:00:00.000000Z"},
		// Zones shift to UTC.
		{"%Y-%m-%dT%H:%M%z", "2016-07-22T10:00+0230", "2016-07-22T07:30:00.000000Z"},
		{"%Y-%m-%dT%H:%M %Z", "2016-07-22T10:00 PST", "2016-07-22T18:00:00.000000Z"},
		{"%Y-%m-%dT%H:%M %Z", "2016-07-22T10:00 -01:00", "2016-07-22T11:00:00.000000Z"},
		// Fractions round half up at the seventh digit.
		{"%S.%v", "01.0000005", "1970-01-01T00:00:01.000001Z"},
		{"%S%Q", "01", "1970-01-01T00:00:01.000000Z"},
		// %y pivots at 69.
		{"%y", "68", "2068-01-01T00:00:00.000000Z"},
		{"%y", "69", "1969-01-01T00:00:00.000000Z"},
		// 12-hour clock.
		{"%I %p", "12 AM", "1970-01-01T00:00:00.000000Z"},
		{"%I %p", "01 pm", "1970-01-01T13:00:00.000000Z"},
		// %e takes one digit when two would break the rest of the format.
		{"%e%m", "512", "1970-12-05T00:00:00.000000Z"},
		{"%s", "-1", "1969-12-31T23:59:59.000000Z"},
		{"%Y-%m-%d", "2016-07-2", ""},
		{"%Y-%m-%d", "2016-07-22x", ""},
		{"%Y %E", "2016 E", ""},
		{"%H", "1", ""},
	}
	for _, c := range cases {
		got, ok := ParseTime(c.fmt, c.in)
		switch {
		case c.want == "" && ok:
			t.Errorf("parse-time %q %q succeeded: %s", c.fmt, c.in, FormatTime(isoHighPrec, got))
		case c.want != "" && (!ok || FormatTime(isoHighPrec, got) != c.want):
			t.Errorf("parse-time %q %q = %s (ok %v), want %s", c.fmt, c.in, FormatTime(isoHighPrec, got), ok, c.want)
		}
	}
	if _, err := ParseISOTime("2016-07-22"); err == nil ||
		err.Error() != "native execution failure, time failed with message: time default format parse failure" {
		t.Errorf("time of a bad string: %v", err)
	}
	if _, err := ParseTimeNative("%Y", "x"); err == nil ||
		err.Error() != "native execution failure, parse-time failed with message: parse-time parse failure" {
		t.Errorf("parse-time failure: %v", err)
	}
}

func TestTimeArithmetic(t *testing.T) {
	day := mustTime(t, "2016-07-22T00:00:00Z")
	d1, _ := Days(NewInt(1))
	got, err := AddTime(day, d1)
	if err != nil || !Equal(got, mustTime(t, "2016-07-23T00:00:00Z")) {
		t.Errorf("add 1 day = %v, %v", got, err)
	}
	diff, err := DiffTime(mustTime(t, "2016-07-22T11:26:35Z"), mustTime(t, "2016-07-22T10:26:35Z"))
	h1, _ := Hours(NewInt(1))
	if err != nil || !Equal(diff, h1) {
		t.Errorf("diff-time 1hr = %v, want %v", diff, h1)
	}
	d24, _ := Hours(NewInt(24))
	if !Equal(d24, d1) {
		t.Error("24 hours != 1 day")
	}
	m60, _ := Minutes(NewInt(60))
	if !Equal(m60, h1) {
		t.Error("60 minutes != 1 hour")
	}
	m1, _ := Minutes(NewInt(1))
	checkDec(t, "minutes 1", m1, "60", 0)
	m15, _ := Minutes(num(t, "1.5"))
	checkDec(t, "minutes 1.5", m15, "90", 0)
	base := mustTime(t, "2016-07-22T11:26:35Z")
	want := mustTime(t, "2016-07-22T11:26:36Z")
	for _, s := range []Value{NewInt(1), num(t, "1.0")} {
		if got, _ := AddTime(base, s); !Equal(got, want) {
			t.Errorf("add-time %v = %v", s, got)
		}
	}
	// Banker's rounding to microseconds.
	for _, c := range []struct {
		secs string
		us   int64
	}{{"0.0000005", 0}, {"0.0000015", 2}, {"0.0000025", 2}, {"-0.0000015", -2}} {
		got, _ := AddTime(TimeFromMicros(0), num(t, c.secs))
		if got.(Time).Micros() != c.us {
			t.Errorf("add-time %s = %d us, want %d", c.secs, got.(Time).Micros(), c.us)
		}
	}
	// diff-time is normalized decimal seconds.
	d, _ := DiffTime(TimeFromMicros(1_500_000), TimeFromMicros(0))
	checkDec(t, "diff 1.5s", d, "1.5", 1)
	d, _ = DiffTime(TimeFromMicros(0), TimeFromMicros(2))
	checkDec(t, "diff -2us", d, "-0.000002", 6)
}

func TestTimeDisplay(t *testing.T) {
	tm := mustTime(t, "2016-07-23T13:30:45Z")
	if Pretty(tm) != `"2016-07-23T13:30:45Z"` || Show(tm) != `"2016-07-23T13:30:45Z"` {
		t.Errorf("time renders %s / %s", Pretty(tm), Show(tm))
	}
	frac, _ := AddTime(tm, num(t, "0.5"))
	if Pretty(frac) != `"2016-07-23T13:30:45Z"` {
		t.Errorf("fractional time renders %s; the REPL shows second precision", Pretty(frac))
	}
	// 0001-01-01 is MJD -678575 (the constant in pact-time's calendar
	// code); the day before is year 0, printed with four digits.
	first := TimeFromMicros((-678575 - posixEpochMJD) * microsPerDay)
	if got := FormatTime("%F %j", first); got != "0001-01-01 001" {
		t.Errorf("0001-01-01 formats as %q", got)
	}
	prev, _ := AddTime(first, num(t, "-86400"))
	if got := FormatTime("%F", prev.(Time)); got != "0000-12-31" {
		t.Errorf("0000-12-31 formats as %q", got)
	}
	// thyme's documentation says %s%Q of 0.9s before the epoch is "-1.1",
	// but pact-time's code takes %s with quotRem (toward zero) and %Q from
	// the day time, giving "0.1". We follow the code.
	before := TimeFromMicros(-900_000)
	if got := FormatTime("%s%Q", before); got != "0.1" {
		t.Errorf("%%s%%Q of -0.9s = %q, want 0.1", got)
	}
}

// TestRoundTripEachCode formats a time and parses it back with each code,
// in a format that pins everything else down (a code alone, like %a, does
// not determine a time). Codes that only carry whole seconds use T.
func TestRoundTripEachCode(t *testing.T) {
	T := mustTime(t, "2010-12-21T13:23:45Z")
	t2v, _ := AddTime(T, num(t, "0.001002"))
	T2 := t2v.(Time)
	base := "%Y-%m-%d %H:%M:%S.%v|"
	for _, c := range []struct {
		fmt string
		tm  Time
	}{
		{base + "%%", T2}, {base + "%c", T2}, {base + "%r", T2}, {base + "%X", T2}, {base + "%x", T2},
		{base + "%R", T2}, {base + "%T", T2}, {base + "%P", T2}, {base + "%p", T2}, {base + "%H", T2},
		{"%Y-%m-%d %I:%M:%S.%v %p", T2}, {"%Y-%m-%d %l:%M:%S.%v %P", T2}, {"%Y-%m-%d %k:%M:%S.%v", T2},
		{"%Y-%m-%d %H:%M:%S.%q", T2}, {"%Y-%m-%d %H:%M:%S%Q", T2}, {"%Y-%m-%d %H:%M:%S.%v", T2},
		{"%s", T}, {"%D %T", T}, {"%F %T", T}, {base + "%Y", T2}, {base + "%y", T2}, {base + "%C", T2},
		{"%d %B %Y %T", T}, {"%d %b %Y %T", T}, {"%d %h %Y %T", T}, {"%Y %m %d %T", T}, {"%Y %m %e %T", T},
		{"%Y %j %T", T}, {"%G %V %u %T", T}, {"%f%g %V %u %T", T}, {"%G %V %a %T", T}, {"%G %V %A %T", T},
		{"%Y %U %w %T", T}, {"%Y %W %u %T", T}, {base + "%z", T2}, {base + "%N", T2}, {base + "%Z", T2},
		{base + "%-d %_m %0H", T2},
	} {
		s := FormatTime(c.fmt, c.tm)
		got, ok := ParseTime(c.fmt, s)
		if !ok || got != c.tm {
			t.Errorf("round trip %q via %q: got %s (ok %v)", c.fmt, s, FormatTime(isoHighPrec, got), ok)
		}
	}
}
