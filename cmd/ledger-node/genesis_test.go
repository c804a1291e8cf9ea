package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// What the user reads when a data directory's genesis is not this node's, for each reason the
// stored genesis block can tell.
func TestGenesisMismatchWording(t *testing.T) {
	dev := ledger.Development.WithBlockDelay((3 * time.Second).Microseconds()).WithGenesisTarget(pow.DevGenesisTarget(3 * time.Second))
	want := ledger.GenesisHeader(dev, 0, ledger.Hash{1})
	at := func(target ledger.U256, payload ledger.Hash) *ledger.Header {
		return ledger.GenesisHeader(ledger.Development.WithGenesisTarget(target), 0, payload)
	}
	for name, c := range map[string]struct {
		v      *ledger.Version
		stored *ledger.Header
		want   []string
		not    []string
	}{
		"other network": {ledger.TestSingleton, nil,
			[]string{"data directory /d holds other genesis blocks than this build's test-singleton network"}, nil},
		"other build": {dev, at(want.Target, ledger.Hash{2}),
			[]string{"data directory /d was made by a ledger-node build with another development genesis (genesis payload " +
				ledger.Hash{2}.String() + ", this build's " + ledger.Hash{1}.String() + ")"}, nil},
		"other delay": {dev, at(pow.DevGenesisTarget(2*time.Second), ledger.Hash{1}),
			[]string{"was created with another block delay: its genesis blocks are not those of --block-delay 3s (they look like --block-delay 2s); " +
				"start with the block delay it was created with (--block-delay, YAML mining.blockDelay) or use another --data-dir"},
			[]string{"before the development network's first blocks got cheap"}},
		"nothing stored": {dev, nil,
			[]string{"not those of --block-delay 3s; start with"}, []string{"they look like"}},
		"earlier build": {dev, at(pow.LegacyDevGenesisTarget(30*time.Second), ledger.Hash{1}),
			[]string{". If a ledger-node build from before the development network's first blocks got cheap made it (--block-delay 30s then)"}, nil},
	} {
		msg := genesisMismatch("/d", c.v, &actors.GenesisMismatchError{Network: c.v.Name, Want: want, Stored: c.stored}).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", name, msg, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(msg, w) {
				t.Errorf("%s: %q says %q", name, msg, w)
			}
		}
	}
}
