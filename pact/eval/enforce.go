package eval

import (
	"strings"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Guards, keysets and module admin (spec §3.6, §3.7).

func nativeEnforceGuard(c Call, a []value.Value) (value.Value, error) {
	var g value.Value = a[0]
	if s, ok := a[0].(value.String); ok {
		if err := c.in.chargeParse(string(s)); err != nil {
			return nil, err
		}
		ref, err := parseKeysetRef(string(s))
		if err != nil {
			return nil, err
		}
		g = ref
	}
	if g.Kind() != value.KindGuard {
		return nil, c.argsErr(a)
	}
	if err := c.in.enforceGuard(g); err != nil {
		return nil, err
	}
	return value.True, nil
}

// parseKeysetRef is P5's parseAnyKeysetName: `ns.name` with a valid
// namespace, or else a legacy name taken as written.
func parseKeysetRef(s string) (*value.KeySetRef, error) {
	if s == "" {
		return nil, value.EvalError("Invalid keyset name format: " + s)
	}
	if i := strings.IndexByte(s, '.'); i > 0 && i < len(s)-1 && validNamespaceName(s[:i]) &&
		!strings.ContainsRune(s[i+1:], '.') {
		return &value.KeySetRef{Namespace: s[:i], Name: s[i+1:]}, nil
	}
	return &value.KeySetRef{Name: s}, nil
}

// EnforceGuard checks a guard against the transaction.
func (in *Interp) EnforceGuard(g value.Value) error {
	in.forgetModules()
	return in.enforceGuard(g)
}

// enforceGuard is EnforceGuard from within an evaluation.
func (in *Interp) enforceGuard(g value.Value) error {
	switch g := g.(type) {
	case *value.KeySet:
		return in.enforceKeyset(g)
	case *value.KeySetRef:
		ks, err := in.readKeyset(g)
		if err != nil {
			return err
		}
		return in.enforceKeyset(ks)
	case *value.UserGuard:
		d, err := in.resolveQual(g.Fun)
		if err != nil {
			return err
		}
		// The function must not fail; its result is ignored (P5). Before
		// Pact 5.3 it ran "sys-only": no user table reads either.
		in.readOnly++
		sysOnly := in.Flags["DisablePact53"]
		if sysOnly {
			in.sysOnly++
		}
		_, err = in.callDef(d, g.Args, &d.Loc)
		if sysOnly {
			in.sysOnly--
		}
		in.readOnly--
		return err
	case *value.CapabilityGuard:
		t := &value.CapToken{Name: value.FullyQualifiedName{Module: g.Name.Module, Name: g.Name.Name}, Args: g.Args}
		if !in.tx.caps.isGranted(t) {
			return value.UserError("Capability not acquired: " + value.Pretty(g))
		}
		if g.HasPactID {
			cur, _ := in.activePactID()
			if cur != g.PactID {
				return value.UserError("Capability pact guard failed: invalid pact id, expected " + g.PactID + " got " + cur)
			}
		}
		return nil
	case *value.ModuleGuard:
		if in.inModule(g.Module) || in.tx.admin[g.Module] {
			return nil
		}
		m, err := in.loadModule(g.Module)
		if err != nil {
			return err
		}
		if m == nil {
			return value.EvalError("Cannot find module: " + g.Module.String())
		}
		return in.acquireAdmin(m)
	case *value.PactGuard:
		cur, ok := in.activePactID()
		if !ok {
			return value.EvalError("Attempted to fetch defpact data, but currently not within defpact execution")
		}
		if cur != g.PactID {
			return value.UserError("Pact guard failed, intended: " + g.PactID + ", active: " + cur)
		}
		return nil
	}
	return value.EvalError("not a guard")
}

func (in *Interp) resolveQual(q value.QualifiedName) (*Def, error) {
	m, err := in.loadModule(q.Module)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, value.EvalError("Cannot find module: " + q.Module.String())
	}
	d, ok := m.Defs[q.Name]
	if !ok {
		return nil, value.EvalError("Module member does not exist " + q.String())
	}
	return d, nil
}

// enforceKeyset counts the signers whose keys are in the keyset and whose
// capability list admits them (signature scoping) and applies the
// predicate.
func (in *Interp) enforceKeyset(ks *value.KeySet) error {
	acquiring := in.tx.caps.acquiring()
	matched := 0
	for _, k := range ks.Keys {
		for _, s := range in.Signers {
			if s.PubKey != k {
				continue
			}
			if in.signerAdmitted(s, acquiring) {
				matched++
				break
			}
		}
	}
	ok, err := in.keysetPredicate(ks, matched)
	if err != nil {
		return err
	}
	if !ok {
		elided := make([]string, len(ks.Keys))
		for i, k := range ks.Keys {
			elided[i] = value.RunePrefix(k, 8) + "..."
		}
		return value.UserError("Keyset failure (" + ks.Pred + "): [" + strings.Join(elided, ", ") + "]")
	}
	return nil
}

func (in *Interp) signerAdmitted(s value.Signer, acquiring []*value.CapToken) bool {
	if len(s.Caps) == 0 {
		return !in.tx.caps.autonomous
	}
	for _, c := range s.Caps {
		for _, a := range acquiring {
			if capTokensEqual(c, a) {
				return true
			}
		}
	}
	return false
}

func (in *Interp) keysetPredicate(ks *value.KeySet, matched int) (bool, error) {
	count := len(ks.Keys)
	switch ks.Pred {
	case value.KeysAll:
		return matched == count, nil
	case value.KeysAny:
		return matched > 0, nil
	case value.Keys2:
		return matched >= 2, nil
	}
	q, ok := value.ParseQualifiedName(ks.Pred)
	if !ok {
		// A bare name is a native, e.g. `=` or `>=`.
		n, found := in.natives[ks.Pred]
		if !found || n.Fn == nil {
			return false, value.EvalError("Invalid custom predicate for keyset " + ks.Pred)
		}
		return asBool(in.callNative(n, []value.Value{value.NewInt(int64(count)), value.NewInt(int64(matched))}, nil))
	}
	d, err := in.resolveQual(q)
	if err != nil || d.Kind != DefFun {
		return false, value.EvalError("Invalid custom predicate for keyset " + ks.Pred)
	}
	return asBool(in.callDef(d, []value.Value{value.NewInt(int64(count)), value.NewInt(int64(matched))}, &d.Loc))
}

func (in *Interp) readKeyset(r *value.KeySetRef) (*value.KeySet, error) {
	v, ok, err := in.DB.Read(db.KeySets, "", r.Text())
	if err != nil {
		return nil, dbErr(err)
	}
	if !ok {
		return nil, value.EvalError("Cannot find keyset in database: " + value.Pretty(r))
	}
	return v.(*value.KeySet), nil
}

func (in *Interp) checkKeyFormats(ks *value.KeySet) error {
	if !in.Flags["EnforceKeyFormats"] {
		return nil
	}
	for _, k := range ks.Keys {
		if !validKeyFormat(k) {
			return value.EvalError("Invalid keyset format: " + value.Pretty(ks))
		}
	}
	return nil
}

func validKeyFormat(k string) bool {
	if rest, ok := strings.CutPrefix(k, "WEBAUTHN-"); ok {
		return isHex(rest) && rest != ""
	}
	return len(k) == 64 && isHex(k)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func nativeKeysetRefGuard(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	r, err := parseKeysetRef(string(s))
	if err != nil {
		return nil, err
	}
	if _, err := c.in.readKeyset(r); err != nil {
		return nil, err
	}
	return r, nil
}

func nativeDefineKeyset(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	name, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	var ks *value.KeySet
	if len(a) == 2 {
		k, ok := a[1].(*value.KeySet)
		if !ok {
			return nil, c.argsErr(a)
		}
		ks = k
	} else {
		k, ok, err := in.readKeysetData(string(name))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, value.UserError("define-read-keyset failure")
		}
		ks = k
	}
	if err := in.checkKeyFormats(ks); err != nil {
		return nil, err
	}
	ref, err := parseKeysetRef(string(name))
	if err != nil {
		return nil, err
	}
	// P5 defineKeySet': rotating an existing keyset needs the old one;
	// a new one needs, under RequireKeysetNs, the current namespace's
	// user guard and a name in that namespace.
	old, found, err := in.DB.Read(db.KeySets, "", ref.Text())
	if err != nil {
		return nil, dbErr(err)
	}
	magic := magicCap("DEFINE_KEYSET", string(name))
	switch {
	case found:
		if err := in.withMagicCap(magic, func() error { return in.enforceKeyset(old.(*value.KeySet)) }); err != nil {
			return nil, err
		}
	case !in.Flags["RequireKeysetNs"]:
	case in.namespace == "":
		return nil, value.EvalError("Cannot define keyset outside of a namespace")
	default:
		if ref.Namespace != in.namespace {
			return nil, value.EvalError("Error defining keyset, namespace mismatch, expected " + in.namespace)
		}
		if err := in.enforceNamespaceUser(in.namespace); err != nil {
			return nil, err
		}
	}
	if in.metered() {
		sz, err := in.sizeOfKeySet(ks)
		if err != nil {
			return nil, err
		}
		if err := in.chargeWrite(sz); err != nil {
			return nil, err
		}
	}
	if err := in.write(db.KeySets, "", ref.Text(), ks); err != nil {
		return nil, err
	}
	return value.String("Keyset write success"), nil
}

// magicCap is one of P5's reserved capabilities, `pact.NAME param`, that
// signatures may be scoped to: DEFINE_KEYSET, MODULE_KEYSET,
// DEFINE_NAMESPACE, NAMESPACE.
func magicCap(name, param string) *value.CapToken {
	return &value.CapToken{Name: value.FullyQualifiedName{Module: value.ModuleName{Name: "pact"}, Name: name}, Args: []value.Value{value.String(param)}}
}

// withMagicCap runs f with the magic capability t granted, as P5 does
// around keyset rotation, namespace use and module governance.
func (in *Interp) withMagicCap(t *value.CapToken, f func() error) error {
	if in.Flags["DisablePact52"] {
		return f()
	}
	if in.tx.caps.isGranted(t) {
		return value.EvalError("magic cap already acquired: " + t.Name.Name)
	}
	saved := in.tx.caps.stack
	in.tx.caps.stack = append(append([]capSlot(nil), saved...), capSlot{cap: t})
	err := f()
	in.tx.caps.stack = saved
	return err
}

func nativeCapGuard(pact bool) func(c Call, a []value.Value) (value.Value, error) {
	return func(c Call, a []value.Value) (value.Value, error) {
		t, err := expectCapToken(a[0])
		if err != nil {
			return nil, err
		}
		g := &value.CapabilityGuard{Name: t.Name.QualName(), Args: t.Args}
		if pact {
			id, ok := c.in.activePactID()
			if !ok {
				return nil, value.EvalError("Attempted to fetch defpact data, but currently not within defpact execution")
			}
			g.PactID, g.HasPactID = id, true
		}
		return g, nil
	}
}

func nativeModuleGuard(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	m := c.in.currentModule()
	if m == nil {
		return nil, value.EvalError("create-module-guard: must call within module")
	}
	return &value.ModuleGuard{Module: m.Name, Name: string(s)}, nil
}

func nativePactGuard(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	id, ok := c.in.activePactID()
	if !ok {
		return nil, value.EvalError("Attempted to fetch defpact data, but currently not within defpact execution")
	}
	return &value.PactGuard{PactID: id, Name: string(s)}, nil
}

func nativeAcquireModuleAdmin(c Call, a []value.Value) (value.Value, error) {
	r, ok := a[0].(*value.ModRef)
	if !ok {
		return nil, c.argsErr(a)
	}
	m, err := c.in.loadModule(r.Module)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, value.EvalError("Cannot find module: " + r.Module.String())
	}
	if err := c.in.acquireAdmin(m); err != nil {
		return nil, err
	}
	return value.String("Module admin for module " + m.Name.String() + " acquired"), nil
}

// acquireAdmin enforces a module's governance once per transaction.
func (in *Interp) acquireAdmin(m *Module) error {
	if in.tx.admin[m.Name] {
		return nil
	}
	if m.GovKeyset != "" {
		if err := in.enforceModuleKeyset(m.Name, m.GovKeyset); err != nil {
			return err
		}
	} else if m.GovCap == "" {
		if !m.Interface {
			// A module with neither (stored before "" was refused at install) has no
			// governance anyone can satisfy: refused, as its install would be now, rather
			// than open to all.
			return value.EvalError("Invalid keyset name format: ")
		}
	} else {
		d := m.Defs[m.GovCap]
		if d == nil {
			return value.EvalError("Module member does not exist " + m.Name.String() + "." + m.GovCap)
		}
		t := &value.CapToken{Name: d.fqn()}
		slot, err := in.acquireCap(d, t)
		if err != nil {
			return err
		}
		_ = slot
	}
	in.tx.admin[m.Name] = true
	return nil
}

// requireAdmin is the check for operations that need admin: it succeeds
// inside the module or with admin already held (acquire-module-admin, or
// installing the module in this transaction); it does not acquire it.
func (in *Interp) requireAdmin(m value.ModuleName) error {
	if in.inModule(m) || in.tx.admin[m] {
		return nil
	}
	return value.EvalError("Module admin necessary for operation but has not been acquired:" + m.String())
}

// enforceModuleKeyset enforces a module's governance keyset under the
// MODULE_KEYSET magic capability.
func (in *Interp) enforceModuleKeyset(m value.ModuleName, keyset string) error {
	r, err := parseKeysetRef(keyset)
	if err != nil {
		return err
	}
	ks, err := in.readKeyset(r)
	if err != nil {
		return err
	}
	return in.withMagicCap(magicCap("MODULE_KEYSET", m.String()), func() error { return in.enforceKeyset(ks) })
}
