package timefmt

import (
	"strings"
	"unicode/utf8"
)

// Parse is pact-time's parseTime, giving microseconds since the POSIX
// epoch: the whole input (surrounding ASCII
// whitespace allowed) must match the format. Like the attoparsec parser it
// mirrors, %k, %l, %e (two or one digits) and %Y, %G (any signed number,
// else exactly four digits) backtrack over the rest of the format when
// their first reading leads to a failure.
func Parse(format, s string) (posixMicros int64, ok bool) {
	p := timeParser{in: s}
	st, i, ok := p.run(format, skipASCIISpace(s, 0), unixEpochParse)
	if !ok || skipASCIISpace(s, i) != len(s) {
		return 0, false
	}
	return st.build(), true
}

// Flags of the parse state (thyme's TimeFlag).
const (
	flagPostMeridiem = 1 << iota
	flagTwelveHour
	flagHasCentury
	flagPOSIX
	flagOrdinal
	flagGregorian
	flagWeekDate
	flagSundayWeek
	flagMondayWeek
)

// timeParse accumulates the fields a format assigns.
type timeParse struct {
	century, centuryYear           int64
	month, weekOfYear, dayOfMonth  int64
	dayOfYear, dayOfWeek           int64
	flags                          int
	hour, minute, second           int64
	secFrac, posixMicros, tzMinute int64
}

var unixEpochParse = timeParse{century: 19, centuryYear: 70, month: 1, weekOfYear: 1,
	dayOfYear: 1, dayOfMonth: 1, dayOfWeek: 4}

func (st *timeParse) year() int64 {
	c := st.century
	if st.flags&flagHasCentury == 0 {
		c = 19
		if st.centuryYear < 69 {
			c = 20
		}
	}
	return st.centuryYear + 100*c
}

// build gives the parsed time in POSIX microseconds.
func (st timeParse) build() int64 {
	if st.flags&flagPOSIX != 0 {
		return st.posixMicros
	}
	y := st.year()
	var mjd int64
	switch {
	case st.flags&flagOrdinal != 0:
		mjd = fromOrdinalDate(y, st.dayOfYear)
	case st.flags&flagGregorian != 0:
		mjd = fromOrdinalDate(y, dayOfYearFromMonthDay(isLeapYear(y), st.month, st.dayOfMonth))
	case st.flags&flagWeekDate != 0:
		d := st.dayOfWeek
		if d == 0 {
			d = 7
		}
		mjd = fromWeekDate(y, st.weekOfYear, d)
	case st.flags&flagSundayWeek != 0:
		d := st.dayOfWeek
		if d == 7 {
			d = 0
		}
		mjd = fromSundayWeek(y, st.weekOfYear, d)
	case st.flags&flagMondayWeek != 0:
		d := st.dayOfWeek
		if d == 0 {
			d = 7
		}
		mjd = fromMondayWeek(y, st.weekOfYear, d)
	default:
		mjd = fromOrdinalDate(y, st.dayOfYear)
	}
	h := st.hour
	if st.flags&flagTwelveHour != 0 {
		switch {
		case st.flags&flagPostMeridiem == 0:
			h = floorMod(h, 12)
		case h < 12:
			h += 12
		}
	}
	tod := st.second*microsPerSecond + st.secFrac + st.minute*60_000_000 + h*3_600_000_000
	return mjd*microsPerDay + tod - st.tzMinute*60_000_000 - posixEpochMJD*microsPerDay
}

// maxParseSteps bounds the work of one parse. Backtracking makes formats
// like "%Y%Y%Y..." exponential (in thyme as here); a budget keeps a hostile
// format from stalling the node. Legitimate formats use a few dozen steps.
const maxParseSteps = 100_000

type timeParser struct {
	in    string
	steps int
}

func isASCIISpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

func skipASCIISpace(s string, i int) int {
	for i < len(s) && isASCIISpace(s[i]) {
		i++
	}
	return i
}

// digits reads attoparsec's `decimal` (one or more ASCII digits, folded
// into a wrapping Int) from s.
func digitsPrefix(s string) (int64, int, bool) {
	n := 0
	var v int64
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		v = v*10 + int64(s[n]-'0')
		n++
	}
	return v, n, n > 0
}

// dec0 is thyme's fixed-width number: exactly n bytes, of which a leading
// digit run is the value (trailing bytes inside the width are ignored).
func (p *timeParser) dec0(i, n int) (int64, int, bool) {
	if i+n > len(p.in) {
		return 0, i, false
	}
	v, _, ok := digitsPrefix(p.in[i : i+n])
	return v, i + n, ok
}

// dec_ is the space-padded variant: leading spaces inside the width are
// skipped first.
func (p *timeParser) decSpace(i, n int) (int64, int, bool) {
	if i+n > len(p.in) {
		return 0, i, false
	}
	w := p.in[i : i+n]
	// Bytes are read as Latin-1 characters, so 0xA0 (NBSP) counts as space.
	for len(w) > 0 && (isASCIISpace(w[0]) || w[0] == 0xa0) {
		w = w[1:]
	}
	v, _, ok := digitsPrefix(w)
	return v, i + n, ok
}

// signed is `negative decimal`: an optional '-' then digits.
func (p *timeParser) signed(i int) (int64, int, bool) {
	neg := false
	if i < len(p.in) && p.in[i] == '-' {
		neg = true
		i++
	}
	v, n, ok := digitsPrefix(p.in[i:])
	if neg {
		v = -v
	}
	return v, i + n, ok
}

// micro reads a fraction's digits as microseconds, rounding the seventh
// digit half up, as thyme does.
func (p *timeParser) micro(i int) (int64, int, bool) {
	_, n, ok := digitsPrefix(p.in[i:])
	if !ok {
		return 0, i, false
	}
	ds := (p.in[i:i+n] + "000000")[:7]
	us10, _, _ := digitsPrefix(ds)
	return floorDiv(us10+5, 10), i + n, true
}

// stringCI matches an ASCII word case-insensitively.
func (p *timeParser) stringCI(i int, w string) (int, bool) {
	if i+len(w) > len(p.in) || !strings.EqualFold(p.in[i:i+len(w)], w) {
		return i, false
	}
	return i + len(w), true
}

func (p *timeParser) indexOfCI(i int, names []string) (int, int, bool) {
	for k, w := range names {
		if j, ok := p.stringCI(i, w); ok {
			return k, j, true
		}
	}
	return 0, i, false
}

func (p *timeParser) tzOffset(i int) (int64, int, bool) {
	if i >= len(p.in) || (p.in[i] != '+' && p.in[i] != '-') {
		return 0, i, false
	}
	sign := int64(1)
	if p.in[i] == '-' {
		sign = -1
	}
	h, j, ok := p.dec0(i+1, 2)
	if !ok {
		return 0, i, false
	}
	if j < len(p.in) && p.in[j] == ':' {
		j++
	}
	m, j, ok := p.dec0(j, 2)
	if !ok {
		return 0, i, false
	}
	return sign * (h*60 + m), j, true
}

func (p *timeParser) tzName(i int) (int64, int, bool) {
	for _, z := range timeZones {
		if strings.HasPrefix(p.in[i:], z.name) {
			return z.minutes, i + len(z.name), true
		}
	}
	return 0, i, false
}

func names(col int, table [][2]string) []string {
	out := make([]string, len(table))
	for i, t := range table {
		out[i] = t[col]
	}
	return out
}

var (
	fullMonths  = names(0, monthNames[:])
	shortMonths = names(1, monthNames[:])
	fullDays    = names(0, weekDays[:])
	shortDays   = names(1, weekDays[:])
	amPmUpper   = []string{"AM", "PM"}
)

// run matches spec against the input from position i. It returns the
// final state and position, backtracking where thyme's parser has
// alternatives.
func (p *timeParser) run(spec string, i int, st timeParse) (timeParse, int, bool) {
	for len(spec) > 0 {
		if p.steps++; p.steps > maxParseSteps {
			return st, i, false
		}
		r, n := utf8.DecodeRuneInString(spec)
		if r != '%' || n == len(spec) {
			spec = spec[n:]
			switch {
			case r < utf8.RuneSelf && isASCIISpace(byte(r)):
				i = skipASCIISpace(p.in, i)
				for len(spec) > 0 && isASCIISpace(spec[0]) {
					spec = spec[1:]
				}
			default:
				enc := string(r)
				if !strings.HasPrefix(p.in[i:], enc) {
					return st, i, false
				}
				i += len(enc)
			}
			continue
		}
		c, m := utf8.DecodeRuneInString(spec[n:])
		rest := spec[n+m:]
		var ok bool
		var v int64
		switch c {
		case 'c':
			spec = dateTimeFmt + rest
			continue
		case 'r':
			spec = time12Fmt + rest
			continue
		case 'X':
			spec = timeFmt + rest
			continue
		case 'x':
			spec = dateFmt + rest
			continue
		case 'R':
			spec = "%H:%M" + rest
			continue
		case 'T':
			spec = "%H:%M:%S" + rest
			continue
		case 'D':
			spec = "%m/%d/%y" + rest
			continue
		case 'F':
			spec = "%Y-%m-%d" + rest
			continue
		case '-', '_', '0':
			spec = "%" + rest
			continue
		case 'P', 'p':
			var k int
			if k, i, ok = p.indexOfCI(i, amPmUpper); !ok {
				return st, i, false
			}
			if k == 1 {
				st.flags |= flagPostMeridiem
			} else {
				st.flags &^= flagPostMeridiem
			}
			st.flags |= flagTwelveHour
		case 'H', 'I':
			if v, i, ok = p.dec0(i, 2); !ok {
				return st, i, false
			}
			st.setHour(v, c == 'I')
		case 'k', 'l', 'e':
			// Two space-padded digits, or failing that (anywhere later in
			// the format), one.
			for _, width := range []int{2, 1} {
				v, j, ok := p.decSpace(i, width)
				if !ok {
					continue
				}
				st2 := st
				if c == 'e' {
					st2.flags |= flagGregorian
					st2.dayOfMonth = v
				} else {
					st2.setHour(v, c == 'l')
				}
				if fin, k, ok := p.run(rest, j, st2); ok {
					return fin, k, true
				}
			}
			return st, i, false
		case 'M':
			if st.minute, i, ok = p.dec0(i, 2); !ok {
				return st, i, false
			}
		case 'S':
			if st.second, i, ok = p.dec0(i, 2); !ok {
				return st, i, false
			}
		case 'q', 'v':
			if st.secFrac, i, ok = p.micro(i); !ok {
				return st, i, false
			}
		case 'Q':
			st.secFrac = 0
			if i < len(p.in) && p.in[i] == '.' {
				if v, j, ok := p.micro(i + 1); ok {
					st.secFrac, i = v, j
				}
			}
		case 'Y', 'G':
			if c == 'G' {
				st.flags |= flagWeekDate
			}
			// Any signed number, or failing that exactly four digits.
			if v, j, ok := p.signed(i); ok {
				if fin, k, ok := p.run(rest, j, st.withYear(v)); ok {
					return fin, k, true
				}
			}
			if v, j, ok := p.dec0(i, 4); ok {
				return p.run(rest, j, st.withYear(v))
			}
			return st, i, false
		case 'y', 'g':
			if c == 'g' {
				st.flags |= flagWeekDate
			}
			if st.centuryYear, i, ok = p.dec0(i, 2); !ok {
				return st, i, false
			}
		case 'C', 'f':
			if c == 'f' {
				st.flags |= flagWeekDate
			}
			if st.century, i, ok = p.dec0(i, 2); !ok {
				return st, i, false
			}
			st.flags |= flagHasCentury
		case 'B', 'b', 'h':
			tbl := shortMonths
			if c == 'B' {
				tbl = fullMonths
			}
			var k int
			if k, i, ok = p.indexOfCI(i, tbl); !ok {
				return st, i, false
			}
			st.month = int64(k) + 1
			st.flags |= flagGregorian
		case 'm':
			if st.month, i, ok = p.dec0(i, 2); !ok {
				return st, i, false
			}
			st.flags |= flagGregorian
		case 'd':
			if st.dayOfMonth, i, ok = p.dec0(i, 2); !ok {
				return st, i, false
			}
			st.flags |= flagGregorian
		case 'j':
			if st.dayOfYear, i, ok = p.dec0(i, 3); !ok {
				return st, i, false
			}
			st.flags |= flagOrdinal
		case 'V', 'U', 'W':
			switch c {
			case 'V':
				st.flags |= flagWeekDate
			case 'U':
				st.flags |= flagSundayWeek
			default:
				st.flags |= flagMondayWeek
			}
			if st.weekOfYear, i, ok = p.dec0(i, 2); !ok {
				return st, i, false
			}
		case 'w', 'u':
			if st.dayOfWeek, i, ok = p.dec0(i, 1); !ok {
				return st, i, false
			}
		case 'A', 'a':
			tbl := shortDays
			if c == 'A' {
				tbl = fullDays
			}
			var k int
			if k, i, ok = p.indexOfCI(i, tbl); !ok {
				return st, i, false
			}
			st.dayOfWeek = int64(k)
		case 'z', 'N':
			if st.tzMinute, i, ok = p.tzOffset(i); !ok {
				return st, i, false
			}
		case 'Z':
			if v, i, ok = p.tzOffset(i); !ok {
				if v, i, ok = p.tzName(i); !ok {
					return st, i, false
				}
			}
			st.tzMinute = v
		case 's':
			if v, i, ok = p.signed(i); !ok {
				return st, i, false
			}
			st.posixMicros = v * microsPerSecond
			st.flags |= flagPOSIX
		case '%':
			if i >= len(p.in) || p.in[i] != '%' {
				return st, i, false
			}
			i++
		default:
			return st, i, false
		}
		spec = rest
	}
	return st, i, true
}

func (st *timeParse) setHour(h int64, twelve bool) {
	st.hour = h
	if twelve {
		st.flags |= flagTwelveHour
	} else {
		st.flags &^= flagTwelveHour
	}
}

func (st timeParse) withYear(y int64) timeParse {
	st.century, st.centuryYear = floorDivMod(y, 100)
	st.flags |= flagHasCentury
	return st
}

// timeZones is thyme's zone-name table, tried in this order.
var timeZones = []struct {
	name    string
	minutes int64
}{
	{"TAI", 0}, {"UT1", 0}, {"ZULU", 0}, {"Z", 0}, {"YST", -9 * 60}, {"YDT", -8 * 60},
	{"WST", 8 * 60}, {"WETDST", 60}, {"WET", 0}, {"WDT", 9 * 60}, {"WAT", -60},
	{"WAST", 7 * 60}, {"WADT", 8 * 60}, {"UTC", 0}, {"UT", 0}, {"TFT", 5 * 60},
	{"SWT", 60}, {"SST", 2 * 60}, {"SET", 60}, {"SCT", 4 * 60}, {"SAST", 9*60 + 30},
	{"SADT", 10*60 + 30}, {"RET", 4 * 60}, {"PST", -8 * 60}, {"PDT", -7 * 60},
	{"NZT", 12 * 60}, {"NZST", 12 * 60}, {"NZDT", 13 * 60}, {"NT", -11 * 60},
	{"NST", -(3*60 + 30)}, {"NOR", 60}, {"NFT", -(3*60 + 30)}, {"NDT", -(2*60 + 30)},
	{"MVT", 5 * 60}, {"MUT", 4 * 60}, {"MT", 8*60 + 30}, {"MST", -7 * 60},
	{"MMT", 6*60 + 30}, {"MHT", 9 * 60}, {"MEZ", 60}, {"MEWT", 60}, {"METDST", 2 * 60},
	{"MET", 60}, {"MEST", 2 * 60}, {"MDT", -6 * 60}, {"MAWT", 6 * 60},
	{"MART", -(9*60 + 30)}, {"LIGT", 10 * 60}, {"KST", 9 * 60}, {"JT", 7*60 + 30},
	{"JST", 9 * 60}, {"IT", 3*60 + 30}, {"IST", 2 * 60}, {"IRT", 3*60 + 30},
	{"IOT", 5 * 60}, {"IDLW", -12 * 60}, {"IDLE", 12 * 60}, {"HST", -10 * 60},
	{"HMT", 3 * 60}, {"HDT", -9 * 60}, {"GST", 10 * 60}, {"GMT", 0}, {"FWT", 2 * 60},
	{"FST", 60}, {"FNT", -2 * 60}, {"FNST", -60}, {"EST", -5 * 60}, {"EETDST", 3 * 60},
	{"EET", 2 * 60}, {"EDT", -4 * 60}, {"EAT", 3 * 60}, {"EAST", 10 * 60},
	{"EAST", 4 * 60}, {"DNT", 60}, {"CXT", 7 * 60}, {"CST", -6 * 60},
	{"CETDST", 2 * 60}, {"CET", 60}, {"CEST", 2 * 60}, {"CDT", -5 * 60}, {"CCT", 8 * 60},
	{"CAT", -10 * 60}, {"CAST", 9*60 + 30}, {"CADT", 10*60 + 30}, {"BT", 3 * 60},
	{"BST", 60}, {"BRT", -3 * 60}, {"BRST", -2 * 60}, {"BDST", 2 * 60}, {"AWT", -3 * 60},
	{"AWST", 8 * 60}, {"AWSST", 9 * 60}, {"AST", -4 * 60}, {"ALMT", 6 * 60},
	{"ALMST", 7 * 60}, {"AKST", -9 * 60}, {"AKDT", -8 * 60}, {"AHST", -10 * 60},
	{"AFT", 4*60 + 30}, {"AEST", 10 * 60}, {"AESST", 11 * 60}, {"ADT", -3 * 60},
	{"ACT", -5 * 60}, {"ACST", -4 * 60}, {"ACSST", 10*60 + 30},
}
