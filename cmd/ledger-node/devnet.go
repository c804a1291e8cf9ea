package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// The development network's block delay: the genesis target derived from it (and the reasons
// for the derivation) are pow's (pow/devnet.go).
const (
	defaultBlockDelay = 30 * time.Second
	// The bounds keep the DA in range: below a few milliseconds creation times (µs) and the
	// node's own overhead dominate; above an hour a development network is not much use.
	minBlockDelay = 5 * time.Millisecond
	maxBlockDelay = time.Hour
)

// nodeVersion is the version the node runs for cfg: the registered network, except that the
// development network gets the configured block delay and the genesis target derived from it
// (or, in tests, an explicit one).
func nodeVersion(cfg Config, genesisTarget *ledger.U256) *ledger.Version {
	v, _ := ledger.VersionByName(cfg.Network)
	if v != ledger.Development {
		return v
	}
	d := cfg.Mining.BlockDelay
	if d == 0 {
		d = defaultBlockDelay
	}
	t := pow.DevGenesisTarget(d)
	if genesisTarget != nil {
		t = *genesisTarget
	}
	v = v.WithBlockDelay(d.Microseconds()).WithGenesisTarget(t)
	if cfg.Mining.DisablePow {
		v = v.WithoutPow()
	}
	return v
}

// minerData is the miner data of the blocks this node mines: the configured account (k:<key>
// when only a key is given) and key; else, mining on demand, the first miner of the mining API
// (mining.coordination.miners, --mining-public-key), the one Kadena devnet's on-demand mining
// client asked for work as and so paid; else upstream's NoMiner.
func (m *MiningConfig) minerData() []byte {
	switch {
	case m.Account == "" && m.PublicKey == "" && m.Mode == "on-demand" && len(m.Coordination.Miners) > 0:
		return m.Coordination.Miners[0].minerData()
	case m.Account == "" && m.PublicKey == "":
		return ledger.NoMinerData
	case m.PublicKey == "":
		return ledger.MinerData(m.Account)
	case m.Account == "":
		return ledger.MinerData("k:"+m.PublicKey, m.PublicKey)
	}
	return ledger.MinerData(m.Account, m.PublicKey)
}

// minerData is the miner data naming miner id, with its predicate (keys-all when none).
func (id MinerID) minerData() []byte {
	if id.Predicate == "" || id.Predicate == "keys-all" {
		return ledger.MinerData(id.Account, id.PublicKeys...)
	}
	return ledger.MinerDataWith(id.Account, id.Predicate, id.PublicKeys)
}

// devStartHeight is the height every chain reaches before a fresh development node serves
// (Kadena's devnet mines 2 blocks per chain at start-up too).
const devStartHeight = 2

// mineFirstBlocks waits, on a mining development node whose chains are not all at
// devStartHeight yet (a fresh data directory), until they are, and reports how long that took.
// Until then the ports are bound but not served: a client's first request waits for an answer
// rather than getting one a transaction could not use, since every chain would still be at its
// 2019 genesis time and a transaction created now would be refused as too far in the future.
func (n *node) mineFirstBlocks(ctx context.Context, out io.Writer) {
	if n.version.Name != ledger.Development.Name {
		return
	}
	// On demand, the start-up blocks are what gets mined: wait for as many as were asked.
	want := uint64(devStartHeight)
	switch n.cfg.Mining.Mode {
	case "pow":
	case "on-demand":
		want = min(want, uint64(n.cfg.Mining.OnDemand.StartBlocks))
	default:
		return
	}
	if low, _ := cutRange(n.rt.Cut()); low >= want {
		return
	}
	start := time.Now()
	n.startLog(out).Info(fmt.Sprintf("mining the first %d blocks of every chain before serving", want), "height", want)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if low, _ := cutRange(n.rt.Cut()); low >= want {
			took := time.Since(start).Round(time.Millisecond)
			n.startLog(out).Info(fmt.Sprintf("every chain is at height %d after %v: serving", want, took), "height", want, "took", took)
			return
		}
	}
}
