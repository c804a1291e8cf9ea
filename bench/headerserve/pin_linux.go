package main

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// pinToCPU restricts every thread of the process to one CPU. On Linux an affinity mask belongs
// to a thread, and new threads inherit their creator's, so setting it on each existing thread
// pins the threads the runtime starts later too.
func pinToCPU(cpu int) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	var mask [16]uint64 // 1024 CPUs
	mask[cpu/64] = 1 << (cpu % 64)
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
		if errno != 0 && errno != syscall.ESRCH { // ESRCH: the thread exited meanwhile
			return errno
		}
	}
	return nil
}
