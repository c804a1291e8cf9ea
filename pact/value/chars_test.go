package value

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// randomText is a string of n characters mixing 1- to 4-byte UTF-8, ASCII
// runs long enough for the word-at-a-time loops, and continuation bytes
// landing at every offset of a word.
func randomText(r *rand.Rand, n int) string {
	pieces := []string{"a", "é", "€", "😀", "abcdefghijklmnop", "ÿ", "日本"}
	var b strings.Builder
	for runeCount := 0; runeCount < n; {
		p := pieces[r.IntN(len(pieces))]
		b.WriteString(p)
		runeCount += utf8.RuneCountInString(p)
	}
	return string([]rune(b.String())[:n])
}

func TestCharScans(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := range 90 {
		for range 20 {
			s := randomText(r, n)
			rs := []rune(s)
			if got := CharCount(s); got != len(rs) {
				t.Fatalf("charCount(%q) = %d, want %d", s, got, len(rs))
			}
			if got, want := isASCII(s), len(s) == len(rs); got != want {
				t.Fatalf("isASCII(%q) = %v", s, got)
			}
			for k := 0; k <= n+2; k++ {
				if got, want := charOffset(s, k), len(string(rs[:min(k, n)])); got != want {
					t.Fatalf("charOffset(%q, %d) = %d, want %d", s, k, got, want)
				}
				if got, want := charOffsetFromEnd(s, k), len(string(rs[:max(n-k, 0)])); got != want {
					t.Fatalf("charOffsetFromEnd(%q, %d) = %d, want %d", s, k, got, want)
				}
				if got := charCountUpTo(s, k); got != min(k, n) {
					t.Fatalf("charCountUpTo(%q, %d) = %d", s, k, got)
				}
			}
			rev := slices.Clone(rs)
			slices.Reverse(rev)
			if got := reverseChars(s); got != string(rev) {
				t.Fatalf("reverseChars(%q) = %q", s, got)
			}
			l := explode(s)
			if len(l) != n {
				t.Fatalf("explode(%q) has %d elements", s, len(l))
			}
			for i, v := range l {
				if v != String(string(rs[i])) {
					t.Fatalf("explode(%q)[%d] = %v", s, i, v)
				}
			}
		}
	}
}

// TestTakeDropStrings compares take and drop of strings with slicing the
// characters, for counts of every sign and size (P5's clamping).
func TestTakeDropStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	huge := NewIntBig(new(big.Int).Lsh(big.NewInt(1), 70))
	for n := range 40 {
		s := randomText(r, n)
		rs := []rune(s)
		counts := []Integer{huge, huge.Neg()}
		for k := -n - 3; k <= n+3; k++ {
			counts = append(counts, NewInt(int64(k)))
		}
		for _, c := range counts {
			var keep, drop string
			switch {
			case c.Sign() >= 0:
				k := min(c.ClampInt(), n)
				keep, drop = string(rs[:k]), string(rs[k:])
			default:
				k := min(c.Neg().ClampInt(), n)
				keep, drop = string(rs[n-k:]), string(rs[:n-k])
			}
			if got, err := Take(c, String(s)); err != nil || got != String(keep) {
				t.Fatalf("take %s %q = %v, %v; want %q", c, s, got, err, keep)
			}
			if got, err := Drop(c, String(s)); err != nil || got != String(drop) {
				t.Fatalf("drop %s %q = %v, %v; want %q", c, s, got, err, drop)
			}
		}
	}
}

// TestCharIndexAgreesWithScans measures long strings and pieces of them
// (cut at characters, and at any byte) through an interpreter's indexes
// and by scanning: the answers must be the same. More strings than the
// cache holds pass through it, so that indexes are replaced too.
func TestCharIndexAgreesWithScans(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	var c CharIndexCache
	var longs []string
	for k := range charIndexes + 3 {
		n := charIndexMin + r.IntN(3*charIndexMin)
		s := randomText(r, n)
		if k%3 == 0 {
			s = strings.Repeat("abcdefgh", n/8+1) // the ASCII path
		}
		longs = append(longs, s)
	}
	for range 150 {
		s := longs[r.IntN(len(longs))]
		// A piece sharing s's bytes, cut anywhere, and as long as an
		// index is worth.
		a := r.IntN(len(s) - charIndexMin + 1)
		b := a + charIndexMin + r.IntN(len(s)-a-charIndexMin+1)
		for _, p := range []string{s, s[a:], s[:b], s[a:b]} {
			if got, want := c.CharCount(p), CharCount(p); got != want {
				t.Fatalf("charCount through the index %d, scanning %d", got, want)
			}
			for _, n := range []int{0, 1, 7, charMark - 1, charMark, charMark + 1, r.IntN(len(p) + 10), len(p), len(p) + 5} {
				if got, want := c.charOffset(p, n), charOffset(p, n); got != want {
					t.Fatalf("charOffset(piece, %d) through the index %d, scanning %d", n, got, want)
				}
				if got, want := c.charOffsetFromEnd(p, n), charOffsetFromEnd(p, n); got != want {
					t.Fatalf("charOffsetFromEnd(piece, %d) through the index %d, scanning %d", n, got, want)
				}
				if got, want := c.CharCountUpTo(p, n), charCountUpTo(p, n); got != want {
					t.Fatalf("charCountUpTo(piece, %d) through the index %d, scanning %d", n, got, want)
				}
			}
		}
	}
}
