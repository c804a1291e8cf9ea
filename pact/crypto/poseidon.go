package crypto

import (
	"errors"
	"math/big"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

// Poseidon as circomlib defines it (and P5's Poseidon.hs implements it):
// the x^5 permutation over the BN254 scalar field, state width t = inputs+1,
// 8 full rounds and the per-width partial round counts below, state[0]
// starting at zero and the output taken from state[0].
//
// P5 embeds circomlibjs' constant tables. We derive the same constants
// instead, with the Grain LFSR procedure of the Poseidon paper's reference
// script (generate_parameters_grain.sage, which circomlib's tables came
// from): round constants first, then the Cauchy MDS matrix. The test
// vectors in poseidon_test.go pin the result for every width.

// PoseidonMaxInputs is the largest arity P5 supports.
const PoseidonMaxInputs = 8

const (
	poseidonFullRounds = 8
	poseidonFieldBits  = 254
)

// poseidonPartialRounds[n-1] is the partial round count for n inputs
// (circomlib's N_ROUNDS_P for t = 2..9).
var poseidonPartialRounds = [PoseidonMaxInputs]int{56, 57, 56, 60, 60, 63, 64, 63}

// ErrPoseidonArity reports an input count outside 1..8.
var ErrPoseidonArity = errors.New("poseidon: number of inputs must be between 1 and 8")

type poseidonParams struct {
	rc  []fr.Element   // (full+partial rounds) * t round constants, row by row
	mds [][]fr.Element // t×t, new_state[i] = Σ_j mds[i][j]·state[j]
}

var (
	poseidonOnce   [PoseidonMaxInputs]sync.Once
	poseidonTables [PoseidonMaxInputs]poseidonParams
)

// poseidonParamsFor generates the parameters for n inputs once, on first
// use: a width costs about a million LFSR steps, so it is not worth doing
// at start-up for widths a node may never see.
func poseidonParamsFor(n int) *poseidonParams {
	poseidonOnce[n-1].Do(func() {
		t := n + 1
		g := newGrain(t, poseidonFullRounds, poseidonPartialRounds[n-1])
		p := &poseidonTables[n-1]
		p.rc = make([]fr.Element, (poseidonFullRounds+poseidonPartialRounds[n-1])*t)
		for i := range p.rc {
			p.rc[i].SetBigInt(g.fieldElement())
		}
		p.mds = g.cauchyMatrix(t)
	})
	return &poseidonTables[n-1]
}

// Poseidon hashes 1 to 8 field elements. Inputs are reduced modulo the
// field order first (negative ones too, as Haskell's `mod` does), so any
// integer is accepted; the result is in [0, r).
func Poseidon(inputs []*big.Int) (*big.Int, error) {
	n := len(inputs)
	if n < 1 || n > PoseidonMaxInputs {
		return nil, ErrPoseidonArity
	}
	p := poseidonParamsFor(n)
	t := n + 1
	rounds := poseidonFullRounds + poseidonPartialRounds[n-1]

	state := make([]fr.Element, t)
	for i, in := range inputs {
		state[i+1].SetBigInt(in) // SetBigInt reduces into [0, r)
	}
	next := make([]fr.Element, t)
	for r := 0; r < rounds; r++ {
		for i := range state {
			state[i].Add(&state[i], &p.rc[r*t+i])
		}
		// Full rounds apply the S-box to every cell, the partial rounds in
		// the middle only to the first.
		if r < poseidonFullRounds/2 || r >= rounds-poseidonFullRounds/2 {
			for i := range state {
				pow5(&state[i])
			}
		} else {
			pow5(&state[0])
		}
		for i := range next {
			next[i].SetZero()
			var m fr.Element
			for j := range state {
				m.Mul(&p.mds[i][j], &state[j])
				next[i].Add(&next[i], &m)
			}
		}
		state, next = next, state
	}
	return state[0].BigInt(new(big.Int)), nil
}

func pow5(x *fr.Element) {
	var x4 fr.Element
	x4.Square(x).Square(&x4)
	x.Mul(x, &x4)
}

// grain is the 80-bit Grain LFSR of the Poseidon reference script, kept as
// a ring buffer: bit (head+k)%80 is the script's bit_sequence[k].
type grain struct {
	bits [80]uint8
	head int
}

// newGrain seeds the LFSR with the parameters, as init_generator does:
// field type (2 bits, 1 = prime field), S-box (4 bits, 0 = x^alpha),
// field size (12), t (12), full rounds (10), partial rounds (10), then
// 30 ones; the first 160 outputs are discarded.
func newGrain(t, fullRounds, partialRounds int) *grain {
	g := &grain{}
	i := 0
	put := func(v, width int) {
		for b := width - 1; b >= 0; b-- {
			g.bits[i] = uint8(v>>b) & 1
			i++
		}
	}
	put(1, 2)
	put(0, 4)
	put(poseidonFieldBits, 12)
	put(t, 12)
	put(fullRounds, 10)
	put(partialRounds, 10)
	for i < len(g.bits) {
		g.bits[i] = 1
		i++
	}
	for range 160 {
		g.clock()
	}
	return g
}

// clock shifts the register once and returns the new bit:
// b62 ^ b51 ^ b38 ^ b23 ^ b13 ^ b0.
func (g *grain) clock() uint8 {
	at := func(k int) uint8 { return g.bits[(g.head+k)%80] }
	nb := at(62) ^ at(51) ^ at(38) ^ at(23) ^ at(13) ^ at(0)
	g.bits[g.head] = nb // the oldest bit's slot becomes the newest
	g.head = (g.head + 1) % 80
	return nb
}

// bit is the self-shrinking output: bits are taken in pairs and the second
// is emitted only when the first is 1.
func (g *grain) bit() uint8 {
	for {
		if g.clock() == 1 {
			return g.clock()
		}
		g.clock()
	}
}

// integer reads n output bits, most significant first.
func (g *grain) integer(n int) *big.Int {
	v := new(big.Int)
	for range n {
		v.Lsh(v, 1)
		if g.bit() == 1 {
			v.SetBit(v, 0, 1)
		}
	}
	return v
}

// fieldElement draws a round constant: 254-bit samples, rejecting those
// not below the field order.
func (g *grain) fieldElement() *big.Int {
	for {
		if v := g.integer(poseidonFieldBits); v.Cmp(fr.Modulus()) < 0 {
			return v
		}
	}
}

// cauchyMatrix is the script's create_mds_p: 2t samples (reduced, not
// rejected) split into xs and ys, redrawn while any repeat, and
// M[i][j] = 1/(xs[i] + ys[j]), redrawn if a sum is zero.
//
// The reference script then tests the matrix against invariant subspace
// trails and draws again if it fails; for the eight widths P5 uses the
// first matrix passes (the test vectors would fail otherwise), so that
// test is not reproduced here.
func (g *grain) cauchyMatrix(t int) [][]fr.Element {
	for {
		xs := make([]fr.Element, 2*t)
		for distinct := false; !distinct; {
			seen := make(map[fr.Element]bool, 2*t)
			distinct = true
			for i := range xs {
				xs[i].SetBigInt(g.integer(poseidonFieldBits))
				if seen[xs[i]] {
					distinct = false
				}
				seen[xs[i]] = true
			}
		}
		ys := xs[t:]
		m := make([][]fr.Element, t)
		ok := true
		for i := range m {
			m[i] = make([]fr.Element, t)
			for j := range m[i] {
				var s fr.Element
				s.Add(&xs[i], &ys[j])
				if s.IsZero() {
					ok = false
				}
				m[i][j].Inverse(&s)
			}
		}
		if ok {
			return m
		}
	}
}
