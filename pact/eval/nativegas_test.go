package eval

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/value"
)

// randomInt is a random non-negative integer of up to maxBits bits.
func randomInt(r *rand.Rand, maxBits int) *big.Int {
	n := r.IntN(maxBits + 1)
	x := new(big.Int)
	for i := 0; i < n; i += 32 {
		x.Lsh(x, 32).Or(x, big.NewInt(int64(r.Uint32())))
	}
	return x.Rsh(x, uint(max(0, (n+31)/32*32-n)))
}

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

// TestIntToStrCharge checks int-to-str's charge, P5's digit count of the
// result times 100 mg, against the digits actually written.
func TestIntToStrCharge(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	hook := nativeGasHooks["int-to-str"]
	for _, b := range []int64{2, 3, 7, 10, 16, 64} {
		for range 50 {
			x := randomInt(r, 3000)
			in := New(nil)
			in.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000_000))
			if err := hook(in, []value.Value{value.NewInt(b), value.NewIntBig(x)}); err != nil {
				t.Fatal(err)
			}
			var n int
			if b == 64 {
				n = max(len(x.Bytes()), 1) * 4 / 3
			} else {
				n = len(x.Text(int(b)))
			}
			if got, want := in.Gas.Used(), gas.MilliGas(100*n); got != want {
				t.Fatalf("int-to-str %d of a %d-bit value charged %d mg, want %d", b, x.BitLen(), got, want)
			}
		}
	}
}

// TestTakeStringCharge checks take's charge on strings, read only up to
// the count: 100 mg per character kept for a count >= 0, 100 mg per unit
// of a negative count, clamped or not.
func TestTakeStringCharge(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	hook := nativeGasHooks["take"]
	for n := range 40 {
		s := randomText(r, n)
		for k := -n - 3; k <= n+3; k++ {
			in := New(nil)
			in.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000_000))
			if err := hook(in, []value.Value{value.NewInt(int64(k)), value.String(s)}); err != nil {
				t.Fatal(err)
			}
			want := 100 * min(k, n)
			if k < 0 {
				want = 100 * -k
			}
			if got := in.Gas.Used(); got != gas.MilliGas(want) {
				t.Fatalf("take %d of %d characters charged %d mg, want %d", k, n, got, want)
			}
		}
	}
}
