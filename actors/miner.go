package actors

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// MiningConfig turns the miner on.
type MiningConfig struct {
	// MinerData is the miner-data JSON of every mined block (ledger.MinerData). Without Pact
	// execution every block carries an empty payload around it; with it the executors build
	// the payloads (and pay this miner).
	MinerData []byte
	// Workers is the number of nonce-search goroutines; 0 means GOMAXPROCS (one per core).
	Workers int
	// ChunkNonces is how many nonces a worker tries between looks at the cut; 0 means
	// DefaultChunkNonces.
	ChunkNonces uint64
}

const (
	// DefaultChunkNonces is about 4 ms of search on one core at the midstate rate (~8 M/s;
	// bench/RESULTS.md): a new cut makes workers drop stale work within that, which wastes well
	// under 1% of the hashes at the 30 s block delay, while the check itself costs nothing.
	DefaultChunkNonces = 1 << 15
	// chunksPerRound is how many chunks a worker spends on one chain before it takes the next
	// one: hash power is spread over every chain that can advance, and a block's creation
	// time is never more than a round (~30 ms) older than the search that found it.
	chunksPerRound = 8
)

// miner searches nonces for the chains that can advance in the current cut and submits what it
// finds to the chain actors. Its workers read the published cut; the cut actor wakes them when
// it changes.
type miner struct {
	rt      *Runtime
	v       *ledger.Version
	payload *ledger.PayloadWithOutputs
	workers int
	chunk   uint64
	now     func() time.Time
	log     *slog.Logger

	mu      sync.Mutex
	changed chan struct{} // closed when the cut changes, then replaced

	hashes atomic.Uint64 // nonces tried
	mined  atomic.Uint64 // blocks found and accepted by their chain actor
	quit   chan struct{}
	wg     sync.WaitGroup
}

func newMiner(rt *Runtime, cfg MiningConfig) *miner {
	m := &miner{
		rt:      rt,
		v:       rt.cfg.Version,
		payload: ledger.EmptyPayload(cfg.MinerData),
		workers: cfg.Workers,
		chunk:   cfg.ChunkNonces,
		now:     rt.cfg.Now,
		log:     rt.cfg.Logger.With("component", "miner"),
		changed: make(chan struct{}),
		quit:    make(chan struct{}),
	}
	if m.workers <= 0 {
		m.workers = runtime.GOMAXPROCS(0)
	}
	if m.chunk == 0 {
		m.chunk = DefaultChunkNonces
	}
	return m
}

func (m *miner) start() {
	for i := range m.workers {
		m.wg.Add(1)
		go m.work(i)
	}
	m.log.Info("mining", "workers", m.workers, "miner", string(m.payload.MinerData))
}

// stop ends the search and waits for the workers; a block being submitted is submitted first.
func (m *miner) stop() {
	close(m.quit)
	m.cutChanged(nil) // wake workers waiting for a cut
	m.wg.Wait()
}

// cutChanged is the cut actor's notice: workers drop their work at the next chunk boundary.
func (m *miner) cutChanged(*CutView) {
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// waitChange waits until the cut is newer than seq, the miner stops, or d passes.
func (m *miner) waitChange(seq uint64, d time.Duration) {
	m.mu.Lock()
	ch := m.changed
	m.mu.Unlock()
	if m.rt.view.Load().Seq != seq {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-m.quit:
	case <-t.C:
	}
}

func (m *miner) stopped() bool {
	select {
	case <-m.quit:
		return true
	default:
		return false
	}
}

// work is one search goroutine. Each round it takes the next chain that can advance (workers
// start at different chains), builds fresh work for it, and searches up to chunksPerRound
// chunks, leaving early when the cut changes.
func (m *miner) work(id int) {
	defer m.wg.Done()
	var w pow.Work // reused: Reset rewrites it for each header
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(id)))
	round := id
	for !m.stopped() {
		if m.rt.health.wait(m.quit) {
			continue // writes failed: no search until they succeed again (writehealth.go)
		}
		view := m.rt.view.Load()
		chains := pow.Minable(m.v, view.Heads)
		if len(chains) == 0 {
			m.waitChange(view.Seq, time.Second)
			continue
		}
		c := chains[round%len(chains)]
		round++
		h, payload, err := m.newHeader(view.Heads, c)
		if err != nil {
			m.log.Debug("no work", "chain", c, "err", err)
			m.waitChange(view.Seq, 10*time.Millisecond)
			continue
		}
		if err := w.Reset(h.WorkBytes(), h.Target); err != nil {
			m.log.Error("prepare work", "chain", c, "err", err)
			return
		}
		// A random start keeps two workers on the same chain (and the same creation time) from
		// trying the same nonces.
		nonce, found := rng.Uint64(), false
		for range chunksPerRound {
			n, ok := w.Search(nonce, m.chunk)
			if ok {
				m.hashes.Add(n - nonce + 1)
				nonce, found = n, true
				break
			}
			m.hashes.Add(m.chunk)
			nonce += m.chunk
			if m.stopped() || m.rt.view.Load().Seq != view.Seq {
				break
			}
		}
		if found {
			h.Nonce = nonce
			h.Seal()
			m.submit(h, payload)
		}
	}
}

// newHeader builds the next block of chain c in cut hs, created now, after every parent, with
// its payload.
func (m *miner) newHeader(hs pow.Heads, c ledger.ChainID) (*ledger.Header, *ledger.PayloadWithOutputs, error) {
	p, adj, err := pow.MiningParents(m.v, hs, c, m.rt.lookup)
	if err != nil {
		return nil, nil, err
	}
	payload := m.payload
	if x, ok := m.rt.Executor(c); ok {
		if payload, err = x.Build(p); err != nil {
			return nil, nil, fmt.Errorf("build the payload: %w", err)
		}
	}
	latest := p.CreationTime
	for _, a := range adj {
		latest = max(latest, a.CreationTime)
	}
	ct := m.now().UnixMicro()
	if ct <= latest {
		// Within the microsecond of a parent (fast test targets), or a parent from a clock
		// ahead of ours: creation times must increase and never be in the future, so wait.
		wait := time.Duration(latest-ct+1) * time.Microsecond
		if wait > time.Second {
			return nil, nil, fmt.Errorf("parents are created %v in the future", wait)
		}
		time.Sleep(wait)
		if ct = m.now().UnixMicro(); ct <= latest {
			return nil, nil, fmt.Errorf("clock is not past the parents' creation time yet")
		}
	}
	h, err := pow.NewHeader(m.v, p, adj, payload.PayloadHash, ct, 0, 0)
	return h, payload, err
}

// submit hands a solved block to its chain actor and waits until the cut actor has seen it, so
// that the worker's next round starts from the cut that contains it.
func (m *miner) submit(h *ledger.Header, payload *ledger.PayloadWithOutputs) {
	if err := m.rt.Insert(h, payload); err != nil {
		// A write failure is logged once by the write health, which also pauses the workers.
		if !m.stopped() && !errors.Is(err, ErrWriteFailed) {
			m.log.Warn("mined block rejected", "chain", h.ChainID, "height", h.Height, "err", err)
		}
		return
	}
	m.mined.Add(1)
	m.log.Debug("mined", "chain", h.ChainID, "height", h.Height, "hash", h.Hash)
}
