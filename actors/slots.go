package actors

import (
	"context"
	"runtime"
	"strconv"
	"time"
)

// EvalSlots bounds the Pact evaluations that requests start outside the executors (local,
// private commands). Each may spend up to a block's gas, some tenths of a second of a core;
// without a bound, a burst of them takes every core, and health checks, header reads, block
// building and mining wait behind them. With at most half the cores evaluating for requests,
// the rest keep serving. A request that finds every slot taken waits a little, then gets a
// *BusyError (a 503 with its reason) rather than queuing without end.
type EvalSlots struct {
	slots chan struct{}
	wait  time.Duration
}

// DefaultEvalWait is how long a request waits for an evaluation slot before it is turned away.
const DefaultEvalWait = 5 * time.Second

// DefaultEvalSlots is half the cores Go runs on, rounded up: one on a single core.
func DefaultEvalSlots() int { return max(1, (runtime.GOMAXPROCS(0)+1)/2) }

// NewEvalSlots allows n evaluations at once (DefaultEvalSlots when n <= 0), each waiting at
// most wait for its slot (DefaultEvalWait when wait <= 0).
func NewEvalSlots(n int, wait time.Duration) *EvalSlots {
	if n <= 0 {
		n = DefaultEvalSlots()
	}
	if wait <= 0 {
		wait = DefaultEvalWait
	}
	return &EvalSlots{slots: make(chan struct{}, n), wait: wait}
}

// Size is how many evaluations may run at once.
func (s *EvalSlots) Size() int { return cap(s.slots) }

// BusyError turns a request away: every evaluation slot stayed taken while it waited.
type BusyError struct {
	Slots int
	Wait  time.Duration
}

func (e *BusyError) Error() string {
	return "The node is busy: all " + strconv.Itoa(e.Slots) + " of its slots for Pact evaluations stayed taken for " +
		e.Wait.String() + "; try again later"
}

// Acquire takes a slot, waiting at most the configured time (or until ctx ends), and returns
// the function that gives it back. A nil EvalSlots has a slot for everyone.
func (s *EvalSlots) Acquire(ctx context.Context) (release func(), err error) {
	if s == nil {
		return func() {}, nil
	}
	select {
	case s.slots <- struct{}{}:
		return s.release, nil
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return s.release, nil
	case <-t.C:
		return nil, &BusyError{Slots: cap(s.slots), Wait: s.wait}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *EvalSlots) release() { <-s.slots }
