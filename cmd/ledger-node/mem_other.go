//go:build !linux

package main

// machineMemory is 0 (unknown) off Linux: no soft memory limit unless configured.
func machineMemory() int64 { return 0 }
