package main

import (
	"fmt"
	"net"

	"github.com/ledgernode/ledger-node/actors/peersync"
	"github.com/ledgernode/ledger-node/transport/connguard"
)

// The process's file descriptors, shared out (issue 30). A node that ran out of them died: its
// listener's accept failed and the server returned. Now the listeners hold their connections
// under limits set below the descriptor limit, with room kept for what else needs descriptors:
// goleveldb's table files (whose cache is sized from the same limit), the header log, log files
// and the backup jobs, and outgoing connections to peers.
type descriptorBudget struct {
	limit     int // RLIMIT_NOFILE (0: unknown)
	levelDB   int // goleveldb's open table files
	reserved  int // descriptors kept for everything but incoming connections
	service   connguard.ConnLimits
	peer      connguard.ConnLimits
	makeBlock connguard.ConnLimits
}

// Parts of the reserve besides goleveldb's files: the header log, the goleveldb journal and
// manifest, log files, a backup's files, the make-blocks listener's few connections...
// (otherFiles), and the outgoing peer connections (two per peer: the sync's and the relay's).
const (
	otherFiles       = 64
	outgoingPerPeer  = 2
	makeBlocksConns  = 16
	makeBlocksPerIP  = 4
	minLevelDBFiles  = 32
	maxLevelDBFiles  = 500 // goleveldb's own default
	levelDBFileShare = 8   // an eighth of the descriptors
)

// newDescriptorBudget divides limit (0: unknown) for cfg: explicit limits in cfg win over the
// derived ones.
func newDescriptorBudget(cfg *Config, limit int, peerAPI bool) descriptorBudget {
	b := descriptorBudget{limit: limit}
	b.levelDB = maxLevelDBFiles
	if limit > 0 {
		b.levelDB = min(max(limit/levelDBFileShare, minLevelDBFiles), maxLevelDBFiles)
	}
	b.reserved = b.levelDB + otherFiles + makeBlocksConns
	if peerAPI {
		b.reserved += outgoingPerPeer * peersync.DefaultMaxPeers
		auto := connguard.AutoConnLimits(limit, b.reserved, 2.0/3, 1.0/3)
		b.service, b.peer = auto[0], auto[1]
	} else {
		b.service = connguard.AutoConnLimits(limit, b.reserved, 1)[0]
	}
	b.service = override(b.service, cfg.ServiceAPI.MaxConnections, cfg.ServiceAPI.MaxConnectionsPerAddress)
	b.peer = override(b.peer, cfg.P2P.MaxConnections, cfg.P2P.MaxConnectionsPerAddress)
	b.makeBlock = connguard.ConnLimits{Max: makeBlocksConns, PerAddress: makeBlocksPerIP}
	return b
}

func override(l connguard.ConnLimits, max, perAddress int) connguard.ConnLimits {
	if max > 0 {
		l.Max = max
		if perAddress == 0 {
			l.PerAddress = min(l.PerAddress, max)
		}
	}
	if perAddress > 0 {
		l.PerAddress = perAddress
	}
	return l
}

// String is the budget for the start-up log.
func (b descriptorBudget) String() string {
	limit := "unknown"
	if b.limit > 0 {
		limit = fmt.Sprint(b.limit)
	}
	return fmt.Sprintf("descriptors %s (goleveldb %d, other files and peers %d); service API %d connections (%d per address), peer API %d (%d per address)",
		limit, b.levelDB, b.reserved-b.levelDB, b.service.Max, b.service.PerAddress, b.peer.Max, b.peer.PerAddress)
}

// guard wraps a bound listener in its limits (nil stays nil).
func guard(ln net.Listener, l connguard.ConnLimits, name string, n *node) net.Listener {
	if ln == nil {
		return nil
	}
	g := connguard.GuardListener(ln, l, name, n.log)
	n.guarded = append(n.guarded, namedListener{name, g})
	return g
}

// namedListener is a guarded listener with the API it serves, for the metrics.
type namedListener struct {
	api string
	ln  *connguard.GuardedListener
}
