package actors

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/txexec"
)

// Genesis is the genesis blocks this node makes for a network, by chain id.
type Genesis struct {
	Version  *ledger.Version
	Headers  []*ledger.Header
	Payloads []*ledger.PayloadWithOutputs
}

// WritesGenesis reports whether this node computes and writes the genesis blocks of network v
// (and so executes Pact and runs the peer API there).
func WritesGenesis(v *ledger.Version) bool {
	_, upstream := v.UpstreamGenesisPayloadHash(0)
	return !upstream || v.Name == ledger.Development.Name
}

// MakeGenesis computes the genesis blocks of the networks whose genesis this node writes (our
// development network and test-singleton; DECISIONS.md "development network"): each chain's
// genesis payload runs pact/contracts' development genesis on r, and its hash is computed here,
// at start, never pasted in. The upstream networks keep upstream's genesis payloads, which this
// node does not carry: their data directories hold only what is imported, and there MakeGenesis
// returns nil and no Pact runs.
func MakeGenesis(r *txexec.Runner, v *ledger.Version) (*Genesis, error) {
	if !WritesGenesis(v) {
		return nil, nil
	}
	chains := v.Chains()
	size := 0
	for _, c := range chains {
		size = max(size, int(c)+1)
	}
	g := &Genesis{Version: v, Headers: make([]*ledger.Header, size), Payloads: make([]*ledger.PayloadWithOutputs, size)}
	errs := make([]error, size)
	var wg sync.WaitGroup
	for _, c := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := chain.GenesisPayload(r, c, v.Name)
			if err != nil {
				errs[c] = err
				return
			}
			g.Payloads[c], g.Headers[c] = p, ledger.GenesisHeader(v, c, p.PayloadHash)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return g, nil
}

// InitGenesis writes g's blocks and makes them the heads when db is new (has no heads), and
// otherwise checks that db holds them, failing with a *GenesisMismatchError when it does not. A
// nil g (a network whose genesis this node does not write) writes and checks nothing.
func InitGenesis(db *store.DB, g *Genesis, log *slog.Logger) error {
	heads, err := db.Heads()
	if err != nil {
		return fmt.Errorf("read heads: %w", err)
	}
	if g == nil {
		return nil
	}
	if len(heads) > 0 {
		return g.check(db, log)
	}
	if err := g.write(db); err != nil {
		return fmt.Errorf("write genesis: %w", err)
	}
	log.Info("wrote genesis blocks", "network", g.Version.Name, "chains", len(g.Headers))
	return nil
}

// write stores every chain's genesis block and makes them the heads.
func (g *Genesis) write(db *store.DB) error {
	for _, p := range g.Payloads {
		if p == nil {
			continue
		}
		if err := db.PutPayload(p); err != nil {
			return err
		}
	}
	heads := map[ledger.ChainID]ledger.Hash{}
	for _, h := range g.Headers {
		if h != nil {
			heads[h.ChainID] = h.Hash
		}
	}
	if err := db.PutHeaders(g.Headers...); err != nil {
		return err
	}
	return db.SetHeads(heads)
}

// GenesisMismatchError is a data directory whose genesis block of a chain is not this node's. On
// the development network that happens when it was created with another block delay (the genesis
// target follows the delay, pow/devnet.go) or by a build with another development genesis: mixing
// them would leave the node on a cut it cannot extend.
type GenesisMismatchError struct {
	Network string
	// Want is this node's genesis block of the chain.
	Want *ledger.Header
	// Stored is the block stored at that chain's genesis height, nil when there is none; only
	// looked for on the development network, whose genesis depends on the block delay.
	Stored *ledger.Header
}

func (e *GenesisMismatchError) Error() string {
	if e.Stored == nil {
		return fmt.Sprintf("chain %d: the data directory lacks this node's %s genesis block %s", e.Want.ChainID, e.Network, e.Want.Hash)
	}
	return fmt.Sprintf("chain %d: the data directory's genesis block is %s, not this node's %s genesis block %s",
		e.Want.ChainID, e.Stored.Hash, e.Network, e.Want.Hash)
}

// check refuses a data directory whose genesis blocks are not g's. A development genesis block
// lost with a damaged header log, with nothing else at its height, is stored again instead.
func (g *Genesis) check(db *store.DB, log *slog.Logger) error {
	for _, h := range g.Headers {
		if h == nil {
			continue
		}
		if ok, err := db.HasHeader(h.Hash); err != nil || ok {
			if err != nil {
				return err
			}
			continue
		}
		if g.Version.Name != ledger.Development.Name {
			return &GenesisMismatchError{Network: g.Version.Name, Want: h}
		}
		stored := g.storedAt(db, h.ChainID)
		if stored == nil && len(db.Recovered()) > 0 {
			// Lost with a damaged header log (store, integrity.go) and nothing else at its
			// height: store it again; the chain resumes from it.
			if err := db.PutBlock(h, g.Payloads[h.ChainID], nil); err != nil {
				return err
			}
			log.Warn("stored again a genesis block lost with the damaged header log", "chain", h.ChainID)
			continue
		}
		return &GenesisMismatchError{Network: g.Version.Name, Want: h, Stored: stored}
	}
	return nil
}

// storedAt returns the stored block at chain c's genesis height, nil if there is none.
func (g *Genesis) storedAt(db *store.DB, c ledger.ChainID) *ledger.Header {
	var found *ledger.Header
	h, _ := g.Version.GenesisHeight(c)
	db.ScanChain(c, store.Position{Height: h}, func(x *ledger.Header) bool {
		if x.Height == h {
			found = x
		}
		return false
	})
	return found
}
