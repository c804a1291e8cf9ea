package actors

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Write health: what the node does when it cannot write to its data directory (a full disk, an
// I/O error).
//
// A node that kept mining on a full disk would find a block, fail to store it, and start again
// at once: thousands of failed blocks and warnings a minute, the cores busy for nothing. So the
// first failed write puts the runtime in a failing state instead:
//
//   - the miner stops searching (no hashing) and peer sync stops fetching blocks, so no new
//     block is even attempted; a block already on its way fails without a log line of its own;
//   - reads go on as before: they never write, and nothing half-written is visible (a block's
//     header, payload and height-index entry go in together, heads move only after that);
//   - one ERROR says so; a reminder follows at most once a minute while it lasts;
//   - a probe write (store.DB.ProbeWrite) is retried with exponential back-off, from
//     probeFirst doubling to probeMax; the first one that succeeds ends the failing state with
//     one INFO, the miner and sync resume, and the heads are written again.
//
// A failure soon after a recovery (within probeSettle) resumes the back-off where it was rather
// than from probeFirst, so a disk that takes a probe but fails real writes costs one ERROR and
// one INFO per probe interval, not a storm.

// ErrWriteFailed is wrapped by the errors of inserts that failed because the store could not
// write (Insert's error then says why).
var ErrWriteFailed = errors.New("actors: writing to the data directory failed")

// writeError marks a store write failure.
type writeError struct{ err error }

func (e *writeError) Error() string        { return e.err.Error() }
func (e *writeError) Unwrap() error        { return e.err }
func (e *writeError) Is(target error) bool { return target == ErrWriteFailed }

// Back-off of the probe, and how often a lasting failure is logged again.
var (
	probeFirst  = time.Second
	probeMax    = 30 * time.Second
	probeSettle = time.Minute
	remindEvery = time.Minute
)

// WriteHealth is a snapshot of the write-health state.
type WriteHealth struct {
	Failing bool
	Since   time.Time // when writes started failing (zero while healthy)
	Err     error     // the last write error while failing
	// Failures counts the failed writes since Since.
	Failures uint64
}

type writeHealth struct {
	log   *slog.Logger
	probe func() error
	// resume runs after a recovery, before the miner and sync are let go (the runtime
	// re-offers its heads to the heads writer).
	resume func()

	mu        sync.Mutex
	state     WriteHealth
	healthy   chan struct{} // closed while healthy; replaced (open) on entering the failing state
	delay     time.Duration // the next probe's wait
	recovered time.Time     // when the last failing state ended
	quit      chan struct{}
	stopped   bool
}

func newWriteHealth(log *slog.Logger, probe func() error) *writeHealth {
	h := &writeHealth{log: log.With("component", "storage"), probe: probe, healthy: make(chan struct{}),
		quit: make(chan struct{}), delay: probeFirst}
	close(h.healthy)
	return h
}

// failed records a write error. The first one after a healthy spell logs once and starts the
// prober; later ones are counted.
func (h *writeHealth) failed(what string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return // the store closing under a last write is not a disk problem
	}
	h.state.Err = err
	h.state.Failures++
	if h.state.Failing {
		return
	}
	now := time.Now()
	if now.Sub(h.recovered) > probeSettle {
		h.delay = probeFirst
	}
	h.state.Failing, h.state.Since = true, now
	h.healthy = make(chan struct{})
	h.log.Error("cannot write to the data directory: mining and block intake are paused until writes succeed again; reads go on",
		"write", what, "err", err, "nextProbeIn", h.delay)
	go h.probeLoop(h.healthy)
}

// probeLoop probes with back-off until a probe succeeds or the runtime stops. healthy is the
// channel of the failing spell it serves.
func (h *writeHealth) probeLoop(healthy chan struct{}) {
	lastRemind := time.Now()
	for {
		h.mu.Lock()
		d := h.delay
		h.delay = min(2*h.delay, probeMax)
		h.mu.Unlock()
		t := time.NewTimer(d)
		select {
		case <-h.quit:
			t.Stop()
			return
		case <-t.C:
		}
		err := h.probe()
		h.mu.Lock()
		if h.stopped {
			h.mu.Unlock()
			return
		}
		if err == nil {
			since, n := h.state.Since, h.state.Failures
			h.state = WriteHealth{}
			h.recovered = time.Now()
			h.mu.Unlock()
			h.log.Info("writes to the data directory succeed again: mining and block intake resume",
				"failingFor", time.Since(since).Round(time.Millisecond), "failedWrites", n)
			if h.resume != nil {
				h.resume()
			}
			close(healthy)
			return
		}
		h.state.Err = err
		if time.Since(lastRemind) >= remindEvery {
			lastRemind = time.Now()
			h.log.Warn("writes to the data directory still fail; mining and block intake stay paused",
				"since", h.state.Since.Format(time.RFC3339), "err", err, "nextProbeIn", h.delay)
		}
		h.mu.Unlock()
	}
}

// Snapshot returns the current state.
func (h *writeHealth) Snapshot() WriteHealth {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state
}

// wait returns at once while writes are healthy; otherwise it blocks until they are again or
// quit is closed, and reports whether it waited. held, when given, counts the callers blocked.
func (h *writeHealth) wait(quit <-chan struct{}, held *atomic.Int32) bool {
	h.mu.Lock()
	ch := h.healthy
	h.mu.Unlock()
	select {
	case <-ch:
		return false
	default:
	}
	if held != nil {
		held.Add(1)
		defer held.Add(-1)
	}
	select {
	case <-ch:
	case <-quit:
	case <-h.quit:
	}
	return true
}

// stop ends the prober; failures reported after it are ignored.
func (h *writeHealth) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.stopped {
		h.stopped = true
		close(h.quit)
	}
}
