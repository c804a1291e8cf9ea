package eval

import (
	"strings"

	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Capabilities (spec §3.5): tokens, the granted stack, managed caps, events.

type capSlot struct {
	cap      *value.CapToken
	composed []*value.CapToken
}

type managedCap struct {
	token *value.CapToken // for user-managed caps the managed argument is ignored when matching
	def   *Def
	value value.Value // remaining amount of a user-managed cap
	used  bool        // one-shot (auto-managed) cap fired
}

type capState struct {
	stack   []capSlot
	managed []*managedCap
	// autonomous says install-capability was called from code, which
	// disables unscoped signatures.
	autonomous bool
	// evaluating are the caps whose bodies run now (signature scoping).
	evaluating []*value.CapToken
}

func (s capState) clone() capState {
	c := s
	c.stack = append([]capSlot(nil), s.stack...)
	c.managed = make([]*managedCap, len(s.managed))
	for i, m := range s.managed {
		cp := *m
		c.managed[i] = &cp
	}
	c.evaluating = append([]*value.CapToken(nil), s.evaluating...)
	return c
}

// granted lists every cap in scope, composed ones included.
func (s *capState) granted() []*value.CapToken {
	var out []*value.CapToken
	for _, sl := range s.stack {
		out = append(out, sl.cap)
		out = append(out, sl.composed...)
	}
	return out
}

// acquiring is what signature scoping compares signer caps against: the
// caps being evaluated, or else everything granted.
func (s *capState) acquiring() []*value.CapToken {
	if len(s.evaluating) > 0 {
		return s.evaluating
	}
	return s.granted()
}

func (s *capState) isGranted(t *value.CapToken) bool {
	// granted() without building its list: this runs on every
	// with-capability and require-capability.
	for _, sl := range s.stack {
		if capTokensEqual(sl.cap, t) {
			return true
		}
		for _, c := range sl.composed {
			if capTokensEqual(c, t) {
				return true
			}
		}
	}
	return false
}

// roomy is s, or, when s is nil, an empty list with room for a few: the
// lists of a transaction's events and caps hold a few each, and grown from
// nothing one at a time they are allocated once per element.
func roomy[T any](s []T) []T {
	if s == nil {
		return make([]T, 0, 4)
	}
	return s
}

func capTokensEqual(a, b *value.CapToken) bool {
	if !sameCapName(a, b) {
		return false
	}
	for i := range a.Args {
		if !value.Equal(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

// sameCapName says a and b name the same capability (the module hash
// aside) and have as many arguments. The member's name comes first: the
// caps compared on a stack mostly differ there.
func sameCapName(a, b *value.CapToken) bool {
	return a.Name.Name == b.Name.Name && len(a.Args) == len(b.Args) &&
		a.Name.Module.Name == b.Name.Module.Name && a.Name.Module.Namespace == b.Name.Module.Namespace
}

// capTokensMatchManaged compares ignoring argument skip (the managed one).
func capTokensMatchManaged(a, b *value.CapToken, skip int) bool {
	if !sameCapName(a, b) {
		return false
	}
	for i := range a.Args {
		if i != skip && !value.Equal(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

// capToken makes the token `(CAP args)`.
func (in *Interp) capToken(d *Def, args []value.Value) (value.Value, error) {
	if len(args) != len(d.Args) {
		return nil, invalidNumArgs(d, len(args))
	}
	if err := in.chargeApply(d, len(args)); err != nil {
		return nil, err
	}
	if err := in.checkArgs(d, d.Args, args); err != nil {
		return nil, err
	}
	t := in.alloc.capToken()
	t.Name, t.Args = d.fqn(), args
	return t, nil
}

func (in *Interp) capDef(t *value.CapToken) (*Def, error) {
	m := in.lookupModule(t.Name.Module)
	if m == nil {
		return nil, value.EvalError("Cannot find module: " + t.Name.Module.String())
	}
	d, ok := m.Defs[t.Name.Name]
	if !ok || d.Kind != DefCapability {
		return nil, value.EvalError("Invalid event capability " + t.Name.QualName().String())
	}
	return d, nil
}

func expectCapToken(v value.Value) (*value.CapToken, error) {
	t, ok := v.(*value.CapToken)
	if !ok {
		return nil, value.EvalError("expected capability token value, got: " + value.Pretty(v))
	}
	return t, nil
}

func (in *Interp) withCapability(n *nSpecial, e *env) (value.Value, error) {
	if in.inDefcap > 0 {
		return nil, value.EvalError("Form illegal within defcap with-capability")
	}
	tv, err := in.eval(n.args[0], e)
	if err != nil {
		return nil, err
	}
	t, err := expectCapToken(tv)
	if err != nil {
		return nil, err
	}
	d, err := in.capDef(t)
	if err != nil {
		return nil, err
	}
	if err := in.requireAdmin(d.Module.Name); err != nil {
		return nil, err
	}
	if in.tx.caps.isGranted(t) {
		return in.body(n.args[1:], e)
	}
	slot, err := in.acquireCap(d, t)
	if err != nil {
		return nil, err
	}
	in.tx.caps.stack = append(in.tx.caps.stack, slot)
	depth := len(in.tx.caps.stack)
	v, err := in.body(n.args[1:], e)
	if len(in.tx.caps.stack) >= depth {
		in.tx.caps.stack = in.tx.caps.stack[:depth-1]
	}
	return v, err
}

// acquireCap manages and evaluates a capability, returning its slot (not yet
// pushed) with the caps it composed. As in P5, a managed cap is found (or
// installed from a signer's scope) first, its body runs with the installed
// token in scope, and a user-managed cap's manager runs after the body.
func (in *Interp) acquireCap(d *Def, t *value.CapToken) (capSlot, error) {
	var mc *managedCap
	evaluating := t
	if d.Managed != capUnmanaged {
		var err error
		if mc, err = in.findManaged(d, t); err != nil {
			return capSlot{}, err
		}
		if d.Managed == capAutoManaged {
			if mc.used {
				return capSlot{}, value.UserError("One-shot managed capability used more than once")
			}
			mc.used = true
		} else {
			// The body sees the installed (signed) token, so that a
			// signature scoped to it admits a smaller request.
			evaluating = mc.token
		}
	}
	slot, err := in.evalCapBody(d, t, evaluating)
	if err != nil {
		return capSlot{}, err
	}
	if d.Managed == capUserManaged {
		nv, err := in.applyManager(d.Manager, mc.value, t.Args[d.ManagedParam], &d.Loc)
		if err != nil {
			return capSlot{}, err
		}
		mc.value = nv
	}
	if (d.Managed != capUnmanaged || d.Event) && !in.Flags["DisablePactEvents"] {
		in.emit(d, t)
	}
	return slot, nil
}

// applyManager applies a user-managed capability's manager to the
// managed value and the requested one, as apply applies its closure. A
// manager is a defun of two parameters: it is called directly, in a
// frame of the arena given back if nothing keeps it, instead of through a
// closure and an argument list made for the call.
func (in *Interp) applyManager(m *Def, managed, requested value.Value, loc *syntax.Span) (value.Value, error) {
	if m.Kind != DefFun || m.Abstract || len(m.Args) != 2 {
		mgr, err := in.defValue(m)
		if err != nil {
			return nil, err
		}
		return in.apply(mgr, []value.Value{managed, requested}, loc)
	}
	if err := in.step(); err != nil {
		return nil, err
	}
	fr, cf := in.alloc.callFrame(2)
	fr.vals[0], fr.vals[1] = managed, requested
	v, err := in.callFun(m, fr)
	if m.frameFree {
		in.alloc.giveBack(cf)
	}
	return v, err
}

// emit records a capability's event. The module hash is the one the
// token was made against (a caller compiled before an upgrade names the old
// version), as in P5.
func (in *Interp) emit(d *Def, t *value.CapToken) {
	h := t.Name.Hash
	if h == "" || in.Flags["EnableLegacyEventHashes"] {
		h = d.Module.Hash
	}
	if in.tx.events == nil {
		in.tx.events = make([]value.Event, 0, 2) // a transfer's two
	}
	in.tx.events = append(in.tx.events, value.Event{Name: t.Name.QualName(), Args: t.Args, ModuleHash: h})
}

func (in *Interp) evalCapBody(d *Def, t *value.CapToken, evaluating *value.CapToken) (capSlot, error) {
	// Push and truncate rather than copy: whatever runs in between leaves
	// both slices at least as long as it found them.
	nEval, idx := len(in.tx.caps.evaluating), len(in.tx.caps.stack)
	in.tx.caps.evaluating = append(in.tx.caps.evaluating, evaluating)
	// While its body runs the cap sits on the stack, and the caps it
	// composes join its slot at once (a later compose may rely on them).
	in.tx.caps.stack = append(in.tx.caps.stack, capSlot{cap: evaluating})
	in.stack = append(in.stack, frame{def: d})
	in.inDefcap++
	prev := in.composing
	in.composing = idx
	if in.Coverage != nil {
		in.Coverage.Enter(d)
	}
	var fr *env
	if d.frameFree {
		// Nothing the body makes can keep its frame: reuse one.
		fr = in.alloc.envOver(t.Args)
	} else {
		fr = &env{vals: t.Args}
	}
	_, err := in.body(d.Body, fr)
	if err != nil {
		err = unwound(err, d, t.Args)
	}
	if d.frameFree {
		in.alloc.giveBackEnv(fr)
	}
	in.composing = prev
	in.inDefcap--
	in.stack = in.stack[:len(in.stack)-1]
	slot := capSlot{cap: t, composed: in.tx.caps.stack[idx].composed}
	in.tx.caps.evaluating = in.tx.caps.evaluating[:nEval]
	in.tx.caps.stack = in.tx.caps.stack[:idx]
	return slot, err
}

// findManaged finds the installed managed cap matching t (ignoring the
// managed argument of a user-managed cap), installing it from a signer's
// scope if one names it.
func (in *Interp) findManaged(d *Def, t *value.CapToken) (*managedCap, error) {
	skip := -1
	if d.Managed == capUserManaged {
		skip = d.ManagedParam
	}
	for _, m := range in.tx.caps.managed {
		if skip < 0 && capTokensEqual(m.token, t) || skip >= 0 && capTokensMatchManaged(m.token, t, skip) {
			return m, nil
		}
	}
	if mc := in.installFromSigners(d, t, skip); mc != nil {
		return mc, nil
	}
	return nil, value.EvalError("Managed capability not installed: " + renderCapToken(t))
}

// installFromSigners installs a managed cap that a signer (or verifier)
// scoped its signature to.
func (in *Interp) installFromSigners(d *Def, t *value.CapToken, skip int) *managedCap {
	try := func(c *value.CapToken) *managedCap {
		if skip < 0 && capTokensEqual(c, t) || skip >= 0 && capTokensMatchManaged(c, t, skip) {
			mc := cut(&in.alloc.mcaps, smallChunk)
			mc.token, mc.def = c, d
			if skip >= 0 {
				mc.value = c.Args[skip]
			}
			in.tx.caps.managed = append(roomy(in.tx.caps.managed), mc)
			return mc
		}
		return nil
	}
	for _, s := range in.Signers {
		for _, c := range s.Caps {
			if mc := try(c); mc != nil {
				return mc
			}
		}
	}
	for _, v := range in.Verifiers {
		for _, c := range v.Caps {
			if mc := try(c); mc != nil {
				return mc
			}
		}
	}
	return nil
}

func nativeRequireCap(c Call, a []value.Value) (value.Value, error) {
	t, err := expectCapToken(a[0])
	if err != nil {
		return nil, err
	}
	if c.in.metered() {
		// P5 charges the search of the stack: each slot and the caps
		// composed into it.
		n := 0
		for _, sl := range c.in.tx.caps.stack {
			n += 1 + len(sl.composed)
		}
		if err := c.in.charge(gas.RequireCap(n), &gasWhat{k: gkCap, n: int64(n)}); err != nil {
			return nil, err
		}
	}
	if c.in.tx.caps.isGranted(t) {
		return value.True, nil
	}
	return nil, value.UserError("require-capability: not granted: " + renderCapToken(t))
}

func renderCapToken(t *value.CapToken) string {
	var b strings.Builder
	b.WriteString("(" + t.Name.QualName().String())
	for _, a := range t.Args {
		b.WriteByte(' ')
		b.WriteString(value.Pretty(a))
	}
	b.WriteString(")")
	return b.String()
}

func nativeComposeCap(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	if in.inDefcap == 0 || in.composing < 0 || len(in.stack) == 0 || in.stack[len(in.stack)-1].def == nil ||
		in.stack[len(in.stack)-1].def.Kind != DefCapability {
		return nil, value.NativeError("compose-capability", "native must be called within a defcap body")
	}
	t, err := expectCapToken(a[0])
	if err != nil {
		return nil, err
	}
	if in.tx.caps.isGranted(t) {
		return value.True, nil
	}
	d, err := in.capDef(t)
	if err != nil {
		return nil, err
	}
	outer := in.composing
	slot, err := in.acquireCap(d, t)
	if err != nil {
		return nil, err
	}
	o := &in.tx.caps.stack[outer]
	o.composed = append(append(roomy(o.composed), slot.cap), slot.composed...)
	return value.True, nil
}

func nativeInstallCap(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	t, err := expectCapToken(a[0])
	if err != nil {
		return nil, err
	}
	d, err := in.capDef(t)
	if err != nil {
		return nil, err
	}
	if d.Managed == capUnmanaged {
		return nil, value.EvalError("Install capability error: capability is not managed and cannot be installed: " +
			t.Name.QualName().String())
	}
	skip := -1
	if d.Managed == capUserManaged {
		skip = d.ManagedParam
	}
	matches := func(c *value.CapToken) bool {
		if skip >= 0 {
			return capTokensMatchManaged(c, t, skip)
		}
		return capTokensEqual(c, t)
	}
	for _, m := range in.tx.caps.managed {
		if matches(m.token) {
			return nil, value.EvalError("Capability already installed: " + renderCapToken(t))
		}
	}
	if skip >= 0 {
		for _, s := range in.Signers {
			for _, sc := range s.Caps {
				if matches(sc) {
					return nil, value.EvalError("Capability already installed: " + renderCapToken(t))
				}
			}
		}
	}
	in.install(d, t)
	in.tx.caps.autonomous = true
	return value.String("Installed capability"), nil
}

// install records a managed cap; a user-managed one starts with the
// token's managed argument as its amount.
func (in *Interp) install(d *Def, t *value.CapToken) *managedCap {
	mc := &managedCap{token: t, def: d}
	if d.Managed == capUserManaged {
		mc.value = t.Args[d.ManagedParam]
	}
	in.tx.caps.managed = append(in.tx.caps.managed, mc)
	return mc
}

func nativeEmitEvent(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	t, err := expectCapToken(a[0])
	if err != nil {
		return nil, err
	}
	d, err := in.capDef(t)
	if err != nil {
		return nil, err
	}
	cur := in.currentModule()
	if cur == nil || cur.Name != d.Module.Name {
		return nil, value.EvalError("Emitted event does not match module: " + d.Module.Name.String())
	}
	if d.Managed == capUnmanaged && !d.Event {
		return nil, value.EvalError("Invalid event capability " + d.fqn().String())
	}
	if !in.Flags["DisablePactEvents"] {
		in.emit(d, t)
	}
	return value.True, nil
}

// GrantCapability puts t on the capability stack for the rest of the
// transaction without evaluating anything: no module is read (or charged
// for), no body runs, no event is emitted. It is how a node grants its
// magic capabilities (coin.GAS, coin.COINBASE, coin.GENESIS), as chainweb
// seeds the capability state of buy-gas and the coinbase with a slot, so
// that buy-gas pays for loading coin itself.
func (in *Interp) GrantCapability(t *value.CapToken) {
	in.tx.caps.stack = append(in.tx.caps.stack, capSlot{cap: t})
}

// TestCapability acquires a capability for the rest of the transaction
// (the REPL's test-capability).
func (in *Interp) TestCapability(v value.Value) (value.Value, error) {
	in.forgetModules()
	t, err := expectCapToken(v)
	if err != nil {
		return nil, err
	}
	d, err := in.capDef(t)
	if err != nil {
		return nil, err
	}
	if in.tx.caps.isGranted(t) {
		return value.UnitValue, nil
	}
	if d.Managed != capUnmanaged {
		// P5 installs a managed cap, runs its body and pops it again: the
		// manager does not run and the cap is not left granted.
		installed := false
		for _, m := range in.tx.caps.managed {
			installed = installed || capTokensEqual(m.token, t)
		}
		if !installed {
			in.install(d, t)
		}
		if _, err := in.evalCapBody(d, t, t); err != nil {
			return nil, err
		}
		return value.UnitValue, nil
	}
	slot, err := in.acquireCap(d, t)
	if err != nil {
		return nil, err
	}
	in.tx.caps.stack = append(in.tx.caps.stack, slot)
	return value.UnitValue, nil
}
