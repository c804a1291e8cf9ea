package value

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// Expected values come from spec/pact.md §4.2, from Data.Decimal 0.5.2's
// documented semantics, and from P5's ops.repl; none were produced by
// running this code.

func dec(t *testing.T, s string) Decimal {
	t.Helper()
	d, err := ParseDecimal(s)
	if err != nil {
		t.Fatalf("ParseDecimal(%q): %v", s, err)
	}
	return d
}

func num(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseNumber(s)
	if err != nil {
		t.Fatalf("ParseNumber(%q): %v", s, err)
	}
	return v
}

// checkDec asserts a decimal's exact representation: its Haskell show
// (which spells out the places) and its place count.
func checkDec(t *testing.T, what string, v Value, wantShow string, wantPlaces uint8) {
	t.Helper()
	d, ok := v.(Decimal)
	if !ok {
		t.Fatalf("%s: got %T %v, want decimal", what, v, v)
	}
	if d.Text() != wantShow || d.Places() != wantPlaces {
		t.Errorf("%s = %s (places %d), want %s (places %d)", what, d.Text(), d.Places(), wantShow, wantPlaces)
	}
}

func TestDecimalLiteralKeepsPlaces(t *testing.T) {
	d := dec(t, "1.50")
	if d.Places() != 2 || d.Mantissa().Text() != "150" {
		t.Errorf("1.50 = mantissa %s places %d, want 150 and 2", d.Mantissa().Text(), d.Places())
	}
	checkDec(t, "-0.5", dec(t, "-0.5"), "-0.5", 1)
	checkDec(t, "100.25", dec(t, "100.25"), "100.25", 2)
	if _, err := ParseNumber("1." + strings.Repeat("0", 256)); err == nil {
		t.Error("256 fractional digits parsed; want precision overflow")
	}
	checkDec(t, "255 places", num(t, "0."+strings.Repeat("0", 254)+"1"), "0."+strings.Repeat("0", 254)+"1", 255)
	for _, bad := range []string{"1.", ".5", "", "-", "1.2.3", "+1", "1e5", " 1"} {
		if _, err := ParseNumber(bad); err == nil {
			t.Errorf("ParseNumber(%q) succeeded", bad)
		}
	}
	if v := num(t, "-5"); v.Kind() != KindInteger || v.(Integer).Text() != "-5" {
		t.Errorf("-5 parsed as %v", v)
	}
}

func TestDecimalAddSubPlaces(t *testing.T) {
	cases := []struct {
		a, b, op   string
		want       string
		wantPlaces uint8
	}{
		{"1.10", "1.0", "+", "2.10", 2}, // spec §4.2
		{"1.2", "5.8", "+", "7.0", 1},   // ops.repl: = 7.0
		{"3.5", "8", "-", "-4.5", 1},
		{"4", "0.5", "-", "3.5", 1},
		{"3.0", "1", "-", "2.0", 1},
		{"1", "3.0", "+", "4.0", 1},
		// Data.Decimal: adding zero returns the other operand unchanged.
		{"0.000", "1.5", "+", "1.5", 1},
		{"1.5", "0.000", "+", "1.5", 1},
		{"1.5", "0.000", "-", "1.5", 1},
		// 0 - x keeps x's places.
		{"0.0", "1.250", "-", "-1.250", 3},
		// Cancellation keeps the common places.
		{"1.50", "-1.5", "+", "0.00", 2},
	}
	for _, c := range cases {
		var got Value
		var err error
		if c.op == "+" {
			got, err = Add(num(t, c.a), num(t, c.b))
		} else {
			got, err = Sub(num(t, c.a), num(t, c.b))
		}
		if err != nil {
			t.Fatalf("%s %s %s: %v", c.a, c.op, c.b, err)
		}
		checkDec(t, c.a+c.op+c.b, got, c.want, c.wantPlaces)
	}
}

func TestDecimalMulDivNormalize(t *testing.T) {
	cases := []struct {
		a, b, op   string
		want       string
		wantPlaces uint8
	}{
		{"1.5", "12.0", "*", "18", 0}, // spec §4.2: places 0, displayed 18.0
		{"5", "0.5", "*", "2.5", 1},
		{"2.5", "4", "*", "10", 0},
		{"0.15", "0.15", "*", "0.0225", 4}, // Data.Decimal doc example
		{"0.0", "1.5", "*", "0", 0},        // a zero operand: integer-valued 0
		{"1.5", "0.00", "*", "0", 0},
		{"15.0", "2.5", "/", "6", 0},
		{"4.0", "2", "/", "2", 0},
		{"7", "2.0", "/", "3.5", 1},
		{"1.0", "8.0", "/", "0.125", 3},
		{"0.0", "3.0", "/", "0", 0},
		{"1.0", "3.0", "/", "0." + strings.Repeat("3", 255), 255},
		// 2/3 at 255 places: the 256th digit is 6, so the last digit rounds up.
		{"2.0", "3.0", "/", "0." + strings.Repeat("6", 254) + "7", 255},
		{"-2.0", "3.0", "/", "-0." + strings.Repeat("6", 254) + "7", 255},
	}
	for _, c := range cases {
		var got Value
		var err error
		if c.op == "*" {
			got, err = Mul(num(t, c.a), num(t, c.b))
		} else {
			got, err = Div(num(t, c.a), num(t, c.b))
		}
		if err != nil {
			t.Fatalf("%s %s %s: %v", c.a, c.op, c.b, err)
		}
		checkDec(t, c.a+c.op+c.b, got, c.want, c.wantPlaces)
	}
}

func TestDecimal255PlaceLimitBankers(t *testing.T) {
	// 0.(254 zeros)5 * 0.1 = 5e-256, exactly half a unit of the 255th
	// place: ties go to the even neighbour, 0.
	half := "0." + strings.Repeat("0", 254) + "5"
	got, err := Mul(num(t, half), num(t, "0.1"))
	if err != nil {
		t.Fatal(err)
	}
	checkDec(t, "tie to even (down)", got, "0", 0)
	// 0.(253 zeros)15 * 0.1 = 15e-256 = 1.5 units of the 255th place, a
	// tie above 1 (odd), so it rounds up to 2 units.
	odd := "0." + strings.Repeat("0", 253) + "15"
	got, err = Mul(num(t, odd), num(t, "0.1"))
	if err != nil {
		t.Fatal(err)
	}
	checkDec(t, "tie to even (up)", got, "0."+strings.Repeat("0", 254)+"2", 255)
	// Division by a power of two past 255 places: 1/2^9 = 0.001953125.
	got, _ = Div(num(t, "1.0"), num(t, "512.0"))
	checkDec(t, "1/512", got, "0.001953125", 9)
}

func TestDecimalHugeMantissa(t *testing.T) {
	big := strings.Repeat("9", 300) + ".5"
	a := num(t, big)
	got, err := Add(a, num(t, "0.5"))
	if err != nil {
		t.Fatal(err)
	}
	checkDec(t, "huge+0.5", got, "1"+strings.Repeat("0", 300)+".0", 1)
	got, _ = Mul(a, num(t, "2.0"))
	// (10^300 - 0.5) * 2 = 2*10^300 - 1.
	checkDec(t, "huge*2", got, "1"+strings.Repeat("9", 300), 0)
	if c, _ := Compare(a, num(t, strings.Repeat("9", 300)+".50")); c != 0 {
		t.Error("huge decimals with different places compare unequal")
	}
}

func TestDecimalDivByZero(t *testing.T) {
	_, err := Div(num(t, "11.0"), num(t, "0.0"))
	if err == nil || err.Error() != "Arithmetic exception: div by zero, decimal" {
		t.Errorf("11.0/0.0 error = %v", err)
	}
	_, err = Div(num(t, "11"), num(t, "0"))
	if err == nil || err.Error() != "Arithmetic exception: div by zero" {
		t.Errorf("11/0 error = %v", err)
	}
	_, err = Div(num(t, "11"), num(t, "0.0"))
	if err == nil || err.Error() != "Arithmetic exception: div by zero, decimal" {
		t.Errorf("11/0.0 error = %v", err)
	}
}

func TestDecimalRounding(t *testing.T) {
	type tc struct {
		mode  RoundMode
		x     string
		prec  string // "" for the one-argument form
		want  string
		place uint8
	}
	cases := []tc{
		{RoundHalfEven, "2.5", "", "2", 0}, // spec: banker's
		{RoundHalfEven, "3.5", "", "4", 0},
		{RoundHalfEven, "-2.5", "", "-2", 0},
		{RoundHalfEven, "-3.5", "", "-4", 0},
		{RoundHalfEven, "100.1", "", "100", 0}, // ops.repl
		{RoundCeiling, "100.001", "", "101", 0},
		{RoundFloor, "-1.5", "", "-2", 0},
		{RoundCeiling, "-1.5", "", "-1", 0},
		{RoundHalfEven, "100.1239", "3", "100.124", 3}, // spec/ops.repl
		{RoundCeiling, "101.9401", "2", "101.95", 2},
		{RoundCeiling, "100.01", "1", "100.1", 1},
		{RoundFloor, "100.19", "1", "100.1", 1},
		{RoundHalfEven, "0.125", "2", "0.12", 2},
		{RoundHalfEven, "0.135", "2", "0.14", 2},
		// Exactly prec places, even when that adds zeros.
		{RoundHalfEven, "1.5", "3", "1.500", 3},
		{RoundHalfEven, "0.0", "2", "0.00", 2},
		// The Word8 wrap: -1 is 255 places, 256 is 0 places.
		{RoundHalfEven, "1.5", "-1", "1.5" + strings.Repeat("0", 254), 255},
		{RoundHalfEven, "1.5", "256", "2", 0},
	}
	for _, c := range cases {
		args := []Value{}
		if c.prec != "" {
			args = append(args, num(t, c.prec))
		}
		got, err := Round(c.mode, num(t, c.x), args...)
		if err != nil {
			t.Fatalf("round %s %s: %v", c.x, c.prec, err)
		}
		if c.prec == "" {
			i, ok := got.(Integer)
			if !ok || i.Text() != c.want {
				t.Errorf("mode %d of %s = %v, want integer %s", c.mode, c.x, got, c.want)
			}
			continue
		}
		checkDec(t, "round "+c.x+" "+c.prec, got, c.want, c.place)
	}
	if _, err := Round(RoundHalfEven, NewInt(1)); err == nil {
		t.Error("round of an integer succeeded")
	}
}

func TestReadDecimal(t *testing.T) {
	cases := []struct {
		in    string
		want  string
		place uint8
		ok    bool
	}{
		{"1.50", "1.50", 2, true},
		{"  -3.25 ", "-3.25", 2, true},
		{"+7", "7", 0, true},
		{"1.5e2", "150", 0, true},
		{"1.5e-3", "0.0015", 4, true},
		{"12E+1", "120", 0, true},
		{"1.", "", 0, false},
		{".5", "", 0, false},
		{"1e", "", 0, false},
		{"abc", "", 0, false},
		{"1e-256", "", 0, false},
		{"1e-255", "0." + strings.Repeat("0", 254) + "1", 255, true},
	}
	for _, c := range cases {
		d, ok := ReadDecimal(c.in)
		if ok != c.ok {
			t.Errorf("ReadDecimal(%q) ok = %v", c.in, ok)
			continue
		}
		if ok && (d.Text() != c.want || d.Places() != c.place) {
			t.Errorf("ReadDecimal(%q) = %s/%d, want %s/%d", c.in, d.Text(), d.Places(), c.want, c.place)
		}
	}
}

func TestDecimalDisplay(t *testing.T) {
	cases := []struct {
		lit          string
		pretty, show string
	}{
		{"4.0", "4.0", "4.0"},
		{"2.00", "2.0", "2.00"}, // spec: Pretty tests numerically, show only places
		{"1.50", "1.50", "1.50"},
		{"-0.05", "-0.05", "-0.05"},
		{"123.456", "123.456", "123.456"},
	}
	for _, c := range cases {
		d := num(t, c.lit)
		if got := Pretty(d); got != c.pretty {
			t.Errorf("Pretty(%s) = %q, want %q", c.lit, got, c.pretty)
		}
		if got := Show(d); got != c.show {
			t.Errorf("Show(%s) = %q, want %q", c.lit, got, c.show)
		}
	}
	// (* 1.5 12.0) has 0 places: both renderings add ".0".
	p, _ := Mul(num(t, "1.5"), num(t, "12.0"))
	if Pretty(p) != "18.0" || Show(p) != "18.0" {
		t.Errorf("18 renders %q / %q", Pretty(p), Show(p))
	}
	// (+ 1.10 1.0) prints 2.10.
	s, _ := Add(num(t, "1.10"), num(t, "1.0"))
	if Pretty(s) != "2.10" {
		t.Errorf("1.10+1.0 pretty = %q", Pretty(s))
	}
}

// pow10Int is 10^n on both sides of the int64 boundary.
func TestPow10Int(t *testing.T) {
	want := big.NewInt(1)
	for n := 0; n <= 40; n++ {
		if got := pow10Int(n); got.Cmp(NewIntBig(want)) != 0 {
			t.Errorf("pow10Int(%d) = %s, want %s", n, got.Text(), want)
		}
		want = new(big.Int).Mul(want, big.NewInt(10))
	}
}

// Cmp orders decimals as the rationals they are, whatever their places
// and signs, and whether the mantissas fit a word or not (checked against
// big.Rat's ordering).
func TestDecimalCmpAgreesWithRationals(t *testing.T) {
	mants := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(25), big.NewInt(-250),
		big.NewInt(100000), new(big.Int).Lsh(big.NewInt(1), 70), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(3), 80))}
	rat := func(d Decimal) *big.Rat {
		return new(big.Rat).SetFrac(d.mant.Big(), pow10Int(int(d.places)).Big())
	}
	for _, a := range mants {
		for _, b := range mants {
			for pa := uint8(0); pa <= 13; pa += 3 {
				for pb := uint8(0); pb <= 13; pb += 2 {
					x, y := NewDecimal(NewIntBig(a), pa), NewDecimal(NewIntBig(b), pb)
					if got, want := x.Cmp(y), rat(x).Cmp(rat(y)); got != want {
						t.Fatalf("%v.Cmp(%v) = %d, want %d", x, y, got, want)
					}
				}
			}
		}
	}
}

// TestNormalizeBig compares normalize with stripping one zero at a time,
// on big mantissas ending in every count of zeros up to past the places.
func TestNormalizeBig(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	ten := big.NewInt(10)
	for range 400 {
		m := randomInt(r, 3000)
		m.Lsh(m, 64).Add(m, big.NewInt(1+r.Int64N(1e18))) // never zero
		m.Mul(m, new(big.Int).Exp(ten, big.NewInt(int64(r.IntN(300))), nil))
		if r.IntN(2) == 0 {
			m.Neg(m)
		}
		places := uint8(r.IntN(256))
		wantM, wantP := new(big.Int).Set(m), places
		for q, rem := new(big.Int), new(big.Int); wantP > 0; wantP-- {
			if q.QuoRem(wantM, ten, rem); rem.Sign() != 0 {
				break
			}
			wantM.Set(q)
		}
		got := normalize(Decimal{places: places, mant: NewIntBig(m)})
		if got.places != wantP || got.mant.Big().Cmp(wantM) != 0 {
			t.Fatalf("normalize(%s, %d) = (%s, %d), want (%s, %d)", m, places, got.mant.Text(), got.places, wantM, wantP)
		}
	}
}
