package eval

import (
	"slices"

	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// compiler turns syntax into the resolved tree of ir.go.
type compiler struct {
	in *Interp
	// mod is the module being defined, nil at top level.
	mod *Module
	// uses are the module's own `use` imports.
	uses  []useImport
	scope *scope
	// allowRepl lets the code call REPL natives.
	allowRepl bool
	// deps collects the modules the code refers to.
	deps map[ModuleName]bool
	// charged says the code is a top-level term being renamed as P5
	// does: the modules its names resolve to are read (and charged) in
	// P5's order. Module bodies are not: installing paid for them.
	charged bool
	// stored, when a stored module is compiled again (RestoreModule), is
	// the set of modules its record lists as dependencies.
	stored map[ModuleName]bool
	// ds is the desugaring pass, kept for the compiler's life.
	ds resolve.Desugarer
}

// load reads a module for name resolution: charged as P5's renamer reads
// (lookupModuleData when merge, lookupModule otherwise) when c.charged.
func (c *compiler) load(mn ModuleName, merge bool, loc syntax.Span) (*Module, error) {
	if !c.charged {
		return c.in.lookupModule(mn), nil
	}
	m, err := c.in.loadCharged(mn, merge)
	if err != nil {
		return nil, located(err, loc)
	}
	return m, nil
}

// resolveModuleData is P5's: the module as named, then (for a name without
// namespace) in the current namespace.
func (c *compiler) resolveModuleData(mn ModuleName, loc syntax.Span) (*Module, error) {
	m, err := c.load(mn, true, loc)
	if m != nil || err != nil || mn.Namespace != "" || c.in.namespace == "" {
		return m, err
	}
	return c.load(ModuleName{Namespace: c.in.namespace, Name: mn.Name}, true, loc)
}

type useImport struct {
	mod     *Module
	imports []string // nil: everything
}

type scope struct {
	names []string
	up    *scope
}

func (c *compiler) push(names ...string) { c.scope = &scope{names: names, up: c.scope} }
func (c *compiler) pop()                 { c.scope = c.scope.up }

func compileErr(loc syntax.Span, msg string) *Error {
	return &Error{Kind: ErrEval, Msg: msg, Loc: loc, Located: true}
}

// exprs compiles xs in the current scope: the desugaring pass
// (package resolve), then the resolution of its terms.
func (c *compiler) exprs(xs []syntax.Expr) ([]node, error) {
	ts, err := desugared(c.desugarer().Exprs(xs))
	if err != nil {
		return nil, err
	}
	return c.terms(ts)
}

func (c *compiler) expr(x syntax.Expr) (node, error) {
	t, err := desugared(c.desugarer().Expr(x))
	if err != nil {
		return nil, err
	}
	return c.term(t)
}

// desugarer is the desugaring pass in the current scope.
func (c *compiler) desugarer() *resolve.Desugarer {
	c.ds.Locals = c.ds.Locals[:0]
	for s := c.scope; s != nil; s = s.up {
		c.ds.Locals = append(c.ds.Locals, s.names...)
	}
	return &c.ds
}

func (c *compiler) terms(ts []resolve.Term) ([]node, error) {
	out := make([]node, len(ts))
	for i, t := range ts {
		n, err := c.term(t)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (c *compiler) term(t resolve.Term) (node, error) {
	switch t := t.(type) {
	case *resolve.Invalid:
		return nil, desugarErr(t.Err)
	case *resolve.Lit:
		return &nConst{v: litValue(t), loc: t.Span()}, nil
	case *resolve.List:
		elems, err := c.terms(t.Elems)
		if err != nil {
			return nil, err
		}
		if allConst(elems) {
			l := make(List, len(elems))
			lits := []int32{int32(len(elems))}
			for i, e := range elems {
				l[i] = e.(*nConst).v
				lits = append(lits, e.(*nConst).lits...)
			}
			return &nConst{v: l, loc: t.Src.Loc, lits: lits}, nil
		}
		return &nList{elems: elems, loc: t.Src.Loc}, nil
	case *resolve.Object:
		n := &nObject{loc: t.Loc}
		for _, v := range t.Vals {
			vn, err := c.term(v)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, vn)
		}
		n.keys = slices.Compact(slices.Sorted(slices.Values(t.Keys)))
		n.pos = make([]int, len(t.Keys))
		for i, k := range t.Keys {
			n.pos[i], _ = slices.BinarySearch(n.keys, k)
		}
		return n, nil
	case *resolve.Var:
		return c.name(t.Name, t.Loc)
	case *resolve.Let:
		return c.let(t)
	case *resolve.Lam:
		params, err := c.params(t.Args)
		if err != nil {
			return nil, err
		}
		c.push(resolve.ArgNames(t.Args)...)
		body, err := c.terms(t.Body)
		c.pop()
		if err != nil {
			return nil, err
		}
		return &nLambda{params: params, body: body, loc: t.Loc}, nil
	case *resolve.Binding:
		n := &nBinding{fields: t.Keys, loc: t.Loc}
		for _, v := range t.Vars {
			ty, err := c.typ(v.Type)
			if err != nil {
				return nil, err
			}
			n.params = append(n.params, Param{Name: v.Name, Type: ty})
		}
		c.push(resolve.ArgNames(t.Vars)...)
		body, err := c.terms(t.Body)
		c.pop()
		if err != nil {
			return nil, err
		}
		n.body = body
		return n, nil
	case *resolve.App:
		fn, err := c.term(t.Fn)
		if err != nil {
			return nil, err
		}
		args, err := c.terms(t.Args)
		if err != nil {
			return nil, err
		}
		return &nApp{fn: fn, args: args, loc: t.Src.Loc}, nil
	case *resolve.Special:
		return c.special(t)
	case *resolve.Cond:
		return c.cond(t)
	}
	return nil, compileErr(t.Span(), "unsupported expression")
}

func allConst(ns []node) bool {
	for _, n := range ns {
		if _, ok := n.(*nConst); !ok {
			return false
		}
	}
	return true
}

func (c *compiler) let(t *resolve.Let) (node, error) {
	n := &nLet{loc: t.Loc}
	c.push()
	defer c.pop()
	for _, b := range t.Binders {
		v, err := c.term(b.Val)
		if err != nil {
			return nil, err
		}
		ty, err := c.typ(b.Arg.Type)
		if err != nil {
			return nil, err
		}
		n.params = append(n.params, Param{Name: b.Arg.Name, Type: ty})
		n.vals = append(n.vals, v)
		c.scope.names = append(c.scope.names, b.Arg.Name)
	}
	body, err := c.terms(t.Body)
	if err != nil {
		return nil, err
	}
	n.body = body
	return n, nil
}

func (c *compiler) params(args []syntax.Arg) ([]Param, error) {
	out := make([]Param, len(args))
	for i, a := range args {
		t, err := c.typ(a.Type)
		if err != nil {
			return nil, err
		}
		out[i] = Param{Name: a.Name, Type: t}
	}
	return out, nil
}

// special is a special form, its arity checked as the evaluator wants: a
// wrong one fails when evaluated (P5 reports these at run time).
func (c *compiler) special(t *resolve.Special) (node, error) {
	args, err := c.terms(t.Args)
	if err != nil {
		return nil, err
	}
	loc := t.Src.Loc
	bad := func(msg string) (node, error) {
		return &nSpecial{form: sfInvalid, args: []node{&nConst{v: String(msg)}}, loc: loc}, nil
	}
	switch t.Form {
	case resolve.FormIf:
		if len(args) != 3 {
			return bad("Invalid syntax, if expects 3 arguments")
		}
	case resolve.FormAnd, resolve.FormOr:
		if len(args) != 2 {
			// With another arity they are plain function values.
			fn := &nNative{n: boolFnNative(t.Form), loc: t.Src.Fn.Span()}
			return &nApp{fn: fn, args: args, loc: loc}, nil
		}
	case resolve.FormEnforce:
		if len(args) != 2 {
			return bad("Invalid syntax, enforce expects 2 arguments")
		}
	case resolve.FormEnforceOne:
		if len(args) != 2 {
			return bad("Invalid syntax, enforce-one expects 2 arguments")
		}
	case resolve.FormWithCapability:
		if len(args) < 2 {
			return bad("Invalid syntax, with-capability expects a capability and a body")
		}
	case resolve.FormTry, resolve.FormCreateUserGuard, resolve.FormError, resolve.FormPure:
		want := map[resolve.Form]int{resolve.FormTry: 2, resolve.FormCreateUserGuard: 1, resolve.FormError: 1, resolve.FormPure: 1}[t.Form]
		if len(args) != want {
			return bad("Invalid syntax, wrong number of arguments")
		}
	case resolve.FormDo:
		if len(args) == 0 {
			return &nConst{v: UnitValue, loc: loc}, nil
		}
	}
	return &nSpecial{form: t.Form, args: args, loc: loc}, nil
}

// cond is P5's cond native applied to a nullary lambda of nested ifs,
// resolved as the evaluator has always read it: the default first, then
// the clauses from the last.
func (c *compiler) cond(t *resolve.Cond) (node, error) {
	// The ifs run in the lambda's own (empty) frame.
	c.push()
	ifs, err := c.condIfs(t)
	c.pop()
	if err != nil {
		return nil, err
	}
	fn := &nNative{n: c.in.natives["cond"], loc: t.FnLoc}
	return &nApp{fn: fn, args: []node{&nLambda{body: []node{ifs}, loc: t.Loc}}, loc: t.Loc}, nil
}

func (c *compiler) condIfs(t *resolve.Cond) (node, error) {
	out, err := c.term(t.Default)
	if err != nil {
		return nil, err
	}
	for i := len(t.Clauses) - 1; i >= 0; i-- {
		cl := t.Clauses[i]
		if cl.Err != nil {
			return nil, desugarErr(cl.Err)
		}
		test, err := c.term(cl.Test)
		if err != nil {
			return nil, err
		}
		b, err := c.term(cl.Branch)
		if err != nil {
			return nil, err
		}
		out = &nSpecial{form: resolve.FormIf, condClause: true, args: []node{test, b, out}, loc: cl.Loc}
	}
	return out, nil
}

func (c *compiler) name(n syntax.Name, loc syntax.Span) (node, error) {
	switch n.Kind {
	case syntax.BareName:
		return c.bare(n.Name, loc)
	case syntax.DynamicName:
		ref, err := c.bare(n.Module, loc)
		if err != nil {
			return nil, err
		}
		return &nDyn{ref: ref, member: n.Name, loc: loc}, nil
	}
	// Qualified, as P5's resolveQualified: mod.member (or ns.mod.member),
	// then ns.mod as a module reference, then mod.member in the current
	// namespace.
	qmn := ModuleName{Namespace: n.Namespace, Name: n.Module}
	if c.mod != nil && (c.mod.Name == qmn || n.Namespace == "" && c.mod.Name.Name == n.Module) {
		return c.member(c.mod.Name, n.Name, loc)
	}
	if node, found, err := c.qualifiedMember(qmn, n.Name, loc); found || err != nil {
		return node, err
	}
	if n.Namespace != "" {
		if m := c.in.lookupModule(qmn); m != nil {
			return nil, compileErr(loc, "Module member does not exist "+m.Name.String()+"."+n.Name)
		}
		return nil, compileErr(loc, "Cannot find module: "+qmn.String())
	}
	// ns.mod as a module reference (possibly the module being defined).
	refName := ModuleName{Namespace: n.Module, Name: n.Name}
	if c.mod != nil && c.mod.Name == refName {
		return &nModRef{mod: c.mod.Name, loc: loc}, nil
	}
	m, err := c.load(refName, false, loc)
	if err != nil {
		return nil, err
	}
	if m != nil && !m.Interface {
		c.dep(m.Name)
		return &nModRef{mod: m.Name, loc: loc}, nil
	}
	if c.in.namespace != "" {
		nsName := ModuleName{Namespace: c.in.namespace, Name: n.Module}
		if node, found, err := c.qualifiedMember(nsName, n.Name, loc); found || err != nil {
			return node, err
		}
	}
	if m := c.in.lookupModule(qmn); m != nil {
		return nil, compileErr(loc, "Module member does not exist "+m.Name.String()+"."+n.Name)
	}
	return nil, compileErr(loc, "Cannot resolve module "+n.Module)
}

// qualifiedMember is P5's baseLookup: member name of the module mn, read
// as name resolution reads.
func (c *compiler) qualifiedMember(mn ModuleName, name string, loc syntax.Span) (node, bool, error) {
	m, err := c.load(mn, true, loc)
	if err != nil || m == nil {
		return nil, false, err
	}
	d, ok := m.Defs[name]
	if !ok {
		return nil, false, nil
	}
	c.dep(m.Name)
	return &nDef{def: d, loc: loc}, true, nil
}

func (c *compiler) dep(m ModuleName) {
	if c.mod == nil {
		// Only a module records what it depends on.
		return
	}
	if c.deps == nil {
		c.deps = map[ModuleName]bool{}
	}
	c.deps[m] = true
}

func (c *compiler) member(mn ModuleName, name string, loc syntax.Span) (node, error) {
	if c.mod != nil && c.mod.Name == mn {
		if d, ok := c.mod.Defs[name]; ok {
			return &nDef{def: d, loc: loc}, nil
		}
		return nil, compileErr(loc, "Module member does not exist "+mn.String()+"."+name)
	}
	m, err := c.load(mn, true, loc)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, compileErr(loc, "Cannot find module: "+mn.String())
	}
	d, ok := m.Defs[name]
	if !ok {
		return nil, compileErr(loc, "Module member does not exist "+m.Name.String()+"."+name)
	}
	c.dep(m.Name)
	return &nDef{def: d, loc: loc}, nil
}

func (c *compiler) bare(name string, loc syntax.Span) (node, error) {
	up := 0
	for s := c.scope; s != nil; s, up = s.up, up+1 {
		// The last binding of a name wins (let frames append).
		for i := len(s.names) - 1; i >= 0; i-- {
			if s.names[i] == name {
				return &nLocal{up: up, idx: i, name: name, loc: loc}, nil
			}
		}
	}
	if c.mod != nil {
		if d, ok := c.mod.Defs[name]; ok {
			return &nDef{def: d, loc: loc}, nil
		}
	}
	for _, uses := range [][]useImport{c.uses, c.in.topUses} {
		for i := len(uses) - 1; i >= 0; i-- {
			u := uses[i]
			if u.imports != nil && !slices.Contains(u.imports, name) {
				continue
			}
			if d, ok := u.mod.Defs[name]; ok {
				c.dep(u.mod.Name)
				return &nDef{def: d, loc: loc}, nil
			}
		}
	}
	if c.mod == nil {
		if d, ok := c.in.replDefs[name]; ok {
			return &nDef{def: d, loc: loc}, nil
		}
	}
	if n, ok := c.in.natives[name]; ok && (!n.Repl || c.allowRepl) {
		if n.Repl && c.mod != nil && !c.in.ReplNatives {
			return nil, compileErr(loc, "repl native disallowed in module code. If you want to use this, enable them with (env-enable-repl-natives true)")
		}
		return &nNative{n: n, loc: loc}, nil
	}
	switch name {
	case "constantly":
		// P5's desugarer makes constantly a two-argument lambda returning
		// its first argument (applied, and charged, as any lambda).
		body := &nLocal{up: 0, idx: 0, name: resolve.ConstantlyArg1, loc: loc}
		return &nLambda{params: []Param{{Name: resolve.ConstantlyArg1}, {Name: resolve.ConstantlyArg2}}, body: []node{body}, loc: loc}, nil
	case "CHARSET_ASCII":
		return &nConst{v: NewInt(0), loc: loc}, nil
	case "CHARSET_LATIN1":
		return &nConst{v: NewInt(1), loc: loc}, nil
	}
	if c.mod != nil && c.mod.Name.Name == name {
		return &nModRef{mod: c.mod.Name, loc: loc}, nil
	}
	// A module reference: P5's resolveModuleName.
	m, err := c.resolveModuleData(ModuleName{Name: name}, loc)
	if err != nil {
		return nil, err
	}
	if m != nil {
		c.dep(m.Name)
		return &nModRef{mod: m.Name, loc: loc}, nil
	}
	if form, ok := resolve.LookupForm(name); ok {
		switch form {
		case resolve.FormAnd, resolve.FormOr:
			return &nNative{n: boolFnNative(form), loc: loc}, nil
		}
	}
	return nil, compileErr(loc, "Unbound variable "+name)
}

// typ resolves a type annotation. Schema names are looked up in the module
// being defined or by qualified name.
func (c *compiler) typ(t syntax.Type) (*Type, error) {
	switch t := t.(type) {
	case nil:
		return nil, nil
	case *syntax.PrimType:
		return primType(t.Prim), nil
	case *syntax.ListType:
		e, err := c.typ(t.Elem)
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
			mn, err := c.interfaceName(ModuleName{Namespace: m.Namespace, Name: m.Name}, t.Loc)
			if err != nil {
				return nil, err
			}
			ms[i] = mn
		}
		return modRefType(ms), nil
	case *syntax.SchemaType:
		s, err := c.schema(t.Schema, t.Loc)
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

// interfaceName resolves a name in a module{...} type to the fully
// qualified interface, as P5's resolveInterfaceName does. The runtime check
// compares it with the fully qualified names a module reference carries, so
// a name left as written (pol for ns.pol) would reject every module that
// implements the interface.
//
// Inside an interface, the interface's own name may be used before it
// exists: the name as written is the interface itself, else an installed
// interface of that name (the root namespace first), else, in the current
// namespace, the interface itself again. Everywhere else the name is
// looked up as written, then in the current namespace, and must name an
// installed interface.
func (c *compiler) interfaceName(mn ModuleName, loc syntax.Span) (ModuleName, error) {
	if c.mod != nil && c.mod.Interface {
		if mn == c.mod.Name {
			return mn, nil
		}
		m, err := c.load(mn, true, loc)
		if err != nil {
			return ModuleName{}, err
		}
		// A stored interface compiled again resolves as it did when it
		// was installed: an interface of the same name installed since
		// in the root namespace is not the one it meant, and its record
		// lists the ones it meant among its dependencies.
		if m != nil && c.stored != nil && !c.stored[m.Name] && mn.Namespace == "" &&
			(ModuleName{Namespace: c.in.namespace, Name: mn.Name}) == c.mod.Name {
			return c.mod.Name, nil
		}
		if m != nil {
			if !m.Interface {
				return ModuleName{}, invalidModRef(mn, loc)
			}
			c.dep(m.Name)
			return m.Name, nil
		}
		if mn.Namespace != "" || c.in.namespace == "" {
			return ModuleName{}, compileErr(loc, "Cannot find module: "+mn.String())
		}
		mn = ModuleName{Namespace: c.in.namespace, Name: mn.Name}
		if mn == c.mod.Name {
			return mn, nil
		}
	}
	if c.stored != nil && mn.Namespace == "" && c.in.namespace != "" {
		// A stored module compiled again: a bare name that resolved to
		// the current namespace's interface when it was installed (its
		// record says so) still does, though an interface of that name
		// may have been installed at the root since.
		if ns := (ModuleName{Namespace: c.in.namespace, Name: mn.Name}); c.stored[ns] && !c.stored[mn] {
			mn = ns
		}
	}
	m, err := c.resolveModuleData(mn, loc)
	if err != nil {
		return ModuleName{}, err
	}
	// The module being defined is not installed yet: P5 does not find it.
	if m == nil || m == c.mod {
		return ModuleName{}, compileErr(loc, "Cannot find module: "+mn.String())
	}
	if !m.Interface {
		return ModuleName{}, invalidModRef(mn, loc)
	}
	c.dep(m.Name)
	return m.Name, nil
}

// invalidModRef is P5's InvalidModuleReference: a module{...} type names a
// module, not an interface.
func invalidModRef(mn ModuleName, loc syntax.Span) *Error {
	return compileErr(loc, "Invalid Interface attempted to be used as module reference: "+mn.String())
}

func (c *compiler) schema(n syntax.Name, loc syntax.Span) (*Schema, error) {
	var d *Def
	switch {
	case n.Kind == syntax.BareName:
		if c.mod != nil {
			d = c.mod.Defs[n.Name]
		}
		for _, uses := range [][]useImport{c.uses, c.in.topUses} {
			for i := len(uses) - 1; i >= 0 && d == nil; i-- {
				if u := uses[i]; u.imports == nil || slices.Contains(u.imports, n.Name) {
					if ud, ok := u.mod.Defs[n.Name]; ok && ud.Kind == DefSchemaKind {
						d = ud
					}
				}
			}
		}
	case n.Kind == syntax.QualifiedName:
		mn := ModuleName{Namespace: n.Namespace, Name: n.Module}
		if c.mod != nil && c.mod.Name.Name == n.Module && n.Namespace == "" {
			d = c.mod.Defs[n.Name]
		} else {
			m, err := c.resolveModuleData(mn, loc)
			if err != nil {
				return nil, err
			}
			if m != nil {
				d = m.Defs[n.Name]
			}
		}
	}
	if d == nil || d.Kind != DefSchemaKind {
		// Outside a module (REPL lets, lambdas) a schema type checks only
		// that the value is an object.
		if c.mod == nil {
			return nil, nil
		}
		return nil, compileErr(loc, "Invalid schema "+n.String())
	}
	if d.Schema == nil {
		if err := c.buildSchema(d); err != nil {
			return nil, err
		}
	}
	return d.Schema, nil
}

func (c *compiler) buildSchema(d *Def) error {
	ds := d.fun.(*syntax.DefSchema)
	s := &Schema{Name: d.QualName()}
	d.Schema = s // set first: a schema may mention itself
	for _, f := range ds.Fields {
		t, err := c.typ(f.Type)
		if err != nil {
			return err
		}
		if t == nil {
			t = &Type{Kind: TyAny}
		}
		s.Fields = append(s.Fields, SchemaField{Name: f.Name, Type: *t})
	}
	slices.SortFunc(s.Fields, func(a, b SchemaField) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return nil
}
