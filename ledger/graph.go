package ledger

import (
	"fmt"
	"slices"
)

// Graph is a chain graph: which chains exist and which are adjacent. Every block commits to the
// blocks of its neighbours at its parent's height.
type Graph struct {
	Name   string
	adj    [][]ChainID // indexed by chain id; nil for a chain that is not in the graph
	chains []ChainID   // ascending
	dist   [][]int     // all-pairs shortest path lengths, -1 if unreachable
}

// NewGraph builds a graph from an adjacency map. Every edge must be listed in both directions.
func NewGraph(name string, adjacency map[ChainID][]ChainID) (*Graph, error) {
	g := &Graph{Name: name}
	var maxID ChainID
	for c := range adjacency {
		g.chains = append(g.chains, c)
		maxID = max(maxID, c)
	}
	slices.Sort(g.chains)
	g.adj = make([][]ChainID, int(maxID)+1)
	for c, ns := range adjacency {
		s := slices.Clone(ns)
		slices.Sort(s)
		if s == nil {
			s = []ChainID{}
		}
		g.adj[c] = s
	}
	for c, ns := range adjacency {
		for _, n := range ns {
			if !g.Has(n) || !slices.Contains(adjacency[n], c) || n == c {
				return nil, fmt.Errorf("graph %s: edge %d-%d is not symmetric", name, c, n)
			}
		}
	}
	g.dist = make([][]int, len(g.adj))
	for _, c := range g.chains {
		g.dist[c] = g.bfs(c)
	}
	return g, nil
}

func mustGraph(name string, adjacency map[ChainID][]ChainID) *Graph {
	g, err := NewGraph(name, adjacency)
	if err != nil {
		panic(err)
	}
	return g
}

func (g *Graph) bfs(from ChainID) []int {
	d := make([]int, len(g.adj))
	for i := range d {
		d[i] = -1
	}
	d[from] = 0
	queue := []ChainID{from}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for _, n := range g.adj[c] {
			if d[n] < 0 {
				d[n] = d[c] + 1
				queue = append(queue, n)
			}
		}
	}
	return d
}

// Has reports whether chain c is in the graph.
func (g *Graph) Has(c ChainID) bool { return int(c) < len(g.adj) && g.adj[c] != nil }

// Chains returns the chain ids in ascending order. The caller must not modify the result.
func (g *Graph) Chains() []ChainID { return g.chains }

// Order is the number of chains.
func (g *Graph) Order() int { return len(g.chains) }

// Neighbors returns the adjacent chains of c in ascending order (nil if c is not in the graph).
// The caller must not modify the result.
func (g *Graph) Neighbors(c ChainID) []ChainID {
	if !g.Has(c) {
		return nil
	}
	return g.adj[c]
}

// Degree is the number of neighbours of each chain (the graphs in use are regular).
func (g *Graph) Degree() int {
	if len(g.chains) == 0 {
		return 0
	}
	return len(g.adj[g.chains[0]])
}

// Distance returns the length of a shortest path from a to b, or -1 if either chain is absent
// or b is unreachable.
func (g *Graph) Distance(a, b ChainID) int {
	if !g.Has(a) || !g.Has(b) {
		return -1
	}
	return g.dist[a][b]
}

// Diameter is the largest distance between two chains.
func (g *Graph) Diameter() int {
	d := 0
	for _, a := range g.chains {
		for _, b := range g.chains {
			d = max(d, g.dist[a][b])
		}
	}
	return d
}

// ShortestPath returns a shortest path from a to b, both included; nil if there is none.
// Among equal-length paths it takes the smallest neighbour at each step, so it is deterministic.
func (g *Graph) ShortestPath(a, b ChainID) []ChainID {
	if g.Distance(a, b) < 0 {
		return nil
	}
	path := []ChainID{a}
	for c := a; c != b; {
		for _, n := range g.adj[c] {
			if g.dist[n][b] == g.dist[c][b]-1 {
				c = n
				break
			}
		}
		path = append(path, c)
	}
	return path
}

// The graphs of the production networks (shared/spec/chainweb-header.md §3).
var (
	SingletonGraph = mustGraph("singleton", map[ChainID][]ChainID{0: {}})
	PetersenGraph  = mustGraph("petersen", map[ChainID][]ChainID{
		0: {2, 3, 5}, 1: {3, 4, 6}, 2: {0, 4, 7}, 3: {0, 1, 8}, 4: {1, 2, 9},
		5: {0, 6, 9}, 6: {1, 5, 7}, 7: {2, 6, 8}, 8: {3, 7, 9}, 9: {4, 5, 8},
	})
	TwentyChainGraph = mustGraph("twenty", map[ChainID][]ChainID{
		0: {5, 10, 15}, 1: {6, 11, 16}, 2: {7, 12, 17}, 3: {8, 13, 18}, 4: {9, 14, 19},
		5: {0, 7, 8}, 6: {1, 8, 9}, 7: {2, 5, 9}, 8: {3, 5, 6}, 9: {4, 6, 7},
		10: {0, 11, 19}, 11: {1, 10, 12}, 12: {2, 11, 13}, 13: {3, 12, 14}, 14: {4, 13, 15},
		15: {0, 14, 16}, 16: {1, 15, 17}, 17: {2, 16, 18}, 18: {3, 17, 19}, 19: {4, 10, 18},
	})
)

// HashMapOrder is the iteration order of the upstream node's hash maps keyed by chain id
// (hashable-1.5 mixHash with unordered-containers' 5-bit chunk order), for chains 0..19. It
// decides the cut id and the key order of /info lists. See chainweb-header.md §7.3.
var HashMapOrder = []ChainID{16, 9, 0, 6, 4, 1, 2, 18, 14, 10, 3, 12, 5, 17, 11, 8, 7, 15, 13, 19}

// InHashMapOrder returns the given chains in HashMapOrder (chains outside 0..19 follow,
// ascending).
func InHashMapOrder(chains []ChainID) []ChainID {
	in := make(map[ChainID]bool, len(chains))
	for _, c := range chains {
		in[c] = true
	}
	out := make([]ChainID, 0, len(chains))
	for _, c := range HashMapOrder {
		if in[c] {
			out = append(out, c)
			delete(in, c)
		}
	}
	rest := make([]ChainID, 0, len(in))
	for c := range in {
		rest = append(rest, c)
	}
	slices.Sort(rest)
	return append(out, rest...)
}
