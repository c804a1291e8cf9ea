//go:build unix

package connguard

import "syscall"

// DescriptorLimit is the process's soft limit on open file descriptors (RLIMIT_NOFILE), which
// Go raises to the hard limit at start; 0 when it cannot be read.
func DescriptorLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
