package timefmt

import "testing"

// Vectors from P5 time.repl, pact-time's test suite (formats of the POSIX
// and MJD epochs) and spec/pact.md §2.6 and §4.4.

func mustTime(t *testing.T, s string) int64 {
	t.Helper()
	us, ok := Parse(ISO8601, s)
	if !ok {
		t.Fatalf("time %q does not parse", s)
	}
	return us
}

func TestFormatCodes(t *testing.T) {
	T := mustTime(t, "2010-12-21T13:23:45Z")
	T2 := T + 1002 // 0.001002s later
	cases := []struct {
		tm   int64
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
	epoch := int64(0)
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
			tm   int64
			fmt  string
			want string
		}{epoch, c.fmt, c.want})
	}
	mjdEpoch := int64(-posixEpochMJD * microsPerDay)
	for _, c := range []struct{ want, fmt string }{
		{"Wed Nov 17 00:00:00 UTC 1858", "%c"}, {"-3506716800", "%s"}, {"11/17/58", "%D"},
		{"1858-11-17", "%F"}, {"1858", "%Y"}, {"58", "%y"},
	} {
		cases = append(cases, struct {
			tm   int64
			fmt  string
			want string
		}{mjdEpoch, c.fmt, c.want})
	}
	for _, c := range cases {
		if got := Format(c.fmt, c.tm); got != c.want {
			t.Errorf("format-time %q %s = %q, want %q", c.fmt, Format(ISO8601, c.tm), got, c.want)
		}
	}
	// Modifiers are ignored, unknown codes copied through.
	if got := Format("%-d|%_d|%0d|%^d|%#d|%E|%", T); got != "21|21|21|21|21|%E|%" {
		t.Errorf("modifiers: %q", got)
	}
}

func TestParseTimeRoundTrips(t *testing.T) {
	T := mustTime(t, "2010-12-21T13:23:45Z")
	T2 := T + 1002 // 0.001002s later
	for _, c := range []struct {
		fmt string
		tm  int64
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
		s := Format(c.fmt, c.tm)
		got, ok := Parse(c.fmt, s)
		if !ok || got != c.tm {
			t.Errorf("round trip %q via %q: got %s (ok %v), want %s", c.fmt, s,
				Format(ISO8601Micros, got), ok, Format(ISO8601Micros, c.tm))
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
		got, ok := Parse(c.fmt, c.in)
		switch {
		case c.want == "" && ok:
			t.Errorf("parse-time %q %q succeeded: %s", c.fmt, c.in, Format(ISO8601Micros, got))
		case c.want != "" && (!ok || Format(ISO8601Micros, got) != c.want):
			t.Errorf("parse-time %q %q = %s (ok %v), want %s", c.fmt, c.in, Format(ISO8601Micros, got), ok, c.want)
		}
	}
}

// TestRoundTripEachCode formats a time and parses it back with each code,
// in a format that pins everything else down (a code alone, like %a, does
// not determine a time). Codes that only carry whole seconds use T.
func TestRoundTripEachCode(t *testing.T) {
	T := mustTime(t, "2010-12-21T13:23:45Z")
	T2 := T + 1002 // 0.001002s later
	base := "%Y-%m-%d %H:%M:%S.%v|"
	for _, c := range []struct {
		fmt string
		tm  int64
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
		s := Format(c.fmt, c.tm)
		got, ok := Parse(c.fmt, s)
		if !ok || got != c.tm {
			t.Errorf("round trip %q via %q: got %s (ok %v)", c.fmt, s, Format(ISO8601Micros, got), ok)
		}
	}
}

// TestCalendarEdges formats the first day of year 1, the day before it,
// and a time before the epoch.
func TestCalendarEdges(t *testing.T) {
	// 0001-01-01 is MJD -678575 (the constant in pact-time's calendar
	// code); the day before is year 0, printed with four digits.
	first := int64((-678575 - posixEpochMJD) * microsPerDay)
	if got := Format("%F %j", first); got != "0001-01-01 001" {
		t.Errorf("0001-01-01 formats as %q", got)
	}
	if got := Format("%F", first-microsPerDay); got != "0000-12-31" {
		t.Errorf("0000-12-31 formats as %q", got)
	}
	// thyme's documentation says %s%Q of 0.9s before the epoch is "-1.1",
	// but pact-time's code takes %s with quotRem (toward zero) and %Q from
	// the day time, giving "0.1". We follow the code.
	before := int64(-900_000)
	if got := Format("%s%Q", before); got != "0.1" {
		t.Errorf("%%s%%Q of -0.9s = %q, want 0.1", got)
	}
}
