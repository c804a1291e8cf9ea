package mining

import (
	"runtime/metrics"
	"time"
)

// The miner takes the CPU that requests leave.
//
// A node's own miner is a development convenience (operators' miners use the mining API from
// other machines), yet its workers always have work: as goroutines they took an equal turn with
// every request, about a third of the CPU of a node taking transactions as fast as it could.
// So a worker steps aside, between chunks, while other goroutines wait for a CPU, in pauses of
// stepAsidePause; after stepAsideMax pauses it searches a chunk anyway, so blocks keep coming
// under any load (a chunk is about 4 ms, so at least a sixth of a core's time). Of 10, 20, 40
// and 80 pauses, 20 confirmed the most transfers end to end (bench/RESULTS.md), by a little.

const (
	stepAsidePause = time.Millisecond
	stepAsideMax   = 20
)

// runnableMetric counts the goroutines waiting for a CPU.
const runnableMetric = "/sched/goroutines/runnable:goroutines"

// stepAside pauses the calling worker while goroutines other than the miner's wait for a CPU,
// at most stepAsideMax times, and returns how many pauses it made. It returns at once when the
// runtime does not count them.
func (m *Miner) stepAside(sample []metrics.Sample) (pauses int) {
	for ; pauses < stepAsideMax; pauses++ {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return pauses
		}
		// Other searching workers may be among the runnable (back from a Gosched), this one
		// is running: only more than they are means a request waits.
		others := int64(m.searching.Load()) - 1
		if int64(sample[0].Value.Uint64()) <= others {
			return pauses
		}
		m.waiting(func() { time.Sleep(stepAsidePause) })
	}
	return pauses
}

// waiting runs f, a wait of the calling worker, uncounted among the searching workers.
func (m *Miner) waiting(f func()) {
	m.searching.Add(-1)
	defer m.searching.Add(1)
	f()
}

// newRunnableSample is the sample stepAside reads, one per worker.
func newRunnableSample() []metrics.Sample {
	return []metrics.Sample{{Name: runnableMetric}}
}
