package eval

import (
	"slices"
	"strings"

	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Name resolution, as P5's renamer (Pact.Core.IR.Desugar: resolveBare,
// resolveQualified, resolveDynamic, resolveModuleName, resolveModuleData,
// resolveInterfaceName, renameType) reads names, for the compiler
// (compile.go) and the module hasher (modhash.go) both. The renamer says
// what a name is; the compiler makes the evaluator's node of it, the hasher
// P5's Name and its CBOR.
//
// The two read some names differently, and must go on doing so: the
// compiler's reading is the evaluator's behaviour (its errors are shown),
// the hasher's is P5's renamer to the letter (a module's hash depends on
// it). Where they differ the renamer asks r.hashing, and says why.

// renamer resolves names against the module or interface being defined, its
// imports, the REPL's top level, the current namespace and the installed
// modules.
type renamer struct {
	in *Interp
	// mod is the module or interface being defined, nil at top level. For
	// the hasher it stands for the one being hashed: its Defs are the
	// members renamed so far (an interface's constants and schemas only,
	// as ifDefToDef keeps them).
	mod *Module
	// uses are the module's own `use` imports.
	uses []useImport
	// hashing says the renamer reads names for the module hasher, as P5's
	// renamer does.
	hashing bool
	// allowRepl lets the code call REPL natives (the compiler's natives).
	allowRepl bool
	// charged says the modules names resolve to are read (and charged) as
	// P5's renamer reads them: a top-level term in the compiler, the
	// hasher's desugaring pass. Module bodies are not: installing paid.
	charged bool
	// loadErr is the hasher's first failed charge of a module read.
	loadErr error
	// deps collects the modules the code depends on (only a module's code
	// records them): for the compiler, what a stored module is compiled
	// again against (Module.Deps); for the hasher, P5's rsDependencies.
	deps map[value.ModuleName]bool
	// stored, when a stored module is compiled again (RestoreModule), is
	// the set of modules its record lists as dependencies.
	stored map[value.ModuleName]bool
	// reads, when not nil, collects the modules read, in turn, for a
	// Prepared form's compiled form (prepared.go).
	reads *[]moduleRead
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

// memberOrigin says where a resolved member is defined.
type memberOrigin uint8

const (
	// inModule: a member of an installed module (resolution.mod).
	inModule memberOrigin = iota
	// inSelf: a member of the module being defined (renamer.mod).
	inSelf
	// inRepl: a REPL top-level definition.
	inRepl
)

// replModule is the module P5 gives REPL top-level definitions.
var replModule = value.ModuleName{Name: "#repl"}

// A resolution is what the renamer found a name to be.
type resolution struct {
	kind resolutionKind
	// resLocal: up frames out at slot idx (the compiler's frames), and its
	// de Bruijn index (P5's: the binders bound since).
	up, idx int
	index   uint64
	// resMember: the definition and where it is from.
	def    *Def
	origin memberOrigin
	// resMember from an installed module, resModRef: the module; nil for a
	// reference to the module being defined.
	mod *Module
	// resMember, resModRef: the module's name (a REPL definition's is
	// replModule).
	modName value.ModuleName
	// resNative: the native; resConst: the value.
	native *Native
	value  value.Value
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
// that has one. It fills out in place: most names are locals, and a
// resolution is large to copy up the calls.
func (s *scope) local(name string, out *resolution) bool {
	up, index := 0, 0
	for ; s != nil; s, up = s.up, up+1 {
		for i := len(s.names) - 1; i >= 0; i-- {
			if s.names[i] == name {
				index += len(s.names) - 1 - i
				*out = resolution{kind: resLocal, up: up, idx: i, index: uint64(index)}
				return true
			}
		}
		index += len(s.names)
	}
	return false
}

func (r *renamer) dep(m value.ModuleName) {
	if r.mod == nil {
		// Only a module records what it depends on.
		return
	}
	if r.deps == nil {
		r.deps = map[value.ModuleName]bool{}
	}
	r.deps[m] = true
}

// refDep records the module a module reference or a module{...} type
// names. P5's rsDependencies holds only the modules whose members are
// named (an interface's stored dependencies are read from it); the
// compiler also records these, so that a stored module compiles again to
// the same names (RestoreModule).
func (r *renamer) refDep(m value.ModuleName) {
	if !r.hashing {
		r.dep(m)
	}
}

// visible says whether a member of m is one P5's renamer sees: an interface
// shows it only its constants and schemas (ifDefToDef). The compiler sees
// every member of an interface, as it always has: a module naming an
// interface's function compiles (and its P5 hash, which does not resolve,
// falls back), which this renamer keeps as it found it.
func (r *renamer) visible(m *Module, d *Def) bool {
	return !r.hashing || memberVisible(m, d)
}

// memberVisible: an interface exposes only its constants and schemas
// (ifDefToDef).
func memberVisible(m *Module, d *Def) bool {
	return !m.Interface || d.Kind == DefConstant || d.Kind == DefSchemaKind
}

// load reads a module for name resolution: when charged, as P5's renamer
// reads (lookupModuleData when merge, lookupModule otherwise).
func (r *renamer) load(mn value.ModuleName, merge bool, loc syntax.Span) (*Module, error) {
	if !r.charged {
		return r.lookup(mn), nil
	}
	m, err := r.in.loadCharged(mn, merge)
	if err == nil {
		if r.reads != nil {
			*r.reads = append(*r.reads, moduleRead{name: mn, merge: merge, charged: true, loc: loc, mod: m})
		}
		return m, nil
	}
	if r.hashing {
		// The hasher's pass renames on (the module not found) and its end
		// reports the first failed charge (desugarPass): a resolution error
		// the charge caused would not be the hasher's to report.
		if r.loadErr == nil {
			r.loadErr = err
		}
		return nil, nil
	}
	return nil, located(err, loc)
}

// lookup reads a module for name resolution, uncharged.
func (r *renamer) lookup(mn value.ModuleName) *Module {
	m := r.in.lookupModule(mn)
	if r.reads != nil {
		*r.reads = append(*r.reads, moduleRead{name: mn, mod: m})
	}
	return m
}

// moduleData is P5's resolveModuleData: the module as named, then (for a
// name without namespace) in the current namespace; nil when neither is
// installed.
func (r *renamer) moduleData(mn value.ModuleName, loc syntax.Span) (*Module, error) {
	m, err := r.load(mn, true, loc)
	if m != nil || err != nil || mn.Namespace != "" || r.in.namespace == "" {
		return m, err
	}
	return r.load(value.ModuleName{Namespace: r.in.namespace, Name: mn.Name}, true, loc)
}

// rename resolves a name into out.
func (r *renamer) rename(n syntax.Name, sc *scope, loc syntax.Span, out *resolution) (err error) {
	switch n.Kind {
	case syntax.QualifiedName:
		*out, err = r.qualified(n, loc)
		return err
	case syntax.DynamicName:
		*out, err = r.dynamic(n, sc, loc)
		return err
	}
	return r.bare(n.Name, sc, loc, out)
}

// bare is P5's resolveBare: a local, a member of the module being defined,
// an imported member (the module's uses, then the top level's, the latest
// first), a REPL definition, then a module reference.
func (r *renamer) bare(name string, sc *scope, loc syntax.Span, out *resolution) error {
	if sc.local(name, out) {
		return nil
	}
	if r.mod != nil {
		if d, ok := r.mod.Defs[name]; ok {
			*out = resolution{kind: resMember, def: d, origin: inSelf, modName: r.mod.Name}
			return nil
		}
	}
	if res, ok := r.topLevel(name); ok {
		r.dep(res.modName)
		*out = res
		return nil
	}
	if !r.hashing {
		// The hasher's desugaring pass has already made natives Builtin
		// nodes, as P5's desugarer does; the compiler's pass leaves them
		// to be resolved here, after the members that may shadow them.
		if res, ok, err := r.native(name, loc); ok || err != nil {
			*out = res
			return err
		}
	}
	res, ok, err := r.moduleRef(name, loc)
	if ok || err != nil {
		*out = res
		return err
	}
	// Only the compiler gets here (the hasher's moduleRef fails): and and
	// or, at another arity than two, are function values.
	if form, ok := resolve.LookupForm(name); ok && (form == resolve.FormAnd || form == resolve.FormOr) {
		*out = resolution{kind: resNative, native: boolFnNative(form)}
		return nil
	}
	return compileErr(loc, "Unbound variable "+name)
}

// topLevel looks a bare name up among the imported members (the module's
// uses, then the REPL's top-level ones: the modules used or loaded there),
// the latest first, then among the REPL's definitions. P5's renamer (the
// hasher) finds those in its top-level scope from a module's code too; the
// compiler does not let a module name them, as an installed module cannot
// depend on a REPL session.
func (r *renamer) topLevel(name string) (resolution, bool) {
	if m, d := r.useMember(name, false); d != nil {
		return resolution{kind: resMember, def: d, origin: inModule, mod: m, modName: m.Name}, true
	}
	if r.mod == nil || r.hashing {
		if d, ok := r.in.replDefs[name]; ok {
			return resolution{kind: resMember, def: d, origin: inRepl, modName: replModule}, true
		}
	}
	return resolution{}, false
}

// useMember is the member name imported by the latest use (the module's,
// then the top level's) that imports it and that the renamer sees, a
// schema only when schemaOnly.
func (r *renamer) useMember(name string, schemaOnly bool) (*Module, *Def) {
	for _, uses := range [2][]useImport{r.uses, r.in.topUses} {
		for i := len(uses) - 1; i >= 0; i-- {
			u := uses[i]
			if u.imports != nil && !slices.Contains(u.imports, name) {
				continue
			}
			if d, ok := u.mod.Defs[name]; ok && r.visible(u.mod, d) && (!schemaOnly || d.Kind == DefSchemaKind) {
				return u.mod, d
			}
		}
	}
	return nil, nil
}

// native is the compiler's: a native (the REPL's where allowed),
// constantly, or a CHARSET_ constant.
func (r *renamer) native(name string, loc syntax.Span) (resolution, bool, error) {
	if pact51Natives[name] && r.in.Flags["DisablePact51"] && r.stored == nil {
		// Before the 5.1 fork these are no natives (P5's
		// versionedNatives); a stored module was resolved when installed.
		return resolution{}, false, nil
	}
	if n, ok := r.in.natives[name]; ok && (!n.Repl || r.allowRepl) {
		if n.Repl && r.mod != nil && !r.in.ReplNatives {
			return resolution{}, false, execErrAt(loc, "repl native disallowed in module code. If you want to use this, enable them with (env-enable-repl-natives true)")
		}
		return resolution{kind: resNative, native: n}, true, nil
	}
	switch name {
	case "constantly":
		return resolution{kind: resConstantly}, true, nil
	case "CHARSET_ASCII":
		return resolution{kind: resConst, value: value.NewInt(0)}, true, nil
	case "CHARSET_LATIN1":
		return resolution{kind: resConst, value: value.NewInt(1)}, true, nil
	}
	return resolution{}, false, nil
}

// moduleRef is P5's resolveModuleName: a bare name as a module reference.
// Not found, it is an error for the hasher; the compiler goes on (and, or,
// unbound variable).
func (r *renamer) moduleRef(name string, loc syntax.Span) (resolution, bool, error) {
	mn := value.ModuleName{Name: name}
	// P5 takes a module (never an interface) being defined for its own
	// name, as written, or in the current namespace once no module of the
	// name is installed at the root. The compiler takes the module or
	// interface being defined for its name without namespace, first.
	p5Self := r.hashing && r.mod != nil && !r.mod.Interface
	if p5Self && r.mod.Name == mn || !r.hashing && r.mod != nil && r.mod.Name.Name == name {
		return resolution{kind: resModRef, modName: r.mod.Name}, true, nil
	}
	m, err := r.load(mn, true, loc)
	if err != nil {
		return resolution{}, false, err
	}
	if m == nil && r.in.namespace != "" {
		ns := value.ModuleName{Namespace: r.in.namespace, Name: name}
		if p5Self && r.mod.Name == ns {
			return resolution{kind: resModRef, modName: r.mod.Name}, true, nil
		}
		if m, err = r.load(ns, true, loc); err != nil {
			return resolution{}, false, err
		}
	}
	if m == nil {
		if r.hashing {
			return resolution{}, false, compileErr(loc, "Cannot resolve "+name)
		}
		return resolution{}, false, nil
	}
	if m.Interface && (r.hashing || r.stored == nil) {
		// P5's renamer refuses an interface named as a value
		// (InvalidModuleReference), before the form runs. Code stored
		// before this check still compiles: evaluating the name reports it
		// (Expected module, found interface), as it always did.
		return resolution{}, false, invalidModRef(mn, loc)
	}
	r.refDep(m.Name)
	return resolution{kind: resModRef, mod: m, modName: m.Name}, true, nil
}

// qualified is P5's resolveQualified: member of mod (or ns.mod), then
// ns.mod as a module reference, then member of mod in the current
// namespace.
func (r *renamer) qualified(n syntax.Name, loc syntax.Span) (resolution, error) {
	qmn := value.ModuleName{Namespace: n.Namespace, Name: n.Module}
	if !r.hashing && r.mod != nil && (r.mod.Name == qmn || n.Namespace == "" && r.mod.Name.Name == n.Module) {
		// The compiler reads mod.member (or ns.mod.member), mod the module
		// being defined, as its own member, or an error, even when a
		// module of that name is installed at the root; P5 reads that
		// module's member, and its own only as baseLookup finds it.
		if d, ok := r.mod.Defs[n.Name]; ok {
			return resolution{kind: resMember, def: d, origin: inSelf, modName: r.mod.Name}, nil
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
	refName := value.ModuleName{Namespace: n.Module, Name: n.Name}
	if !r.hashing && r.mod != nil && r.mod.Name == refName {
		// The compiler names the module being defined so; P5's renamer
		// reads the database (lookupModule), where it is not installed
		// yet, or is the version it replaces.
		return resolution{kind: resModRef, modName: r.mod.Name}, nil
	}
	m, err := r.load(refName, false, loc)
	if err != nil {
		return resolution{}, err
	}
	if m != nil && (!m.Interface || !r.hashing) {
		// An interface named ns.iface resolves, as in P5's renamer, and
		// fails when evaluated (ExpectedModule, an execution error).
		r.refDep(m.Name)
		return resolution{kind: resModRef, mod: m, modName: m.Name}, nil
	}
	if r.in.namespace != "" {
		nsName := value.ModuleName{Namespace: r.in.namespace, Name: n.Module}
		if res, ok, err := r.baseLookup(nsName, n.Name, loc); ok || err != nil {
			return res, err
		}
	}
	return resolution{}, r.noMember(qmn, n.Name, "Cannot resolve module "+n.Module, loc)
}

// noMember is P5's NoSuchModuleMember. The compiler says, when the module
// is not installed, missing instead, reading it (uncharged) to know; the
// hasher's errors are never shown (the compiler reports why a module does
// not hash), so it does not.
func (r *renamer) noMember(qmn value.ModuleName, name, missing string, loc syntax.Span) error {
	if !r.hashing && r.lookup(qmn) == nil {
		return compileErr(loc, missing)
	}
	return compileErr(loc, "Module member does not exist "+qmn.String()+"."+name)
}

// baseLookup is P5's: member name of the module mn (the module being
// defined first, when it is a module: an interface's renamer has no
// module-local table), read as name resolution reads.
func (r *renamer) baseLookup(mn value.ModuleName, name string, loc syntax.Span) (resolution, bool, error) {
	if r.mod != nil && !r.mod.Interface && mn == r.mod.Name {
		if d, ok := r.mod.Defs[name]; ok {
			return resolution{kind: resMember, def: d, origin: inSelf, modName: r.mod.Name}, true, nil
		}
	}
	m, err := r.load(mn, true, loc)
	if err != nil || m == nil {
		return resolution{}, false, err
	}
	d, ok := m.Defs[name]
	if !ok || !r.visible(m, d) {
		return resolution{}, false, nil
	}
	r.dep(m.Name)
	return resolution{kind: resMember, def: d, origin: inModule, mod: m, modName: m.Name}, true, nil
}

// dynamic is P5's resolveDynamic for mod::member: mod must be a local, a
// module reference the member is invoked on; a member or REPL definition
// is an invalid call, anything else unbound. Compiling a stored module
// again, the compiler reads mod as any bare name, its value's member
// invoked at run time.
func (r *renamer) dynamic(n syntax.Name, sc *scope, loc syntax.Span) (resolution, error) {
	var res resolution
	if r.hashing || r.stored == nil {
		// P5 refuses any other mod, and so does the compiler, but for a
		// stored module compiled again (it was accepted when installed).
		if !sc.local(n.Module, &res) {
			if r.mod != nil {
				if _, bound := r.mod.Defs[n.Module]; bound {
					return resolution{}, compileErr(loc, "Invalid dynamic call: "+n.String())
				}
			}
			if _, bound := r.topLevel(n.Module); bound {
				return resolution{}, compileErr(loc, "Invalid dynamic call: "+n.String())
			}
			return resolution{}, compileErr(loc, "Unbound variable "+n.Module)
		}
	} else {
		if err := r.bare(n.Module, sc, loc, &res); err != nil {
			return resolution{}, err
		}
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
func (r *renamer) interfaceName(mn value.ModuleName, loc syntax.Span) (value.ModuleName, error) {
	if r.mod != nil && r.mod.Interface {
		if mn == r.mod.Name {
			return mn, nil
		}
		m, err := r.load(mn, true, loc)
		if err != nil {
			return value.ModuleName{}, err
		}
		// A stored interface compiled again resolves as it did when it
		// was installed: an interface of the same name installed since
		// in the root namespace is not the one it meant, and its record
		// lists the ones it meant among its dependencies.
		if m != nil && r.stored != nil && !r.stored[m.Name] && mn.Namespace == "" &&
			(value.ModuleName{Namespace: r.in.namespace, Name: mn.Name}) == r.mod.Name {
			return r.mod.Name, nil
		}
		if m != nil {
			if !m.Interface {
				return value.ModuleName{}, invalidModRef(mn, loc)
			}
			r.refDep(m.Name)
			return m.Name, nil
		}
		if mn.Namespace != "" || r.in.namespace == "" {
			return value.ModuleName{}, compileErr(loc, "Cannot find module: "+mn.String())
		}
		mn = value.ModuleName{Namespace: r.in.namespace, Name: mn.Name}
		if mn == r.mod.Name {
			return mn, nil
		}
	}
	if r.stored != nil && mn.Namespace == "" && r.in.namespace != "" {
		// A stored module compiled again: a bare name that resolved to
		// the current namespace's interface when it was installed (its
		// record says so) still does, though an interface of that name
		// may have been installed at the root since.
		if ns := (value.ModuleName{Namespace: r.in.namespace, Name: mn.Name}); r.stored[ns] && !r.stored[mn] {
			mn = ns
		}
	}
	m, err := r.moduleData(mn, loc)
	if err != nil {
		return value.ModuleName{}, err
	}
	// The module being defined is not installed yet: P5 does not find it.
	if m == nil || m == r.mod {
		return value.ModuleName{}, compileErr(loc, "Cannot find module: "+mn.String())
	}
	if !m.Interface {
		return value.ModuleName{}, invalidModRef(mn, loc)
	}
	r.refDep(m.Name)
	return m.Name, nil
}

// invalidModRef is P5's InvalidModuleReference: a module{...} type names a
// module, not an interface.
func invalidModRef(mn value.ModuleName, loc syntax.Span) *value.Error {
	return compileErr(loc, "Invalid Interface attempted to be used as module reference: "+mn.String())
}

// renameType is P5's renameType: a type annotation, its schema and
// interface names resolved. sc is the locals in scope (a local shadows a
// schema's name for the hasher).
func (r *renamer) renameType(t syntax.Type, sc *scope) (*value.Type, error) {
	switch t := t.(type) {
	case *syntax.PrimType:
		if t.Prim == syntax.PrimKeyset && r.hashing {
			// P5's renamer reads keyset as guard; the evaluator checks a
			// keyset annotation as a keyset.
			return &value.Type{Kind: value.TyPrim, Prim: "guard"}, nil
		}
		return primType(t.Prim), nil
	case *syntax.ListType:
		e, err := r.renameType(t.Elem, sc)
		if err != nil {
			return nil, err
		}
		if e == nil {
			return &value.Type{Kind: value.TyAnyList}, nil
		}
		return &value.Type{Kind: value.TyList, Elem: e}, nil
	case *syntax.ModRefType:
		ms := make([]value.ModuleName, len(t.Interfaces))
		for i, m := range t.Interfaces {
			mn, err := r.interfaceName(value.ModuleName{Namespace: m.Namespace, Name: m.Name}, t.Loc)
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
			return &value.Type{Kind: value.TyTable, Schema: s}, nil
		}
		return &value.Type{Kind: value.TyObject, Schema: s}, nil
	}
	return nil, nil
}

// primType is a primitive type annotation's type: list and object
// without a parameter are any list and any object.
func primType(p syntax.Prim) *value.Type {
	switch p {
	case syntax.PrimList:
		return &value.Type{Kind: value.TyAnyList}
	case syntax.PrimObject:
		return &value.Type{Kind: value.TyAnyObject}
	}
	return &value.Type{Kind: value.TyPrim, Prim: string(p)}
}

// modRefType is module{...}: its interfaces sorted and unique, as the
// runtime check compares them.
func modRefType(ms []value.ModuleName) *value.Type {
	slices.SortFunc(ms, value.CompareModuleNames)
	return &value.Type{Kind: value.TyModRef, ModRefs: slices.Compact(ms)}
}

// renameSchema resolves the schema an object{...} or table{...} type or a
// deftable names. The hasher resolves the name as any other (P5's
// resolveSchema) and wants a schema. The compiler looks it up among the
// members only: the module's own (of any kind: another is an error), the
// imported schemas, or a schema of the module the qualified name names;
// outside a module (REPL lets, lambdas) a schema type it does not find
// checks only that the value is an object.
func (r *renamer) renameSchema(n syntax.Name, sc *scope, loc syntax.Span) (*value.Schema, error) {
	var d *Def
	if r.hashing {
		var res resolution
		if err := r.rename(n, sc, loc, &res); err != nil {
			return nil, err
		}
		if res.kind != resMember || res.def.Kind != DefSchemaKind || res.def.Schema == nil {
			return nil, compileErr(loc, "Invalid schema "+n.String())
		}
		return res.def.Schema, nil
	}
	switch n.Kind {
	case syntax.BareName:
		if r.mod != nil {
			d = r.mod.Defs[n.Name]
		}
		if d == nil {
			_, d = r.useMember(n.Name, true)
		}
	case syntax.QualifiedName:
		mn := value.ModuleName{Namespace: n.Namespace, Name: n.Module}
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
	s := &value.Schema{Name: d.QualName()}
	d.Schema = s // set first: a schema may mention itself
	for _, f := range ds.Fields {
		t, err := r.renameType(f.Type, nil)
		if err != nil {
			return err
		}
		if t == nil {
			t = &value.Type{Kind: value.TyAny}
		}
		s.Fields = append(s.Fields, value.SchemaField{Name: f.Name, Type: *t})
	}
	sortFields(s.Fields)
	return nil
}

// sortFields orders a schema's fields by name, as the evaluator's checks
// and P5's Schema (a Map) both keep them.
func sortFields(fs []value.SchemaField) {
	slices.SortFunc(fs, func(a, b value.SchemaField) int { return strings.Compare(a.Name, b.Name) })
}
