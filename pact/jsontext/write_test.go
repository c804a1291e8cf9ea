package jsontext

import (
	"math/rand"
	"testing"
)

// plainASCII's word-at-a-time test agrees with a byte-by-byte look at
// every position and byte value that matters, and AppendString's fast
// path writes what the escaping path writes.
func TestPlainASCII(t *testing.T) {
	plain := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	base := "abcdefghijklmnopqrstuvwxyz0123456789" // plain, 36 bytes
	for n := 0; n <= len(base); n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				b := []byte(base[:n])
				b[pos] = byte(c)
				s := string(b)
				if got, want := plainASCII(s), plain(s); got != want {
					t.Fatalf("plainASCII(%q) = %v, want %v", s, got, want)
				}
				if got, want := string(AppendString(nil, s)), string(appendEscaped(nil, s)); got != want {
					t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
	r := rand.New(rand.NewSource(3))
	for range 100000 {
		b := make([]byte, r.Intn(40))
		for i := range b {
			b[i] = byte(0x1c + r.Intn(0x66)) // around the edges: 0x1c-0x81
		}
		s := string(b)
		if got, want := plainASCII(s), plain(s); got != want {
			t.Fatalf("plainASCII(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzAppendString: the fast path and the escaping path agree.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "abc", "a\"b", "k:6be2f485a7af75fedb4b7f153a903f7e", "\x00", "é", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendString(nil, s)), string(appendEscaped(nil, s)); got != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		// AppendPlain takes exactly the plain strings, and writes them as
		// AppendString does; it leaves the buffer alone otherwise.
		out, ok := AppendPlain([]byte("x"), s)
		if ok != plainASCII(s) || (ok && string(out) != "x"+string(AppendString(nil, s))) || (!ok && string(out) != "x") {
			t.Fatalf("AppendPlain(%q) = %s, %v", s, out, ok)
		}
	})
}
