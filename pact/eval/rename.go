package eval

import (
	"slices"
	"strings"

	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Name resolution, as P5's renamer (Pact.Core.IR.Desugar: resolveBare,
// resolveQualified, resolveDynamic, resolveModuleName, resolveModuleData,
// resolveInterfaceName, renameType) reads names, for the compiler
// (compile.go). The renamer says what a name is; the compiler makes the
// evaluator's node of it.

// renamer resolves names against the module or interface being defined, its
// imports, the REPL's top level, the current namespace and the installed
// modules.
type renamer struct {
	in *Interp
	// mod is the module or interface being defined, nil at top level.
	mod *Module
	// uses are the module's own `use` imports.
	uses []useImport
	// allowRepl lets the code call REPL natives (the compiler's natives).
	allowRepl bool
	// charged says the modules names resolve to are read (and charged) as
	// P5's renamer reads them: a top-level term. Module bodies are not:
	// installing paid.
	charged bool
	// deps collects the modules the code depends on (only a module's code
	// records them): what a stored module is compiled again against
	// (Module.Deps).
	deps map[ModuleName]bool
	// stored, when a stored module is compiled again (RestoreModule), is
	// the set of modules its record lists as dependencies.
	stored map[ModuleName]bool
}

// useImport is a `use`: the module, and the members it imports.
type useImport struct {
	mod     *Module
	imports []string // nil: everything
}

// resolutionKind is what a name resolved to.
type resolutionKind uint8

const (
	// resLocal: a local variable (a lambda's or let's binder).
	resLocal resolutionKind = iota
	// resMember: a module member, or a REPL top-level definition.
	resMember
	// resModRef: a module named as a value.
	resModRef
	// resNative, resConstantly, resConst: the compiler's natives.
	resNative
	resConstantly
	resConst
)

// replModule is the module P5 gives REPL top-level definitions.
var replModule = ModuleName{Name: "#repl"}

// A resolution is what the renamer found a name to be.
type resolution struct {
	kind resolutionKind
	// resLocal: up frames out at slot idx.
	up, idx int
	// resMember: the definition.
	def *Def
	// resMember from an installed module, resModRef: the module; nil for a
	// reference to the module being defined.
	mod *Module
	// resMember, resModRef: the module's name (a REPL definition's is
	// replModule).
	modName ModuleName
	// resNative: the native; resConst: the value.
	native *Native
	value  Value
	// dynamic says the name was mod::member, the resolution mod's.
	dynamic bool
}

// scope is the locals in scope: frames of names, the innermost first.
type scope struct {
	names []string
	up    *scope
}

// bind is s with a new innermost frame of names.
func (s *scope) bind(names ...string) *scope { return &scope{names: names, up: s} }

// local finds a local: the latest binding of name in the innermost frame
// that has one.
func (s *scope) local(name string) (resolution, bool) {
	for up := 0; s != nil; s, up = s.up, up+1 {
		for i := len(s.names) - 1; i >= 0; i-- {
			if s.names[i] == name {
				return resolution{kind: resLocal, up: up, idx: i}, true
			}
		}
	}
	return resolution{}, false
}

func (r *renamer) dep(m ModuleName) {
	if r.mod == nil {
		// Only a module records what it depends on.
		return
	}
	if r.deps == nil {
		r.deps = map[ModuleName]bool{}
	}
	r.deps[m] = true
}

// load reads a module for name resolution: when charged, as P5's renamer
// reads (lookupModuleData when merge, lookupModule otherwise).
func (r *renamer) load(mn ModuleName, merge bool, loc syntax.Span) (*Module, error) {
	if !r.charged {
		return r.in.lookupModule(mn), nil
	}
	m, err := r.in.loadCharged(mn, merge)
	if err != nil {
		return nil, located(err, loc)
	}
	return m, nil
}

// moduleData is P5's resolveModuleData: the module as named, then (for a
// name without namespace) in the current namespace; nil when neither is
// installed.
func (r *renamer) moduleData(mn ModuleName, loc syntax.Span) (*Module, error) {
	m, err := r.load(mn, true, loc)
	if m != nil || err != nil || mn.Namespace != "" || r.in.namespace == "" {
		return m, err
	}
	return r.load(ModuleName{Namespace: r.in.namespace, Name: mn.Name}, true, loc)
}

// rename resolves a name.
func (r *renamer) rename(n syntax.Name, sc *scope, loc syntax.Span) (resolution, error) {
	switch n.Kind {
	case syntax.QualifiedName:
		return r.qualified(n, loc)
	case syntax.DynamicName:
		return r.dynamic(n, sc, loc)
	}
	return r.bare(n.Name, sc, loc)
}

// bare is P5's resolveBare: a local, a member of the module being defined,
// an imported member (the module's uses, then the top level's, the latest
// first), a REPL definition, then a module reference.
func (r *renamer) bare(name string, sc *scope, loc syntax.Span) (resolution, error) {
	if res, ok := sc.local(name); ok {
		return res, nil
	}
	if r.mod != nil {
		if d, ok := r.mod.Defs[name]; ok {
			return resolution{kind: resMember, def: d, modName: r.mod.Name}, nil
		}
	}
	if res, ok := r.topLevel(name); ok {
		r.dep(res.modName)
		return res, nil
	}
	// The desugaring pass leaves natives to be resolved here, after the
	// members that may shadow them.
	if res, ok, err := r.native(name, loc); ok || err != nil {
		return res, err
	}
	res, ok, err := r.moduleRef(name, loc)
	if ok || err != nil {
		return res, err
	}
	// and and or, at another arity than two, are function values.
	if form, ok := resolve.LookupForm(name); ok && (form == resolve.FormAnd || form == resolve.FormOr) {
		return resolution{kind: resNative, native: boolFnNative(form)}, nil
	}
	return resolution{}, compileErr(loc, "Unbound variable "+name)
}

// topLevel looks a bare name up among the imported members (the module's
// uses, then the REPL's top-level ones: the modules used or loaded there),
// the latest first, then among the REPL's definitions, which a module's
// code may not name: an installed module cannot depend on a REPL session.
func (r *renamer) topLevel(name string) (resolution, bool) {
	if m, d := r.useMember(name, false); d != nil {
		return resolution{kind: resMember, def: d, mod: m, modName: m.Name}, true
	}
	if r.mod == nil {
		if d, ok := r.in.replDefs[name]; ok {
			return resolution{kind: resMember, def: d, modName: replModule}, true
		}
	}
	return resolution{}, false
}

// useMember is the member name imported by the latest use (the module's,
// then the top level's) that imports it, a schema only when schemaOnly.
func (r *renamer) useMember(name string, schemaOnly bool) (*Module, *Def) {
	for _, uses := range [2][]useImport{r.uses, r.in.topUses} {
		for i := len(uses) - 1; i >= 0; i-- {
			u := uses[i]
			if u.imports != nil && !slices.Contains(u.imports, name) {
				continue
			}
			if d, ok := u.mod.Defs[name]; ok && (!schemaOnly || d.Kind == DefSchemaKind) {
				return u.mod, d
			}
		}
	}
	return nil, nil
}

// native is the compiler's: a native (the REPL's where allowed),
// constantly, or a CHARSET_ constant.
func (r *renamer) native(name string, loc syntax.Span) (resolution, bool, error) {
	if n, ok := r.in.natives[name]; ok && (!n.Repl || r.allowRepl) {
		if n.Repl && r.mod != nil && !r.in.ReplNatives {
			return resolution{}, false, compileErr(loc, "repl native disallowed in module code. If you want to use this, enable them with (env-enable-repl-natives true)")
		}
		return resolution{kind: resNative, native: n}, true, nil
	}
	switch name {
	case "constantly":
		return resolution{kind: resConstantly}, true, nil
	case "CHARSET_ASCII":
		return resolution{kind: resConst, value: NewInt(0)}, true, nil
	case "CHARSET_LATIN1":
		return resolution{kind: resConst, value: NewInt(1)}, true, nil
	}
	return resolution{}, false, nil
}

// moduleRef is P5's resolveModuleName: a bare name as a module reference
// (the module being defined by its name without namespace, first), or not
// found.
func (r *renamer) moduleRef(name string, loc syntax.Span) (resolution, bool, error) {
	if r.mod != nil && r.mod.Name.Name == name {
		return resolution{kind: resModRef, modName: r.mod.Name}, true, nil
	}
	m, err := r.moduleData(ModuleName{Name: name}, loc)
	if m == nil || err != nil {
		return resolution{}, false, err
	}
	r.dep(m.Name)
	return resolution{kind: resModRef, mod: m, modName: m.Name}, true, nil
}

// qualified is P5's resolveQualified: member of mod (or ns.mod), then
// ns.mod as a module reference, then member of mod in the current
// namespace.
func (r *renamer) qualified(n syntax.Name, loc syntax.Span) (resolution, error) {
	qmn := ModuleName{Namespace: n.Namespace, Name: n.Module}
	if r.mod != nil && (r.mod.Name == qmn || n.Namespace == "" && r.mod.Name.Name == n.Module) {
		if d, ok := r.mod.Defs[n.Name]; ok {
			return resolution{kind: resMember, def: d, modName: r.mod.Name}, nil
		}
		return resolution{}, compileErr(loc, "Module member does not exist "+r.mod.Name.String()+"."+n.Name)
	}
	if res, ok, err := r.baseLookup(qmn, n.Name, loc); ok || err != nil {
		return res, err
	}
	if n.Namespace != "" {
		return resolution{}, r.noMember(qmn, n.Name, "Cannot find module: "+qmn.String(), loc)
	}
	// ns.mod as a module reference (possibly the module being defined).
	refName := ModuleName{Namespace: n.Module, Name: n.Name}
	if r.mod != nil && r.mod.Name == refName {
		return resolution{kind: resModRef, modName: r.mod.Name}, nil
	}
	m, err := r.load(refName, false, loc)
	if err != nil {
		return resolution{}, err
	}
	if m != nil && !m.Interface {
		r.dep(m.Name)
		return resolution{kind: resModRef, mod: m, modName: m.Name}, nil
	}
	if r.in.namespace != "" {
		nsName := ModuleName{Namespace: r.in.namespace, Name: n.Module}
		if res, ok, err := r.baseLookup(nsName, n.Name, loc); ok || err != nil {
			return res, err
		}
	}
	return resolution{}, r.noMember(qmn, n.Name, "Cannot resolve module "+n.Module, loc)
}

// noMember is P5's NoSuchModuleMember, or missing when the module is not
// installed.
func (r *renamer) noMember(qmn ModuleName, name, missing string, loc syntax.Span) error {
	if r.in.lookupModule(qmn) == nil {
		return compileErr(loc, missing)
	}
	return compileErr(loc, "Module member does not exist "+qmn.String()+"."+name)
}

// baseLookup is P5's: member name of the module mn, read as name
// resolution reads.
func (r *renamer) baseLookup(mn ModuleName, name string, loc syntax.Span) (resolution, bool, error) {
	m, err := r.load(mn, true, loc)
	if err != nil || m == nil {
		return resolution{}, false, err
	}
	d, ok := m.Defs[name]
	if !ok {
		return resolution{}, false, nil
	}
	r.dep(m.Name)
	return resolution{kind: resMember, def: d, mod: m, modName: m.Name}, true, nil
}

// dynamic is mod::member: mod read as any bare name, its value's member
// invoked at run time.
func (r *renamer) dynamic(n syntax.Name, sc *scope, loc syntax.Span) (resolution, error) {
	res, err := r.bare(n.Module, sc, loc)
	if err != nil {
		return resolution{}, err
	}
	res.dynamic = true
	return res, nil
}

// interfaceName is P5's resolveInterfaceName: the fully qualified
// interface a name in a module{...} type or an implements names. The
// runtime check compares it with the fully qualified names a module
// reference carries, so a name left as written (pol for ns.pol) would
// reject every module that implements the interface.
//
// Inside an interface, the interface's own name may be used before it
// exists: the name as written is the interface itself, else an installed
// interface of that name (the root namespace first), else, in the current
// namespace, the interface itself again. Everywhere else the name is
// looked up as written, then in the current namespace, and must name an
// installed interface.
func (r *renamer) interfaceName(mn ModuleName, loc syntax.Span) (ModuleName, error) {
	if r.mod != nil && r.mod.Interface {
		if mn == r.mod.Name {
			return mn, nil
		}
		m, err := r.load(mn, true, loc)
		if err != nil {
			return ModuleName{}, err
		}
		// A stored interface compiled again resolves as it did when it
		// was installed: an interface of the same name installed since
		// in the root namespace is not the one it meant, and its record
		// lists the ones it meant among its dependencies.
		if m != nil && r.stored != nil && !r.stored[m.Name] && mn.Namespace == "" &&
			(ModuleName{Namespace: r.in.namespace, Name: mn.Name}) == r.mod.Name {
			return r.mod.Name, nil
		}
		if m != nil {
			if !m.Interface {
				return ModuleName{}, invalidModRef(mn, loc)
			}
			r.dep(m.Name)
			return m.Name, nil
		}
		if mn.Namespace != "" || r.in.namespace == "" {
			return ModuleName{}, compileErr(loc, "Cannot find module: "+mn.String())
		}
		mn = ModuleName{Namespace: r.in.namespace, Name: mn.Name}
		if mn == r.mod.Name {
			return mn, nil
		}
	}
	if r.stored != nil && mn.Namespace == "" && r.in.namespace != "" {
		// A stored module compiled again: a bare name that resolved to
		// the current namespace's interface when it was installed (its
		// record says so) still does, though an interface of that name
		// may have been installed at the root since.
		if ns := (ModuleName{Namespace: r.in.namespace, Name: mn.Name}); r.stored[ns] && !r.stored[mn] {
			mn = ns
		}
	}
	m, err := r.moduleData(mn, loc)
	if err != nil {
		return ModuleName{}, err
	}
	// The module being defined is not installed yet: P5 does not find it.
	if m == nil || m == r.mod {
		return ModuleName{}, compileErr(loc, "Cannot find module: "+mn.String())
	}
	if !m.Interface {
		return ModuleName{}, invalidModRef(mn, loc)
	}
	r.dep(m.Name)
	return m.Name, nil
}

// invalidModRef is P5's InvalidModuleReference: a module{...} type names a
// module, not an interface.
func invalidModRef(mn ModuleName, loc syntax.Span) *Error {
	return compileErr(loc, "Invalid Interface attempted to be used as module reference: "+mn.String())
}

// renameType is P5's renameType: a type annotation, its schema and
// interface names resolved. sc is the locals in scope.
func (r *renamer) renameType(t syntax.Type, sc *scope) (*Type, error) {
	switch t := t.(type) {
	case *syntax.PrimType:
		return primType(t.Prim), nil
	case *syntax.ListType:
		e, err := r.renameType(t.Elem, sc)
		if err != nil {
			return nil, err
		}
		if e == nil {
			return &Type{Kind: TyAnyList}, nil
		}
		return &Type{Kind: TyList, Elem: e}, nil
	case *syntax.ModRefType:
		ms := make([]ModuleName, len(t.Interfaces))
		for i, m := range t.Interfaces {
			mn, err := r.interfaceName(ModuleName{Namespace: m.Namespace, Name: m.Name}, t.Loc)
			if err != nil {
				return nil, err
			}
			ms[i] = mn
		}
		return modRefType(ms), nil
	case *syntax.SchemaType:
		s, err := r.renameSchema(t.Schema, sc, t.Loc)
		if err != nil {
			return nil, err
		}
		if t.Table {
			return &Type{Kind: TyTable, Schema: s}, nil
		}
		return &Type{Kind: TyObject, Schema: s}, nil
	}
	return nil, nil
}

// primType is a primitive type annotation's type: list and object
// without a parameter are any list and any object.
func primType(p syntax.Prim) *Type {
	switch p {
	case syntax.PrimList:
		return &Type{Kind: TyAnyList}
	case syntax.PrimObject:
		return &Type{Kind: TyAnyObject}
	}
	return &Type{Kind: TyPrim, Prim: string(p)}
}

// modRefType is module{...}: its interfaces sorted and unique, as the
// runtime check compares them.
func modRefType(ms []ModuleName) *Type {
	slices.SortFunc(ms, compareModuleNames)
	return &Type{Kind: TyModRef, ModRefs: slices.Compact(ms)}
}

// renameSchema resolves the schema an object{...} or table{...} type or a
// deftable names, among the members only: the module's own (of any kind:
// another is an error), the imported schemas, or a schema of the module the
// qualified name names; outside a module (REPL lets, lambdas) a schema type
// it does not find checks only that the value is an object.
func (r *renamer) renameSchema(n syntax.Name, sc *scope, loc syntax.Span) (*Schema, error) {
	var d *Def
	switch n.Kind {
	case syntax.BareName:
		if r.mod != nil {
			d = r.mod.Defs[n.Name]
		}
		if d == nil {
			_, d = r.useMember(n.Name, true)
		}
	case syntax.QualifiedName:
		mn := ModuleName{Namespace: n.Namespace, Name: n.Module}
		if r.mod != nil && r.mod.Name.Name == n.Module && n.Namespace == "" {
			d = r.mod.Defs[n.Name]
		} else {
			m, err := r.moduleData(mn, loc)
			if err != nil {
				return nil, err
			}
			if m != nil {
				d = m.Defs[n.Name]
			}
		}
	}
	if d == nil || d.Kind != DefSchemaKind {
		if r.mod == nil {
			return nil, nil
		}
		return nil, compileErr(loc, "Invalid schema "+n.String())
	}
	if d.Schema == nil {
		if err := r.buildSchema(d); err != nil {
			return nil, err
		}
	}
	return d.Schema, nil
}

// buildSchema is the compiler's schema of a defschema of the module being
// defined, its field types resolved.
func (r *renamer) buildSchema(d *Def) error {
	ds := d.fun.(*syntax.DefSchema)
	s := &Schema{Name: d.QualName()}
	d.Schema = s // set first: a schema may mention itself
	for _, f := range ds.Fields {
		t, err := r.renameType(f.Type, nil)
		if err != nil {
			return err
		}
		if t == nil {
			t = &Type{Kind: TyAny}
		}
		s.Fields = append(s.Fields, SchemaField{Name: f.Name, Type: *t})
	}
	sortFields(s.Fields)
	return nil
}

// sortFields orders a schema's fields by name, as the evaluator's checks
// keep them.
func sortFields(fs []SchemaField) {
	slices.SortFunc(fs, func(a, b SchemaField) int { return strings.Compare(a.Name, b.Name) })
}
