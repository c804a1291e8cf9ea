package syntax

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestParseDigits compares ParseDigits with math/big's own reading, on
// runs around the split points (multiples of digitsLeaf) and beyond.
func TestParseDigits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	lengths := []int{1, 2, 19, 20, digitsLeaf - 1, digitsLeaf, digitsLeaf + 1, 2 * digitsLeaf, 2*digitsLeaf + 1,
		3*digitsLeaf + 7, 4 * digitsLeaf, 9*digitsLeaf - 1, 33_333}
	for _, n := range lengths {
		for _, lead := range []string{"", "0", "000"} {
			var b strings.Builder
			b.WriteString(lead)
			for range n {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
			for _, s := range []string{b.String(), "-" + b.String()} {
				want, _ := new(big.Int).SetString(s, 10)
				got, ok := ParseDigits(s)
				if !ok || got.Cmp(want) != 0 {
					t.Fatalf("ParseDigits of %d digits (lead %q, sign %v) differs", n, lead, s[0] == '-')
				}
			}
		}
	}
	for _, bad := range []string{"", "-", "+1", "1-", "1_000", "12a", " 1", "0x10", "١٢"} {
		if _, ok := ParseDigits(bad); ok {
			t.Errorf("ParseDigits(%q) succeeded", bad)
		}
	}
}

func FuzzParseDigits(f *testing.F) {
	for _, s := range []string{"0", "-0", "123", "-", "", "+5", "1e5", strings.Repeat("98765", 500)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDigits(s)
		valid := strings.TrimPrefix(s, "-") != "" && strings.Trim(strings.TrimPrefix(s, "-"), "0123456789") == ""
		if ok != valid {
			t.Fatalf("ParseDigits(%q) ok = %v", s, ok)
		}
		if ok {
			want, _ := new(big.Int).SetString(s, 10)
			if got.Cmp(want) != 0 {
				t.Fatalf("ParseDigits(%q) = %s, want %s", s, got, want)
			}
		}
	})
}
