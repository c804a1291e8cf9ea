package actors

import (
	"log/slog"
	"sync"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// headsWriter persists the heads of the best cut. SetHeads syncs the journal (it is what a
// restart resumes from), which takes milliseconds; doing it on the cut actor would cap the cut's
// update rate at the disk's sync rate. Here the newest heads wait in one slot and a goroutine
// writes whatever is newest when it gets to it, so a burst of cut changes costs one sync.
// Heads only ever name stored headers: chain actors store a block before the cut actor hears of it.
// Blocks newer than the last heads written are still in the store, and a restart joins them
// back into the cut (recover.go).
type headsWriter struct {
	db  *store.DB
	log *slog.Logger
	// failed, when set, is told of a failed write instead of the log (write health); the
	// heads are kept for the next write.
	failed func(error)

	mu      sync.Mutex
	pending map[ledger.ChainID]ledger.Hash // newest heads not yet written; nil when none
	kick    chan struct{}                  // one slot: "pending is set"
	quit    chan struct{}
	done    chan struct{}
}

func newHeadsWriter(db *store.DB, log *slog.Logger) *headsWriter {
	w := &headsWriter{db: db, log: log, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// offer queues hs to be written, replacing any heads still waiting.
func (w *headsWriter) offer(hs pow.Heads) {
	m := make(map[ledger.ChainID]ledger.Hash, len(hs))
	for c, h := range hs {
		if h != nil {
			m[ledger.ChainID(c)] = h.Hash
		}
	}
	w.mu.Lock()
	w.pending = m
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default: // a write is already due; it will take the newest heads
	}
}

func (w *headsWriter) run() {
	defer close(w.done)
	for {
		select {
		case <-w.kick:
			w.write()
		case <-w.quit:
			w.write()
			return
		}
	}
}

func (w *headsWriter) write() {
	w.mu.Lock()
	m := w.pending
	w.pending = nil
	w.mu.Unlock()
	if m == nil {
		return
	}
	if err := w.db.SetHeads(m); err != nil {
		if w.failed == nil {
			w.log.Error("persist the cut's heads", "err", err)
			return
		}
		w.mu.Lock()
		if w.pending == nil {
			w.pending = m // nothing newer came meanwhile: these are the heads to write next
		}
		w.mu.Unlock()
		w.failed(err)
	}
}

// close writes the heads still waiting and stops the writer.
func (w *headsWriter) close() {
	close(w.quit)
	<-w.done
}
