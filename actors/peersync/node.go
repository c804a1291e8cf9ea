package peersync

import (
	"log/slog"
	"sync/atomic"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// Node is what peer sync needs of the node's runtime (*actors.Runtime): its network and data
// directory (reads go to the store, never through an actor), its published cut, block
// insertion through the chain actors, each chain's mempool (through its executor), the wait
// while the store cannot write, and Attach, by which the runtime tells it of new cuts and
// /send's transactions and stops it.
type Node interface {
	Version() *ledger.Version
	Genesis() []*ledger.Header
	Store() *store.DB
	Logger() *slog.Logger
	Cut() *ledger.Cut
	View() *actors.CutView
	Insert(h *ledger.Header, p *ledger.PayloadWithOutputs) error
	Executor(c ledger.ChainID) (*actors.Executor, bool)
	WaitWritable(quit <-chan struct{}, held *atomic.Int32) bool
	Attach(actors.Part)
}

var _ Node = (*actors.Runtime)(nil)

// Of returns the peer sync attached to rt, nil when none is (a node without peers, or before
// Start).
func Of(rt *actors.Runtime) *Syncer {
	for _, p := range rt.Parts() {
		if s, ok := p.(*Syncer); ok {
			return s
		}
	}
	return nil
}
