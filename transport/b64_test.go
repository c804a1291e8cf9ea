package transport

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// TestAppendB64 checks the fast encoder against ledger.AppendB64 (encoding/base64's unpadded
// base64url) at every length up to several headers' worth, over random bytes and the extremes,
// appending after existing bytes.
func TestAppendB64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 1100; n++ {
		for _, fill := range []func() byte{func() byte { return byte(rng.Uint32()) }, func() byte { return 0 }, func() byte { return 0xff }} {
			src := make([]byte, n)
			for i := range src {
				src[i] = fill()
			}
			want := ledger.AppendB64([]byte("x"), src)
			if got := appendB64([]byte("x"), src); !bytes.Equal(got, want) {
				t.Fatalf("%d bytes %x:\n got %s\nwant %s", n, src, got, want)
			}
		}
	}
}

func BenchmarkAppendB64(b *testing.B) {
	src := make([]byte, 318) // a mainnet header with three adjacents
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := make([]byte, 0, 512)
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			dst = appendB64(dst[:0], src)
		}
	})
	b.Run("ledger", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			dst = ledger.AppendB64(dst[:0], src)
		}
	})
}

// TestParseHash: the fast path's hash decoder takes exactly what ledger.ParseHashBytes takes,
// with the same result: random hashes, every last character (only those with zero unused bits
// are strict), each invalid byte at each position, and other lengths.
func TestParseHash(t *testing.T) {
	check := func(s []byte) {
		t.Helper()
		want, err := ledger.ParseHashBytes(s)
		got, ok := parseHash(s)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("%q: fast %v %x, ParseHashBytes %v %x", s, ok, got, err, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var h ledger.Hash
		for i := range h {
			h[i] = byte(rng.Uint32())
		}
		s := []byte(h.String())
		check(s)
		for _, c := range []byte(b64URL) {
			s[42] = c
			check(s)
		}
	}
	base := []byte(ledger.Hash{7, 7, 7}.String())
	for pos := range base {
		for c := range 256 {
			s := slices.Clone(base)
			s[pos] = byte(c)
			check(s)
		}
	}
	for n := range 50 {
		check(bytes.Repeat([]byte("A"), n))
	}
}
