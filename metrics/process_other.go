//go:build !linux

package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// newProcessCollector is client_golang's process collector where /proc is not (process_linux.go
// says why Linux has its own).
func newProcessCollector() prometheus.Collector {
	return collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})
}

// diskFree is not measured here.
func diskFree(string) (float64, bool) { return 0, false }
