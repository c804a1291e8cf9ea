package gas

import "strconv"

// Meter adds charges up against a limit, as upstream's chargeGasArgsM
// does: the charge is added (and logged) first, then the new total is
// checked, so an exhausted meter keeps the total that exceeded the limit.
// Reaching the limit exactly is allowed.
//
// A meter without a limit charges nothing at all (upstream's free model,
// and the REPL before env-gaslimit): Charge returns at once, so free
// evaluation pays one branch per charging point.
//
// A meter without a limit may still have a budget: the charges the table
// model would make are added up against it (not to the gas used), so that
// evaluation without gas (the REPL's free model, `pact -s` by default) is
// still bounded in work and memory.
type Meter struct {
	model   *Model
	limit   MilliGas
	limited bool
	used    MilliGas
	// budget bounds an unlimited meter; spent is what it has counted.
	budget, spent MilliGas
	// log, when logging, collects the charges in order.
	log     []Entry
	logging bool
	// plain is limited under a model without a rate, kept up to date by
	// every setter of either: the case Quiet reports.
	plain bool
}

// Entry is one logged charge.
type Entry struct {
	// What describes the charge (upstream's Show of its GasArgs, and where).
	What string
	Cost MilliGas
}

// NewMeter makes a meter of model with a limit in milligas.
func NewMeter(model *Model, limit MilliGas) Meter {
	m := Meter{model: model, limit: limit, limited: true}
	m.setPlain()
	return m
}

func (m *Meter) setPlain() { m.plain = m.limited && (m.model == nil || m.model.Rate == 0) }

// Model is the meter's model (Free for the zero Meter).
func (m *Meter) Model() *Model {
	if m.model == nil {
		return Free
	}
	return m.model
}

// Pricing is the model charges are computed with: the meter's own, or,
// for an unlimited meter counting against a budget, the table model.
func (m *Meter) Pricing() *Model {
	if !m.limited && m.budget > 0 {
		return Table
	}
	return m.Model()
}

// Config is the cost configuration charges are computed with.
func (m *Meter) Config() *Config { return m.Pricing().Config }

// SetBudget bounds the meter while it has no limit, or has a constant
// rate: charges priced by the table model may add up to b (0: no bound).
func (m *Meter) SetBudget(b MilliGas) { m.budget = b }

// Budget is the bound of an unlimited or constant-rate meter.
func (m *Meter) Budget() MilliGas { return m.budget }

// ResetBudget starts counting against the budget of an unlimited meter
// afresh (each top-level evaluation of the REPL has the whole budget). The
// budget of a meter with a limit (a constant rate's) holds for the meter's
// life, one command's.
func (m *Meter) ResetBudget() {
	if !m.limited {
		m.spent = 0
	}
}

// Budgeted reports whether the meter counts against a budget rather than
// a limit.
func (m *Meter) Budgeted() bool { return !m.limited && m.budget > 0 }

// SetModel changes the model, keeping the limit (env-gasmodel).
func (m *Meter) SetModel(model *Model) { m.model = model; m.setPlain() }

// SetLimit sets the limit in milligas; charging starts.
func (m *Meter) SetLimit(limit MilliGas) { m.limit, m.limited = limit, true; m.setPlain() }

// Unlimit removes the limit: nothing is charged from now on.
func (m *Meter) Unlimit() { m.limited = false; m.setPlain() }

// Limit is the limit and whether there is one.
func (m *Meter) Limit() (MilliGas, bool) { return m.limit, m.limited }

// Charging reports whether charges count: the meter has a limit or a
// budget.
func (m *Meter) Charging() bool { return m.limited || m.budget > 0 }

// Used is the milligas charged so far.
func (m *Meter) Used() MilliGas { return m.used }

// SetUsed sets the counter (env-gas n, env-set-milligas, and chainweb's
// shared counter between buying gas and running the payload).
func (m *Meter) SetUsed(u MilliGas) { m.used = u }

// Remaining is what the limit leaves (0 past it; the maximum without one).
func (m *Meter) Remaining() MilliGas {
	if !m.limited {
		return MaxMilliGas
	}
	return m.limit.Sub(m.used)
}

// Logging reports whether charges are being logged; callers describe a
// charge only then. Only charges against a limit are logged.
func (m *Meter) Logging() bool { return m.logging && m.limited }

// StartLog turns logging on (env-gaslog's first call).
func (m *Meter) StartLog() { m.logging = true }

// LogEnabled reports whether logging was turned on.
func (m *Meter) LogEnabled() bool { return m.logging }

// TakeLog returns the logged charges and clears the log.
func (m *Meter) TakeLog() []Entry {
	l := m.log
	m.log = nil
	return l
}

// Charge adds cost (the rate instead, under a constant-rate model) and
// returns what was added and whether the limit is now exceeded. A meter
// without a limit adds nothing. Callers that log record the charge with
// Record, when Logging says so.
func (m *Meter) Charge(cost MilliGas) (charged MilliGas, exceeded bool) {
	if !m.limited {
		if m.budget == 0 {
			return 0, false
		}
		m.spent = m.spent.Add(cost)
		return 0, m.spent > m.budget
	}
	if m.model != nil && m.model.Rate != 0 {
		if m.budgeting() {
			// A constant rate prices every operation alike, so a gas limit
			// alone would let a cheap operation build something huge; the
			// budget still counts the work as the table model prices it.
			m.spent = m.spent.Add(cost)
		}
		cost = m.model.Rate
	}
	m.used = m.used.Add(cost)
	return cost, m.used > m.limit || m.OverBudget()
}

// Quiet reports whether a charge is only an addition to check against the
// limit: the meter has a limit, a model without a rate and no log (a
// node's case). AddWithin is then Charge in a few inlined instructions.
func (m *Meter) Quiet() bool { return m.plain && !m.logging }

// AddWithin is Charge on a Quiet meter: it adds cost and reports whether
// the total is still within the limit. (Without a rate nothing is
// budgeted, so the limit is all there is to pass.)
func (m *Meter) AddWithin(cost MilliGas) bool {
	u := m.used + cost
	if u < cost {
		u = MaxMilliGas // saturating, as Add does
	}
	m.used = u
	return u <= m.limit
}

// OverBudget reports whether the meter's budget, rather than its limit, is
// what is exceeded.
func (m *Meter) OverBudget() bool { return m.budgeting() && m.spent > m.budget }

// budgeting reports whether the budget holds: on a meter without a limit,
// or under a constant rate. Under the table model a limit governs alone.
func (m *Meter) budgeting() bool {
	return m.budget > 0 && (!m.limited || m.model != nil && m.model.Rate != 0)
}

// Record appends a charge to the log.
func (m *Meter) Record(what string, cost MilliGas) {
	m.log = append(m.log, Entry{What: what, Cost: cost})
}

// ExceededText is upstream's out-of-gas message for the current total:
// `Gas limit "<limit>"exceeded: <used>`, both in gas rounded up. (The
// missing space before "exceeded" is upstream's.)
func (m *Meter) ExceededText() string {
	return ExceededText(m.limit, m.used)
}

// ExceededText renders the out-of-gas message for a limit and a total.
func ExceededText(limit, used MilliGas) string {
	return `Gas limit "` + strconv.FormatUint(limit.Gas(), 10) + `"exceeded: ` + strconv.FormatUint(used.Gas(), 10)
}

// SizeBudget is how many bytes the byte-size estimator may count before
// the estimate alone would exhaust the meter (upstream bounds sizeOf this
// way, so that measuring a huge value costs no more than the gas left).
// A budget bounds it too; with neither it is unbounded.
func (m *Meter) SizeBudget() uint64 {
	n := ^uint64(0)
	if m.limited {
		n = uint64(m.limit.Sub(m.used)) / m.Config().SizeOfBytePenalty
	}
	if m.budgeting() {
		n = min(n, uint64(m.budget.Sub(m.spent))/m.Config().SizeOfBytePenalty)
	}
	return n
}

// BudgetText describes an exhausted budget.
func (m *Meter) BudgetText() string {
	why := " while running without a gas limit"
	if m.limited {
		why = " whatever the gas rate"
	}
	return "Evaluation budget exceeded: the work of this evaluation passed " +
		strconv.FormatUint(m.budget.Gas(), 10) + " gas (priced by the table gas model)" + why
}
