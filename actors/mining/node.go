package mining

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// Node is what the miner and the mining coordinator need of the node's runtime
// (*actors.Runtime): its network, clock and data directory (reads go to the store, never
// through an actor), its published cut and the channel of its next change, block insertion
// through the chain actors, each chain's executor (which builds the payloads), whether peer
// sync is catching up, the wait while the store cannot write, and Attach, by which the runtime
// tells the miner of new cuts and /send's transactions and stops it.
type Node interface {
	Version() *ledger.Version
	Now() time.Time
	Logger() *slog.Logger
	Store() *store.DB
	Header(h ledger.Hash) (*ledger.Header, bool)
	View() *actors.CutView
	CutChanged() <-chan struct{}
	Insert(h *ledger.Header, p *ledger.PayloadWithOutputs) error
	Executor(c ledger.ChainID) (*actors.Executor, bool)
	CatchingUp() bool
	WaitWritable(quit <-chan struct{}, held *atomic.Int32) bool
	Attach(actors.Part)
}

var _ Node = (*actors.Runtime)(nil)
