package proc

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// Burning CPU shows in both readings of this process's CPU time, and they agree to within the
// tick of /proc/PID/stat.
func TestCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before, beforeStat := Self(), CPU(os.Getpid())
	// Burn until /proc's reading has moved 150 ms: CPU time, which a busy machine slows but
	// cannot stop (the hang guard is for a reading that never moves).
	x := 0
	end := hangguard.Deadline()
	for CPU(os.Getpid())-beforeStat < 150*time.Millisecond {
		for range 100_000 {
			x++
		}
		if time.Now().After(end) {
			t.Fatal(hangguard.Failure("150 ms of CPU time in /proc/PID/stat"))
		}
	}
	used, usedStat := Self()-before, CPU(os.Getpid())-beforeStat
	if used < 100*time.Millisecond {
		t.Fatalf("Self: %v after burning %v by /proc/PID/stat (%d)", used, usedStat, x)
	}
	// wallclock: two readings of the same CPU time, which a busy machine does not move apart
	if d := usedStat - used; d > 50*time.Millisecond || d < -50*time.Millisecond {
		t.Errorf("CPU(pid) %v, Self %v", usedStat, used)
	}
	if CPU(1<<30) != 0 {
		t.Error("a process that does not exist has CPU time")
	}
	if la := LoadAverage(); len(strings.Fields(la)) != 3 {
		t.Errorf("load average %q", la)
	}
}
