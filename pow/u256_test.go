package pow

import (
	"errors"
	"math/big"
	"math/rand"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// randU256 returns values with a random number of significant limbs and, often, extreme limbs
// (all ones, a single high bit), which are the cases where quotient-digit estimates go wrong.
func randU256(r *rand.Rand) ledger.U256 {
	var u ledger.U256
	n := r.Intn(5)
	for i := 0; i < n; i++ {
		switch r.Intn(6) {
		case 0:
			u[i] = ^uint64(0)
		case 1:
			u[i] = 1 << 63
		case 2:
			u[i] = uint64(r.Intn(3))
		default:
			u[i] = r.Uint64()
		}
	}
	return u
}

func TestDiv256AgainstBig(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	check := func(u, v ledger.U256) {
		t.Helper()
		if v.IsZero() {
			return
		}
		want, _ := ledger.U256FromBig(new(big.Int).Quo(u.Big(), v.Big()))
		if got := div256(u, v); got != want {
			t.Fatalf("%s / %s = %s, want %s", u, v, got, want)
		}
	}
	edges := []ledger.U256{
		{1}, {2}, {3}, {^uint64(0)}, {0, 1}, {^uint64(0), ^uint64(0)}, {0, 0, 1}, {0, 0, 0, 1},
		{0, 0, 0, 1 << 63}, {1, 0, 0, 1 << 63}, {^uint64(0), 0, 0, 1 << 63}, ledger.MaxU256,
		{0, 0, 0, ^uint64(0)}, {0, ^uint64(0), ^uint64(0), ^uint64(0) >> 1},
	}
	for _, u := range edges {
		for _, v := range edges {
			check(u, v)
		}
	}
	for i := 0; i < 200000; i++ {
		check(randU256(r), randU256(r))
	}
	for i := 0; i < 20000; i++ {
		check(ledger.MaxU256, randU256(r))
	}
}

// Difficulties recorded in the vectors (upstream targetToDifficulty).
func TestDifficultyVectors(t *testing.T) {
	type rec struct {
		where string
		r     vecHeader
	}
	var recs []rec
	for _, name := range genesisFiles {
		var f genesisFile
		loadJSON(t, name, &f)
		for _, r := range f.Headers {
			recs = append(recs, rec{name, r})
		}
	}
	for _, tr := range loadTriples(t) {
		recs = append(recs, rec{"triple header", tr.vec.Header}, rec{"triple parent", tr.vec.Parent})
		for _, a := range tr.vec.AdjacentParents {
			recs = append(recs, rec{"triple adjacent", a})
		}
	}
	for _, x := range recs {
		if x.r.DifficultyDecimal == "" {
			t.Fatalf("%s chain %d height %d: no difficulty in the record", x.where, x.r.ChainID, x.r.Height)
		}
		target := beHexU256(t, x.r.TargetBEHex)
		d, err := Difficulty(target)
		if err != nil {
			t.Fatal(err)
		}
		if want := decU256(t, x.r.DifficultyDecimal); d != want {
			t.Fatalf("%s chain %d height %d: difficulty %s, want %s", x.where, x.r.ChainID, x.r.Height, d, want)
		}
	}
}

func TestDifficultyEdges(t *testing.T) {
	if _, err := Difficulty(ledger.U256{}); !errors.Is(err, ErrZeroTarget) {
		t.Fatalf("Difficulty(0) error %v, want ErrZeroTarget", err)
	}
	if d, _ := Difficulty(ledger.MaxU256); d != (ledger.U256{1}) {
		t.Fatalf("Difficulty(max) = %s, want 1", d)
	}
	if d, _ := Difficulty(ledger.U256{1}); d != ledger.MaxU256 {
		t.Fatalf("Difficulty(1) = %s, want max", d)
	}
	if _, err := TargetFromDifficulty(ledger.U256{}); err == nil {
		t.Fatal("TargetFromDifficulty(0) must fail")
	}
	// floor(max/floor(max/x)) >= x: the round trip never yields an easier target than given.
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 1000; i++ {
		x := randU256(r)
		if x.IsZero() {
			continue
		}
		d, _ := Difficulty(x)
		back, err := TargetFromDifficulty(d)
		if err != nil || back.Cmp(x) < 0 {
			t.Fatalf("target %s -> difficulty %s -> target %s (%v)", x, d, back, err)
		}
	}
}

func TestAddWeightWraps(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	mod := new(big.Int).Lsh(big.NewInt(1), 256)
	for i := 0; i < 10000; i++ {
		a, b := randU256(r), randU256(r)
		sum := new(big.Int).Add(a.Big(), b.Big())
		want, _ := ledger.U256FromBig(sum.Mod(sum, mod))
		if got := AddWeight(a, b); got != want {
			t.Fatalf("%s + %s = %s, want %s", a, b, got, want)
		}
	}
	if got := AddWeight(ledger.MaxU256, ledger.U256{2}); got != (ledger.U256{1}) {
		t.Fatalf("max + 2 = %s, want 1 (Word256 wrap)", got)
	}
	if _, err := Weight(ledger.U256{}, ledger.U256{}); !errors.Is(err, ErrZeroTarget) {
		t.Fatalf("Weight with target 0: %v", err)
	}
}

func TestDifficultyDoesNotAllocate(t *testing.T) {
	target := loadChain5(t).hs[0].Target
	if n := testing.AllocsPerRun(100, func() { _, _ = Difficulty(target) }); n != 0 {
		t.Fatalf("Difficulty allocates %.1f times", n)
	}
}
