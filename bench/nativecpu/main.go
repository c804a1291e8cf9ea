package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"time"

	"github.com/ledgernode/ledger-node/internal/pactbench"
	"github.com/ledgernode/ledger-node/pact/gas"
)

func main() {
	filter := flag.String("run", "", "only the sweeps whose name matches this regular expression")
	maxSize := flag.Int("max", 0, "skip sizes above this (0: every size)")
	from := flag.String("from", "", "start at the sweep of this name (resuming a run)")
	first := flag.Int("first", 0, "the index of the first sweep to run (see -list)")
	count := flag.Int("count", 0, "how many sweeps to run from -first (0: all); long runs go in pieces")
	perPoint := flag.Duration("time", 200*time.Millisecond, "how long each point is timed (at least 3 samples)")
	programs := flag.Bool("programs", false, "time the issue's done-when programs at gas limit 150,000 instead of sweeping")
	rounds := flag.Int("rounds", 3, "with -programs: runs of each program (the median is reported)")
	install := flag.String("install", "pact/contracts/testdata/install.repl", "the REPL script installing the coin contract (the baseline)")
	list := flag.Bool("list", false, "list the sweeps and exit")
	flag.Parse()

	if *list {
		for i, s := range sweeps {
			fmt.Printf("%3d %-28s %-6s %v\n", i, s.name, s.unit, s.sizes)
		}
		return
	}
	if *programs {
		runPrograms(os.Stdout, *rounds)
		return
	}
	re, err := regexp.Compile(*filter)
	if err != nil {
		fail(err)
	}
	t := timer{minSample: 10 * time.Millisecond, total: *perPoint, minRuns: 3}
	sel := sweeps[min(*first, len(sweeps)):]
	if *count > 0 {
		sel = sel[:min(*count, len(sel))]
	}
	if err := runSweeps(os.Stdout, sel, re, *from, *maxSize, t, *install); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "nativecpu:", err)
	os.Exit(1)
}

// baseline is the coin transfer's nanoseconds per gas, the table's unit.
type baseline struct {
	tr *pactbench.Transfer
	t  timer
}

// measure times one transfer under Pact 5's table model at a block's limit
// and returns its ns per gas and gas.
func (b *baseline) measure() (float64, gas.MilliGas, error) {
	var used gas.MilliGas
	tm, err := b.t.measure(func() error {
		var err error
		used, err = b.tr.Run(gas.NewMeter(gas.Table, gas.FromGas(150_000)))
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return tm.nsPerOp / (float64(used) / 1000), used, nil
}

// runSweeps measures every sweep matching re and prints the long table (one
// line per point, as it is measured) and then the summary: each sweep's
// ratios to the transfer's ns/gas, smallest size first.
func runSweeps(w io.Writer, sweeps []sweep, re *regexp.Regexp, from string, maxSize int, t timer, install string) error {
	tr, err := pactbench.NewTransfer(install)
	if err != nil {
		return err
	}
	base := &baseline{tr: tr, t: timer{minSample: 20 * time.Millisecond, total: time.Second, minRuns: 5}}
	fmt.Fprintf(w, "nativecpu: %s/%s, GOMAXPROCS=%d, %s; gas = the table model's charges for exactly the expression (milligas)\n",
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())
	var baseNs []float64
	addBase := func(when string) error {
		ns, used, err := base.measure()
		if err != nil {
			return err
		}
		baseNs = append(baseNs, ns)
		fmt.Fprintf(w, "baseline (%s): coin transfer (buy-gas, transfer, redeem-gas), %d mg, %.0f ns/gas\n", when, used, ns)
		return nil
	}
	if err := addBase("start"); err != nil {
		return err
	}
	cheap := point{expr: "(+ 1 2)"}
	cr, err := measurePoint(cheap, t)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%-28s %-6s %9s %14s %12s %10s %7s\n", "sweep", "unit", "size", "gas (mg)", "ns/op", "ns/gas", "ratio")
	printPoint(w, "(+ 1 2)", "", cr, baseNs[0])
	var done []sweepResult
	started := from == ""
	for i, s := range sweeps {
		started = started || s.name == from
		if !started || !re.MatchString(s.name) {
			continue
		}
		sr := sweepResult{s: s}
		for _, n := range s.sizes {
			if maxSize > 0 && n > maxSize {
				continue
			}
			r, err := measurePoint(s.at(n), t)
			if err != nil {
				// A harness mistake at one point should not cost the rest
				// of a long run: report it and go on.
				fmt.Fprintf(w, "%-28s %-6s %9d  ERROR %s\n", s.name, s.unit, n, firstLine(err.Error(), 100))
				continue
			}
			sr.points = append(sr.points, r)
			printPoint(w, s.name, s.unit, r, baseNs[0])
		}
		done = append(done, sr)
		if i%20 == 19 {
			if err := addBase("again"); err != nil {
				return err
			}
		}
	}
	if err := addBase("end"); err != nil {
		return err
	}
	printSummary(w, done, median(baseNs), cr)
	return nil
}

type sweepResult struct {
	s      sweep
	points []result
}

func printPoint(w io.Writer, name, unit string, r result, base float64) {
	note := ""
	if r.err != "" {
		note = "  (fails: " + firstLine(r.err, 60) + ")"
	}
	fmt.Fprintf(w, "%-28s %-6s %9d %14d %12.0f %10.1f %7.2f%s\n",
		name, unit, r.size, r.gas, r.nsPerOp, r.nsPerGas(), r.nsPerGas()/base, note)
}

func firstLine(s string, n int) string {
	for i, c := range s {
		if c == '\n' {
			s = s[:i]
			break
		}
	}
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// printSummary prints one line per sweep: the ratio to the baseline at each
// size, the largest, and the growth (the ratio at the largest size over
// the smallest ratio at any size).
func printSummary(w io.Writer, done []sweepResult, base float64, cheap result) {
	fmt.Fprintf(w, "\nsummary: ns/gas as a ratio to the coin transfer's (median baseline %.0f ns/gas); (+ 1 2): %.2f\n",
		base, cheap.nsPerGas()/base)
	fmt.Fprintf(w, "%-28s %-6s %-58s %6s %7s\n", "sweep", "unit", "ratio by size, smallest first", "max", "growth")
	for _, flatPass := range []bool{false, true} {
		if flatPass {
			fmt.Fprintln(w, "-- priced by P5 without regard to the size swept (flat, or by the signed maximum):")
		}
		for _, sr := range done {
			if sr.s.flat != flatPass || len(sr.points) == 0 {
				continue
			}
			cells := ""
			hi, lo := 0.0, 0.0
			for i, p := range sr.points {
				r := p.nsPerGas() / base
				cells += fmt.Sprintf("%s:%s ", sizeLabel(p.size), short(r))
				if i == 0 || r > hi {
					hi = r
				}
				if i == 0 || r < lo {
					lo = r
				}
			}
			last := sr.points[len(sr.points)-1].nsPerGas() / base
			fmt.Fprintf(w, "%-28s %-6s %-58s %6s %7.2f\n", sr.s.name, sr.s.unit, cells, short(hi), last/lo)
		}
	}
}

// sizeLabel writes sizes compactly: 2^k for powers of two, 1k, 10k, 1M.
func sizeLabel(n int) string {
	if n >= 256 && n&(n-1) == 0 {
		k := 0
		for m := n; m > 1; m >>= 1 {
			k++
		}
		return fmt.Sprintf("2^%d", k)
	}
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// short prints a ratio with two significant figures.
func short(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.2f", r)
}
