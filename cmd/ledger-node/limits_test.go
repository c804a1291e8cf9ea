package main

import (
	"testing"

	"github.com/ledgernode/ledger-node/transport/connguard"
)

// The descriptor budget at issue 30's `ulimit -n 512`: goleveldb keeps an eighth, the reserve
// covers the other files and the outgoing peer connections, and the APIs share the rest two to
// one; explicit limits win, and an explicit global limit caps the derived per-address one.
func TestDescriptorBudget(t *testing.T) {
	cfg := DefaultConfig()
	b := newDescriptorBudget(&cfg, 512, true)
	if b.levelDB != 64 || b.reserved != 64+otherFiles+makeBlocksConns+128 {
		t.Fatalf("goleveldb %d, reserved %d", b.levelDB, b.reserved)
	}
	if b.service != (connguard.ConnLimits{Max: 160, PerAddress: 40}) || b.peer != (connguard.ConnLimits{Max: 80, PerAddress: 20}) {
		t.Fatalf("service %+v, peer %+v", b.service, b.peer)
	}
	if total := b.reserved + b.service.Max + b.peer.Max; total > 512 {
		t.Fatalf("the budget hands out %d descriptors of 512", total)
	}
	// Without a peer API the service API has what is left.
	if b := newDescriptorBudget(&cfg, 512, false); b.service.Max != 512-b.reserved || b.peer.Max != 0 {
		t.Fatalf("no peer API: service %+v, peer %+v", b.service, b.peer)
	}
	cfg.ServiceAPI.MaxConnections, cfg.P2P.MaxConnectionsPerAddress = 10, 3
	b = newDescriptorBudget(&cfg, 512, true)
	if b.service != (connguard.ConnLimits{Max: 10, PerAddress: 10}) || b.peer != (connguard.ConnLimits{Max: 80, PerAddress: 3}) {
		t.Fatalf("explicit limits: service %+v, peer %+v", b.service, b.peer)
	}
	// A large limit: goleveldb's own default of files, the connections capped.
	cfg = DefaultConfig()
	if b := newDescriptorBudget(&cfg, 1<<20, true); b.levelDB != maxLevelDBFiles || b.service.Max != 16384 || b.service.PerAddress != 256 {
		t.Fatalf("at 2^20 descriptors: %s", b)
	}
}
