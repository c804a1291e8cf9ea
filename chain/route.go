package chain

import (
	"fmt"

	"github.com/ledgernode/ledger-node/ledger"
)

// Route is how a chain's state reaches a target block: back to Fork, the last block of the
// target's branch the state holds (nil when the state holds none of it: it is empty, or on a
// branch that shares no history with the target), then forward through Apply, oldest first,
// ending with the target. A state at Fork already needs no rewind.
type Route struct {
	Fork  *ledger.Header
	Apply []*ledger.Header
}

// RouteTo walks back from target through its parents until a block the state holds (onState),
// or past the chain's genesis.
func RouteTo(v *ledger.Version, hs Headers, target *ledger.Header, onState func(*ledger.Header) (bool, error)) (Route, error) {
	var path []*ledger.Header
	h := target
	for {
		on, err := onState(h)
		if err != nil {
			return Route{}, err
		}
		if on {
			break
		}
		path = append(path, h)
		if IsGenesis(v, h) {
			h = nil
			break
		}
		p, err := hs.Header(h.Parent)
		if err != nil {
			return Route{}, fmt.Errorf("parent of block %d %s: %w", h.Height, h.Hash, err)
		}
		h = p
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return Route{Fork: h, Apply: path}, nil
}
