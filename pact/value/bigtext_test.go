package value

import (
	"encoding/base64"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// refDigits writes x (>= 0) in base b one digit at a time, the obvious
// quadratic way, with lowercase letters: the reference for int-to-str.
func refDigits(x *big.Int, b int64) string {
	if x.Sign() == 0 {
		return "0"
	}
	var out []byte
	v, bb, d := new(big.Int).Set(x), big.NewInt(b), new(big.Int)
	for v.Sign() > 0 {
		v.QuoRem(v, bb, d)
		out = append(out, "0123456789abcdefghijklmnopqrstuvwxyz"[d.Int64()])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// refLogBase is floor(log_b x) by repeated division.
func refLogBase(b int64, x *big.Int) int {
	n := 0
	v, bb := new(big.Int).Set(x), big.NewInt(b)
	for v.Cmp(bb) >= 0 {
		v.Quo(v, bb)
		n++
	}
	return n
}

// randomInt is a random non-negative integer of up to maxBits bits.
func randomInt(r *rand.Rand, maxBits int) *big.Int {
	n := r.IntN(maxBits + 1)
	x := new(big.Int)
	for i := 0; i < n; i += 32 {
		x.Lsh(x, 32).Or(x, big.NewInt(int64(r.Uint32())))
	}
	return x.Rsh(x, uint(max(0, (n+31)/32*32-n)))
}

// nearPowers are b^k - 1, b^k and b^k + 1 for k up to maxK: the integers
// on which a logarithm estimated in floating point is most likely wrong.
func nearPowers(b int64, maxK int) []*big.Int {
	var out []*big.Int
	p := big.NewInt(1)
	for k := 0; k <= maxK; k++ {
		out = append(out, new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Set(p), new(big.Int).Add(p, big.NewInt(1)))
		p.Mul(p, big.NewInt(b))
	}
	return out
}

func TestIntLogBase(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bases := []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 256}
	for _, b := range bases {
		xs := nearPowers(b, 400)
		for range 300 {
			xs = append(xs, randomInt(r, 3000))
		}
		for _, x := range xs {
			want := 0
			switch {
			case x.Sign() == 0:
			case x.BitLen() <= 200:
				want = refLogBase(b, x)
			case b == 256:
				want = len(x.Bytes()) - 1
			default:
				want = len(x.Text(int(b))) - 1 // one digit more than the logarithm
			}
			if got := IntLogBase(b, NewIntBig(x)); got != want {
				t.Fatalf("intLogBase(%d, %s) = %d, want %d", b, x, got, want)
			}
		}
	}
	if got := IntLogBase(10, NewInt(-5)); got != 0 {
		t.Errorf("intLogBase of a negative = %d, want 0", got)
	}
}

// TestIntLogBaseHuge checks powers of the base about as large as the
// interpreter holds, and their neighbours: b^k - 1, b^k, b^k + 1 have
// logarithms k - 1, k, k.
func TestIntLogBaseHuge(t *testing.T) {
	for _, b := range []int64{3, 7, 10, 11} {
		k := int64(float64(maxResultBits-2) / math.Log2(float64(b)))
		x := new(big.Int).Exp(big.NewInt(b), big.NewInt(k), nil)
		for d, want := range map[int64]int{-1: int(k - 1), 0: int(k), 1: int(k)} {
			y := new(big.Int).Add(x, big.NewInt(d))
			if got := IntLogBase(b, NewIntBig(y)); got != want {
				t.Errorf("intLogBase(%d, %d^%d%+d) = %d, want %d", b, b, k, d, got, want)
			}
		}
	}
}

// TestIntToStrMatchesReference compares int-to-str with a digit-at-a-time
// rendering and an independent base64url encoder, on random integers, and
// str-to-int's reading of the result with the original value.
func TestIntToStrMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for b := int64(2); b <= 36; b++ {
		for range 60 {
			x := randomInt(r, 4000)
			got, err := IntToStr(NewInt(b), NewIntBig(x))
			if b > 16 {
				if err == nil {
					t.Fatalf("int-to-str %d succeeded", b)
				}
				continue
			}
			want := refDigits(x, b)
			if err != nil || got != String(want) {
				t.Fatalf("int-to-str %d %s = %v, %v; want %s", b, x, got, err, want)
			}
			if len(want) > 512 {
				continue
			}
			for _, s := range []string{want, strings.ToUpper(want)} {
				back, err := StrToInt(NewInt(b), String(s))
				if err != nil || !back.(Integer).Equal(NewIntBig(x)) {
					t.Fatalf("str-to-int %d %q = %v, %v; want %s", b, s, back, err, x)
				}
			}
		}
	}
	for range 200 {
		x := randomInt(r, 5000)
		bs := x.Bytes()
		if len(bs) == 0 {
			bs = []byte{0}
		}
		want := base64.RawURLEncoding.EncodeToString(bs)
		got, err := IntToStr(NewInt(64), NewIntBig(x))
		if err != nil || got != String(want) {
			t.Fatalf("int-to-str 64 %s = %v, %v; want %s", x, got, err, want)
		}
	}
}

// TestStrToIntLong reads the longest strings str-to-int accepts and
// integer texts far longer than that (read-integer, JSON, literals),
// against math/big's own reading.
func TestStrToIntLong(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 19, 20, 511, 512, 1000, 5000, 40_000} {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		s := b.String()
		want, _ := new(big.Int).SetString(s, 10)
		if n <= 512 {
			got, err := StrToInt(String(s))
			if err != nil || !got.(Integer).Equal(NewIntBig(want)) {
				t.Fatalf("str-to-int of %d digits: %v", n, err)
			}
		}
		got, ok := ParseInteger("-" + s)
		if !ok || !got.Equal(NewIntBig(want).Neg()) {
			t.Fatalf("ParseInteger of -%d digits", n)
		}
		rd, ok := ReadInteger(s)
		if !ok || !rd.Equal(NewIntBig(want)) {
			t.Fatalf("ReadInteger of %d digits", n)
		}
	}
}

// refStrToInt is str-to-int's reading of a base 2-16 string as the
// original code did it, one digit at a time, with its errors in its order.
func refStrToInt(base int64, s string) (*big.Int, string) {
	if s == "" {
		return nil, "empty"
	}
	for _, r := range s {
		if _, ok := hexDigitValue(r); !ok {
			return nil, "invalid digit"
		}
	}
	acc := new(big.Int)
	for _, r := range s {
		d, _ := hexDigitValue(r)
		if d >= base {
			return nil, "character '" + string(r) + "' is out of range"
		}
		acc.Mul(acc, big.NewInt(base)).Add(acc, big.NewInt(d))
	}
	return acc, ""
}

func FuzzStrToInt(f *testing.F) {
	for _, s := range []string{"0", "12345", "ff", "FF", "-1", "+1", "1_0", "0x10", "é1", "9a", ""} {
		f.Add(int64(10), s)
		f.Add(int64(16), s)
	}
	f.Add(int64(2), "102")
	f.Add(int64(10), strings.Repeat("9", 512))
	f.Fuzz(func(t *testing.T, base int64, s string) {
		if base < 2 || base > 16 || len(s) > 512 {
			return
		}
		want, wantErr := refStrToInt(base, s)
		got, err := StrToInt(NewInt(base), String(s))
		switch {
		case wantErr == "" && err != nil:
			t.Fatalf("str-to-int %d %q: %v, want %s", base, s, err, want)
		case wantErr == "" && !got.(Integer).Equal(NewIntBig(want)):
			t.Fatalf("str-to-int %d %q = %v, want %s", base, s, got, want)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Fatalf("str-to-int %d %q: %v, want an error with %q", base, s, err, wantErr)
		}
	})
}
