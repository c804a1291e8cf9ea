package value

import (
	"testing"
)

// The natives over times; package timefmt tests the formats.

func mustTime(t *testing.T, s string) Time {
	t.Helper()
	v, err := ParseISOTime(s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return v.(Time)
}

// TestTimeNativeFailures checks the texts of time's and parse-time's
// failures (package timefmt tests the formats themselves).
func TestTimeNativeFailures(t *testing.T) {
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
}
