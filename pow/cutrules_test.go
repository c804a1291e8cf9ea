package pow_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/pow/powtest"
)

// braids is a set of cuts over one fixture, shared by the table tests below. On the twenty-chain
// graph chain 0 is adjacent to 5, 10 and 15, and chain 5 to 0, 7 and 8; 0 and 1 are not adjacent.
type braids struct {
	f             *powtest.Fixture
	g, one, two   pow.Heads      // every chain at height 0, 1, 2
	x5            *ledger.Header // chain 5 height 1, a sibling of one[5]
	y5            *ledger.Header // chain 5 height 2 on top of x5
	fork1, fork2  *ledger.Header // chain 0 heights 2 and 3: a sibling of two[0] and a block on it
	crossed       *ledger.Header // chain 0 height 3: parent two[0], adjacent parent on chain 5 is y5
	ahead3, ahead *ledger.Header // chain 0 height 3 on cut two; chain 0 height 2 on cut one
}

func newBraids(t *testing.T) *braids {
	f := powtest.New(t)
	b := &braids{f: f, g: f.Genesis.Clone()}
	b.one = f.Grow(b.g, 1)
	b.two = f.Grow(b.one, 2)
	b.x5 = f.Mine(b.g, 5, 1)
	b.y5 = f.Mine(powtest.With(b.one, b.x5), 5, 1)
	b.fork1 = f.MineOn(b.one[0], []*ledger.Header{b.one[5], b.one[10], b.one[15]}, 2)
	b.fork2 = f.MineOn(b.fork1, []*ledger.Header{b.two[5], b.two[10], b.two[15]}, 2)
	b.crossed = f.MineOn(b.two[0], []*ledger.Header{b.y5, b.two[10], b.two[15]}, 3)
	b.ahead3 = f.Mine(b.two, 0, 4)
	b.ahead = f.Mine(b.one, 0, 5)
	return b
}

func TestPairBraided(t *testing.T) {
	b := newBraids(t)
	for _, c := range []struct {
		name string
		x, y *ledger.Header
		want bool
	}{
		{"genesis blocks", b.g[0], b.g[5], true},
		{"one above genesis", b.one[0], b.g[5], true},
		{"genesis below one (either order)", b.g[5], b.one[0], true},
		{"same height", b.one[0], b.one[5], true},
		{"sibling at the same height on the same parents", b.one[0], b.x5, true},
		{"two apart", b.two[0], b.g[5], false},
		{"one above a block it does not name", b.two[0], b.x5, false},
		{"same height, other parent", b.two[0], b.y5, false},
		{"chains not adjacent", b.one[0], b.one[1], false},
	} {
		if got := pow.PairBraided(c.x, c.y); got != c.want {
			t.Errorf("%s: PairBraided = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCheckBraided(t *testing.T) {
	b := newBraids(t)
	for _, c := range []struct {
		name  string
		hs    pow.Heads
		wrong string // substring of the error, "" for braided
	}{
		{"genesis", b.g, ""},
		{"all at one", b.one, ""},
		{"one chain ahead", powtest.With(b.g, b.one[0]), ""},
		{"a chain two ahead", powtest.With(b.g, b.one[0], b.ahead), "chains 0 (height 2) and 5 (height 0)"},
		{"fork at the same height", powtest.With(b.two, b.y5), "not braided"},
		{"missing chains are skipped", pow.Heads{b.two[0], nil, nil, nil, nil, nil}, ""},
	} {
		err := pow.CheckBraided(c.hs)
		if c.wrong == "" && err != nil || c.wrong != "" && (err == nil || !strings.Contains(err.Error(), c.wrong)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.wrong)
		}
	}
}

func TestCanExtend(t *testing.T) {
	b := newBraids(t)
	for _, c := range []struct {
		name string
		hs   pow.Heads
		h    *ledger.Header
		want bool
	}{
		{"first block", b.g, b.one[0], true},
		{"next height", b.one, b.two[0], true},
		{"next to a neighbour one ahead", powtest.With(b.one, b.two[5]), b.two[0], true},
		{"parent is not the head", b.g, b.two[0], false},
		{"neighbour two behind", powtest.With(b.g, b.one[0]), b.ahead, false},
		{"neighbour on another fork", powtest.With(b.one, b.x5), b.two[0], false},
		{"already the head", b.one, b.one[0], false},
	} {
		if got := pow.CanExtend(c.hs, c.h); got != c.want {
			t.Errorf("%s: CanExtend = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMinable(t *testing.T) {
	b := newBraids(t)
	all := b.f.V.Chains()
	except := func(skip ...ledger.ChainID) []ledger.ChainID {
		var out []ledger.ChainID
		for _, c := range all {
			if !slices.Contains(skip, c) {
				out = append(out, c)
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		hs   pow.Heads
		want []ledger.ChainID
	}{
		{"genesis", b.g, all},
		{"chain 0 ahead waits for its neighbours", powtest.With(b.g, b.one[0]), except(0)},
		{"all at one", b.one, all},
		// 0 and 5 at height 2 wait for 10, 15 (and 7, 8); the others may catch up.
		{"two chains ahead", powtest.With(b.one, b.two[0], b.two[5]), except(0, 5)},
	} {
		if got := pow.Minable(b.f.V, c.hs); !slices.Equal(got, c.want) {
			t.Errorf("%s: Minable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMiningParents(t *testing.T) {
	b := newBraids(t)
	hs := powtest.With(b.one, b.two[5])
	p, adj, err := pow.MiningParents(b.f.V, hs, 0, b.f.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	// The neighbour one ahead contributes its parent: the adjacent parents are at height 1.
	if p != b.one[0] || !slices.Equal(adj, []*ledger.Header{b.one[5], b.one[10], b.one[15]}) {
		t.Fatalf("parents %v %v", p.Hash, adj)
	}
	if _, _, err := pow.MiningParents(b.f.V, powtest.With(b.g, b.one[0]), 0, b.f.Lookup); err == nil {
		t.Fatal("MiningParents on a chain that must wait")
	}
}

func TestJoin(t *testing.T) {
	b := newBraids(t)
	for _, c := range []struct {
		name     string
		hs       pow.Heads
		h        *ledger.Header
		want     pow.Heads // nil: Join fails
		heavier  bool
		entering []*ledger.Header
	}{
		{name: "extension", hs: b.g, h: b.one[0], want: powtest.With(b.g, b.one[0]), heavier: true,
			entering: []*ledger.Header{b.one[0]}},
		{name: "extension next to a neighbour one ahead", hs: powtest.With(b.one, b.two[5]), h: b.two[0],
			want: powtest.With(b.one, b.two[5], b.two[0]), heavier: true, entering: []*ledger.Header{b.two[0]}},
		// A block whose parent and adjacent parents are stored but not yet in the cut pulls
		// them in first.
		{name: "arrived before its adjacent parents joined", hs: b.g, h: b.ahead,
			want:     powtest.With(b.g, b.ahead, b.one[5], b.one[10], b.one[15]),
			heavier:  true,
			entering: []*ledger.Header{b.one[0], b.one[5], b.one[10], b.one[15], b.ahead}},
		{name: "heavier fork replaces the head", hs: b.two, h: b.fork2, want: powtest.With(b.two, b.fork2), heavier: true,
			entering: []*ledger.Header{b.fork1, b.fork2}},
		{name: "sibling of the head weighs the same", hs: b.two, h: b.fork1, want: powtest.With(b.two, b.fork1)},
		{name: "an old block of the cut", hs: b.two, h: b.one[7], want: b.two},
		{name: "fork of a neighbour far enough below", hs: b.one, h: b.x5, want: powtest.With(b.one, b.x5)},
		{name: "adjacent parent on another fork than the parent's", hs: b.two, h: b.crossed},
	} {
		got, err := pow.Join(c.hs, c.h, b.f.Genesis, b.f.Lookup)
		if c.want == nil {
			if err == nil {
				t.Errorf("%s: Join succeeded, want a failure", c.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: Join gave heights %v, want %v", c.name, powtest.Heights(got), powtest.Heights(c.want))
			continue
		}
		if err := pow.CheckBraided(got); err != nil {
			t.Errorf("%s: joined cut: %v", c.name, err)
		}
		if pow.Heavier(got, c.hs) != c.heavier {
			t.Errorf("%s: Heavier = %v, want %v", c.name, !c.heavier, c.heavier)
		}
		if c.heavier {
			if e := pow.Entering(c.hs, got, b.f.Lookup); !slices.Equal(e, c.entering) {
				t.Errorf("%s: entering %v, want %v", c.name, names(e), names(c.entering))
			}
		}
	}
}

// After a switch to a fork, switching back enters the old branch again; moving a head down
// enters nothing.
func TestEntering(t *testing.T) {
	b := newBraids(t)
	forked := powtest.With(b.two, b.fork2)
	back := powtest.With(b.two, b.ahead3)
	if e := pow.Entering(forked, back, b.f.Lookup); !slices.Equal(e, []*ledger.Header{b.two[0], b.ahead3}) {
		t.Fatalf("back to the first fork: %v", names(e))
	}
	if e := pow.Entering(b.two, b.one, b.f.Lookup); len(e) != 0 {
		t.Fatalf("lower cut: %v", names(e))
	}
}

func TestLowerToBraid(t *testing.T) {
	b := newBraids(t)
	for _, c := range []struct {
		name string
		hs   pow.Heads
		want pow.Heads
	}{
		{"braided stays", b.two, b.two},
		{"a head two ahead comes down", powtest.With(b.g, b.one[0], b.ahead), powtest.With(b.g, b.one[0])},
		{"a head three ahead comes down twice", powtest.With(b.one, b.ahead3), powtest.With(b.one, b.two[0])},
		// y5 and two[0] are both lowered; x5 then still conflicts with 7 and 8 (which name one[5]).
		{"forks at the same height both come down", powtest.With(b.two, b.y5), powtest.With(b.two, b.one[0], b.x5, b.one[7], b.one[8])},
	} {
		got, err := pow.LowerToBraid(c.hs, b.f.Lookup)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if err := pow.CheckBraided(got); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: heights %v, want %v", c.name, powtest.Heights(got), powtest.Heights(c.want))
		}
	}
}

func TestHeadsCut(t *testing.T) {
	b := newBraids(t)
	c := b.two.Cut(b.f.V)
	if c.Height != 40 || len(c.Entries) != 20 || c.Weight != b.two.Weight() || b.two.Height() != 40 {
		t.Fatalf("cut height %d, %d entries, weight %s vs %s", c.Height, len(c.Entries), c.Weight, b.two.Weight())
	}
}

func names(hs []*ledger.Header) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Hash.String()[:6])
	}
	return out
}
