package eval

import (
	"maps"
	"math/big"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/jsontext"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Defpacts (spec §3.7): multi-step transactions whose state is kept in the
// database between steps.

// PactExec is a defpact's state between steps (P5 DefPactExec).
type PactExec struct {
	PactID          string
	StepCount       int
	Step            int
	Yield           *Yield
	StepHasRollback bool
	Def             *Def
	Args            []value.Value
	// Nested are the nested defpacts started from this one, by id.
	Nested map[string]*PactExec
}

// Yield is what a step passed on.
type Yield struct {
	Data        *value.Object
	TargetChain string
	HasTarget   bool
	// SourceChain is set when the yield came over SPV.
	SourceChain string
	// ModuleHash is the hash of the defpact's module when it yielded
	// across chains (P5's provenance): the resuming chain must run that
	// version or one that blesses it.
	ModuleHash string
}

// PactStep is the step being run (P5 DefPactStep).
type PactStep struct {
	Step     int
	Rollback bool
	PactID   string
	Resume   *Yield
	// HasRollback says the step being run has a rollback.
	HasRollback bool
}

// activePactID is P5's getDefPactId: the id in the defpact state, which
// is the running step's during a step and stays set after it.
func (in *Interp) activePactID() (string, bool) {
	if in.tx.defpact == nil {
		return "", false
	}
	return in.tx.defpact.PactID, true
}

// LastPact is the state left by the last defpact step run in this
// transaction (the REPL's pact-state).
func (in *Interp) LastPact() *PactExec { return in.tx.defpact }

// ClearLastPact forgets it.
func (in *Interp) ClearLastPact() { in.tx.defpact = nil }

func (in *Interp) initPact(d *Def, args []value.Value, loc syntax.Span) (value.Value, error) {
	if len(args) != len(d.Args) {
		return nil, invalidNumArgs(d, len(args))
	}
	if err := in.chargeApply(d, len(args)); err != nil {
		return nil, err
	}
	if err := in.checkArgs(d, d.Args, args); err != nil {
		return nil, err
	}
	if ps := in.tx.pactStep; ps != nil {
		return in.applyNested(d, args, ps)
	}
	if in.tx.defpact != nil {
		return nil, value.EvalError("defpact execution context already in the environment:  defpact id: " + in.tx.defpact.PactID)
	}
	pe := &PactExec{PactID: in.TxHash, StepCount: len(d.Steps), Def: d, Args: args}
	return in.runStep(pe, &PactStep{Step: 0, PactID: pe.PactID}, false)
}

// runStep evaluates one step (or its rollback) of a top-level defpact and
// records the new state: P5's applyPact.
func (in *Interp) runStep(pe *PactExec, ps *PactStep, rollback bool) (value.Value, error) {
	d := pe.Def
	// P5 reads the defpact's module (getModuleMemberWithHash).
	if d.Module != nil {
		if _, err := in.loadModule(d.Module.Name); err != nil {
			return nil, err
		}
	}
	st := d.Steps[ps.Step]
	expr := st.Expr
	if rollback {
		if st.Rollback == nil {
			return nil, value.EvalError("Step has no rollback: defpact id: " + ps.PactID)
		}
		expr = st.Rollback
	}
	cur := *pe
	cur.Step, cur.Yield, cur.StepHasRollback = ps.Step, nil, st.Rollback != nil
	cur.Nested = maps.Clone(pe.Nested)
	in.tx.defpact = &cur
	ps.HasRollback = st.Rollback != nil
	savedStep := in.tx.pactStep
	in.tx.pactStep = ps
	in.stack = append(in.stack, frame{def: d})
	if in.Coverage != nil {
		in.Coverage.Enter(d)
	}
	v, err := in.eval(expr, &env{vals: pe.Args})
	in.stack = in.stack[:len(in.stack)-1]
	in.tx.pactStep = savedStep
	if err != nil {
		return nil, unwound(err, d, pe.Args)
	}
	result := in.tx.defpact
	if notAdvanced(result, ps) {
		return nil, value.EvalError("Nested defpact not advanced " + result.PactID)
	}
	crossYield := false
	if y := result.Yield; y != nil && y.HasTarget {
		// A cross-chain yield: yield recorded where it came from (P5's provenance and
		// source chain), which is part of what is written.
		crossYield = true
	}
	done := rollback || ps.Step == pe.StepCount-1
	sz, err := in.sizeOfPactExec(result)
	if err != nil {
		return nil, err
	}
	if err := in.chargeWrite(sz); err != nil {
		return nil, err
	}
	var rec any = result
	if done {
		rec = (*PactExec)(nil)
	}
	if err := in.write(db.DefPacts, "", pe.PactID, rec); err != nil {
		return nil, err
	}
	// P5's emitXChainEvents: the resume's pact.X_RESUME, then the yield's
	// pact.X_YIELD.
	if ps.Resume != nil && ps.Resume.HasTarget {
		in.emitPactEvent("X_RESUME", d, pe, ps.Resume.SourceChain)
	}
	if crossYield {
		in.emitPactEvent("X_YIELD", d, pe, result.Yield.TargetChain)
	}
	return v, nil
}

func notAdvanced(pe *PactExec, ps *PactStep) bool {
	for _, n := range pe.Nested {
		if n.Step != ps.Step {
			return true
		}
	}
	return false
}

// nestedPactID is P5's id of a defpact started from within another:
// the hash of the parent id, ":" and the continuation's stable JSON.
func nestedPactID(parent string, d *Def, args []value.Value) string {
	buf := append([]byte(parent), `:{"args":`...)
	buf, err := value.AppendJSON(buf, value.List(args))
	if err != nil {
		return ""
	}
	buf = append(buf, `,"def":`...)
	buf = jsontext.AppendString(buf, d.qualText())
	buf = append(buf, '}')
	return value.HashBytes(buf)
}

// applyNested runs the step of a nested defpact that matches its parent's
// step: P5's applyNestedPact.
func (in *Interp) applyNested(d *Def, args []value.Value, ps *PactStep) (value.Value, error) {
	pe := in.tx.defpact
	if pe == nil {
		return nil, value.EvalError("No active defpact execution in the environment")
	}
	npID := nestedPactID(ps.PactID, d, args)
	stepCount := len(d.Steps)
	if ps.Step >= stepCount {
		return nil, value.EvalError("DefPactStep does not match defpact properties: requested: " + strconv.Itoa(ps.Step) +
			" step count:" + strconv.Itoa(pe.StepCount))
	}
	st := d.Steps[ps.Step]
	isRollback := st.Rollback != nil
	if stepCount != pe.StepCount {
		return nil, value.EvalError("Nested defpact execution failed, parameter mismatch: PactId: " + pe.PactID +
			" step count: " + strconv.Itoa(stepCount) + " Parent step count: " + strconv.Itoa(pe.StepCount))
	}
	if isRollback != pe.StepHasRollback {
		return nil, value.EvalError("Nested defpact execution failed, parameter mismatch: defpact id: " + pe.PactID +
			" Rollback: " + strconv.FormatBool(isRollback) + " Parent rollback:" + strconv.FormatBool(pe.StepHasRollback))
	}
	var exec PactExec
	switch npe, ok := pe.Nested[npID]; {
	case !ok && ps.Step == 0:
		exec = PactExec{PactID: npID, StepCount: stepCount, Step: ps.Step, Def: d, Args: args, StepHasRollback: isRollback}
	case !ok:
		return nil, value.EvalError("Requested nested defpact double execution: defpact id: " + npID)
	case isRollback && npe.Step == ps.Step:
		exec = *npe
		exec.StepHasRollback = isRollback
	case ps.Step > 0 && npe.Step+1 == ps.Step:
		exec = *npe
		exec.Step++
		exec.StepHasRollback = isRollback
	default:
		return nil, value.EvalError("Requested nested defpact never started: defpact id: " + npID)
	}
	exec.Nested = maps.Clone(exec.Nested)
	in.tx.defpact = &exec
	nps := &PactStep{Step: ps.Step, Rollback: ps.Rollback, PactID: npID, Resume: exec.Yield, HasRollback: isRollback}
	expr := st.Expr
	if ps.Rollback {
		if st.Rollback == nil {
			return nil, value.EvalError("Step has no rollback: defpact id: " + npID)
		}
		expr = st.Rollback
	}
	saved := in.tx.pactStep
	in.tx.pactStep = nps
	in.stack = append(in.stack, frame{def: d})
	if in.Coverage != nil {
		in.Coverage.Enter(d)
	}
	v, err := in.eval(expr, &env{vals: args})
	in.stack = in.stack[:len(in.stack)-1]
	in.tx.pactStep = saved
	if err != nil {
		in.tx.defpact = pe
		return nil, unwound(err, d, args)
	}
	result := in.tx.defpact
	if notAdvanced(result, ps) {
		return nil, value.EvalError("Nested defpact not advanced " + result.PactID)
	}
	parent := *pe
	parent.Nested = maps.Clone(pe.Nested)
	if parent.Nested == nil {
		parent.Nested = map[string]*PactExec{}
	}
	parent.Nested[npID] = result
	in.tx.defpact = &parent
	return v, nil
}

// ContinuePact runs step of the defpact pactID (the REPL's continue-pact
// and a `cont` command). resume, when set, replaces the stored yield.
func (in *Interp) ContinuePact(step int, rollback bool, pactID string, resume *value.Object) (value.Value, error) {
	in.forgetModules()
	if pactID == "" {
		if in.tx.defpact == nil {
			return nil, value.EvalError("No defpact id or execution environment supplied")
		}
		pactID = in.tx.defpact.PactID
	}
	rec, found, err := in.DB.Read(db.DefPacts, "", pactID)
	if err != nil {
		return nil, dbErr(err)
	}
	if !found {
		return nil, value.EvalError("No previous defpact execution found for defpact id:  " + pactID)
	}
	pe, _ := rec.(*PactExec)
	if pe == nil {
		return nil, value.EvalError("Requested defpact already completed:  defpact id:" + pactID)
	}
	if step < 0 || step >= pe.StepCount {
		return nil, value.EvalError("DefPactStep does not match defpact properties: requested: " + strconv.Itoa(step) +
			" step count:" + strconv.Itoa(pe.StepCount))
	}
	if rollback {
		if step != pe.Step {
			return nil, value.EvalError("Rollback mismatch in DefPactStep and defpact execution environment: defpact id: " + pactID +
				" step rollback: true DefPactExec rollback: " + strconv.FormatBool(pe.StepHasRollback))
		}
	} else if step != pe.Step+1 {
		return nil, value.EvalError("Step mismatch in DefPactStep and defpact execution environment: defpact id: " + pactID +
			" step: " + strconv.Itoa(step) + " DefPactExec step: " + strconv.Itoa(pe.Step+1))
	}
	y := pe.Yield
	if resume != nil {
		ny := &Yield{Data: resume}
		if y != nil {
			ny.SourceChain, ny.TargetChain, ny.HasTarget, ny.ModuleHash = y.SourceChain, y.TargetChain, y.HasTarget, y.ModuleHash
		}
		y = ny
	}
	in.tx.defpact = nil
	return in.runStep(pe, &PactStep{Step: step, Rollback: rollback, PactID: pactID, Resume: y}, rollback)
}

func nativeYield(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	obj, ok := a[0].(*value.Object)
	if !ok {
		return nil, c.argsErr(a)
	}
	if in.tx.pactStep == nil {
		return nil, value.EvalError("Try to yield a value outside a running defpact execution")
	}
	y := &Yield{Data: obj}
	if len(a) == 2 {
		t, ok := a[1].(value.String)
		if !ok {
			return nil, c.argsErr(a)
		}
		y.TargetChain, y.HasTarget = string(t), true
		// P5's provenance is the calling module's hash and this chain, recorded by yield
		// itself: a nested defpact's yield carries them as its parent's does.
		y.SourceChain = in.chainID()
		if cur := in.currentModule(); cur != nil {
			m, err := in.loadModule(cur.Name)
			if err != nil {
				return nil, err
			}
			if m == nil {
				m = cur
			}
			y.ModuleHash = m.Hash
		}
		if in.tx.pactStep.HasRollback {
			return nil, value.EvalError("Cross-chain yield not allowed in step with rollback")
		}
	}
	in.tx.defpact.Yield = y
	return obj, nil
}

func nativeResume(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	ps := in.tx.pactStep
	if ps == nil {
		return nil, value.EvalError("No active defpact execution in the environment")
	}
	if ps.Resume == nil {
		return nil, value.EvalError("No yield value found from previous pact step. Current step: " + strconv.Itoa(ps.Step) +
			" defpact Id: " + ps.PactID)
	}
	if err := in.enforceProvenance(ps.Resume); err != nil {
		return nil, err
	}
	return in.apply(a[0], []value.Value{ps.Resume.Data}, c.loc)
}

// enforceProvenance is P5's enforceYield: a yield made for another chain
// may be resumed only on that chain, by the version of the module that
// yielded or one that blesses it.
func (in *Interp) enforceProvenance(y *Yield) error {
	if !y.HasTarget {
		return nil
	}
	ok := y.TargetChain == in.chainID()
	// P5 checks the calling module (the one whose step resumes), as yield recorded it.
	if cur := in.currentModule(); ok && cur != nil {
		m, err := in.loadModule(cur.Name)
		if err != nil {
			return err
		}
		ok = m != nil && (m.Hash == y.ModuleHash || m.Blessed[y.ModuleHash])
	}
	if !ok {
		return value.EvalError("Yield provenance does not match, received Provenance {targetChain: " + in.chainID() +
			"}, expected Provenance {targetChain: " + y.TargetChain + ", moduleHash: " + y.ModuleHash + "}")
	}
	return nil
}

func (in *Interp) chainID() string {
	if v, ok := in.ChainData.Get("chain-id"); ok {
		if s, ok := v.(value.String); ok {
			return string(s)
		}
	}
	return ""
}

// emitPactEvent emits pact.X_YIELD or pact.X_RESUME: the other chain, the
// defpact's name and its arguments.
func (in *Interp) emitPactEvent(name string, d *Def, pe *PactExec, chain string) {
	if in.Flags["DisablePactEvents"] {
		return
	}
	in.tx.events = append(in.tx.events, value.Event{
		Name:       value.QualifiedName{Module: value.ModuleName{Name: "pact"}, Name: name},
		Args:       []value.Value{value.String(chain), value.String(d.qualText()), value.List(pe.Args)},
		ModuleHash: d.Module.Hash,
	})
}

// PactExecFromJSON rebuilds a defpact state from its CommandResult JSON form (the
// "continuation" of a result, decoded by DecodeJSON), as a cross-chain continuation carries it
// in an SPV proof: the defpact is looked up by name in this interpreter's database.
func (in *Interp) PactExecFromJSON(v value.Value) (*PactExec, error) {
	return in.pactExecFromJSON(v, 0)
}

// maxNestedPacts bounds the nesting of defpact states a proof may carry: real defpacts nest
// one or two deep, and a hostile proof must not recurse without end.
const maxNestedPacts = 16

func (in *Interp) pactExecFromJSON(v value.Value, depth int) (*PactExec, error) {
	o, ok := v.(*value.Object)
	if !ok {
		return nil, value.EvalError("the proven output has no defpact continuation")
	}
	str := func(k string) (string, bool) {
		x, ok := o.Get(k)
		s, isStr := x.(value.String)
		return string(s), ok && isStr
	}
	// Plain JSON numbers decode as decimals; step numbers must be whole.
	num := func(k string) (int, bool) {
		x, ok := o.Get(k)
		var r *big.Rat
		switch n := x.(type) {
		case value.Integer:
			r = new(big.Rat).SetInt(n.Big())
		case value.Decimal:
			r = n.Rat()
		default:
			return 0, false
		}
		if !ok || !r.IsInt() || r.Sign() < 0 || r.Num().Cmp(big.NewInt(1<<20)) >= 0 {
			return 0, false
		}
		return int(r.Num().Int64()), true
	}
	pe := &PactExec{}
	var ok1, ok2, ok3 bool
	pe.PactID, ok1 = str("pactId")
	pe.Step, ok2 = num("step")
	pe.StepCount, ok3 = num("stepCount")
	if !ok1 || !ok2 || !ok3 {
		return nil, value.EvalError("the proven defpact continuation lacks pactId, step or stepCount")
	}
	if b, ok := o.Get("stepHasRollback"); ok {
		pe.StepHasRollback = b == value.True
	}
	cont, ok := o.Get("continuation")
	co, isObj := cont.(*value.Object)
	if !ok || !isObj {
		return nil, value.EvalError("the proven defpact continuation has no continuation")
	}
	defName, _ := co.Get("def")
	ds, _ := defName.(value.String)
	qn, ok := value.ParseQualifiedName(string(ds))
	if !ok {
		return nil, value.EvalError("the proven defpact continuation names no defpact: " + string(ds))
	}
	m, err := in.loadModule(qn.Module)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, value.EvalError("Cannot find module: " + qn.Module.String())
	}
	d := m.Defs[qn.Name]
	if d == nil || d.Kind != DefPactKind {
		return nil, value.EvalError("the proven continuation's " + string(ds) + " is not a defpact here")
	}
	pe.Def = d
	if args, ok := co.Get("args"); ok {
		l, isList := args.(value.List)
		if !isList {
			return nil, value.EvalError("the proven defpact continuation's args are not a list")
		}
		pe.Args = l
	}
	if y, ok := o.Get("yield"); ok && y != value.UnitValue {
		yo, isObj := y.(*value.Object)
		if !isObj {
			return nil, value.EvalError("the proven defpact yield is not an object")
		}
		data, _ := yo.Get("data")
		do, isObj := data.(*value.Object)
		if !isObj {
			return nil, value.EvalError("the proven defpact yield has no data")
		}
		pe.Yield = &Yield{Data: do}
		if prov, ok := yo.Get("provenance"); ok {
			if po, isObj := prov.(*value.Object); isObj {
				t, _ := po.Get("targetChainId")
				h, _ := po.Get("moduleHash")
				ts, _ := t.(value.String)
				hs, _ := h.(value.String)
				pe.Yield.TargetChain, pe.Yield.ModuleHash, pe.Yield.HasTarget = string(ts), string(hs), true
			}
		}
		if src, ok := yo.Get("source"); ok {
			s, _ := src.(value.String)
			pe.Yield.SourceChain = string(s)
		}
	}
	// The nested defpacts' states (a nested defpact's cross-chain yield is resumed from
	// them on this chain).
	if n, ok := o.Get("nested"); ok && n != value.UnitValue {
		no, isObj := n.(*value.Object)
		if !isObj {
			return nil, value.EvalError("the proven defpact's nested defpacts are not an object")
		}
		if depth >= maxNestedPacts {
			return nil, value.EvalError("the proven defpact nests more than " + strconv.Itoa(maxNestedPacts) + " defpacts deep")
		}
		pe.Nested = make(map[string]*PactExec, no.Len())
		for i := range no.Len() {
			child, err := in.pactExecFromJSON(no.Val(i), depth+1)
			if err != nil {
				return nil, err
			}
			pe.Nested[no.Key(i)] = child
		}
	}
	return pe, nil
}

// yieldsAcross reports whether pe, or a defpact nested in it, yielded to another chain: what
// a continuation elsewhere resumes (each resume checks that the yield was meant for it).
func yieldsAcross(pe *PactExec) bool {
	if pe.Yield != nil && pe.Yield.HasTarget {
		return true
	}
	for _, n := range pe.Nested {
		if yieldsAcross(n) {
			return true
		}
	}
	return false
}

// ContinueFromProof runs step of a defpact whose last step ran on another chain: pe is that
// step's state, carried by an SPV proof of its output. The step must be the next one, its yield
// must be meant for this chain (resume checks the provenance), and the defpact must not have
// run here already: once its last step has run, another continuation with the same id fails.
func (in *Interp) ContinueFromProof(pe *PactExec, step int, rollback bool) (value.Value, error) {
	in.forgetModules()
	rec, found, err := in.DB.Read(db.DefPacts, "", pe.PactID)
	if err != nil {
		return nil, dbErr(err)
	}
	if found {
		if p, _ := rec.(*PactExec); p == nil {
			return nil, value.EvalError("Requested defpact already completed:  defpact id:" + pe.PactID)
		}
		return nil, value.EvalError("defpact " + pe.PactID + " is already running on this chain")
	}
	if rollback {
		return nil, value.EvalError("a cross-chain defpact step cannot be rolled back")
	}
	if !yieldsAcross(pe) {
		return nil, value.EvalError("the proven defpact step did not yield to another chain")
	}
	if step != pe.Step+1 || step >= pe.StepCount {
		return nil, value.EvalError("Step mismatch in DefPactStep and defpact execution environment: defpact id: " + pe.PactID +
			" step: " + strconv.Itoa(step) + " DefPactExec step: " + strconv.Itoa(pe.Step+1))
	}
	in.tx.defpact = nil
	return in.runStep(pe, &PactStep{Step: step, PactID: pe.PactID, Resume: pe.Yield}, false)
}
