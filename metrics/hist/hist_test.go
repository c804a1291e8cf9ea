package hist

import (
	"sync"
	"testing"
	"time"
)

func TestBucketsAreCumulativeAndBoundsInclusive(t *testing.T) {
	var h Histogram
	h.Observe(50 * time.Microsecond)  // first bucket
	h.Observe(100 * time.Microsecond) // a bound belongs to its bucket (le)
	h.Observe(3 * time.Millisecond)   // (2.5 ms, 5 ms]
	h.Observe(time.Minute)            // above every bound: only in Count
	s := h.Snapshot()
	if s.Count != 4 {
		t.Fatalf("count %d, want 4", s.Count)
	}
	want := map[float64]uint64{0.0001: 2, 0.0025: 2, 0.005: 3, 10: 3}
	for i, b := range Bounds {
		if w, ok := want[b]; ok && s.Cumulative[i] != w {
			t.Errorf("le=%g: %d, want %d", b, s.Cumulative[i], w)
		}
		if i > 0 && s.Cumulative[i] < s.Cumulative[i-1] {
			t.Errorf("le=%g: %d below the previous bucket", b, s.Cumulative[i])
		}
	}
	if got, w := s.Sum, 60.003150; got < w-1e-9 || got > w+1e-9 {
		t.Errorf("sum %v, want %v", got, w)
	}
}

func TestConcurrentObservations(t *testing.T) {
	var h Histogram
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				h.Observe(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if s := h.Snapshot(); s.Count != 8000 || s.Cumulative[3] != 8000 {
		t.Fatalf("count %d, le=1ms %d; want 8000 each", s.Count, s.Cumulative[3])
	}
}

func TestObserveDoesNotAllocate(t *testing.T) {
	var h Histogram
	if n := testing.AllocsPerRun(100, func() { h.Observe(time.Millisecond) }); n != 0 {
		t.Fatalf("%v allocations per Observe", n)
	}
}
