package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The plot reads the JSON lines of run outputs (the last run of an N wins, other lines are
// skipped) and draws one line per label in each of its four panels.
func TestPlotReadsRunsAndDrawsEachSeries(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.txt")
	out := "scale: N=1000000\nimport-headers: ...\n" +
		`{"headers":1000000,"import_hps":50000,"import_ratio":0.5,"node_rss_mib":400,"open_s":0.2}` + "\n" +
		`{"headers":4000000,"import_hps":1,"node_rss_mib":1,"open_s":1}` + "\n" +
		`{"headers":4000000,"import_hps":45000,"import_ratio":0.45,"node_rss_mib":500,"open_s":0.3}` + "\n"
	if err := os.WriteFile(runs, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := readResults(runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Headers != 1_000_000 || rs[1].ImportHPS != 45000 {
		t.Fatalf("read %+v", rs)
	}
	svg := svgPlot([]plotSeries{{"before", rs}, {"after", rs[:1]}})
	if n := strings.Count(svg, "<polyline"); n != 4 {
		t.Fatalf("%d polylines, want 4 (one per panel for the two-point series)", n)
	}
	if n := strings.Count(svg, "<circle"); n != 12 {
		t.Fatalf("%d points, want 12", n)
	}
	for _, s := range []string{">before<", ">after<", ">4M<", ">1M<"} {
		if !strings.Contains(svg, s) {
			t.Errorf("the plot lacks %s", s)
		}
	}
}
