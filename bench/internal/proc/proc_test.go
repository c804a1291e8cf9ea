package proc

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Burning CPU shows in both readings of this process's CPU time, and they agree to within the
// tick of /proc/PID/stat.
func TestCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before, beforeStat := Self(), CPU(os.Getpid())
	x := 0
	for end := time.Now().Add(150 * time.Millisecond); time.Now().Before(end); {
		x++
	}
	used, usedStat := Self()-before, CPU(os.Getpid())-beforeStat
	if used < 50*time.Millisecond {
		t.Fatalf("Self: %v after burning 150 ms (%d)", used, x)
	}
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
