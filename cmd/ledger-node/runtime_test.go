package main

import (
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"testing"
)

// The configured collector pace and memory limit apply, unless GOGC and GOMEMLIMIT say
// otherwise; the default limit is half the machine's memory.
func TestTuneGC(t *testing.T) {
	oldPercent, oldLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(oldPercent); debug.SetMemoryLimit(oldLimit) }()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")

	tuneGC(RuntimeConfig{GCPercent: 321, MemoryLimitMiB: 1234}, log)
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != 321 || l != 1234<<20 {
		t.Errorf("configured: GOGC %d, limit %d", p, l)
	}
	tuneGC(RuntimeConfig{GCPercent: defaultGCPercent}, log)
	if l := debug.SetMemoryLimit(math.MaxInt64); machineMemory() > 0 && l != min(machineMemory()/2, defaultMemoryLimit) {
		t.Errorf("default limit %d, want half of %d, at most %d", l, machineMemory(), defaultMemoryLimit)
	}
	if p := debug.SetGCPercent(100); p != defaultGCPercent {
		t.Errorf("default GOGC %d", p)
	}
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	tuneGC(RuntimeConfig{GCPercent: 321, MemoryLimitMiB: 1234}, log)
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != 100 || l != math.MaxInt64 {
		t.Errorf("with GOGC and GOMEMLIMIT set, the configuration changed GOGC to %d and the limit to %d", p, l)
	}
}
