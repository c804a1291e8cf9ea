package main

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/pactbench"
	"github.com/ledgernode/ledger-node/pact/gas"
)

// benchSizes picks which sizes of a sweep go test -bench times: the
// smallest and the largest, so that a glance shows whether ns/gas grows.
func benchSizes(s sweep) []int {
	if len(s.sizes) < 2 {
		return s.sizes
	}
	return []int{s.sizes[0], s.sizes[len(s.sizes)-1]}
}

// BenchmarkNatives times every sweep at its smallest and largest size and
// reports ns/gas beside ns/op, e.g.
//
//	go test ./bench/nativecpu -run '^$' -bench 'Natives/int-to-str' -benchtime 5x
//
// The ratio to a transfer is BenchmarkTransfer's ns/gas.
func BenchmarkNatives(b *testing.B) {
	for _, s := range sweeps {
		for _, n := range benchSizes(s) {
			name := strings.NewReplacer(" ", "_", "(", "", ")", "").Replace(s.name) + "/" + sizeLabel(n)
			b.Run(name, func(b *testing.B) {
				pt := s.at(n)
				p, err := prepare(pt)
				if err != nil {
					b.Fatal(err)
				}
				var used gas.MilliGas
				for b.Loop() {
					var err error
					used, err = p.run(sweepLimit)
					if err != nil && !pt.fails {
						b.Fatal(err)
					}
				}
				r := result{gas: used, nsPerOp: float64(b.Elapsed().Nanoseconds()) / float64(b.N)}
				b.ReportMetric(r.nsPerGas(), "ns/gas")
			})
		}
	}
}

// BenchmarkTransfer is the baseline: a coin transfer under the table model.
func BenchmarkTransfer(b *testing.B) {
	tr, err := pactbench.NewTransfer("../../pact/contracts/testdata/install.repl")
	if err != nil {
		b.Fatal(err)
	}
	var used gas.MilliGas
	for b.Loop() {
		if used, err = tr.Run(gas.NewMeter(gas.Table, gas.FromGas(150_000))); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(float64(used)/1000), "ns/gas")
}

// TestSweepsEvaluate runs every sweep once at its smallest size: each
// input builds, each expression evaluates (or fails exactly where its
// sweep says it does) and is charged something. A sweep that measured an
// error, or nothing, would report a meaningless ratio.
func TestSweepsEvaluate(t *testing.T) {
	for _, s := range sweeps {
		pt := s.at(s.sizes[0])
		p, err := prepare(pt)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		used, err := p.run(sweepLimit)
		if (err != nil) != pt.fails {
			t.Errorf("%s at %d: error %v, expected one: %v", s.name, pt.size, err, pt.fails)
		}
		if used == 0 {
			t.Errorf("%s at %d: charged nothing", s.name, pt.size)
		}
	}
}

// TestProgramsParse checks that the programs are valid Pact.
func TestProgramsParse(t *testing.T) {
	for _, p := range programs {
		if _, err := prepare(point{expr: p.src}); err != nil {
			t.Errorf("%s: %v", p.name, err)
		}
	}
	for _, p := range loops {
		if _, err := prepare(point{expr: p.loop}); err != nil {
			t.Errorf("%s: %v", p.name, err)
		}
	}
}

func TestMentions(t *testing.T) {
	for _, c := range []struct {
		expr, name string
		want       bool
	}{{"(sort L)", "L", true}, {"(sort LS)", "L", false}, {"(+ L L2)", "L2", true}, {"(at K O)", "O", true},
		{"(take HALF L)", "HALF", true}, {"(str-to-list U)", "S", false}} {
		if got := mentions(c.expr, c.name); got != c.want {
			t.Errorf("mentions(%q, %q) = %v", c.expr, c.name, got)
		}
	}
}
