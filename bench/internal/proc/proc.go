// Package proc reads what the benchmark harnesses report about processes on Linux: CPU time
// (of this process, or of a node run as a child) and the load average. The figures put a
// rate next to the CPU it took, which on a shared machine says more than wall-clock time.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on every Linux port.
const clockTicks = 100

// CPU is the CPU time (user + system) process pid has used, from /proc/PID/stat; 0 when it
// cannot be read (the process is gone, or this is not Linux).
func CPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and may hold spaces: state
	// is field 3, utime 14 and stime 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / clockTicks
}

// Self is the CPU time (user + system) this process has used.
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// LoadAverage is /proc/loadavg's three averages ("0.52 0.61 0.70"), or "unknown".
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
