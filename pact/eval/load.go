package eval

import (
	"slices"
	"strings"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Top-level forms: modules, interfaces, uses, REPL definitions and
// expressions.

// EvalProgram evaluates every top-level form of a command's code, in order, and returns the
// last value: what an exec command results in. Code without forms is "empty input".
func (in *Interp) EvalProgram(items []syntax.TopLevel) (value.Value, error) {
	var last value.Value
	for _, item := range items {
		v, err := in.EvalTopLevel(item, false)
		if err != nil {
			return nil, err
		}
		last = v
	}
	if last == nil {
		return nil, value.EvalError("empty input")
	}
	return last, nil
}

// EvalTopLevel evaluates one top-level form. repl allows REPL natives and
// top-level defun/defconst.
func (in *Interp) EvalTopLevel(item syntax.TopLevel, repl bool) (value.Value, error) {
	if in.ReplEvaluator {
		if err := in.checkShadowing(item); err != nil {
			return nil, err
		}
	}
	in.startTopLevel()
	switch x := item.(type) {
	case *syntax.Module:
		return in.defineModule(x, repl)
	case *syntax.Interface:
		return in.defineInterface(x, repl)
	case *syntax.Use:
		u, err := in.resolveUse(x)
		if err != nil {
			return nil, err
		}
		in.addTopUse(u)
		return value.String("Loaded imports from " + u.mod.Name.String()), nil
	case *syntax.Defun:
		c := &compiler{renamer: renamer{in: in, allowRepl: repl, charged: true}}
		d := &Def{Kind: DefFun, Name: x.Name, Loc: x.Loc, fun: x}
		if err := c.defun(d, x); err != nil {
			return nil, err
		}
		if in.Coverage != nil {
			in.coverDefs(d)
		}
		in.replDefs[x.Name] = d
		in.scopeChanged()
		return value.String("Loaded repl defun " + x.Name), nil
	case *syntax.DefConst:
		c := &compiler{renamer: renamer{in: in, allowRepl: repl, charged: true}}
		d := &Def{Kind: DefConstant, Name: x.Name, Loc: x.Loc, fun: x}
		if err := c.defconst(d, x); err != nil {
			return nil, err
		}
		in.replDefs[x.Name] = d
		in.scopeChanged()
		return value.String("Loaded repl defconst " + x.Name), nil
	case syntax.Expr:
		n, err := in.compileTopExpr(x, repl)
		if err != nil {
			return nil, err
		}
		if in.Coverage != nil {
			in.coverExpr(n)
		}
		return in.evalTopExpr(n, x)
	}
	return nil, value.EvalError("unsupported top-level form")
}

// compileTopExpr compiles the top-level expression x with the kept
// desugaring pass (in.topDs) when no other compilation has it; the
// compiled nodes keep nothing of the desugared terms, so that their memory
// serves the next command.
func (in *Interp) compileTopExpr(x syntax.Expr, repl bool) (node, error) {
	c := &compiler{renamer: renamer{in: in, allowRepl: repl, charged: true}}
	if in.topDsBusy {
		return c.expr(x)
	}
	in.topDsBusy = true
	c.ds, in.topDs = in.topDs, resolve.Desugarer{}
	n, err := c.expr(x)
	c.ds.Recycle()
	in.topDs, c.ds = c.ds, resolve.Desugarer{}
	in.topDsBusy = false
	return n, err
}

// startTopLevel readies the interpreter for a top-level form.
func (in *Interp) startTopLevel() {
	in.StartEvaluation()
	in.forgetModules()
	in.stack, in.dynCalls = in.stack[:0], in.dynCalls[:0]
	in.readOnly, in.sysOnly, in.inDefcap, in.composing = 0, 0, 0, -1
}

// evalTopExpr evaluates n, the top-level expression x compiled.
func (in *Interp) evalTopExpr(n node, x syntax.Expr) (value.Value, error) {
	v, err := in.eval(n, nil)
	in.clearLent()
	if err != nil {
		return nil, err
	}
	if p, ok := v.(*Partial); ok {
		return nil, located(partialError(p), x.Span())
	}
	return v, nil
}

// lookupModule reads a module by its full name.
func (in *Interp) lookupModule(mn value.ModuleName) *Module {
	if in.loading != nil && in.loading.Name == mn {
		return in.loading
	}
	for i := range in.modules[:in.nModules] {
		if in.modules[i].name == mn {
			return in.modules[i].m
		}
	}
	v, ok, err := in.DB.Read(db.Modules, "", mn.String())
	if err != nil {
		// Name resolution reports a missing module; the database's own failure is kept for
		// the embedder (DBError), which must not take it for the code's.
		in.dbErr = err
		return nil
	}
	if !ok {
		return nil
	}
	m := v.(*Module)
	if in.nModules < maxKnownModules {
		in.modules[in.nModules] = knownModule{mn, m}
		in.nModules++
	}
	return m
}

// knownModule is a module lookupModule read, under its name.
type knownModule struct {
	name value.ModuleName
	m    *Module
}

// maxKnownModules bounds Interp.modules: a transaction names a few.
const maxKnownModules = 4

// forgetModules empties Interp.modules: the database may have changed
// since they were read.
func (in *Interp) forgetModules() {
	clear(in.modules[:in.nModules])
	in.nModules = 0
}

// lookupModuleRel resolves a name written without namespace: the current
// namespace first, then root.
func (in *Interp) lookupModuleRel(mn value.ModuleName) *Module {
	if mn.Namespace == "" && in.namespace != "" {
		if m := in.lookupModule(value.ModuleName{Namespace: in.namespace, Name: mn.Name}); m != nil {
			return m
		}
	}
	return in.lookupModule(mn)
}

func (in *Interp) resolveUse(u *syntax.Use) (useImport, error) {
	mn := value.ModuleName{Namespace: u.Module.Namespace, Name: u.Module.Name}
	m, err := in.resolveModuleData(mn)
	if err != nil {
		return useImport{}, located(err, u.Loc)
	}
	if m == nil {
		if mn.Namespace == "" && in.namespace != "" {
			// P5's resolveModuleData reads ns.name last with getModuleData, whose
			// failure is an execution error (ModuleDoesNotExist) naming it.
			return useImport{}, execErrAt(u.Loc, "Cannot find module: "+in.namespace+"."+mn.Name)
		}
		return useImport{}, compileErr(u.Loc, "Cannot find module: "+mn.String())
	}
	if u.HasHash && u.Hash != m.Hash && !m.Blessed[u.Hash] {
		return useImport{}, compileErr(u.Loc, "Import error for module "+m.Name.String()+" , hash not blessed: "+u.Hash)
	}
	imp := useImport{mod: m}
	if u.HasImports {
		if len(u.Imports) == 0 && !u.HasHash {
			return useImport{}, compileErr(u.Loc, "empty import list requires a module hash")
		}
		for _, name := range u.Imports {
			if _, ok := m.Defs[name]; !ok {
				return useImport{}, compileErr(u.Loc, "Module member does not exist "+m.Name.String()+"."+name)
			}
		}
		imp.imports = append([]string{}, u.Imports...)
	}
	return imp, nil
}

func docText(d *syntax.Doc) string {
	if d == nil {
		return ""
	}
	return d.Text
}

// source returns the text a node was parsed from, as written, when the
// caller registered the file's source (SetSource); otherwise the node
// printed back.
func (in *Interp) source(n syntax.Node) string {
	if src, ok := in.sources[n.Span().File]; ok {
		if s := n.Span().Slice(src); s != "" {
			return s
		}
	}
	return syntax.Format(n)
}

// SetSource registers a file's text, so that modules keep their code as
// written (describe-module).
func (in *Interp) SetSource(file, src string) {
	if in.sources == nil {
		in.sources = map[string]string{}
	}
	in.sources[file] = src
}

func (in *Interp) defineModule(x *syntax.Module, repl bool) (value.Value, error) {
	if in.Flags["DisableModuleInstall"] {
		return nil, compileErr(x.Loc, "Module install disabled")
	}
	mn := value.ModuleName{Namespace: in.namespace, Name: x.Name}
	m := &Module{Name: mn, Defs: map[string]*Def{}, Blessed: map[string]bool{}, Doc: docText(x.Doc)}
	if x.Gov.Cap {
		m.GovCap = x.Gov.Name
	} else {
		// P5's desugaring parses the keyset name before any governance runs: "" is no name
		// (InvalidKeysetNameFormat), not the absence of governance, which would leave the
		// module to whoever upgrades it next.
		if _, err := parseKeysetRef(x.Gov.Name); err != nil {
			return nil, located(err, x.Loc)
		}
		m.GovKeyset = x.Gov.Name
	}
	// P5's governance step reads the installed version (charged) and
	// forgets having loaded it afterwards.
	var loadedBefore txLoaded
	if in.metered() {
		loadedBefore = in.loaded.saved()
	}
	old, err := in.loadModule(mn)
	if err != nil {
		return nil, located(err, x.Loc)
	}
	if old != nil && old.Interface {
		return nil, execErrAt(x.Loc, "Interface cannot be upgraded: "+mn.String())
	}
	if err := in.checkInstall(old, mn, x.Loc); err != nil {
		return nil, err
	}
	if in.metered() {
		in.loaded = loadedBefore
	}
	img, h, charged, err := in.beginInstall(x, m)
	if err != nil {
		return nil, located(err, x.Loc)
	}
	// Compiling is free: P5 charged the work above.
	if err := in.withoutGas(func() error { return in.compileModule(m, x.Body, x.Loc, repl) }); err != nil {
		return nil, err
	}
	if m.GovKeyset != "" {
		// P5 enforces the module's keyset on every install (free).
		if err := in.enforceModuleKeyset(mn, m.GovKeyset); err != nil {
			return nil, located(err, x.Loc)
		}
	}
	if old != nil {
		for h := range old.Blessed {
			m.Blessed[h] = true
		}
	}
	m.image = img
	if err := in.installDeps(m, img, h, charged); err != nil {
		return nil, located(err, x.Loc)
	}
	if err := in.write(db.Modules, "", mn.String(), m); err != nil {
		return nil, err
	}
	if in.Installed != nil {
		in.Installed(m)
	}
	in.tx.admin[mn] = true
	if in.metered() {
		in.loaded.add(mn, img)
	}
	if in.Coverage != nil {
		in.coverModule(m)
	}
	// The REPL brings a loaded module's names into the top-level scope.
	in.addTopUse(useImport{mod: m})
	return value.String("Loaded module " + mn.String() + ", hash " + m.Hash), nil
}

// compileModule compiles a module's members (after its hash is known).
func (in *Interp) compileModule(m *Module, body []syntax.Decl, loc syntax.Span, repl bool) error {
	c := &compiler{renamer: renamer{in: in, mod: m, allowRepl: repl}}
	if err := c.declare(body); err != nil {
		return err
	}
	if m.GovCap != "" {
		d, ok := m.Defs[m.GovCap]
		if !ok || d.Kind != DefCapability {
			return compileErr(loc, "Invalid governance. Must be a 0-argument defcap or a keyset. Found "+m.Name.String()+"."+m.GovCap)
		}
		if gd, ok := d.fun.(*syntax.DefCap); ok && len(gd.Args) > 0 {
			return compileErr(loc, "Invalid governance. Must be a 0-argument defcap or a keyset. Found "+m.Name.String()+"."+m.GovCap)
		}
	}
	in.loading = m
	err := c.compileBodies(body)
	in.loading = nil
	if err != nil {
		return err
	}
	if err := in.checkImplements(m, loc, c.checks()); err != nil {
		return err
	}
	if err := checkRecursion(m, loc); err != nil {
		return err
	}
	for dep := range c.deps {
		m.Deps = append(m.Deps, dep)
	}
	slices.SortFunc(m.Deps, value.CompareModuleNames)
	return nil
}

// withoutGas runs f with the meter off, keeping what it had counted.
func (in *Interp) withoutGas(f func() error) error {
	meter := in.Gas
	in.Gas.Unlimit()
	in.Gas.SetBudget(0)
	err := f()
	in.Gas = meter
	return err
}

// checkInstall applies governance to an upgrade and the namespace rules
// to a new install.
func (in *Interp) checkInstall(old *Module, mn value.ModuleName, loc syntax.Span) error {
	if old != nil {
		if old.GovKeyset != "" && in.metered() {
			// P5 runs (enforce-guard (keyset-ref-guard "ks")) as code.
			if err := in.chargeNative(in.natives["keyset-ref-guard"]); err != nil {
				return located(err, loc)
			}
			if err := in.chargeParse(old.GovKeyset); err != nil {
				return located(err, loc)
			}
			if err := in.chargeNative(in.natives["enforce-guard"]); err != nil {
				return located(err, loc)
			}
		}
		if err := in.acquireAdmin(old); err != nil {
			return located(err, loc)
		}
		return nil
	}
	if mn.Namespace == "" {
		if !in.NamespacePolicy.AllowRoot {
			return execErrAt(loc, "Namespace installation error: cannot install in root namespace")
		}
		return nil
	}
	return located(in.enforceNamespaceUser(mn.Namespace), loc)
}

func (in *Interp) defineInterface(x *syntax.Interface, repl bool) (value.Value, error) {
	mn := value.ModuleName{Namespace: in.namespace, Name: x.Name}
	old, err := in.loadModuleData(mn)
	if err != nil {
		return nil, located(err, x.Loc)
	}
	if old != nil {
		return nil, execErrAt(x.Loc, "Interface cannot be upgraded: "+mn.String())
	}
	if err := in.checkInstall(nil, mn, x.Loc); err != nil {
		return nil, err
	}
	m := &Module{Name: mn, Interface: true, Defs: map[string]*Def{}, Blessed: map[string]bool{}, Doc: docText(x.Doc)}
	img, h, charged, err := in.beginInstall(x, m)
	if err != nil {
		return nil, located(err, x.Loc)
	}
	err = in.withoutGas(func() error {
		c := &compiler{renamer: renamer{in: in, mod: m, allowRepl: repl}}
		if err := c.declare(x.Body); err != nil {
			return err
		}
		if err := c.compileBodies(x.Body); err != nil {
			return err
		}
		// The interfaces its types name are recorded, as a module's
		// dependencies are, so that the stored interface compiles again
		// to the same names (RestoreModule).
		for dep := range c.deps {
			m.Deps = append(m.Deps, dep)
		}
		slices.SortFunc(m.Deps, value.CompareModuleNames)
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.image = img
	if err := in.installDeps(m, img, h, charged); err != nil {
		return nil, located(err, x.Loc)
	}
	if err := in.write(db.Modules, "", mn.String(), m); err != nil {
		return nil, err
	}
	if in.Installed != nil {
		in.Installed(m)
	}
	if in.metered() {
		in.loaded.add(mn, img)
	}
	in.addTopUse(useImport{mod: m})
	return value.String("Loaded interface " + mn.String() + ", hash " + m.Hash), nil
}

// declare makes every member's Def so that bodies can refer to any of them.
func (c *compiler) declare(body []syntax.Decl) error {
	m := c.mod
	add := func(d *Def) error {
		if _, dup := m.Defs[d.Name]; dup {
			return compileErr(d.Loc, "Duplicate definition: "+d.Name)
		}
		if _, isNative := c.in.natives[d.Name]; isNative {
			return compileErr(d.Loc, "Variable "+d.Name+" shadows native with the same name")
		}
		d.Module = m
		m.Defs[d.Name] = d
		m.Order = append(m.Order, d.Name)
		return nil
	}
	for _, item := range body {
		var d *Def
		switch x := item.(type) {
		case *syntax.Defun:
			d = &Def{Kind: DefFun, Name: x.Name, Loc: x.Loc, fun: x, Doc: docText(x.Doc), Abstract: m.Interface}
		case *syntax.DefCap:
			d = &Def{Kind: DefCapability, Name: x.Name, Loc: x.Loc, fun: x, Doc: docText(x.Doc), Abstract: m.Interface}
		case *syntax.DefConst:
			d = &Def{Kind: DefConstant, Name: x.Name, Loc: x.Loc, fun: x, Doc: docText(x.Doc)}
		case *syntax.DefSchema:
			d = &Def{Kind: DefSchemaKind, Name: x.Name, Loc: x.Loc, fun: x, Doc: docText(x.Doc)}
		case *syntax.DefTable:
			d = &Def{Kind: DefTableKind, Name: x.Name, Loc: x.Loc, fun: x, Doc: docText(x.Doc)}
		case *syntax.DefPact:
			d = &Def{Kind: DefPactKind, Name: x.Name, Loc: x.Loc, fun: x, Doc: docText(x.Doc), Abstract: m.Interface}
		case *syntax.Use:
			u, err := c.in.resolveUse(x)
			if err != nil {
				return err
			}
			c.uses = append(c.uses, u)
			c.dep(u.mod.Name)
			continue
		case *syntax.Implements:
			// Resolved as module{...} types are (P5 resolves both with
			// resolveInterfaceName): as written, the root namespace first.
			iname, err := c.interfaceName(value.ModuleName{Namespace: x.Interface.Namespace, Name: x.Interface.Name}, x.Loc)
			if err != nil {
				return err
			}
			m.Implements = append(m.Implements, iname)
			continue
		case *syntax.Bless:
			if b, err := value.DecodeBase64URL(x.Hash); err != nil || len(b) != 32 {
				return compileErr(x.Loc, "Invalid blessed hash, incorrect format: "+x.Hash)
			}
			m.Blessed[x.Hash] = true
			continue
		default:
			continue
		}
		if err := add(d); err != nil {
			return err
		}
	}
	slices.SortFunc(m.Implements, value.CompareModuleNames)
	return nil
}

// compileBodies compiles members in order: schemas first (types use
// them), then signatures, then bodies; constants are evaluated in
// definition order.
func (c *compiler) compileBodies(body []syntax.Decl) error {
	m := c.mod
	for _, name := range m.Order {
		d := m.Defs[name]
		if d.Kind == DefSchemaKind && d.Schema == nil {
			if err := c.buildSchema(d); err != nil {
				return err
			}
		}
	}
	for _, name := range m.Order {
		d := m.Defs[name]
		var err error
		switch x := d.fun.(type) {
		case *syntax.Defun:
			d.Args, err = c.params(x.Args)
			if err == nil {
				d.Ret, err = c.typ(x.Ret)
				d.retFree = freeCheck(d.Ret)
			}
		case *syntax.DefCap:
			d.Args, err = c.params(x.Args)
			if err == nil {
				d.Ret, err = c.typ(x.Ret)
				d.retFree = freeCheck(d.Ret)
			}
		case *syntax.DefPact:
			d.Args, err = c.params(x.Args)
			if err == nil {
				d.Ret, err = c.typ(x.Ret)
				d.retFree = freeCheck(d.Ret)
			}
		case *syntax.DefTable:
			var s *value.Schema
			s, err = c.schema(x.Schema, x.Loc)
			if err == nil {
				d.Table = value.NewTable(x.Name, m.Name, m.Hash, *s)
			}
		}
		if err != nil {
			return err
		}
	}
	for _, name := range m.Order {
		d := m.Defs[name]
		var err error
		switch x := d.fun.(type) {
		case *syntax.Defun:
			if !m.Interface {
				err = c.defunBody(d, x.Body)
			}
		case *syntax.DefCap:
			err = c.defcap(d, x)
		case *syntax.DefPact:
			if !m.Interface {
				err = c.defpact(d, x)
			}
		}
		if err != nil {
			return err
		}
	}
	// Constants last, in order: their values may call any function.
	for _, name := range m.Order {
		if x, ok := m.Defs[name].fun.(*syntax.DefConst); ok {
			if err := c.defconst(m.Defs[name], x); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *compiler) defun(d *Def, x *syntax.Defun) error {
	var err error
	if d.Args, err = c.params(x.Args); err != nil {
		return err
	}
	if d.Ret, err = c.typ(x.Ret); err != nil {
		return err
	}
	d.retFree = freeCheck(d.Ret)
	return c.defunBody(d, x.Body)
}

func (c *compiler) defunBody(d *Def, body []syntax.Expr) error {
	names := make([]string, len(d.Args))
	for i, p := range d.Args {
		names[i] = p.Name
	}
	saved := c.scope
	c.scope = &scope{names: names}
	defer func() { c.scope = saved }()
	b, err := c.exprs(body)
	if err != nil {
		return err
	}
	d.Body = b
	d.frameFree = !keepsFrame(b...)
	return nil
}

func (c *compiler) defcap(d *Def, x *syntax.DefCap) error {
	if x.Meta != nil {
		switch {
		case x.Meta.Event:
			d.Event = true
		case x.Meta.Manager == nil:
			d.Managed = capAutoManaged
		default:
			d.Managed = capUserManaged
			d.ManagedParam = -1
			for i, p := range d.Args {
				if p.Name == x.Meta.Param {
					d.ManagedParam = i
				}
			}
			if d.ManagedParam < 0 {
				return compileErr(x.Meta.Loc, "Invalid managed parameter "+x.Meta.Param)
			}
			if !c.mod.Interface {
				mgr, ok := c.mod.Defs[x.Meta.Manager.Name]
				if !ok || mgr.Kind != DefFun || x.Meta.Manager.Kind != syntax.BareName {
					return compileErr(x.Meta.Loc, "Invalid managed capability manager function "+x.Meta.Manager.String())
				}
				d.Manager = mgr
			} else if c.checks() {
				// An interface's manager is one of its own functions,
				// named bare (P5's renamer: NoSuchModuleMember).
				mgr, ok := c.mod.Defs[x.Meta.Manager.Name]
				if !ok || mgr.Kind != DefFun || x.Meta.Manager.Kind != syntax.BareName {
					return compileErr(x.Meta.Loc, "Module "+c.mod.Name.String()+" has no such member: "+x.Meta.Manager.String())
				}
			}
		}
	}
	if c.mod.Interface {
		return nil
	}
	c.inDefcap = true
	defer func() { c.inDefcap = false }()
	return c.defunBody(d, x.Body)
}

func (c *compiler) defpact(d *Def, x *syntax.DefPact) error {
	names := make([]string, len(d.Args))
	for i, p := range d.Args {
		names[i] = p.Name
	}
	saved := c.scope
	c.scope = &scope{names: names}
	defer func() { c.scope = saved }()
	for i, s := range x.Steps {
		if s.Entity != nil {
			return execErrAt(s.Loc, "Pact 5 does not support entity expressions in defpact "+d.qualText()+
				". Please ensure your defpact steps have the correct number of expressions")
		}
		e, err := c.expr(s.Expr)
		if err != nil {
			return err
		}
		st := pactStep{Expr: e}
		if s.Rollback != nil {
			if i == len(x.Steps)-1 {
				return compileErr(s.Loc, "rollbacks aren't allowed on the last step")
			}
			if st.Rollback, err = c.expr(s.Rollback); err != nil {
				return err
			}
		}
		d.Steps = append(d.Steps, st)
	}
	return nil
}

func (c *compiler) defconst(d *Def, x *syntax.DefConst) error {
	t, err := c.typ(x.Type)
	if err != nil {
		return err
	}
	n, err := c.expr(x.Value)
	if err != nil {
		return err
	}
	if c.in.Coverage != nil {
		c.in.coverExpr(n)
	}
	v, err := c.in.eval(n, nil)
	if err != nil {
		return err
	}
	if v.Kind() == value.KindClosure && c.checks() {
		// P5 evaluates a constant to a Pact value, which no function is. (A module stored
		// before this check keeps loading.)
		return located(value.EvalError("Evaluation did not reduce to a value"), x.Value.Span())
	}
	if t != nil {
		if err := c.in.checkType(t, v); err != nil {
			return located(err, x.Loc)
		}
	}
	d.Value = v
	return nil
}

// checkImplements checks that a module defines every member of its
// interfaces with the same kind and signature.
//
// checks adds what the compiler once let through (see compiler.checks):
// the defcaps' annotations.
func (in *Interp) checkImplements(m *Module, loc syntax.Span, checks bool) error {
	for _, iname := range m.Implements {
		iface := in.lookupModule(iname)
		if iface == nil {
			return compileErr(loc, "Cannot find interface: "+iname.String())
		}
		for _, name := range iface.Order {
			id := iface.Defs[name]
			switch id.Kind {
			case DefFun, DefCapability, DefPactKind:
			default:
				continue
			}
			md, ok := m.Defs[name]
			if !ok {
				return compileErr(loc, "Interface member not implemented, module "+m.Name.String()+
					" does not implement interface "+iname.String()+" member: "+name)
			}
			if md.Kind == DefCapability && id.Kind == DefCapability && !sameCapMeta(md, id) && checks {
				return compileErr(loc, "Module "+m.Name.String()+" does not correctly implement the function : defcap mismatch for "+
					name+" from Interface "+iname.String())
			}
			if md.Kind != id.Kind || len(md.Args) != len(id.Args) {
				return compileErr(md.Loc, "Interface implementation signature mismatch: "+iname.String()+"."+name)
			}
			for i := range md.Args {
				if !sameParamType(md.Args[i].Type, id.Args[i].Type) {
					return compileErr(md.Loc, "Interface implementation signature mismatch: "+iname.String()+"."+name)
				}
			}
			if !sameParamType(md.Ret, id.Ret) {
				return compileErr(md.Loc, "Interface implementation signature mismatch: "+iname.String()+"."+name)
			}
		}
	}
	return nil
}

// sameCapMeta is P5's checkMetaMatches: a module's defcap implements an
// interface's with the same annotation: neither, both @event, or both
// @managed, an interface's @managed with a manager naming the same
// parameter and a manager function of the same name.
func sameCapMeta(md, id *Def) bool {
	ix, ok := id.fun.(*syntax.DefCap)
	if !ok {
		return true
	}
	switch {
	case ix.Meta == nil:
		return !md.Event && md.Managed == capUnmanaged
	case ix.Meta.Event:
		return md.Event
	case ix.Meta.Manager == nil:
		return md.Managed != capUnmanaged
	}
	return md.Managed == capUserManaged && md.Manager != nil && md.Manager.Name == ix.Meta.Manager.Name &&
		md.ManagedParam == id.ManagedParam && md.Args[md.ManagedParam].Name == ix.Meta.Param
}

func sameParamType(a, b *value.Type) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case value.TyObject, value.TyTable:
		if a.Schema == nil || b.Schema == nil {
			return a.Schema == b.Schema
		}
		return a.Schema.Name.Name == b.Schema.Name.Name
	case value.TyList:
		return sameParamType(a.Elem, b.Elem)
	}
	return value.EqualTypes(a, b)
}

// write stores a value, refusing in read-only mode.
func (in *Interp) write(d db.Domain, table, key string, v any) error {
	if in.readOnly > 0 {
		return &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: Operation disallowed in read-only or sys-only mode"}
	}
	if d == db.Modules {
		in.forgetModules()
	}
	if err := in.DB.Write(d, table, key, v, db.Write); err != nil {
		return dbErr(err)
	}
	return nil
}

func dbErr(err error) error {
	if _, ok := err.(*value.Error); ok {
		return err
	}
	return &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: " + err.Error()}
}

// checkRecursion rejects a module whose functions, capabilities and
// defpacts call each other in a cycle (P5's RecursionDetected).
func checkRecursion(m *Module, loc syntax.Span) error {
	const (
		unvisited = iota
		active
		done
	)
	state := map[*Def]int{}
	var path []string
	var visit func(d *Def) error
	visit = func(d *Def) error {
		switch state[d] {
		case active:
			return compileErr(loc, "Recursive cycle detected in Module "+m.Name.String()+
				" in the following functions: ["+strings.Join(path, ", ")+"]")
		case done:
			return nil
		}
		state[d] = active
		path = append(path, d.Name)
		var err error
		walkDefRefs(d, func(ref *Def) {
			if err == nil && ref.Module == m && ref != d || err == nil && ref == d {
				switch ref.Kind {
				case DefFun, DefCapability, DefPactKind:
					err = visit(ref)
				}
			}
		})
		path = path[:len(path)-1]
		state[d] = done
		return err
	}
	for _, name := range m.Order {
		if d := m.Defs[name]; d.Kind == DefFun || d.Kind == DefCapability || d.Kind == DefPactKind {
			if err := visit(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkDefRefs calls f for every module member a definition's code names.
func walkDefRefs(d *Def, f func(*Def)) {
	var walk func(n node)
	walk = func(n node) {
		switch n := n.(type) {
		case *nDef:
			f(n.def)
		case *nDyn:
			walk(n.ref)
		case *nApp:
			walk(n.fn)
			for _, a := range n.args {
				walk(a)
			}
		case *nList:
			for _, a := range n.elems {
				walk(a)
			}
		case *nObject:
			for _, a := range n.vals {
				walk(a)
			}
		case *nLambda:
			for _, a := range n.body {
				walk(a)
			}
		case *nLet:
			for _, a := range n.vals {
				walk(a)
			}
			for _, a := range n.body {
				walk(a)
			}
		case *nSpecial:
			for _, a := range n.args {
				walk(a)
			}
		case *nBinding:
			for _, a := range n.body {
				walk(a)
			}
		}
	}
	for _, b := range d.Body {
		walk(b)
	}
	for _, s := range d.Steps {
		walk(s.Expr)
		if s.Rollback != nil {
			walk(s.Rollback)
		}
	}
}

// HasModule reports whether a module or interface of that name (ns.name
// or name, relative to the current namespace) is installed.
func (in *Interp) HasModule(name string) bool {
	in.forgetModules()
	mn, ok := value.ParseModuleName(name)
	return ok && in.lookupModuleRel(mn) != nil
}

// LookupModule is the installed module or interface of that name (ns.name
// or name, relative to the current namespace), or nil.
func (in *Interp) LookupModule(name string) *Module {
	in.forgetModules()
	mn, ok := value.ParseModuleName(name)
	if !ok {
		return nil
	}
	return in.lookupModuleRel(mn)
}

// ModuleNamed is the installed module or interface of that full name, or
// nil: what a static reader of a module (package typecheck) resolves the
// names of the modules it refers to by.
// It reads past the cache of modules the transaction named (which decides
// what is charged as loaded).
func (in *Interp) ModuleNamed(mn value.ModuleName) *Module {
	if in.loading != nil && in.loading.Name == mn {
		return in.loading
	}
	v, ok, err := in.DB.Read(db.Modules, "", mn.String())
	if err != nil || !ok {
		return nil
	}
	m, _ := v.(*Module)
	return m
}
