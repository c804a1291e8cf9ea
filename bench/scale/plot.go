package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// plotMain is `scale plot -out FILE.svg LABEL=RUNS ...`: each RUNS file holds the output of
// `scale run` (one or several runs; their JSON lines are read), and the plot draws, for each
// label, import rate, its ratio to the bare merkle rate, node RSS and start-up time against N, so that a curve that is not flat
// shows at a glance.
func plotMain(args []string) error {
	fs := flag.NewFlagSet("plot", flag.ExitOnError)
	out := fs.String("out", "docs/scale.svg", "SVG file to write")
	fs.Parse(args)
	var series []plotSeries
	for _, a := range fs.Args() {
		label, path, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("plot: %q is not LABEL=FILE", a)
		}
		rs, err := readResults(path)
		if err != nil {
			return err
		}
		series = append(series, plotSeries{label, rs})
	}
	if len(series) == 0 {
		return fmt.Errorf("plot: no LABEL=FILE given")
	}
	return os.WriteFile(*out, []byte(svgPlot(series)), 0o644)
}

type plotSeries struct {
	label string
	runs  []result
}

// readResults reads every JSON line of a run's output, sorted by N (the last run of an N wins).
func readResults(path string) ([]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byN := map[int]result{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var r result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		byN[r.Headers] = r
	}
	var rs []result
	for _, r := range byN {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b result) int { return a.Headers - b.Headers })
	return rs, sc.Err()
}

// svgPlot draws four panels side by side; x is N on a log scale.
func svgPlot(series []plotSeries) string {
	panels := []struct {
		title string
		y     func(result) (float64, bool)
	}{
		{"import-headers rate (headers/s)", func(r result) (float64, bool) { return r.ImportHPS, r.ImportHPS > 0 }},
		// The rate moves with the machine's load; its ratio to the bare merkle rate of the same
		// run is the figure that compares across runs.
		{"import_ratio (import / bare merkle)", func(r result) (float64, bool) { return r.ImportRatio, r.ImportRatio > 0 }},
		{"node RSS after random GETs (MiB)", func(r result) (float64, bool) { return r.NodeRSSMiB, r.NodeRSSMiB > 0 }},
		{"start to 200 /health-check (s)", func(r result) (float64, bool) { return r.OpenS, r.OpenS > 0 }},
	}
	colors := []string{"#c0392b", "#2471a3", "#229954", "#7d3c98"}
	const pw, ph, ml, mr, mt, mb = 300.0, 230.0, 55.0, 15.0, 30.0, 40.0
	var b strings.Builder
	width := float64(len(panels)) * pw
	height := ph + 20*float64(len(series)) + 10
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	minN, maxN := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, r := range s.runs {
			minN, maxN = math.Min(minN, float64(r.Headers)), math.Max(maxN, float64(r.Headers))
		}
	}
	if minN == maxN {
		minN, maxN = minN/2, maxN*2
	}
	for i, p := range panels {
		x0 := float64(i) * pw
		ymax := 0.0
		for _, s := range series {
			for _, r := range s.runs {
				if y, ok := p.y(r); ok {
					ymax = math.Max(ymax, y)
				}
			}
		}
		if ymax == 0 {
			ymax = 1
		}
		ymax *= 1.15
		px := func(n float64) float64 {
			return x0 + ml + (math.Log(n)-math.Log(minN))/(math.Log(maxN)-math.Log(minN))*(pw-ml-mr)
		}
		py := func(y float64) float64 { return mt + (1-y/ymax)*(ph-mt-mb) }
		fmt.Fprintf(&b, `<text x="%.1f" y="18" font-weight="bold">%s</text>`+"\n", x0+ml, p.title)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0+ml, py(0), x0+pw-mr, py(0))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0+ml, mt, x0+ml, py(0))
		for k := 0; k <= 4; k++ {
			y := ymax / 1.15 * float64(k) / 4
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0+ml-4, py(y)+4, short(y))
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x0+ml, py(y), x0+pw-mr, py(y))
		}
		ticks := map[int]bool{}
		for _, s := range series {
			for _, r := range s.runs {
				ticks[r.Headers] = true
			}
		}
		for n := range ticks {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px(float64(n)), py(0)+15, short(float64(n)))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">headers (N)</text>`+"\n", x0+ml+(pw-ml-mr)/2, py(0)+30)
		for si, s := range series {
			c := colors[si%len(colors)]
			var pts []string
			for _, r := range s.runs {
				if y, ok := p.y(r); ok {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(float64(r.Headers)), py(y)))
					fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(float64(r.Headers)), py(y), c)
				}
			}
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), c)
			}
		}
	}
	for si, s := range series {
		y := ph + 20*float64(si) + 5
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="12" height="4" fill="%s"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			ml, y-4, colors[si%len(colors)], ml+18, y+1, s.label)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// short writes a number compactly: 1.5M, 40k, 0.28.
func short(x float64) string {
	switch {
	case x >= 1e6:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", x/1e6), ".0") + "M"
	case x >= 1e4:
		return fmt.Sprintf("%.0fk", x/1e3)
	case x >= 10:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2g", x)
}
