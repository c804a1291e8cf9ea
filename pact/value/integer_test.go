package value

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestNegAbsMulUnitShareDigits checks negate, abs and products by 0, 1 and
// -1 of large integers against math/big (small results small), and that
// the operands, whose digits the results share, keep their values.
func TestNegAbsMulUnitShareDigits(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	xs := []*big.Int{big.NewInt(math.MinInt64), new(big.Int).Neg(big.NewInt(math.MinInt64)),
		new(big.Int).Lsh(big.NewInt(1), 63), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 64))}
	for range 50 {
		x := randomInt(r, 5000)
		xs = append(xs, x, new(big.Int).Neg(x))
	}
	for _, xb := range xs {
		want := new(big.Int).Set(xb)
		x := NewIntBig(new(big.Int).Set(xb))
		results := map[string][2]Integer{
			"neg":   {x.Neg(), NewIntBig(new(big.Int).Neg(xb))},
			"abs":   {x.Abs(), NewIntBig(new(big.Int).Abs(xb))},
			"*-1":   {x.Mul(NewInt(-1)), NewIntBig(new(big.Int).Neg(xb))},
			"-1*":   {NewInt(-1).Mul(x), NewIntBig(new(big.Int).Neg(xb))},
			"*1":    {x.Mul(NewInt(1)), x},
			"*0":    {NewInt(0).Mul(x), NewInt(0)},
			"neg2x": {x.Neg().Neg(), x},
		}
		for name, rw := range results {
			if !rw[0].Equal(rw[1]) || rw[0].IsSmall() != rw[1].IsSmall() {
				t.Fatalf("%s of %s = %s, want %s", name, xb, rw[0].Text(), rw[1].Text())
			}
			// Arithmetic on a result leaves x, whose digits it shares, alone.
			rw[0].Add(NewInt(1)).Mul(rw[0]).DivFloor(NewInt(3))
		}
		if x.Big().Cmp(want) != 0 {
			t.Fatalf("x changed to %s, was %s", x.Text(), want)
		}
	}
}
