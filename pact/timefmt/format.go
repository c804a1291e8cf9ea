package timefmt

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Calendar arithmetic, formatting and parsing as pact-time (a fork of
// thyme) does them, quirks included: parsed fields are clipped rather than
// rejected (Feb 31 becomes Feb 28), fixed-width numbers may carry trailing
// junk inside their width, unknown format codes are copied through when
// formatting but fail when parsing.

var (
	weekDays = [7][2]string{{"Sunday", "Sun"}, {"Monday", "Mon"}, {"Tuesday", "Tue"},
		{"Wednesday", "Wed"}, {"Thursday", "Thu"}, {"Friday", "Fri"}, {"Saturday", "Sat"}}
	monthNames = [12][2]string{{"January", "Jan"}, {"February", "Feb"}, {"March", "Mar"},
		{"April", "Apr"}, {"May", "May"}, {"June", "Jun"}, {"July", "Jul"}, {"August", "Aug"},
		{"September", "Sep"}, {"October", "Oct"}, {"November", "Nov"}, {"December", "Dec"}}
	monthLengths     = [12]int64{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	monthLengthsLeap = [12]int64{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
)

const (
	microsPerSecond = 1_000_000
	microsPerDay    = 86_400 * microsPerSecond
	// posixEpochMJD is 1970-01-01 as a Modified Julian Day. pact-time counts
	// microseconds from the MJD epoch in an Int64, POSIX microseconds differ
	// by a constant, so wrapping int64 arithmetic matches its overflow.
	posixEpochMJD = 40587
)

// ISO8601 is the format of Pact's `time` native, of the {"time": ...} JSON
// form and of time display.
const ISO8601 = "%Y-%m-%dT%H:%M:%SZ"

// ISO8601Micros is the {"timep": ...} JSON form: ISO8601 with
// microseconds.
const ISO8601Micros = "%Y-%m-%dT%H:%M:%S.%vZ"

// Locale aggregates (defaultTimeLocale).
const (
	dateTimeFmt = "%a %b %e %H:%M:%S %Z %Y"
	dateFmt     = "%m/%d/%y"
	timeFmt     = "%H:%M:%S"
	time12Fmt   = "%I:%M:%S %p"
)

// floorDivMod is Haskell divMod.
func floorDivMod(a, b int64) (int64, int64) {
	q, r := a/b, a%b
	if r != 0 && (r < 0) != (b < 0) {
		q--
		r += b
	}
	return q, r
}

func floorDiv(a, b int64) int64 { q, _ := floorDivMod(a, b); return q }
func floorMod(a, b int64) int64 { _, r := floorDivMod(a, b); return r }

func clip(lo, hi, v int64) int64 { return max(lo, min(hi, v)) }

func isLeapYear(y int64) bool {
	q100, r100 := y/100, y%100
	return y&3 == 0 && (r100 != 0 || q100&3 == 0)
}

// toOrdinalDate converts a Modified Julian Day to (year, day of year).
func toOrdinalDate(mjd int64) (int64, int64) {
	dayB0 := mjd + 678575
	dayInYear := func(y0, dB0 int64) int64 {
		centuries := y0 / 100
		leaps := y0>>2 - centuries + centuries>>2
		return dB0 - 365*y0 - leaps + 1
	}
	toOrdB0 := func(dB0 int64) (int64, int64) {
		y0, r := (400*dB0)/146097, (400*dB0)%146097
		d0 := dayInYear(y0, dB0)
		d1 := dayInYear(y0+1, dB0)
		if r > 146097-600 && d1 > 0 {
			return y0 + 2, d1
		}
		return y0 + 1, d0
	}
	if dayB0 <= 0 {
		quadCent, dayInQC := floorDivMod(dayB0, 146097)
		y, yd := toOrdB0(dayInQC)
		return y + quadCent*400, yd
	}
	return toOrdB0(dayB0)
}

// fromOrdinalDate converts (year, day of year) to a Modified Julian Day,
// clipping the day into the year.
func fromOrdinalDate(year, yd int64) int64 {
	years := year - 1
	centuries := floorDiv(years, 100)
	leaps := years>>2 - centuries + centuries>>2
	last := int64(365)
	if isLeapYear(year) {
		last = 366
	}
	return 365*years + leaps - 678576 + clip(1, last, yd)
}

// monthDayFromDayOfYear maps a day of year (clipped) to month and day.
func monthDayFromDayOfYear(leap bool, yd int64) (int64, int64) {
	lengths, last := monthLengths, int64(364)
	if leap {
		lengths, last = monthLengthsLeap, 365
	}
	i := clip(0, last, yd-1)
	m := int64(0)
	for i >= lengths[m] {
		i -= lengths[m]
		m++
	}
	return m + 1, i + 1
}

// dayOfYearFromMonthDay maps month and day (each clipped) to a day of year.
func dayOfYearFromMonthDay(leap bool, month, mday int64) int64 {
	m := clip(1, 12, month)
	lengths, k := monthLengths, int64(-2)
	if leap {
		lengths, k = monthLengthsLeap, -1
	}
	d := clip(1, lengths[m-1], mday)
	if m <= 2 {
		k = 0
	}
	return floorDiv(367*m-362, 12) + k + d
}

// toWeekDate gives the ISO week date (year, week 1..53, day 1..7 Monday
// first) of a Modified Julian Day.
func toWeekDate(mjd int64) (int64, int64, int64) {
	y0, yd := toOrdinalDate(mjd)
	d := mjd + 2
	d7div, d7mod := floorDivMod(d, 7)
	bar := func(k int64) int64 { return d7div - floorDiv(k, 7) }
	foo := func(y int64) int64 { return bar(fromOrdinalDate(y, 6)) }
	w0 := bar(d - yd + 4)
	y1, w1 := y0, w0
	switch {
	case w0 == -1:
		y1, w1 = y0-1, foo(y0-1)
	case w0 == 52 && foo(y0+1) == 0:
		y1, w1 = y0+1, 0
	}
	return y1, w1 + 1, d7mod + 1
}

func fromWeekDate(y, w, d int64) int64 {
	wMax := int64(52)
	if _, lw, _ := toWeekDate(fromOrdinalDate(y, 365)); lw == 53 {
		wMax = 53
	}
	k := fromOrdinalDate(y, 6)
	return k - floorMod(k, 7) - 10 + clip(1, 7, d) + clip(1, wMax, w)*7
}

func fromSundayWeek(y, w, d int64) int64 {
	firstDay := fromOrdinalDate(y, 1)
	firstSunday := floorMod(4-firstDay, 7)
	return firstDay + firstSunday + 7*(w-1) + d
}

func fromMondayWeek(y, w, d int64) int64 {
	firstDay := fromOrdinalDate(y, 1)
	firstMonday := floorMod(5-firstDay, 7)
	return firstDay + firstMonday + 7*(w-1) + d - 1
}

// Number renderings of thyme.

func shows02(b *strings.Builder, n int64) {
	if n < 10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.FormatInt(n, 10))
}

func shows_2(b *strings.Builder, n int64) {
	if n < 10 {
		b.WriteByte(' ')
	}
	b.WriteString(strconv.FormatInt(n, 10))
}

func shows03(b *strings.Builder, n int64) {
	switch {
	case n < 10:
		b.WriteString("00")
	case n < 100:
		b.WriteString("0")
	}
	b.WriteString(strconv.FormatInt(n, 10))
}

func showsYear(b *strings.Builder, n int64) {
	u := n
	if n < 0 {
		b.WriteByte('-')
		u = -n
	}
	switch {
	case u < 10:
		b.WriteString("000")
	case u < 100:
		b.WriteString("00")
	case u < 1000:
		b.WriteString("0")
	}
	b.WriteString(strconv.FormatInt(u, 10))
}

func fills06(b *strings.Builder, n int64) {
	switch {
	case n < 10:
		b.WriteString("00000")
	case n < 100:
		b.WriteString("0000")
	case n < 1000:
		b.WriteString("000")
	case n < 10000:
		b.WriteString("00")
	case n < 100000:
		b.WriteString("0")
	}
}

func drops0(b *strings.Builder, n int64) {
	for n != 0 && n%10 == 0 {
		n /= 10
	}
	b.WriteString(strconv.FormatInt(n, 10))
}

// timeFields is what the format codes ask for. The week-based fields are
// filled in only when a code needs them (the ISO formats do not).
type timeFields struct {
	posixMicros, mjd    int64
	ordYear, ordDay     int64
	month, mday         int64
	hour, minute        int64
	sec, micro          int64
	haveWeeks           bool
	wdYear, wdWeek, wdD int64 // ISO week date, day 1..7 (Monday first)
	sunWeek, monWeek    int64
}

func fieldsOf(posixMicros int64) timeFields {
	mjd, tod := floorDivMod(posixMicros+posixEpochMJD*microsPerDay, microsPerDay)
	f := timeFields{posixMicros: posixMicros, mjd: mjd}
	f.ordYear, f.ordDay = toOrdinalDate(mjd)
	f.month, f.mday = monthDayFromDayOfYear(isLeapYear(f.ordYear), f.ordDay)
	h, ms := tod/3_600_000_000, tod%3_600_000_000
	m, s := ms/60_000_000, ms%60_000_000
	f.hour, f.minute, f.sec, f.micro = h, m, s/microsPerSecond, s%microsPerSecond
	return f
}

func (f *timeFields) weeks() {
	if f.haveWeeks {
		return
	}
	f.haveWeeks = true
	f.wdYear, f.wdWeek, f.wdD = toWeekDate(f.mjd)
	d7div := floorDiv(f.mjd+3, 7)
	f.sunWeek = d7div - floorDiv(f.mjd+3-f.ordDay, 7)
	d7div = floorDiv(f.mjd+2, 7)
	f.monWeek = d7div - floorDiv(f.mjd+2-f.ordDay, 7)
}

// Format is pact-time's formatTime of a time given as microseconds since
// the POSIX epoch, with the given strftime-like format.
// Supported codes: %% %c %r %X %x %R %T %P %p %H %I %k %l %M %S %q %v %Q
// %D %F %Y %y %C %B %b %h %m %d %e %j %G %g %f %V %u %w %A %a %U %W %s %z
// %N %Z; the modifiers - _ 0 ^ # are ignored; any other code is copied
// through unchanged.
func Format(format string, posixMicros int64) string {
	f := fieldsOf(posixMicros)
	var b strings.Builder
	formatInto(&b, format, &f)
	return b.String()
}

func formatInto(b *strings.Builder, spec string, f *timeFields) {
	for len(spec) > 0 {
		r, n := utf8.DecodeRuneInString(spec)
		spec = spec[n:]
		if r != '%' || len(spec) == 0 {
			b.WriteRune(r)
			continue
		}
		c, n := utf8.DecodeRuneInString(spec)
		rest := spec[n:]
		switch c {
		case 'c':
			spec = dateTimeFmt + rest
		case 'r':
			spec = time12Fmt + rest
		case 'X':
			spec = timeFmt + rest
		case 'x':
			spec = dateFmt + rest
		case '-', '_', '0', '^', '#':
			spec = "%" + rest
		case '%':
			b.WriteByte('%')
			spec = rest
		default:
			formatCode(b, c, f)
			spec = rest
		}
	}
}

// formatCode renders one code. The order of the cases follows thyme's
// chain of instances (ordinal date, then year-month-day, ISO week date,
// Sunday weeks, Monday weeks, time of day, zone), which decides codes
// several of them know.
func formatCode(b *strings.Builder, c rune, f *timeFields) {
	switch c {
	case 'G', 'g', 'f', 'V', 'u', 'w', 'A', 'a', 'U', 'W':
		f.weeks()
	}
	switch c {
	case 's':
		b.WriteString(strconv.FormatInt(f.posixMicros/microsPerSecond, 10))
	case 'Y':
		showsYear(b, f.ordYear)
	case 'y':
		shows02(b, floorMod(f.ordYear, 100))
	case 'C':
		shows02(b, floorDiv(f.ordYear, 100))
	case 'j':
		shows03(b, f.ordDay)
	case 'D':
		shows02(b, f.month)
		b.WriteByte('/')
		shows02(b, f.mday)
		b.WriteByte('/')
		shows02(b, floorMod(f.ordYear, 100))
	case 'F':
		showsYear(b, f.ordYear)
		b.WriteByte('-')
		shows02(b, f.month)
		b.WriteByte('-')
		shows02(b, f.mday)
	case 'B':
		b.WriteString(monthNames[f.month-1][0])
	case 'b', 'h':
		b.WriteString(monthNames[f.month-1][1])
	case 'm':
		shows02(b, f.month)
	case 'd':
		shows02(b, f.mday)
	case 'e':
		shows_2(b, f.mday)
	case 'G':
		showsYear(b, f.wdYear)
	case 'g':
		shows02(b, floorMod(f.wdYear, 100))
	case 'f':
		shows02(b, floorDiv(f.wdYear, 100))
	case 'V':
		shows02(b, f.wdWeek)
	case 'u':
		b.WriteString(strconv.FormatInt(f.wdD, 10))
	case 'w':
		b.WriteString(strconv.FormatInt(f.wdD%7, 10))
	case 'A':
		b.WriteString(weekDays[f.wdD%7][0])
	case 'a':
		b.WriteString(weekDays[f.wdD%7][1])
	case 'U':
		shows02(b, f.sunWeek)
	case 'W':
		shows02(b, f.monWeek)
	case 'R':
		shows02(b, f.hour)
		b.WriteByte(':')
		shows02(b, f.minute)
	case 'T':
		shows02(b, f.hour)
		b.WriteByte(':')
		shows02(b, f.minute)
		b.WriteByte(':')
		shows02(b, f.sec)
	case 'P', 'p':
		half := "AM"
		if f.hour >= 12 {
			half = "PM"
		}
		if c == 'P' {
			half = strings.ToLower(half)
		}
		b.WriteString(half)
	case 'H':
		shows02(b, f.hour)
	case 'I':
		shows02(b, 1+floorMod(f.hour-1, 12))
	case 'k':
		shows_2(b, f.hour)
	case 'l':
		shows_2(b, 1+floorMod(f.hour-1, 12))
	case 'M':
		shows02(b, f.minute)
	case 'S':
		shows02(b, f.sec)
	case 'q':
		fills06(b, f.micro)
		b.WriteString(strconv.FormatInt(f.micro, 10))
		b.WriteString("000000")
	case 'v':
		fills06(b, f.micro)
		b.WriteString(strconv.FormatInt(f.micro, 10))
	case 'Q':
		if f.micro != 0 {
			b.WriteByte('.')
			fills06(b, f.micro)
			drops0(b, f.micro)
		}
	case 'z':
		b.WriteString("+0000")
	case 'N':
		b.WriteString("+00:00")
	case 'Z':
		b.WriteString("UTC")
	default:
		b.WriteByte('%')
		b.WriteRune(c)
	}
}
