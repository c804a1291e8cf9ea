package mining

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A worker steps aside while other goroutines wait for a CPU, and not otherwise; and however
// busy the CPU, it searches again after stepAsideMax pauses.
func TestMinerStepsAsideForWaitingGoroutines(t *testing.T) {
	m := &Miner{}
	m.searching.Store(1) // the caller
	sample := newRunnableSample()

	// Counted in pauses, not time: a busy machine stretches every pause.
	if n := m.stepAside(sample); n >= stepAsideMax/2 {
		t.Errorf("with nothing waiting the worker paused %d times", n)
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() { // always runnable
			defer wg.Done()
			for !stop.Load() {
				runtime.Gosched()
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	time.Sleep(10 * time.Millisecond)
	n := m.stepAside(sample)
	if n < stepAsideMax/2 {
		t.Errorf("with goroutines waiting the worker paused only %d times", n)
	}
	if n > stepAsideMax {
		t.Errorf("the worker paused %d times: the pauses are not bounded by %d", n, stepAsideMax)
	}
	if got := m.searching.Load(); got != 1 {
		t.Errorf("searching %d after stepping aside, want 1", got)
	}
}
