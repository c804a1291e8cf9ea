package actors

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/txexec"
)

// A new data directory gets the genesis blocks and heads; a used one is checked against them,
// and one made with another genesis (another block delay's target, another build's payloads)
// is refused with what is stored and what this node wanted.
func TestInitGenesis(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	v := ledger.Development
	g, err := MakeGenesis(txexec.New(txexec.Config{}), v)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Headers) != len(v.Chains()) {
		t.Fatalf("%d genesis headers for %d chains", len(g.Headers), len(v.Chains()))
	}
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := InitGenesis(db, g, log); err != nil {
		t.Fatal(err)
	}
	heads, err := db.Heads()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range g.Headers {
		if heads[h.ChainID] != h.Hash {
			t.Errorf("chain %d: head %s, want the genesis %s", h.ChainID, heads[h.ChainID], h.Hash)
		}
		if ok, err := db.HasPayload(h.PayloadHash); !ok || err != nil {
			t.Errorf("chain %d: genesis payload not stored (%v)", h.ChainID, err)
		}
	}
	if err := InitGenesis(db, g, log); err != nil {
		t.Fatalf("second start: %v", err)
	}

	// The same payloads under another genesis target (another block delay).
	other := v.WithGenesisTarget(ledger.U256{1 << 40})
	slower := &Genesis{Version: other, Payloads: g.Payloads}
	for _, h := range g.Headers {
		slower.Headers = append(slower.Headers, ledger.GenesisHeader(other, h.ChainID, h.PayloadHash))
	}
	var gm *GenesisMismatchError
	if err := InitGenesis(db, slower, log); !errors.As(err, &gm) {
		t.Fatalf("another target: %v, want a GenesisMismatchError", err)
	}
	if gm.Stored == nil || gm.Stored.Hash != g.Headers[gm.Want.ChainID].Hash || gm.Want != slower.Headers[gm.Want.ChainID] {
		t.Fatalf("mismatch %+v: want the stored genesis and this node's", gm)
	}

	// Not the development network: nothing is looked up at the genesis height.
	single := &Genesis{Version: ledger.TestSingleton, Headers: []*ledger.Header{ledger.GenesisHeader(ledger.TestSingleton, 0, ledger.Hash{7})}}
	gm = nil
	if err := InitGenesis(db, single, log); !errors.As(err, &gm) || gm.Stored != nil || gm.Network != ledger.TestSingleton.Name {
		t.Fatalf("test-singleton: %v", err)
	}
}

// Networks whose genesis payloads are upstream's get no genesis from this node, and their data
// directories start empty.
func TestUpstreamNetworkHasNoGenesis(t *testing.T) {
	if WritesGenesis(ledger.Mainnet01) {
		t.Fatal("this node would write mainnet's genesis")
	}
	g, err := MakeGenesis(nil, ledger.Mainnet01)
	if err != nil || g != nil {
		t.Fatalf("MakeGenesis: %v %v", g, err)
	}
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := InitGenesis(db, nil, nil); err != nil {
		t.Fatal(err)
	}
	if heads, _ := db.Heads(); len(heads) != 0 {
		t.Fatalf("heads %v", heads)
	}
}
