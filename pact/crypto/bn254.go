package crypto

import (
	"errors"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bn254"
	"github.com/consensys/gnark-crypto/ecc/bn254/fp"
	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

// BN254 (alt_bn128, the curve of Ethereum's precompiles) for point-add,
// scalar-mult and pairing-check. P5 does this arithmetic in pure Haskell
// (Pairing.hs); the group law and the pairing are standard, so gnark-crypto
// computes the same points and the same pairing-check verdicts. What is
// P5-specific, and reproduced here:
//
//   - coordinates are any integers, reduced modulo the base field order q;
//   - (0, 0) is the point at infinity, on input and on output;
//   - every point is checked to be on its curve (P5's PointNotOnCurve),
//     and pairing-check also checks G2 points for membership in the
//     order-r subgroup unless the pre-Pact-5.4 behaviour is asked for;
//   - scalar-mult reduces the scalar modulo the group order r first, and
//     point-add / scalar-mult do not check G2 subgroup membership, so for
//     a G2 point outside the subgroup the result is [k mod r]P, computed
//     here with a plain double-and-add rather than gnark's GLV method
//     (which assumes the subgroup).

// G1Point is an affine point of G1: y² = x³ + 3 over Fq. (0, 0) is the
// point at infinity. Nil coordinates count as 0.
type G1Point struct{ X, Y *big.Int }

// G2Point is an affine point of the twist y² = x³ + 3/(9+u) over
// Fq2 = Fq[u]/(u²+1); a coordinate [c0, c1] is c0 + c1·u. (0, 0) is the
// point at infinity. Nil coefficients count as 0.
type G2Point struct{ X, Y [2]*big.Int }

// ErrNotOnCurve is P5's PointNotOnCurve: a point is not on its curve, or a
// pairing-check G2 point is not in the prime-order subgroup.
var ErrNotOnCurve = errors.New("point lies outside of elliptic curve")

// G1Add adds two G1 points.
func G1Add(a, b G1Point) (G1Point, error) {
	pa, pb := a.affine(), b.affine()
	if !pa.IsOnCurve() || !pb.IsOnCurve() {
		return G1Point{}, ErrNotOnCurve
	}
	var ja, jb bn254.G1Jac
	ja.FromAffine(&pa)
	jb.FromAffine(&pb)
	ja.AddAssign(&jb)
	var out bn254.G1Affine
	return g1Point(out.FromJacobian(&ja)), nil
}

// G1ScalarMul is [k mod r]P. G1 has prime order r (cofactor 1), so gnark's
// scalar multiplication is valid for every point on the curve.
func G1ScalarMul(p G1Point, k *big.Int) (G1Point, error) {
	pa := p.affine()
	if !pa.IsOnCurve() {
		return G1Point{}, ErrNotOnCurve
	}
	var out bn254.G1Affine
	return g1Point(out.ScalarMultiplication(&pa, scalarModR(k))), nil
}

// G2Add adds two G2 points (on-curve check only, as P5 does).
func G2Add(a, b G2Point) (G2Point, error) {
	pa, pb := a.affine(), b.affine()
	if !pa.IsOnCurve() || !pb.IsOnCurve() {
		return G2Point{}, ErrNotOnCurve
	}
	var ja, jb bn254.G2Jac
	ja.FromAffine(&pa)
	jb.FromAffine(&pb)
	ja.AddAssign(&jb)
	var out bn254.G2Affine
	return g2Point(out.FromJacobian(&ja)), nil
}

// G2ScalarMul is [k mod r]P for any point on the twist, in or out of the
// prime-order subgroup (on-curve check only, as P5 does).
func G2ScalarMul(p G2Point, k *big.Int) (G2Point, error) {
	pa := p.affine()
	if !pa.IsOnCurve() {
		return G2Point{}, ErrNotOnCurve
	}
	k = scalarModR(k)
	var base, acc bn254.G2Jac
	base.FromAffine(&pa)
	acc.FromAffine(&bn254.G2Affine{}) // infinity
	for i := k.BitLen() - 1; i >= 0; i-- {
		acc.DoubleAssign()
		if k.Bit(i) == 1 {
			acc.AddAssign(&base)
		}
	}
	var out bn254.G2Affine
	return g2Point(out.FromJacobian(&acc)), nil
}

// PairingCheck reports whether ∏ e(g1s[i], g2s[i]) = 1. As in P5, every
// point of both lists is validated, but only the pairs up to the shorter
// list's length are used (Haskell's zip), pairs with a point at infinity
// contribute 1, and no pairs at all give true. checkG2Subgroup selects
// the Pact 5.4 rule that G2 points must lie in the order-r subgroup;
// without it (P5's DisablePact54 flag) only the curve equation is checked.
func PairingCheck(g1s []G1Point, g2s []G2Point, checkG2Subgroup bool) (bool, error) {
	ps := make([]bn254.G1Affine, len(g1s))
	for i, p := range g1s {
		ps[i] = p.affine()
		if !ps[i].IsOnCurve() {
			return false, ErrNotOnCurve
		}
	}
	qs := make([]bn254.G2Affine, len(g2s))
	for i, q := range g2s {
		qs[i] = q.affine()
		if !qs[i].IsOnCurve() || (checkG2Subgroup && !qs[i].IsInSubGroup()) {
			return false, ErrNotOnCurve
		}
	}
	n := min(len(ps), len(qs))
	if n == 0 {
		return true, nil
	}
	return bn254.PairingCheck(ps[:n], qs[:n])
}

// ScalarFieldOrder returns r, the order of G1 and G2 (and Poseidon's field).
func ScalarFieldOrder() *big.Int { return fr.Modulus() }

// BaseFieldOrder returns q, the field of the curve coordinates.
func BaseFieldOrder() *big.Int { return fp.Modulus() }

func scalarModR(k *big.Int) *big.Int {
	if k == nil {
		return new(big.Int)
	}
	return new(big.Int).Mod(k, fr.Modulus()) // Euclidean: in [0, r) like Haskell's `mod`
}

func (p G1Point) affine() (a bn254.G1Affine) {
	setFp(&a.X, p.X)
	setFp(&a.Y, p.Y)
	return a
}

func (p G2Point) affine() (a bn254.G2Affine) {
	setFp(&a.X.A0, p.X[0])
	setFp(&a.X.A1, p.X[1])
	setFp(&a.Y.A0, p.Y[0])
	setFp(&a.Y.A1, p.Y[1])
	return a
}

// setFp reduces v modulo q (SetBigInt does the reduction, negatives
// included).
func setFp(e *fp.Element, v *big.Int) {
	if v == nil {
		v = new(big.Int)
	}
	e.SetBigInt(v)
}

func g1Point(a *bn254.G1Affine) G1Point {
	return G1Point{X: a.X.BigInt(new(big.Int)), Y: a.Y.BigInt(new(big.Int))}
}

func g2Point(a *bn254.G2Affine) G2Point {
	return G2Point{
		X: [2]*big.Int{a.X.A0.BigInt(new(big.Int)), a.X.A1.BigInt(new(big.Int))},
		Y: [2]*big.Int{a.Y.A0.BigInt(new(big.Int)), a.Y.A1.BigInt(new(big.Int))},
	}
}
