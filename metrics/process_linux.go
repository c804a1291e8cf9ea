package metrics

import (
	"encoding/binary"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The process families, read with as few system calls as there are figures.
//
// client_golang's process collector opens and reads five files under /proc on every scrape
// (/proc/self/stat, /proc/stat for the start time, /proc/self/fd, /proc/self/limits,
// /proc/self/net/netstat), about twenty system calls. On a node whose miner keeps a search
// goroutine on every core, each call slower than the scheduler's 20 µs lets the runtime hand the
// goroutine's processor to a search goroutine, and the scrape then waits for one to yield (a
// chunk of nonces, about 4 ms) to go on: most of a mining node's scrape time, and its p99
// (bench/RESULTS.md, "Metrics for alerting"). This collector keeps the figures and the names and
// reads them with getrusage (CPU time), one pread of /proc/self/statm kept open (memory), one
// getdents of /proc/self/fd kept open (descriptors) and getrlimit (limits). It leaves out
// process_network_*, which are the network namespace's totals, not the process's, and the
// slowest file to read.

// processStart is when the process started, as near as the package can tell: when its
// variables were initialised.
var processStart = float64(time.Now().UnixNano()) / 1e9

var (
	procCPU      = prometheus.NewDesc("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", nil, nil)
	procOpenFDs  = prometheus.NewDesc("process_open_fds", "Number of open file descriptors.", nil, nil)
	procMaxFDs   = prometheus.NewDesc("process_max_fds", "Maximum number of open file descriptors.", nil, nil)
	procVsize    = prometheus.NewDesc("process_virtual_memory_bytes", "Virtual memory size in bytes.", nil, nil)
	procMaxVsize = prometheus.NewDesc("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", nil, nil)
	procRSS      = prometheus.NewDesc("process_resident_memory_bytes", "Resident memory size in bytes.", nil, nil)
	procStart    = prometheus.NewDesc("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", nil, nil)
)

// selfFiles are /proc/self/statm and /proc/self/fd, opened once for the process's life (-1 when
// they could not be).
type selfFiles struct {
	mu          sync.Mutex // one reader of the descriptors' offsets at a time
	statm, fdir int
	buf         [8192]byte
}

var openSelf = sync.OnceValue(func() *selfFiles {
	f := &selfFiles{statm: -1, fdir: -1}
	if fd, err := syscall.Open("/proc/self/statm", syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err == nil {
		f.statm = fd
	}
	if fd, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err == nil {
		f.fdir = fd
	}
	return f
})

type processCollector struct{}

func newProcessCollector() prometheus.Collector { return processCollector{} }

func (processCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{procCPU, procOpenFDs, procMaxFDs, procVsize, procMaxVsize, procRSS, procStart} {
		ch <- d
	}
}

func (processCollector) Collect(ch chan<- prometheus.Metric) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		ch <- prometheus.MustNewConstMetric(procCPU, prometheus.CounterValue, cpu.Seconds())
	}
	ch <- prometheus.MustNewConstMetric(procStart, prometheus.GaugeValue, processStart)
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil {
		ch <- prometheus.MustNewConstMetric(procMaxFDs, prometheus.GaugeValue, float64(rl.Cur))
	}
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil {
		ch <- prometheus.MustNewConstMetric(procMaxVsize, prometheus.GaugeValue, float64(rl.Cur))
	}
	f := openSelf()
	f.mu.Lock()
	defer f.mu.Unlock()
	if size, resident, ok := f.memory(); ok {
		page := float64(syscall.Getpagesize())
		ch <- prometheus.MustNewConstMetric(procVsize, prometheus.GaugeValue, float64(size)*page)
		ch <- prometheus.MustNewConstMetric(procRSS, prometheus.GaugeValue, float64(resident)*page)
	}
	if n, ok := f.descriptors(); ok {
		ch <- prometheus.MustNewConstMetric(procOpenFDs, prometheus.GaugeValue, float64(n))
	}
}

// memory reads the first two figures of /proc/self/statm: the virtual and resident sizes in
// pages. f.mu is held.
func (f *selfFiles) memory() (size, resident uint64, ok bool) {
	if f.statm < 0 {
		return 0, 0, false
	}
	n, err := syscall.Pread(f.statm, f.buf[:256], 0)
	if err != nil || n <= 0 {
		return 0, 0, false
	}
	var fields [2]uint64
	i := 0
	for k := range fields {
		for i < n && f.buf[i] == ' ' {
			i++
		}
		start := i
		for i < n && f.buf[i] >= '0' && f.buf[i] <= '9' {
			fields[k] = fields[k]*10 + uint64(f.buf[i]-'0')
			i++
		}
		if i == start {
			return 0, 0, false
		}
	}
	return fields[0], fields[1], true
}

// descriptors counts the entries of /proc/self/fd (the directory's own descriptor among them,
// as when client_golang opens it). f.mu is held.
func (f *selfFiles) descriptors() (int, bool) {
	if f.fdir < 0 {
		return 0, false
	}
	if _, err := syscall.Seek(f.fdir, 0, 0); err != nil {
		return 0, false
	}
	count := 0
	for {
		n, err := syscall.Getdents(f.fdir, f.buf[:])
		if err != nil {
			return 0, false
		}
		if n <= 0 {
			return count, true
		}
		// struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name (NUL-ended).
		for off := 0; off+19 < n; {
			reclen := int(binary.NativeEndian.Uint16(f.buf[off+16:]))
			if reclen == 0 {
				return 0, false
			}
			name := f.buf[off+19 : off+reclen]
			if !(name[0] == '.' && (name[1] == 0 || name[1] == '.' && name[2] == 0)) {
				count++
			}
			off += reclen
		}
	}
}

// diskFree returns the bytes available to the node on the file system of dir (statfs's
// available blocks: what an unprivileged writer may still use).
func diskFree(dir string) (float64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return float64(st.Bavail) * float64(st.Bsize), true
}
