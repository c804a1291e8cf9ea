package syntax

import (
	"math/big"
	"math/bits"
	"sync"
)

// digitsLeaf is the longest run of digits ParseDigits reads a word at a
// time: the value read so far is multiplied by 10^19 per 19 digits, which
// is quadratic in the length, cheap up to a thousand digits and seconds at
// a few hundred thousand.
const digitsLeaf = 1024

// ParseDigits returns the value of s, an optionally '-'-signed run of ASCII
// decimal digits; it reports false on anything else. A long run is split in
// two, both halves read, and the high half scaled by a power of ten and
// added to the low: the work is a few multiplications of the result's size,
// not one per digit. Integer literals, JSON numbers and str-to-int read
// their digits with it.
func ParseDigits(s string) (*big.Int, bool) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if digits == "" {
		return nil, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, false
		}
	}
	z := parseDigits(digits)
	if len(digits) < len(s) {
		z.Neg(z)
	}
	return z, true
}

// parseDigits reads a run of digits already checked.
func parseDigits(s string) *big.Int {
	if len(s) <= digitsLeaf {
		return parseLeaf(s)
	}
	// Split off the low digitsLeaf·2^j digits, the largest such block
	// shorter than s: its power of ten is cached, and the two halves are
	// within a factor of two of each other.
	j := 0
	for digitsLeaf<<(j+1) < len(s) {
		j++
	}
	cut := len(s) - digitsLeaf<<j
	z := parseDigits(s[:cut])
	z.Mul(z, pow10Block(j))
	return z.Add(z, parseDigits(s[cut:]))
}

// pow10Blocks caches 10^(digitsLeaf·2^j): each is the square of the one
// before, and they are shared read-only by every goroutine. 2^30 leaves
// of digits is beyond any string the node holds.
var pow10Blocks [30]struct {
	once sync.Once
	v    *big.Int
}

func pow10Block(j int) *big.Int {
	b := &pow10Blocks[j]
	b.once.Do(func() {
		if j == 0 {
			b.v = new(big.Int).Exp(big.NewInt(10), big.NewInt(digitsLeaf), nil)
			return
		}
		prev := pow10Block(j - 1)
		b.v = new(big.Int).Mul(prev, prev)
	})
	return b.v
}

// wordDigits is how many decimal digits a big.Word holds whatever their
// value.
const wordDigits = 9 + 10*(bits.UintSize/64)

// parseLeaf reads a short run of checked digits: wordDigits at a time
// into a machine word, each word then multiplied into the words read so
// far. math/big's SetString reads a byte at a time through an io reader
// and takes several times as long.
func parseLeaf(s string) *big.Int {
	z := make([]big.Word, 0, len(s)/wordDigits+1)
	for len(s) > 0 {
		n := len(s) % wordDigits
		if n == 0 {
			n = wordDigits
		}
		var c, m uint = 0, 1
		for i := range n {
			c = c*10 + uint(s[i]-'0')
			m *= 10
		}
		s = s[n:]
		// z = z·m + c
		for i := range z {
			hi, lo := bits.Mul(uint(z[i]), m)
			var carry uint
			lo, carry = bits.Add(lo, c, 0)
			z[i], c = big.Word(lo), hi+carry
		}
		if c != 0 {
			z = append(z, big.Word(c))
		}
	}
	return new(big.Int).SetBits(z)
}
