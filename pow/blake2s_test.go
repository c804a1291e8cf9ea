package pow

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/blake2s"

	"github.com/ledgernode/ledger-node/ledger"
)

func TestBlake2sKnownAnswers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"abc", "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"}, // RFC 7693 Appendix B
		{"", "69217a3079908094e11121d042354a7c1f55b6482ca1a51e1b250dfd1ed0eef9"},
	} {
		got := blake2s256([]byte(c.in))
		if hex.EncodeToString(got[:]) != c.want {
			t.Errorf("BLAKE2s-256(%q) = %x, want %s", c.in, got, c.want)
		}
	}
}

// TestBlake2sMatchesXCrypto compares our BLAKE2s with golang.org/x/crypto on every length from 0
// to 700 bytes (block boundaries at multiples of 64 included) with random contents.
func TestBlake2sMatchesXCrypto(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 700)
	for n := 0; n <= len(buf); n++ {
		for i := range buf[:n] {
			buf[i] = byte(r.Uint32())
		}
		want := blake2s.Sum256(buf[:n])
		got := blake2s256(buf[:n])
		if !bytes.Equal(got[:], want[:]) {
			t.Fatalf("length %d: %x, x/crypto %x", n, got, want)
		}
	}
}

func BenchmarkBlake2s286(b *testing.B) {
	buf := make([]byte, ledger.WorkSize)
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		_ = blake2s256(buf)
	}
}

func BenchmarkBlake2s286XCrypto(b *testing.B) {
	buf := make([]byte, ledger.WorkSize)
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		_ = blake2s.Sum256(buf)
	}
}
