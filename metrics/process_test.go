//go:build linux

package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
)

// gatherValues collects c alone and returns each family's first value.
func gatherValues(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		m := mf.GetMetric()[0]
		switch mf.GetType() {
		case dto.MetricType_COUNTER:
			out[mf.GetName()] = m.GetCounter().GetValue()
		default:
			out[mf.GetName()] = m.GetGauge().GetValue()
		}
	}
	return out
}

// The process collector reports what client_golang's does, under the same names, but for the
// network figures it leaves out.
func TestProcessCollectorAgrees(t *testing.T) {
	ours := gatherValues(t, newProcessCollector())
	theirs := gatherValues(t, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for name, want := range theirs {
		got, ok := ours[name]
		if !ok {
			if name != "process_network_receive_bytes_total" && name != "process_network_transmit_bytes_total" {
				t.Errorf("no %s", name)
			}
			continue
		}
		var ok2 bool
		switch name {
		case "process_open_fds": // client_golang's own descriptor for the directory vs ours
			ok2 = got >= want-3 && got <= want+3
		case "process_resident_memory_bytes", "process_virtual_memory_bytes":
			ok2 = got > want/2 && got < want*2
		case "process_cpu_seconds_total":
			ok2 = got >= want && got < want+1
		case "process_start_time_seconds": // ours is when the package initialised
			ok2 = got >= want-1 && got < want+60
		default:
			ok2 = got == want
		}
		if !ok2 {
			t.Errorf("%s = %v, client_golang's %v", name, got, want)
		}
	}
	if ours["process_open_fds"] < 3 || ours["process_resident_memory_bytes"] < 1<<20 {
		t.Errorf("implausible: %v", ours)
	}
}
