package actors

import (
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/store"
)

// A Part runs over the runtime and follows its best cut: the miner (package actors/mining) and
// peer sync (package actors/peersync). They are clients of the runtime, as the service API is:
// they read the published cut and insert blocks through Insert. Attach one so that the cut
// actor tells it of each new cut and Stop ends it in its place.
type Part interface {
	// CutChanged is the cut actor's notice of a new best cut. It runs on the cut actor's path:
	// it wakes the part and returns, never waits.
	CutChanged(*CutView)
	// Stop ends the part and waits for it. Runtime.Stop calls it after the executors refuse
	// work (a part waiting on one returns within a block's execution) and before the actors
	// stop (the blocks it inserts last reach the cut).
	Stop()
}

// TxWatcher is a Part told of the transactions /send accepted, after the mempool took them:
// peer sync relays them to the peers, the on-demand miner mines them.
type TxWatcher interface {
	TxsSent(c ledger.ChainID, cmds []*api.Command, keys []api.Hash)
}

// CatchUp is a Part that knows when the node is behind its peers (peer sync's CatchingUp).
type CatchUp interface {
	CatchingUp() bool
}

// MinerCounts is a Part that mines: Stats reports its figures.
type MinerCounts interface {
	// MinerCounts returns the blocks mined and stored, the nonces tried, and the workers
	// blocked until writes succeed again.
	MinerCounts() (mined, hashes uint64, heldByWrites int)
}

// Attach adds p to the parts the runtime tells of each cut change and stops on Stop (the last
// attached first). A part attached after Stop is stopped at once.
func (r *Runtime) Attach(p Part) {
	r.partsMu.Lock()
	if r.stopped.Load() {
		r.partsMu.Unlock()
		p.Stop()
		return
	}
	ps := append(append([]Part(nil), r.loadParts()...), p)
	r.parts.Store(&ps)
	r.partsMu.Unlock()
}

// loadParts returns the attached parts, in the order attached; the slice is never modified.
func (r *Runtime) loadParts() []Part {
	if ps := r.parts.Load(); ps != nil {
		return *ps
	}
	return nil
}

// CatchingUp reports whether an attached part (peer sync) says the node is behind its peers:
// the miner waits meanwhile.
func (r *Runtime) CatchingUp() bool {
	for _, p := range r.loadParts() {
		if c, ok := p.(CatchUp); ok && c.CatchingUp() {
			return true
		}
	}
	return false
}

// txsSent tells the attached TxWatchers of transactions /send accepted on chain c.
func (r *Runtime) txsSent(c ledger.ChainID, cmds []*api.Command, keys []api.Hash) {
	for _, p := range r.loadParts() {
		if w, ok := p.(TxWatcher); ok {
			w.TxsSent(c, cmds, keys)
		}
	}
}

// WaitWritable returns at once while the store's writes succeed; after a failed write it blocks
// until a probe write succeeds again or quit is closed, counting the caller in held meanwhile
// (writehealth.go). It reports whether it waited.
func (r *Runtime) WaitWritable(quit <-chan struct{}, held *atomic.Int32) bool {
	return r.health.wait(quit, held)
}

// Version is the network the runtime runs.
func (r *Runtime) Version() *ledger.Version { return r.cfg.Version }

// Store is the runtime's data directory. Reads go to it directly, never through an actor.
func (r *Runtime) Store() *store.DB { return r.cfg.Store }

// Genesis returns each chain's genesis header, by chain id (Config.Genesis).
func (r *Runtime) Genesis() []*ledger.Header { return r.cfg.Genesis }

// Logger is the runtime's logger.
func (r *Runtime) Logger() *slog.Logger { return r.cfg.Logger }

// Now is the runtime's clock (Config.Now).
func (r *Runtime) Now() time.Time { return r.cfg.Now() }

// Header reads a stored header (from the store, never through an actor).
func (r *Runtime) Header(h ledger.Hash) (*ledger.Header, bool) { return r.lookup(h) }

// Parts returns the parts attached, in the order attached.
func (r *Runtime) Parts() []Part { return slices.Clone(r.loadParts()) }
