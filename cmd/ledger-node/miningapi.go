package main

import (
	"time"

	"github.com/ledgernode/ledger-node/actors/mining"
)

// startMiningAPI starts the mining coordinator when the mining API is enabled
// (mining.coordination.enabled, --enable-mining-coordination); the service API serves it. Off,
// /mining/* answers 404, as upstream's.
func (n *node) startMiningAPI() *mining.Coordinator {
	c := n.cfg.Mining.Coordination
	if !c.Enabled {
		return nil
	}
	miners := make([]mining.MinerInfo, len(c.Miners))
	for i, m := range c.Miners {
		miners[i] = mining.MinerInfo{Account: m.Account, PublicKeys: m.PublicKeys, Predicate: m.Predicate}
	}
	n.coord = mining.StartCoordinator(n.rt, mining.CoordinationConfig{
		Miners:              miners,
		Limit:               c.Limit,
		UpdateStreamLimit:   c.UpdateStreamLimit,
		UpdateStreamTimeout: time.Duration(c.UpdateStreamTimeout) * time.Second,
		PayloadRefreshDelay: time.Duration(c.PayloadRefreshDelay) * time.Microsecond,
	})
	return n.coord
}

// stopMiningAPI stops the coordinator, if any: work requests waiting for a chain end with 503
// and the update streams close, so that they do not hold a shutdown up.
func (n *node) stopMiningAPI() {
	if n.coord != nil {
		n.coord.Stop()
	}
}
