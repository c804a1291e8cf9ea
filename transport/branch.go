package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// branchBounds is the body of the branch endpoints. Upstream parses both lists into sets, so
// duplicates collapse before the bound limit is counted; first-seen order is kept so that "the
// first unknown upper bound" is well defined.
type branchBounds struct {
	lower, upper []ledger.Hash
}

// parseBranchBody decodes {"lower": [hash...], "upper": [hash...]}. Both keys are optional and
// may be null; other keys are ignored, as aeson ignores them. Errors carry the decoder's message
// for the 400 body.
func parseBranchBody(body []byte) (branchBounds, error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return branchBounds{}, errors.New("branch bounds must be a JSON object with optional keys \"lower\" and \"upper\"")
	}
	var raw struct {
		Lower []ledger.Hash `json:"lower"`
		Upper []ledger.Hash `json:"upper"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return branchBounds{}, err
	}
	return branchBounds{lower: dedupe(raw.Lower), upper: dedupe(raw.Upper)}, nil
}

// dedupe removes repeated hashes, keeping first occurrences in order.
func dedupe(hs []ledger.Hash) []ledger.Hash {
	if len(hs) < 2 {
		return hs
	}
	seen := make(map[ledger.Hash]struct{}, len(hs))
	out := hs[:0]
	for _, h := range hs {
		if _, dup := seen[h]; !dup {
			seen[h] = struct{}{}
			out = append(out, h)
		}
	}
	return out
}

// branchLimitBody is the 400 body for too many bounds: a JSON string, upstream's wording.
func branchLimitBody(which string, limit int) []byte {
	return httpkit.AppendJSONString(nil, which+" branch bound limit exceeded. Only "+strconv.Itoa(limit)+" values are supported.")
}

// ancestorAt walks h down to its ancestor at the given height; nil when h is lower than that or
// the walk leaves the stored chain.
func ancestorAt(db chainDB, h *ledger.Header, height uint64) (*ledger.Header, error) {
	for h.Height > height {
		p, err := db.Header(h.Parent)
		if err != nil {
			if isNotFound(err) {
				return nil, nil
			}
			return nil, err
		}
		h = p
	}
	if h.Height != height {
		return nil, nil
	}
	return h, nil
}

// walkBranch yields the blocks that are ancestors-or-self of some upper bound and of no lower
// bound, in descending height, and within one height in ascending raw-hash order (upstream
// leaves that order to hash-set iteration; a total order is what makes cursors exact). It stops
// below minHeight, when the walk leaves the stored chain (a genesis block's parent), or when
// yield returns false.
//
// It walks all frontiers down together, one height at a time: the upper frontier holds the
// distinct blocks at the current height that descend to an upper bound, and every lower bound is
// brought down to that height too. A block equal to a lowered lower bound is an ancestor of it,
// and so are all its ancestors, so it leaves the frontier for good. Both frontiers hold at most
// one block per bound, so memory stays small however long the branch is.
func walkBranch(db chainDB, uppers, lowers []*ledger.Header, minHeight uint64, yield func(*ledger.Header) bool) error {
	up := slices.Clone(uppers)
	low := slices.Clone(lowers)
	parentOf := func(h *ledger.Header) (*ledger.Header, error) {
		p, err := db.Header(h.Parent)
		if err != nil {
			if isNotFound(err) {
				return nil, nil
			}
			return nil, err
		}
		if p.ChainID != h.ChainID || p.Height+1 != h.Height {
			return nil, nil // not a real parent; never walk into another chain
		}
		return p, nil
	}
	var level []*ledger.Header
	for len(up) > 0 {
		height := up[0].Height
		for _, u := range up[1:] {
			height = max(height, u.Height)
		}
		if height < minHeight {
			return nil
		}
		// Bring the lower frontier down to this height.
		keep := low[:0]
		for _, l := range low {
			for l != nil && l.Height > height {
				var err error
				if l, err = parentOf(l); err != nil {
					return err
				}
			}
			if l != nil {
				keep = append(keep, l)
			}
		}
		low = keep
		// Split off this height's blocks, distinct and in hash order.
		level = level[:0]
		rest := up[:0]
		for _, u := range up {
			if u.Height == height {
				level = append(level, u)
			} else {
				rest = append(rest, u)
			}
		}
		slices.SortFunc(level, func(a, b *ledger.Header) int { return bytes.Compare(a.Hash[:], b.Hash[:]) })
		level = slices.CompactFunc(level, func(a, b *ledger.Header) bool { return a.Hash == b.Hash })
		up = rest
		for _, u := range level {
			if slices.ContainsFunc(low, func(l *ledger.Header) bool { return l.Hash == u.Hash }) {
				continue
			}
			if !yield(u) {
				return nil
			}
			p, err := parentOf(u)
			if err != nil {
				return err
			}
			if p != nil {
				up = append(up, p)
			}
		}
	}
	return nil
}
