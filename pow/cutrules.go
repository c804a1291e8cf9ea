package pow

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ledgernode/ledger-node/ledger"
)

// The cut rules: which sets of blocks form a cut, how a cut grows, which chains a miner can
// extend, and how a header that does not simply extend the cut (a fork, or a block that
// arrived before one it depends on) is joined into a heavier cut. They are pure functions over
// headers; the cut actor (actors/cut.go) applies them and does the I/O (etcd raft's split between the state
// machine and the node). Upstream's equivalents are in Chainweb/Cut.hs (checkBraidingOfCutPair,
// isMonotonicCutExtension, joinIntoHeavier) and Cut/Create.hs (getCutExtension).

// Heads is a cut as the rules see it: one header per chain, indexed by chain id, nil for a
// chain that has no block in the cut (a chain the network does not have, or, on an upstream
// network, one nothing was imported for). Heads values are never modified once built: every
// change makes a new slice, so a published Heads can be read from any goroutine.
type Heads []*ledger.Header

// HeaderLookup returns a stored header by hash, and false when it is not stored.
type HeaderLookup func(ledger.Hash) (*ledger.Header, bool)

// maxWalk bounds how far the rules walk down a chain (to relate a block to an older one). A
// fork deeper than this is not followed: the cut stays where it is, which is what a node should
// do with a branch that reorganises more than a day of blocks.
const maxWalk = 4096

// Clone returns a copy of hs that may be modified.
func (hs Heads) Clone() Heads { return slices.Clone(hs) }

// At returns the head of chain c, nil when there is none.
func (hs Heads) At(c ledger.ChainID) *ledger.Header {
	if int(c) < len(hs) {
		return hs[c]
	}
	return nil
}

// Cut builds the cut value the service API serves.
func (hs Heads) Cut(v *ledger.Version) *ledger.Cut {
	present := make([]*ledger.Header, 0, len(hs))
	for _, h := range hs {
		if h != nil {
			present = append(present, h)
		}
	}
	return ledger.NewCut(v, present)
}

// Weight is the sum of the heads' weights (modulo 2^256, like upstream's Word256 sums; real
// weights are far below).
func (hs Heads) Weight() ledger.U256 {
	var w ledger.U256
	for _, h := range hs {
		if h != nil {
			w = AddWeight(w, h.Weight)
		}
	}
	return w
}

// Height is the cut height: the sum of the heads' heights.
func (hs Heads) Height() uint64 {
	var n uint64
	for _, h := range hs {
		if h != nil {
			n += h.Height
		}
	}
	return n
}

// PairBraided reports whether the heads a and b of two adjacent chains may stand together in a
// cut: their heights differ by at most one, and the higher one's adjacent hash for the other
// chain names the other block itself (one higher) or, at the same height, each one's adjacent
// hash for the other chain names the other's parent. Genesis blocks of adjacent chains pass:
// their adjacents are the neighbours' genesis parent hashes.
func PairBraided(a, b *ledger.Header) bool {
	if a.Height < b.Height {
		a, b = b, a
	}
	ab, ok := a.AdjacentHash(b.ChainID)
	if !ok {
		return false
	}
	switch a.Height - b.Height {
	case 1:
		return ab == b.Hash
	case 0:
		ba, ok := b.AdjacentHash(a.ChainID)
		return ok && ab == b.Parent && ba == a.Parent
	}
	return false
}

// CheckBraided returns an error naming the first pair of adjacent chains whose heads are not
// braided. Chains without a head are skipped.
func CheckBraided(hs Heads) error {
	for _, x := range hs {
		if x == nil {
			continue
		}
		for _, a := range x.Adjacents {
			y := hs.At(a.Chain)
			if y != nil && !PairBraided(x, y) {
				return fmt.Errorf("chains %d (height %d) and %d (height %d) are not braided",
					x.ChainID, x.Height, y.ChainID, y.Height)
			}
		}
	}
	return nil
}

// CanExtend reports whether h extends the cut monotonically: its parent is the head of its chain
// and it is braided with the head of every adjacent chain.
func CanExtend(hs Heads, h *ledger.Header) bool {
	p := hs.At(h.ChainID)
	if p == nil || p.Hash != h.Parent {
		return false
	}
	for _, a := range h.Adjacents {
		if y := hs.At(a.Chain); y != nil && !PairBraided(h, y) {
			return false
		}
	}
	return true
}

// Extend returns the cut with h as the head of its chain. The caller checks CanExtend.
func Extend(hs Heads, h *ledger.Header) Heads {
	next := hs.Clone()
	if int(h.ChainID) >= len(next) {
		next = append(next, make(Heads, int(h.ChainID)+1-len(next))...)
	}
	next[h.ChainID] = h
	return next
}

// Minable returns the chains a miner can extend, ascending: a chain whose head is at height H
// can get a block at H+1 only when the head of every chain adjacent to it (in the graph of the
// new block) is at H or H+1, since the new block's adjacent parents are the blocks at H.
func Minable(v *ledger.Version, hs Heads) []ledger.ChainID {
	var out []ledger.ChainID
	for c, p := range hs {
		if p != nil && minable(v, hs, p) {
			out = append(out, ledger.ChainID(c))
		}
	}
	return out
}

func minable(v *ledger.Version, hs Heads, p *ledger.Header) bool {
	if p.Height == ^uint64(0) {
		return false
	}
	for _, n := range v.HeaderGraph(p.ChainID, p.Height+1).Neighbors(p.ChainID) {
		y := hs.At(n)
		if y == nil || (y.Height != p.Height && y.Height != p.Height+1) {
			return false
		}
	}
	return true
}

// MiningParents returns the parent and adjacent parents of the next block on chain c: the head
// of c and, for each adjacent chain, its block at the head's height (the head itself, or its
// parent when it is one ahead).
func MiningParents(v *ledger.Version, hs Heads, c ledger.ChainID, lookup HeaderLookup) (*ledger.Header, []*ledger.Header, error) {
	p := hs.At(c)
	if p == nil || !minable(v, hs, p) {
		return nil, nil, fmt.Errorf("chain %d cannot be extended in this cut", c)
	}
	neighbours := v.HeaderGraph(c, p.Height+1).Neighbors(c)
	adj := make([]*ledger.Header, 0, len(neighbours))
	for _, n := range neighbours {
		y := hs[n]
		if y.Height != p.Height {
			py, ok := lookup(y.Parent)
			if !ok {
				return nil, nil, fmt.Errorf("chain %d: parent %s of the head is not stored", n, y.Parent)
			}
			y = py
		}
		adj = append(adj, y)
	}
	return p, adj, nil
}

// Past returns the cut that h generates: h on its chain, and on every other chain the ancestor
// of h that h reaches through adjacent-parent links at the greatest height (height H-d at graph
// distance d, or genesis). genesis holds each chain's genesis header, which the adjacents of a
// genesis block do not name (they hold genesis parent hashes). The result is braided when h's
// history is consistent; the caller checks.
func Past(h *ledger.Header, genesis Heads, lookup HeaderLookup) (Heads, error) {
	past := make(Heads, max(len(genesis), int(h.ChainID)+1))
	past[h.ChainID] = h
	queue := []*ledger.Header{h}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		isGenesis := genesis.At(x.ChainID) != nil && genesis[x.ChainID].Hash == x.Hash
		for _, a := range x.Adjacents {
			if int(a.Chain) >= len(past) {
				past = append(past, make(Heads, int(a.Chain)+1-len(past))...)
			}
			if past[a.Chain] != nil {
				continue // reached at a smaller distance, i.e. a greater height
			}
			var y *ledger.Header
			if isGenesis {
				y = genesis.At(a.Chain)
			} else {
				y, _ = lookup(a.Hash)
			}
			if y == nil || y.ChainID != a.Chain {
				return nil, fmt.Errorf("adjacent parent %s on chain %d of block %s is not stored", a.Hash, a.Chain, x.Hash)
			}
			past[a.Chain] = y
			queue = append(queue, y)
		}
	}
	return past, nil
}

// pathFrom returns the blocks above from up to and including to on to's chain, ascending, and
// false when to does not descend from from (or lies more than maxWalk above it).
func pathFrom(from, to *ledger.Header, lookup HeaderLookup) ([]*ledger.Header, bool) {
	if to.Height < from.Height || to.Height-from.Height > maxWalk {
		return nil, false
	}
	path := make([]*ledger.Header, to.Height-from.Height)
	x := to
	for i := len(path) - 1; i >= 0; i-- {
		path[i] = x
		p, ok := lookup(x.Parent)
		if !ok {
			return nil, false
		}
		x = p
	}
	return path, x.Hash == from.Hash
}

// Join returns the cut that h joins into: the current cut hs extended by h when it can be
// (CanExtend), else the cut built the way a braid grows, by monotonic extensions only. It
// starts from the highest braided cut below both hs and h's past (every chain lowered to its
// common ancestor with h's past), then adds, in any order that keeps the cut braided, the
// blocks up to h's past and, on chains where the current head descends from that past, on up to
// the current head. The result contains h, or Join fails: h's history is incomplete, or
// inconsistent (say an adjacent parent on another fork than h's parent saw), so that no
// sequence of braided cuts reaches it. The caller keeps the heavier of hs and the result.
func Join(hs Heads, h *ledger.Header, genesis Heads, lookup HeaderLookup) (Heads, error) {
	if CanExtend(hs, h) {
		return Extend(hs, h), nil
	}
	target, err := Past(h, genesis, lookup)
	if err != nil {
		return nil, err
	}
	n := max(len(hs), len(target))
	base := make(Heads, n)
	for i := range base {
		c := ledger.ChainID(i)
		cur, tgt := hs.At(c), target.At(c)
		switch {
		case cur == nil || tgt == nil:
			// A chain only one side has (a partial cut of an upstream network): nothing to
			// braid it with on the other side.
			base[i] = cmp.Or(cur, tgt)
		default:
			a, ok := commonAncestor(cur, tgt, lookup)
			if !ok {
				return nil, fmt.Errorf("chain %d: no common ancestor of %s and %s within %d blocks", c, cur.Hash, tgt.Hash, maxWalk)
			}
			base[i] = a
		}
	}
	if base, err = LowerToBraid(base, lookup); err != nil {
		return nil, err
	}
	paths := make([][]*ledger.Header, n)
	for i, b := range base {
		c := ledger.ChainID(i)
		cur, tgt := hs.At(c), target.At(c)
		if b == nil {
			continue
		}
		if tgt != nil {
			paths[i], _ = pathFrom(b, tgt, lookup)
			if cur != nil {
				if more, ok := pathFrom(tgt, cur, lookup); ok {
					paths[i] = append(paths[i], more...)
				}
			}
		} else if cur != nil {
			paths[i], _ = pathFrom(b, cur, lookup)
		}
	}
	next := base
	reached := next.At(h.ChainID) != nil && next[h.ChainID].Hash == h.Hash
	for progress := true; progress; {
		progress = false
		for i := range paths {
			for len(paths[i]) > 0 && CanExtend(next, paths[i][0]) {
				x := paths[i][0]
				next[i] = x
				paths[i] = paths[i][1:]
				reached = reached || x.Hash == h.Hash
				progress = true
			}
		}
	}
	if !reached {
		return nil, fmt.Errorf("block %s (chain %d height %d) cannot join a braided cut: its adjacent parents and its parent's are on different forks",
			h.Hash, h.ChainID, h.Height)
	}
	return next, nil
}

// commonAncestor returns the latest block that x and y both descend from (or are), walking at
// most maxWalk blocks down each.
func commonAncestor(x, y *ledger.Header, lookup HeaderLookup) (*ledger.Header, bool) {
	for steps := 0; steps < 2*maxWalk; steps++ {
		if x.Hash == y.Hash {
			return x, true
		}
		var ok bool
		if x.Height >= y.Height {
			x, ok = lookup(x.Parent)
		} else {
			y, ok = lookup(y.Parent)
		}
		if !ok {
			return nil, false
		}
	}
	return nil, false
}

// Heavier reports whether cut a weighs more than cut b.
func Heavier(a, b Heads) bool { return a.Weight().Cmp(b.Weight()) > 0 }

// Entering returns the blocks that are in the history of cut next but not of cut prev, in the
// order they enter: ascending height, then chain id. For an extension that is the new block; for
// a switch to another fork, the new branch of every chain from its fork point up.
func Entering(prev, next Heads, lookup HeaderLookup) []*ledger.Header {
	var out []*ledger.Header
	for c, x := range next {
		y := prev.At(ledger.ChainID(c))
		if x == nil || (y != nil && x.Hash == y.Hash) {
			continue
		}
		out = append(out, branchAbove(x, y, lookup)...)
	}
	slices.SortFunc(out, func(a, b *ledger.Header) int {
		if a.Height != b.Height {
			return cmp.Compare(a.Height, b.Height)
		}
		return cmp.Compare(a.ChainID, b.ChainID)
	})
	return out
}

// branchAbove returns the blocks of x's chain from just above its common ancestor with y up to
// x (descending), or just x when the ancestor is out of reach (y nil, or deeper than maxWalk).
func branchAbove(x, y *ledger.Header, lookup HeaderLookup) []*ledger.Header {
	if y == nil {
		return []*ledger.Header{x}
	}
	var out []*ledger.Header
	for steps := 0; steps < 2*maxWalk; steps++ {
		switch {
		case x.Hash == y.Hash:
			return out
		case x.Height >= y.Height:
			out = append(out, x)
			p, ok := lookup(x.Parent)
			if !ok {
				return out
			}
			x = p
		default:
			p, ok := lookup(y.Parent)
			if !ok {
				return out
			}
			y = p
		}
	}
	return out
}

// LowerToBraid returns the highest braided cut at or below hs that it finds by lowering heads:
// while two adjacent heads are not braided, the higher one (both, at equal heights) is replaced
// by its parent. It is how a node resumes from a stored cut that is not braided. It fails when a
// head that must be lowered is a genesis block or its parent is not stored.
func LowerToBraid(hs Heads, lookup HeaderLookup) (Heads, error) {
	next := hs.Clone()
	for {
		x, y := firstUnbraided(next)
		if x == nil {
			return next, nil
		}
		lower := []*ledger.Header{x}
		switch {
		case y.Height > x.Height:
			lower[0] = y
		case y.Height == x.Height:
			lower = append(lower, y)
		}
		for _, b := range lower {
			p, ok := lookup(b.Parent)
			if !ok || p.ChainID != b.ChainID {
				return nil, fmt.Errorf("cannot lower chain %d below height %d: parent %s is not stored", b.ChainID, b.Height, b.Parent)
			}
			next[b.ChainID] = p
		}
	}
}

func firstUnbraided(hs Heads) (*ledger.Header, *ledger.Header) {
	for _, x := range hs {
		if x == nil {
			continue
		}
		for _, a := range x.Adjacents {
			if y := hs.At(a.Chain); y != nil && !PairBraided(x, y) {
				return x, y
			}
		}
	}
	return nil, nil
}
