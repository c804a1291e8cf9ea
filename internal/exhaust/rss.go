package exhaust

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// GiB is the memory bound of issue 14: a process's peak RSS must stay
// under it.
const GiB = 1 << 30

// status reads one "Name:   N kB" field of /proc/<pid>/status, in bytes.
func status(pid int, field string) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	prefix := field + ":"
	for sc.Scan() {
		line := sc.Text()
		if len(line) <= len(prefix) || line[:len(prefix)] != prefix {
			continue
		}
		var kb uint64
		if _, err := fmt.Sscanf(line[len(prefix):], "%d kB", &kb); err != nil {
			return 0, fmt.Errorf("%s: %q: %v", field, line, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// PeakRSS is the process's peak resident set size (VmHWM), in bytes.
func PeakRSS(pid int) (uint64, error) { return status(pid, "VmHWM") }

// RSS is the process's resident set size now (VmRSS), in bytes.
func RSS(pid int) (uint64, error) { return status(pid, "VmRSS") }

// ResetPeakRSS sets the process's peak RSS back to its current RSS
// (writing 5 to /proc/<pid>/clear_refs, Linux 4.0 and later), so that the
// peak read after one request is that request's. It fails where the kernel
// does not allow it; callers then read a peak over the process's life,
// which only overstates.
func ResetPeakRSS(pid int) error {
	return os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0)
}

// Guard watches a process's RSS and calls kill once it passes a limit:
// a test whose bound does not hold must fail, not take the machine's
// memory with it (an unbounded evaluation grows by gigabytes a second).
type Guard struct {
	pid   int
	limit uint64
	kill  func()
	stop  chan struct{}
	done  chan struct{}

	mu     sync.Mutex
	peak   uint64
	killed bool
}

// Watch starts a guard sampling pid's RSS every interval.
func Watch(pid int, limit uint64, interval time.Duration, kill func()) *Guard {
	g := &Guard{pid: pid, limit: limit, kill: kill, stop: make(chan struct{}), done: make(chan struct{})}
	go g.run(interval)
	return g
}

func (g *Guard) run(interval time.Duration) {
	defer close(g.done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-tick.C:
		}
		rss, err := RSS(g.pid)
		if err != nil {
			return // the process is gone
		}
		g.mu.Lock()
		g.peak = max(g.peak, rss)
		over := rss > g.limit && !g.killed
		if over {
			g.killed = true
		}
		g.mu.Unlock()
		if over {
			g.kill()
			return
		}
	}
}

// Killed reports whether the guard killed the process, and the largest
// RSS it sampled.
func (g *Guard) Killed() (bool, uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.killed, g.peak
}

// Stop stops sampling.
func (g *Guard) Stop() {
	select {
	case <-g.stop:
	default:
		close(g.stop)
	}
	<-g.done
}
