package gas

import "testing"

// Reaching the limit exactly is allowed; the charge that passes it is
// still added, so the total that exceeded is what the error reports, as
// upstream's chargeGasArgsM.
func TestMeterLimit(t *testing.T) {
	m := NewMeter(Table, 1000)
	if c, over := m.Charge(600); c != 600 || over {
		t.Fatalf("first charge: %d %v", c, over)
	}
	if _, over := m.Charge(400); over || m.Used() != 1000 {
		t.Fatalf("at the limit: used %d, exceeded %v", m.Used(), over)
	}
	if _, over := m.Charge(1); !over || m.Used() != 1001 {
		t.Fatalf("past the limit: used %d, exceeded %v", m.Used(), over)
	}
	if got, want := m.ExceededText(), `Gas limit "1"exceeded: 2`; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if m.OverBudget() {
		t.Error("a limit is not a budget")
	}
}

// The zero meter is the free model without a limit: nothing is counted.
func TestZeroMeterChargesNothing(t *testing.T) {
	var m Meter
	if c, over := m.Charge(MaxMilliGas); c != 0 || over || m.Used() != 0 || m.Charging() {
		t.Fatalf("charged %d, exceeded %v, used %d", c, over, m.Used())
	}
	if m.Model() != Free || m.SizeBudget() != ^uint64(0) {
		t.Error("the zero meter is the free model, unbounded")
	}
}

// Without a limit a budget counts the table's prices apart from the gas
// used, per top-level evaluation (ResetBudget).
func TestBudgetWithoutLimit(t *testing.T) {
	var m Meter
	m.SetBudget(1000)
	if m.Pricing() != Table {
		t.Error("a budget prices by the table")
	}
	if c, over := m.Charge(1000); c != 0 || over || m.Used() != 0 {
		t.Fatalf("within: charged %d exceeded %v used %d", c, over, m.Used())
	}
	if got := m.SizeBudget(); got != 0 {
		t.Errorf("size budget %d with nothing left", got)
	}
	if _, over := m.Charge(1); !over || !m.OverBudget() {
		t.Fatal("past the budget")
	}
	m.ResetBudget()
	if _, over := m.Charge(1000); over {
		t.Error("a reset budget is whole again")
	}
}

// Under the table model a limit governs alone: a budget left from before
// the limit was set does not apply.
func TestLimitOverridesBudgetUnderTable(t *testing.T) {
	var m Meter
	m.SetBudget(10)
	m.SetModel(Table)
	m.SetLimit(1_000_000)
	if _, over := m.Charge(500_000); over || m.OverBudget() {
		t.Fatal("the budget applied under a limit")
	}
	if got, want := m.SizeBudget(), uint64(500_000/5); got != want {
		t.Errorf("size budget %d, want %d", got, want)
	}
}

// A constant rate charges the rate for every operation against the limit,
// and counts the table's price against the budget, for the meter's life.
func TestConstantRateKeepsTheBudget(t *testing.T) {
	m := NewMeter(ConstantRate(2), FromGas(1_000_000))
	m.SetBudget(5000)
	if c, over := m.Charge(4000); c != 2000 || over {
		t.Fatalf("charged %d exceeded %v", c, over)
	}
	if got, want := m.SizeBudget(), uint64(1000/5); got != want {
		t.Errorf("size budget %d, want the budget's %d", got, want)
	}
	m.ResetBudget() // a new top-level form of the same command
	if _, over := m.Charge(1001); !over || !m.OverBudget() {
		t.Fatal("the budget did not hold across forms")
	}
	if m.Used() != 4000 {
		t.Errorf("used %d, want two charges of the rate", m.Used())
	}
	if got, want := m.BudgetText(), "Evaluation budget exceeded: the work of this evaluation passed 5 gas (priced by the table gas model) whatever the gas rate"; got != want {
		t.Errorf("text %q", got)
	}
}

func TestMilliGasArithmetic(t *testing.T) {
	for _, tc := range []struct {
		mg   MilliGas
		want uint64
	}{{0, 0}, {1, 1}, {999, 1}, {1000, 1}, {1001, 2}, {MaxMilliGas, 18446744073709552}} {
		if got := tc.mg.Gas(); got != tc.want {
			t.Errorf("Gas(%d) = %d, want %d", tc.mg, got, tc.want)
		}
	}
	if MaxMilliGas.Add(1) != MaxMilliGas || Mul(1<<40, 1<<40) != ^uint64(0) {
		t.Error("sums and products saturate")
	}
	if MilliGas(3).Sub(5) != 0 {
		t.Error("differences clamp at 0")
	}
	if FromInt(-5) != 0 {
		t.Error("negative counts are 0")
	}
}

// A Quiet meter's AddWithin is its Charge: the same total and the same
// verdict, over costs up to saturation, on every kind of meter Quiet
// accepts; and Quiet refuses the meters whose Charge does more than add
// (no limit, a rate, a log).
func TestAddWithinIsCharge(t *testing.T) {
	costs := []MilliGas{0, 1, 999, 1000, 1001, 150_000_000, MaxMilliGas / 2, MaxMilliGas - 1, MaxMilliGas}
	meters := map[string]func() Meter{
		"table":            func() Meter { return NewMeter(Table, 1_000_000) },
		"free with limit":  func() Meter { return NewMeter(Free, 5) },
		"zero limit":       func() Meter { return NewMeter(Table, 0) },
		"huge limit":       func() Meter { return NewMeter(Table, MaxMilliGas-1) },
		"max limit":        func() Meter { return NewMeter(Table, MaxMilliGas) },
		"table and budget": func() Meter { m := NewMeter(Table, 1_000); m.SetBudget(10); return m },
		"limit set later":  func() Meter { var m Meter; m.SetBudget(10); m.SetLimit(2_000); return m },
		"rate dropped": func() Meter {
			m := NewMeter(ConstantRate(1), 3_000)
			m.SetModel(Table)
			return m
		},
	}
	for name, mk := range meters {
		for _, first := range costs {
			for _, c := range costs {
				quick, full := mk(), mk()
				if !quick.Quiet() {
					t.Fatalf("%s: not quiet", name)
				}
				quick.AddWithin(first)
				full.Charge(first)
				within := quick.AddWithin(c)
				charged, exceeded := full.Charge(c)
				if within == exceeded || charged != c || quick.Used() != full.Used() {
					t.Fatalf("%s, %d then %d: AddWithin %v used %d; Charge %d %v used %d",
						name, first, c, within, quick.Used(), charged, exceeded, full.Used())
				}
			}
		}
	}
	loud := map[string]func() Meter{
		"zero":        func() Meter { return Meter{} },
		"budget only": func() Meter { var m Meter; m.SetBudget(10); return m },
		"rate":        func() Meter { return NewMeter(ConstantRate(1), 1_000) },
		"rate set later": func() Meter {
			m := NewMeter(Table, 1_000)
			m.SetModel(ConstantRate(2))
			return m
		},
		"unlimited": func() Meter { m := NewMeter(Table, 1_000); m.Unlimit(); return m },
		"logging":   func() Meter { m := NewMeter(Table, 1_000); m.StartLog(); return m },
	}
	for name, mk := range loud {
		if m := mk(); m.Quiet() {
			t.Errorf("%s: quiet", name)
		}
	}
}
