package hist

import (
	"sync/atomic"
	"time"
)

// Bounds are the upper bounds of the buckets, in seconds: 100 µs to 10 s in 1-2.5-5 steps,
// which covers a header read (tens of µs) as well as a full block's execution (seconds).
var Bounds = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// boundsNanos are Bounds in nanoseconds, for comparing a time.Duration without a conversion.
var boundsNanos = func() (b [len(Bounds)]int64) {
	for i, s := range Bounds {
		b[i] = int64(s * 1e9)
	}
	return b
}()

// Histogram counts durations into Bounds' buckets. The zero value is ready; it is safe for
// concurrent use and must not be copied after first use.
type Histogram struct {
	// buckets[i] counts observations in (Bounds[i-1], Bounds[i]]; the last one those above
	// every bound. They are not cumulative: Snapshot adds them up.
	buckets [len(Bounds) + 1]atomic.Uint64
	sum     atomic.Int64 // nanoseconds
}

// Observe counts one duration.
func (h *Histogram) Observe(d time.Duration) {
	ns := int64(d)
	i := 0
	for i < len(boundsNanos) && ns > boundsNanos[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sum.Add(ns)
}

// Since counts the time since start: defer-friendly.
func (h *Histogram) Since(start time.Time) { h.Observe(time.Since(start)) }

// Snapshot is a histogram's state as Prometheus wants it: Cumulative[i] counts the observations
// of at most Bounds[i] seconds, Count all of them, Sum their total in seconds. Observations made
// while it is taken may show in Count and not yet in a bucket, or the reverse; the figures stay
// monotonic, which is all a scraper needs.
type Snapshot struct {
	Cumulative [len(Bounds)]uint64
	Count      uint64
	Sum        float64
}

// Snapshot reads the histogram.
func (h *Histogram) Snapshot() Snapshot {
	var s Snapshot
	var n uint64
	for i := range Bounds {
		n += h.buckets[i].Load()
		s.Cumulative[i] = n
	}
	s.Count = n + h.buckets[len(Bounds)].Load()
	s.Sum = float64(h.sum.Load()) / 1e9
	return s
}
