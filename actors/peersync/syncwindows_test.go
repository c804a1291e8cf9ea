package peersync

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// branchOf makes the headers of heights lo to hi of one chain, each the child of the one
// below, highest first (as a branch query returns them).
func branchOf(lo, hi uint64) []*ledger.Header {
	var hs []*ledger.Header
	var parent ledger.Hash
	for h := lo; h <= hi; h++ {
		x := &ledger.Header{Height: h, Parent: parent}
		x.Hash[0], x.Hash[1] = byte(h), 0xab
		parent = x.Hash
		hs = append(hs, x)
	}
	slices.Reverse(hs)
	return hs
}

// A window's part of a branch must be exactly one block per height, linked: whatever a peer
// leaves out, repeats, adds or swaps is caught before the window is inserted.
func TestWholeBranch(t *testing.T) {
	if err := wholeBranch(branchOf(5, 9), 5, 9); err != nil {
		t.Fatalf("a whole branch: %v", err)
	}
	if err := wholeBranch(branchOf(7, 7), 7, 7); err != nil {
		t.Fatalf("a branch of one block: %v", err)
	}
	other := branchOf(5, 9)
	other[2] = &ledger.Header{Height: 7, Parent: other[3].Hash} // another block at height 7
	other[2].Hash[0] = 0xee
	cases := []struct {
		name string
		hs   []*ledger.Header
		want string
	}{
		{"top left out", branchOf(5, 8), "4 headers for the 5 heights 5 to 9"},
		{"bottom left out", branchOf(6, 9), "4 headers for the 5 heights"},
		{"empty", nil, "0 headers"},
		{"one too many", branchOf(4, 9), "6 headers"},
		{"a height twice", append(branchOf(5, 8), branchOf(5, 8)[0]), "no header at height 9"},
		{"shifted", branchOf(6, 10), "no header at height 5"},
		{"not linked", other, "the header at height 8 is not the child of the one at 7"},
	}
	for _, c := range cases {
		err := wholeBranch(c.hs, 5, 9)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// A peer helps fetch a cut only when its own cut is at least as high on every chain the
// catch-up fetches.
func TestReaches(t *testing.T) {
	cut := &ledger.Cut{Entries: []ledger.CutEntry{{Chain: 0, Height: 10}, {Chain: 1, Height: 12}, {Chain: 3, Height: 7}}}
	cases := []struct {
		todo []ledger.CutEntry
		want bool
	}{
		{nil, true},
		{[]ledger.CutEntry{{Chain: 0, Height: 10}, {Chain: 3, Height: 7}}, true},
		{[]ledger.CutEntry{{Chain: 1, Height: 3}}, true},
		{[]ledger.CutEntry{{Chain: 0, Height: 10}, {Chain: 1, Height: 13}}, false},
		{[]ledger.CutEntry{{Chain: 2, Height: 1}}, false}, // a chain the peer's cut lacks
		{[]ledger.CutEntry{{Chain: 3, Height: 8}}, false},
	}
	for i, c := range cases {
		if got := reaches(cut, c.todo); got != c.want {
			t.Errorf("case %d: reaches = %v, want %v", i, got, c.want)
		}
	}
}

// Windows to fetch again stay in ascending order: the origin fetches the one the insertion
// waits for first.
func TestAddSorted(t *testing.T) {
	var ks []int
	for _, k := range []int{5, 2, 9, 3} {
		ks = addSorted(ks, k)
	}
	if !slices.Equal(ks, []int{2, 3, 5, 9}) {
		t.Fatalf("got %v", ks)
	}
}
