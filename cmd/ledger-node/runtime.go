package main

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// defaultGCPercent lets the heap grow to five times the live data between collections, against
// Go's default of twice. A node's allocation is steady and short-lived (requests, blocks being
// built), so collecting less often spends less CPU on it: with 400, /send took 9% more commands a
// second and confirmed transfers 5% more in bench/nodetx (bench/RESULTS.md, "The garbage
// collector's pace"). The soft memory limit keeps the extra headroom from growing without bound.
const defaultGCPercent = 400

// defaultMemoryLimit caps the default soft memory limit (half the machine's memory): with the
// heap allowed to grow five-fold, a burst of heavy requests would otherwise take gigabytes before
// the collector hurried. A node whose live data is larger sets runtime.memoryLimitMiB.
const defaultMemoryLimit = 2 << 30

// tuneGC applies the configuration's collector pace and soft memory limit, unless the GOGC and
// GOMEMLIMIT environment variables set them (the runtime read those already).
func tuneGC(cfg RuntimeConfig, log *slog.Logger) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(cfg.GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(cfg.MemoryLimitMiB) << 20
	if limit == 0 {
		total := machineMemory()
		if total == 0 {
			return // unknown memory: no limit, as Go's default
		}
		limit = min(total/2, defaultMemoryLimit)
	}
	debug.SetMemoryLimit(limit)
	log.Debug("garbage collector", "gcPercent", cfg.GCPercent, "memoryLimitMiB", limit>>20)
}
