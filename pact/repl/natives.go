package repl

import (
	"math/big"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/typecheck"
	"github.com/ledgernode/ledger-node/pact/value"
)

// ReplNativeNames is P5's order of the REPL natives, as `pact -b` prints
// them after the core natives.
var ReplNativeNames = []string{
	"expect", "expect-failure", "expect-that", "print", "pact-state", "env-stackframe", "env-chain-data",
	"env-data", "env-events", "env-hash", "env-keys", "env-sigs", "begin-tx", "commit-tx", "rollback-tx",
	"sig-keyset", "test-capability", "continue-pact", "env-exec-config", "env-namespace-policy", "env-gas",
	"env-milligas", "env-set-milligas", "env-gaslimit", "env-gaslog", "env-gasmodel", "pact-version",
	"enforce-pact-version", "env-enable-repl-natives", "env-module-admin", "env-verifiers",
	"env-set-debug-flag", "load", "typecheck",
}

// ExecFlags are P5's execution flags (env-exec-config).
var ExecFlags = []string{
	"DisableModuleInstall", "DisableHistoryInTransactionalMode", "AllowReadInLocal", "DisablePactEvents",
	"EnforceKeyFormats", "RequireKeysetNs", "DisableRuntimeRTC", "EnableLegacyEventHashes", "DisablePact51",
	"DisablePact52", "DisablePact53", "DisablePact54", "DisableReentrancyCheck",
}

type fn = func(c eval.Call, a []value.Value) (value.Value, error)

func native(name string, min, max int, f fn) *eval.Native {
	return &eval.Native{Name: name, Min: min, Max: max, Fn: f, Repl: true}
}

func argsErr(c eval.Call, a []value.Value) error { return value.ArgsError(c.Native.Name, a...) }

func str(s string) value.Value { return value.String(s) }

func (r *Runner) record(doc string, passed bool, msg string, c eval.Call) {
	r.Results = append(r.Results, TestResult{Doc: doc, Passed: passed, Msg: msg, Loc: c.Loc()})
}

func (r *Runner) natives() []*eval.Native {
	in := func() *eval.Interp { return r.In }
	return []*eval.Native{
		{Name: "expect", Min: 3, Max: 3, Repl: true, Special: r.expect},
		{Name: "expect-failure", Min: 2, Max: 3, Repl: true, Special: r.expectFailure},
		native("expect-that", 3, 3, r.expectThat),
		native("print", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			in().Print(value.Pretty(a[0]))
			return value.UnitValue, nil
		}),
		native("pact-state", 0, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			pe := in().LastPact()
			if pe == nil {
				return nil, value.UserError("pact-state: no pact exec in context")
			}
			if len(a) == 1 {
				if b, ok := a[0].(value.Bool); ok && bool(b) {
					in().ClearLastPact()
				}
			}
			var y value.Value = value.False
			if pe.Yield != nil {
				y = pe.Yield.Data
			}
			return value.NewObject(value.Field{Key: "pactId", Val: str(pe.PactID)}, value.Field{Key: "step", Val: value.NewInt(int64(pe.Step))},
				value.Field{Key: "yield", Val: y}), nil
		}),
		native("env-stackframe", 0, 0, func(c eval.Call, a []value.Value) (value.Value, error) { return value.List{}, nil }),
		native("env-chain-data", 1, 1, r.envChainData),
		native("env-data", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			// P5 round-trips the data through JSON, as on chain.
			b, err := value.EncodeJSON(a[0])
			if err == nil {
				if v, err := value.DecodeJSON(b); err == nil {
					in().Data = v
					return str("Setting transaction data"), nil
				}
			}
			in().Data = a[0]
			return str("Setting transaction data"), nil
		}),
		native("env-events", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			clear, ok := a[0].(value.Bool)
			if !ok {
				return nil, argsErr(c, a)
			}
			evs := in().Events(bool(clear))
			out := make(value.List, len(evs))
			for i, e := range evs {
				out[i] = value.NewObject(value.Field{Key: "name", Val: str(e.Name.String())}, value.Field{Key: "params", Val: value.List(e.Args)},
					value.Field{Key: "module-hash", Val: str(e.ModuleHash)})
			}
			return out, nil
		}),
		native("env-hash", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			s, ok := a[0].(value.String)
			if !ok {
				return nil, argsErr(c, a)
			}
			if _, err := value.DecodeBase64URL(string(s)); err != nil {
				return nil, value.UserError(err.Error())
			}
			in().TxHash = string(s)
			return str("Set tx hash to " + string(s)), nil
		}),
		native("env-keys", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			l, ok := a[0].(value.List)
			if !ok {
				return nil, argsErr(c, a)
			}
			var sigs []value.Signer
			for _, k := range l {
				s, ok := k.(value.String)
				if !ok {
					return nil, argsErr(c, a)
				}
				sigs = append(sigs, value.Signer{PubKey: string(s)})
			}
			in().Signers = sigs
			return str("Setting transaction keys"), nil
		}),
		native("env-sigs", 1, 1, r.envSigs),
		native("begin-tx", 0, 1, r.beginTx),
		native("commit-tx", 0, 0, func(c eval.Call, a []value.Value) (value.Value, error) { return r.endTx(true) }),
		native("rollback-tx", 0, 0, func(c eval.Call, a []value.Value) (value.Value, error) { return r.endTx(false) }),
		native("sig-keyset", 0, 0, func(c eval.Call, a []value.Value) (value.Value, error) {
			var keys []string
			for _, s := range in().Signers {
				keys = append(keys, s.PubKey)
			}
			return value.NewKeySet(keys, value.KeysAll), nil
		}),
		native("test-capability", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			return in().TestCapability(a[0])
		}),
		native("continue-pact", 1, 4, r.continuePact),
		native("env-exec-config", 0, 1, r.envExecConfig),
		native("env-namespace-policy", 2, 2, func(c eval.Call, a []value.Value) (value.Value, error) {
			allow, ok := a[0].(value.Bool)
			if !ok || a[1].Kind() != value.KindClosure {
				return nil, argsErr(c, a)
			}
			in().NamespacePolicy = eval.NamespacePolicy{AllowRoot: bool(allow), Fn: a[1]}
			return str("Installed namespace policy"), nil
		}),
		native("env-gas", 0, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			g := &in().Gas
			if len(a) == 0 {
				return gasInteger(g.Used().Gas()), nil
			}
			n, ok := a[0].(value.Integer)
			if !ok {
				return nil, argsErr(c, a)
			}
			g.SetUsed(gas.FromGas(satWord(n)))
			return str("Set gas to " + n.Text()), nil
		}),
		native("env-milligas", 0, 0, func(c eval.Call, a []value.Value) (value.Value, error) {
			return gasInteger(uint64(in().Gas.Used())), nil
		}),
		native("env-set-milligas", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			n, ok := a[0].(value.Integer)
			if !ok {
				return nil, argsErr(c, a)
			}
			in().Gas.SetUsed(gas.MilliGas(satWord(n)))
			// The pact binary's direct evaluator prints no space here.
			return str("Set milligas to" + n.Text()), nil
		}),
		native("env-gaslimit", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			n, ok := a[0].(value.Integer)
			if !ok {
				return nil, argsErr(c, a)
			}
			in().Gas.SetLimit(gas.FromGas(satWord(n)))
			return str("Set gas limit to " + n.Text()), nil
		}),
		native("env-gaslog", 0, 0, func(c eval.Call, a []value.Value) (value.Value, error) {
			g := &in().Gas
			if !g.LogEnabled() {
				g.StartLog()
				return value.List{str("Enabled gas log")}, nil
			}
			entries := g.TakeLog()
			var total gas.MilliGas
			for _, e := range entries {
				total = total.Add(e.Cost)
			}
			out := make(value.List, 0, len(entries)+1)
			out = append(out, str("TOTAL: "+total.String()))
			for _, e := range entries {
				out = append(out, str(e.What+": "+e.Cost.String()))
			}
			return out, nil
		}),
		native("env-gasmodel", 0, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			g := &in().Gas
			if len(a) == 0 {
				m := g.Model()
				return str("Current gas model is '" + m.Name + "': " + m.Desc), nil
			}
			if s, ok := a[0].(value.String); !ok || s != "table" {
				return nil, argsErr(c, a)
			}
			g.SetModel(gas.Table)
			return str("Set gas model to " + gas.Table.Desc), nil
		}),
		native("pact-version", 0, 0, func(c eval.Call, a []value.Value) (value.Value, error) { return str(Version), nil }),
		{Name: "enforce-pact-version", Min: 1, Max: 2, Fn: enforcePactVersion, Repl: true, TopLevelOnly: true},
		native("env-enable-repl-natives", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			b, ok := a[0].(value.Bool)
			if !ok {
				return nil, argsErr(c, a)
			}
			in().ReplNatives = bool(b)
			if b {
				return str("repl natives enabled"), nil
			}
			return str("repl natives disabled"), nil
		}),
		native("env-module-admin", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			m, ok := a[0].(*value.ModRef)
			if !ok {
				return nil, argsErr(c, a)
			}
			in().GrantAdmin(m.Module)
			return str("Acquired module admin for: " + m.Module.String()), nil
		}),
		native("env-verifiers", 1, 1, r.envVerifiers),
		native("env-set-debug-flag", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			s, ok := a[0].(value.String)
			if !ok {
				return nil, argsErr(c, a)
			}
			switch f := strings.TrimSpace(string(s)); f {
			case "lexer", "parser", "desugar", "all", "none":
				// Accepted; we have no debug output to switch.
				return value.UnitValue, nil
			default:
				return nil, value.NativeError("env-set-debug-flag", "unrecognized flag in env-set-debug: "+f)
			}
		}),
		native("load", 1, 2, r.load),
		native("typecheck", 1, 1, func(c eval.Call, a []value.Value) (value.Value, error) {
			s, ok := a[0].(value.String)
			if !ok {
				return nil, argsErr(c, a)
			}
			if _, ok := value.ParseModuleName(string(s)); !ok {
				return nil, value.NativeError("typecheck", "invalid module name format")
			}
			m := in().LookupModule(string(s))
			if m == nil {
				return nil, value.EvalError("Cannot find module: " + string(s))
			}
			rep, err := typecheck.Check(in(), m)
			if err != nil {
				return nil, value.EvalError(err.Error())
			}
			switch {
			case rep.Failed():
				return nil, value.EvalError(rep.ErrorText())
			case len(rep.Undecided) > 0:
				// Never "successful" for checks that did not decide (DECISIONS.md).
				in().Warn(rep.UndecidedText())
			default:
				in().Print("Typechecking successful for module " + m.Name.String())
			}
			return value.UnitValue, nil
		}),
	}
}

func (r *Runner) expect(c eval.Call, a []eval.Thunk) (value.Value, error) {
	dv, err := a[0].Eval()
	if err != nil {
		return nil, err
	}
	doc, ok := dv.(value.String)
	if !ok {
		return nil, value.ArgsError("expect", dv)
	}
	saved := r.In.Save()
	actual, err := a[2].Eval()
	if err != nil {
		r.In.Restore(saved)
		msg := "FAILURE: " + string(doc) + " evaluation of actual failed with error message:\n" + errText(err)
		r.record(string(doc), false, msg, c)
		return str(msg), nil
	}
	if actual.Kind() == value.KindClosure {
		msg := "FAILURE: expect expression did not return a pact value for comparison"
		r.record(string(doc), false, msg, c)
		return nil, value.UserError(msg)
	}
	expected, err := a[1].Eval()
	if err != nil {
		return nil, err
	}
	if !value.Equal(expected, actual) {
		msg := "FAILURE: " + string(doc) + " expected: " + value.Pretty(expected) + ", received: " + value.Pretty(actual)
		r.record(string(doc), false, msg, c)
		return str(msg), nil
	}
	r.record(string(doc), true, "", c)
	return str("Expect: success " + string(doc)), nil
}

func errText(err error) string {
	if e, ok := err.(*value.Error); ok {
		return e.Msg
	}
	return err.Error()
}

func (r *Runner) expectFailure(c eval.Call, a []eval.Thunk) (value.Value, error) {
	dv, err := a[0].Eval()
	if err != nil {
		return nil, err
	}
	doc, ok := dv.(value.String)
	if !ok {
		return nil, value.ArgsError("expect-failure", dv)
	}
	var match string
	body := a[1]
	if len(a) == 3 {
		mv, err := a[1].Eval()
		if err != nil {
			return nil, err
		}
		m, ok := mv.(value.String)
		if !ok {
			return nil, value.ArgsError("expect-failure", dv, mv)
		}
		match, body = string(m), a[2]
	}
	saved := r.In.Save()
	v, err := body.Eval()
	if err != nil {
		r.In.Restore(saved)
		text := errText(err)
		if len(a) == 3 && !strings.Contains(text, match) {
			msg := "FAILURE: " + string(doc) + ": expected error message '" + match + "', got '" + text + "'"
			r.record(string(doc), false, msg, c)
			return str(msg), nil
		}
		r.record(string(doc), true, "", c)
		return str("Expect failure: Success: " + string(doc)), nil
	}
	msg := "FAILURE: " + string(doc) + ": expected failure, got result"
	if len(a) == 3 {
		msg = "FAILURE: " + match + ": expected failure, got result: " + value.Pretty(v)
	}
	r.record(string(doc), false, msg, c)
	return str(msg), nil
}

func (r *Runner) expectThat(c eval.Call, a []value.Value) (value.Value, error) {
	doc, ok := a[0].(value.String)
	if !ok {
		return nil, argsErr(c, a)
	}
	v, err := r.In.Apply(a[1], a[2:], c.Loc())
	if err != nil {
		return nil, err
	}
	b, ok := v.(value.Bool)
	if !ok {
		r.record(string(doc), false, "FAILURE: expect-that expression did not return a boolean", c)
		return nil, value.NativeError("expect-that", "Expect-that: condition did not return a boolean")
	}
	if !b {
		msg := "FAILURE: Expect-that: Did not satisfy condition: " + string(doc)
		r.record(string(doc), false, msg, c)
		return str(msg), nil
	}
	r.record(string(doc), true, "", c)
	return str("Expect-that: success " + string(doc)), nil
}

func (r *Runner) envChainData(c eval.Call, a []value.Value) (value.Value, error) {
	o, ok := a[0].(*value.Object)
	if !ok {
		return nil, argsErr(c, a)
	}
	cd := r.In.ChainData
	for i, k := range o.Keys() {
		v := o.Val(i)
		good := false
		switch k {
		case "gas-limit", "block-height":
			good = v.Kind() == value.KindInteger
		case "gas-price":
			good = v.Kind() == value.KindDecimal
		case "chain-id", "sender", "prev-block-hash":
			good = v.Kind() == value.KindString
		case "block-time":
			good = v.Kind() == value.KindTime
		}
		if !good {
			return nil, value.UserError("envChainData: bad public metadata value for key: " + k)
		}
		cd = cd.Set(k, v)
	}
	r.In.ChainData = cd
	return str("Updated public metadata"), nil
}

func capList(v value.Value) ([]*value.CapToken, bool) {
	l, ok := v.(value.List)
	if !ok {
		return nil, false
	}
	out := make([]*value.CapToken, len(l))
	for i, x := range l {
		t, ok := x.(*value.CapToken)
		if !ok {
			return nil, false
		}
		out[i] = t
	}
	return out, true
}

func (r *Runner) envSigs(c eval.Call, a []value.Value) (value.Value, error) {
	l, ok := a[0].(value.List)
	if !ok {
		return nil, argsErr(c, a)
	}
	bad := value.UserError("env-sigs: Expected object with 'key': string, 'caps': [capability]")
	var sigs []value.Signer
	for _, x := range l {
		o, ok := x.(*value.Object)
		if !ok {
			return nil, bad
		}
		k, ok1 := o.Get("key")
		cv, ok2 := o.Get("caps")
		ks, ok3 := k.(value.String)
		caps, ok4 := capList(cv)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, bad
		}
		sigs = append(sigs, value.Signer{PubKey: string(ks), Caps: caps})
	}
	r.In.Signers = sigs
	return str("Setting transaction signatures/caps"), nil
}

func (r *Runner) envVerifiers(c eval.Call, a []value.Value) (value.Value, error) {
	l, ok := a[0].(value.List)
	if !ok {
		return nil, argsErr(c, a)
	}
	bad := value.NativeError("env-verifiers", "Expected object with 'name': string, 'caps': [capability]")
	var vs []value.Verifier
	for _, x := range l {
		o, ok := x.(*value.Object)
		if !ok {
			return nil, bad
		}
		n, ok1 := o.Get("name")
		cv, ok2 := o.Get("caps")
		ns, ok3 := n.(value.String)
		caps, ok4 := capList(cv)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, bad
		}
		vs = append(vs, value.Verifier{Name: string(ns), Caps: caps})
	}
	r.In.Verifiers = vs
	return str("Setting transaction verifiers/caps"), nil
}

func txText(start string, t *txInfo) string {
	// Built in one buffer: every begin-tx and commit-tx returns one.
	b := make([]byte, 0, len(start)+len(t.name)+24)
	b = append(append(b, start...), ' ')
	b = strconv.AppendUint(b, uint64(t.id), 10)
	if t.name != "" {
		b = append(append(b, ' '), t.name...)
	}
	return string(b)
}

func (r *Runner) beginTx(c eval.Call, a []value.Value) (value.Value, error) {
	name := ""
	if len(a) == 1 {
		s, ok := a[0].(value.String)
		if !ok {
			return nil, argsErr(c, a)
		}
		name = string(s)
	}
	id, err := r.DB.BeginTx(db.Transactional)
	if err != nil {
		return nil, value.UserError("tx-function failure Begin Tx")
	}
	r.tx = &txInfo{id: id, name: name}
	return str(txText("Begin Tx", r.tx)), nil
}

func (r *Runner) endTx(commit bool) (value.Value, error) {
	start := "Rollback Tx"
	var err error
	if commit {
		start = "Commit Tx"
		_, err = r.DB.CommitTx()
	} else {
		err = r.DB.RollbackTx()
	}
	if err != nil {
		return nil, &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: No Transaction currently in progress, cannot execute \"" +
			map[bool]string{true: "commit", false: "rollback"}[commit] + "\""}
	}
	r.In.ResetTx()
	t := r.tx
	r.tx = nil
	if t == nil {
		return nil, value.UserError("tx-function failure " + start)
	}
	return str(txText(start, t)), nil
}

func (r *Runner) continuePact(c eval.Call, a []value.Value) (value.Value, error) {
	step, ok := a[0].(value.Integer)
	if !ok {
		return nil, argsErr(c, a)
	}
	rollback := false
	pactID := ""
	var resume *value.Object
	if len(a) > 1 {
		b, ok := a[1].(value.Bool)
		if !ok {
			return nil, argsErr(c, a)
		}
		rollback = bool(b)
	}
	if len(a) > 2 {
		s, ok := a[2].(value.String)
		if !ok {
			return nil, argsErr(c, a)
		}
		pactID = string(s)
	}
	if len(a) > 3 {
		o, ok := a[3].(*value.Object)
		if !ok {
			return nil, argsErr(c, a)
		}
		resume = o
	}
	return r.In.ContinuePact(int(step.Int64()), rollback, pactID, resume)
}

func (r *Runner) envExecConfig(c eval.Call, a []value.Value) (value.Value, error) {
	if len(a) == 0 {
		out := value.List{}
		for _, f := range ExecFlags {
			if r.In.Flags[f] {
				out = append(out, str(f))
			}
		}
		return out, nil
	}
	l, ok := a[0].(value.List)
	if !ok {
		return nil, argsErr(c, a)
	}
	flags := map[string]bool{}
	out := value.List{}
	for _, x := range l {
		s, ok := x.(value.String)
		if !ok {
			return nil, argsErr(c, a)
		}
		known := false
		for _, f := range ExecFlags {
			if f == string(s) {
				known = true
			}
		}
		if !known {
			r.In.Warn("Unknown flag: " + string(s))
			continue
		}
		flags[string(s)] = true
		out = append(out, s)
	}
	r.In.Flags = flags
	return out, nil
}

func parseVersion(s string) ([]int, bool) {
	var out []int
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

func cmpVersion(a, b []int) int {
	for i := 0; i < len(a) || i < len(b); i++ {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	// Haskell's Version compares lists: a longer list with an equal prefix
	// is greater.
	return len(a) - len(b)
}

func enforcePactVersion(c eval.Call, a []value.Value) (value.Value, error) {
	cur, _ := parseVersion(Version)
	var bounds [][]int
	for _, v := range a {
		s, ok := v.(value.String)
		if !ok {
			return nil, argsErr(c, a)
		}
		b, ok := parseVersion(string(s))
		if !ok {
			return nil, value.EvalError("Enforce pact-version failed: Could not parse " + string(s) + ", expect list of dot-separated integers")
		}
		bounds = append(bounds, b)
	}
	if cmpVersion(bounds[0], cur) <= 0 && (len(bounds) == 1 || cmpVersion(cur, bounds[1]) <= 0) {
		return value.True, nil
	}
	msg := "Enforce pact-version failed: Current Version: " + Version + " Minimum Version: " + string(a[0].(value.String))
	if len(a) == 2 {
		msg += " Maximum Version: " + string(a[1].(value.String))
	}
	return nil, value.EvalError(msg)
}

func (r *Runner) load(c eval.Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, argsErr(c, a)
	}
	if len(a) == 2 {
		if b, ok := a[1].(value.Bool); ok && bool(b) {
			results, out, trace := r.Results, r.Out, r.Trace
			r.reset()
			r.Results, r.Out, r.Trace = results, out, trace
		}
	}
	path := string(s)
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.dir(), path)
	}
	// The namespace the file entered stays (P5's loadFile keeps the evaluation state and
	// restores only the natives): a project loads its interface from a file that enters the
	// namespace, then its module from another.
	err := r.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return value.UnitValue, nil
}

// satWord is an integer as upstream's SatWord: negative values are 0,
// values past 2^64-1 saturate.
func satWord(n value.Integer) uint64 {
	if n.Sign() < 0 {
		return 0
	}
	b := n.Big()
	if !b.IsUint64() {
		return ^uint64(0)
	}
	return b.Uint64()
}

// gasInteger is a gas amount as a Pact integer.
func gasInteger(g uint64) value.Integer {
	return value.NewIntBig(new(big.Int).SetUint64(g))
}
