package typecheck

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Env is what the checker reads of the interpreter that loaded the module.
type Env interface {
	// ModuleNamed is the installed module or interface of that full
	// name, or nil.
	ModuleNamed(mn value.ModuleName) *eval.Module
	// Native is the interpreter's native of that name, or nil.
	Native(name string) *eval.Native
}

// Finding is one thing the checker found.
type Finding struct {
	Span syntax.Span
	// Def is the member it is in.
	Def string
	Msg string
	// Undecided findings are checks the types known could not decide;
	// the others are type errors.
	Undecided bool
}

func (f Finding) String() string {
	return f.Span.String() + ": " + f.Def + ": " + f.Msg
}

// Report is what checking one module found.
type Report struct {
	Module value.ModuleName
	// Errors are the type errors: each fails at run time when reached.
	Errors []Finding
	// Undecided are the checks that could not be decided, in source
	// order; Checks counts every check made.
	Undecided []Finding
	Checks    int
}

// Check infers the types of a module's (or interface's) members and
// checks them against what they declare and what they call.
func Check(env Env, m *eval.Module) (*Report, error) {
	f, err := syntax.ParseProgram(m.Name.String(), m.Code)
	if err != nil {
		return nil, fmt.Errorf("typecheck: the code of %s does not parse: %w", m.Name, err)
	}
	var decls []syntax.Decl
	for _, item := range f.Items {
		switch x := item.(type) {
		case *syntax.Module:
			decls = x.Body
		case *syntax.Interface:
			decls = x.Body
		}
	}
	c := &checker{env: env, mod: m, report: &Report{Module: m.Name},
		defuns: map[string]*syntax.Defun{}, results: map[*eval.Def]*ty{}}
	for _, d := range decls {
		if x, ok := d.(*syntax.Defun); ok {
			c.defuns[x.Name] = x
		}
	}
	for _, d := range decls {
		if u, ok := d.(*syntax.Use); ok {
			if um := c.module(value.ModuleName{Namespace: u.Module.Namespace, Name: u.Module.Name}); um != nil {
				c.uses = append(c.uses, imported{um, u.HasImports, u.Imports})
			}
		}
	}
	for _, d := range decls {
		c.decl(d)
	}
	return c.report, nil
}

type checker struct {
	env    Env
	mod    *eval.Module
	uses   []imported
	d      resolve.Desugarer
	report *Report
	// def is the member being checked, and shift maps the spans of its
	// parsed code to those of the file it was loaded from.
	def    *eval.Def
	dshift shift
	scope  []local
	// defuns are the module's functions as written; results the result
	// types inferred for those that declare none.
	defuns  map[string]*syntax.Defun
	results map[*eval.Def]*ty
	// mute, when positive, keeps findings: a function's result is being
	// inferred for a caller, and its own check reports them.
	mute int
}

// inferredResult is the type of what a function that declares no result
// returns, from its body.
func (c *checker) inferredResult(d *eval.Def) *ty {
	if t, ok := c.results[d]; ok {
		return t
	}
	x := c.defuns[d.Name]
	if x == nil {
		return tAny
	}
	// While it is being inferred (recursion), it is unknown.
	c.results[d] = tAny
	def, dshift, scope, locals := c.def, c.dshift, c.scope, c.d.Locals
	c.scope, c.d.Locals = nil, nil
	c.def = d
	c.mute++
	t := c.body(d, x.Body, nil)
	c.mute--
	c.def, c.dshift, c.scope, c.d.Locals = def, dshift, scope, locals
	if t.kind == kParam {
		// What it returns is what it was passed: the caller knows.
		t = tAny
	}
	c.results[d] = t
	return t
}

type imported struct {
	m         *eval.Module
	selective bool
	names     []string
}

type local struct {
	name string
	t    *ty
}

// shift moves a span of the module's code to where the code was in its
// file: by lines, and on the member's first line by columns too.
type shift struct {
	file       string
	line, col  int32
	first      int32
	ok         bool
	fallbackTo syntax.Span
}

func (s shift) span(sp syntax.Span) syntax.Span {
	if !s.ok {
		return s.fallbackTo
	}
	move := func(p syntax.Pos) syntax.Pos {
		if p.Line == s.first {
			p.Col += s.col
		}
		p.Line += s.line
		return p
	}
	return syntax.Span{File: s.file, Start: move(sp.Start), End: move(sp.End)}
}

func (c *checker) decl(d syntax.Decl) {
	var name string
	var loc syntax.Span
	switch x := d.(type) {
	case *syntax.Defun:
		name, loc = x.Name, x.Loc
	case *syntax.DefCap:
		name, loc = x.Name, x.Loc
	case *syntax.DefPact:
		name, loc = x.Name, x.Loc
	case *syntax.DefConst:
		name, loc = x.Name, x.Loc
	default:
		return
	}
	def := c.mod.Defs[name]
	if def == nil {
		return
	}
	c.def = def
	c.dshift = shift{fallbackTo: def.Loc}
	if def.Loc.Start.IsValid() {
		c.dshift = shift{file: def.Loc.File, line: def.Loc.Start.Line - loc.Start.Line,
			col: def.Loc.Start.Col - loc.Start.Col, first: loc.Start.Line, ok: true}
	}
	c.scope = c.scope[:0]
	switch x := d.(type) {
	case *syntax.Defun:
		t := c.body(def, x.Body, def.Ret)
		if _, done := c.results[def]; !done && def.Ret == nil {
			if t.kind == kParam {
				t = tAny
			}
			c.results[def] = t
		}
	case *syntax.DefCap:
		c.body(def, x.Body, nil)
	case *syntax.DefPact:
		for _, s := range x.Steps {
			exprs := []syntax.Expr{s.Expr}
			if s.Rollback != nil {
				exprs = append(exprs, s.Rollback)
			}
			for _, e := range exprs {
				c.body(def, []syntax.Expr{e}, nil)
			}
		}
	case *syntax.DefConst:
		c.body(def, []syntax.Expr{x.Value}, nil)
	}
}

// body checks a member's body with its parameters in scope, and its last
// expression against ret.
func (c *checker) body(def *eval.Def, xs []syntax.Expr, ret *value.Type) *ty {
	if len(xs) == 0 {
		return tAny
	}
	c.scope = c.scope[:0]
	c.d.Locals = c.d.Locals[:0]
	for _, p := range def.Args {
		t := tParam
		if p.Type != nil {
			t = fromDeclared(p.Type)
		}
		c.scope = append(c.scope, local{p.Name, t})
		c.d.Locals = append(c.d.Locals, p.Name)
	}
	terms, err := c.d.Exprs(xs)
	if err != nil {
		// Loading compiled this code: the desugarer's errors are its.
		return tAny
	}
	t := c.block(terms)
	if ret != nil {
		c.expect(t, fromDeclared(ret), terms[len(terms)-1].Span(), "the result", false)
	}
	return t
}

func (c *checker) block(ts []resolve.Term) *ty {
	t := tUnit
	for _, x := range ts {
		t = c.infer(x)
	}
	return t
}

// expect checks a value of type actual, from the expression at sp,
// against expected; what names the value in a message.
func (c *checker) expect(actual, expected *ty, sp syntax.Span, what string, partial bool) {
	if c.mute == 0 {
		c.report.Checks++
	}
	v, why := fits(actual, expected, partial)
	switch v {
	case undecided:
		c.note(sp, what+" is of unknown type where "+expected.String()+" is required", true)
	case mismatch:
		msg := what + " is " + actual.String() + " where " + expected.String() + " is required"
		if why != "" {
			msg += ": " + why
		}
		c.note(sp, msg, false)
	}
}

func (c *checker) note(sp syntax.Span, msg string, undecidedOnly bool) {
	if c.mute > 0 {
		return
	}
	f := Finding{Span: c.dshift.span(sp), Def: c.def.Name, Msg: msg, Undecided: undecidedOnly}
	if undecidedOnly {
		c.report.Undecided = append(c.report.Undecided, f)
	} else {
		c.report.Errors = append(c.report.Errors, f)
	}
}

func (c *checker) push(name string, t *ty) { c.scope = append(c.scope, local{name, t}) }

func (c *checker) infer(t resolve.Term) *ty {
	switch x := t.(type) {
	case *resolve.Lit:
		switch x.Src.(type) {
		case *syntax.IntLit:
			return tInt
		case *syntax.DecimalLit:
			return tDec
		case *syntax.StringLit:
			return tStr
		case *syntax.BoolLit:
			return tBool
		case *syntax.UnitLit:
			return tUnit
		}
		return tInt // the charset constants
	case *resolve.Var:
		return c.name(x.Name)
	case *resolve.Builtin:
		return tAnyFun
	case *resolve.List:
		ts := make([]*ty, len(x.Elems))
		for i, e := range x.Elems {
			ts[i] = c.infer(e)
		}
		return listOf(union(ts...))
	case *resolve.Object:
		return objectOf(c.objectRow(x))
	case *resolve.Lam:
		n := len(c.scope)
		params := make([]*ty, len(x.Args))
		for i, a := range x.Args {
			params[i] = tParam
			if a.Type != nil {
				params[i] = c.declared(a.Type)
			}
			c.push(a.Name, params[i])
		}
		res := c.block(x.Body)
		c.scope = c.scope[:n]
		return &ty{kind: kFun, params: params, result: res}
	case *resolve.Let:
		n := len(c.scope)
		for _, b := range x.Binders {
			vt := c.infer(b.Val)
			if b.Arg.Type != nil {
				want := c.declared(b.Arg.Type)
				c.expect(vt, want, b.Val.Span(), "the value of "+b.Arg.Name, false)
				vt = want
			}
			c.push(b.Arg.Name, vt)
		}
		res := c.block(x.Body)
		c.scope = c.scope[:n]
		return res
	case *resolve.Binding:
		return c.binding(x, tAnyObj, nil, "")
	case *resolve.App:
		return c.app(x)
	case *resolve.Special:
		return c.special(x)
	case *resolve.Cond:
		alts := make([]*ty, 0, len(x.Clauses)+1)
		for _, cl := range x.Clauses {
			if cl.Err != nil {
				return tAny
			}
			c.expect(c.infer(cl.Test), tBool, cl.Test.Span(), "the condition", false)
			alts = append(alts, c.infer(cl.Branch))
		}
		return union(append(alts, c.infer(x.Default))...)
	}
	return tAny
}

// objectRow is an object literal's fields; a key written twice keeps its
// last value, as at run time.
func (c *checker) objectRow(x *resolve.Object) *row {
	vals := make(map[string]*ty, len(x.Keys))
	for i, k := range x.Keys {
		vals[k] = c.infer(x.Vals[i])
	}
	r := &row{names: make([]string, 0, len(vals))}
	for k := range vals {
		r.names = append(r.names, k)
	}
	slices.Sort(r.names)
	for _, k := range r.names {
		r.types = append(r.types, vals[k])
	}
	return r
}

// declared is a type written in the code (a lambda's or let's).
func (c *checker) declared(t syntax.Type) *ty {
	switch x := t.(type) {
	case nil:
		return tAny
	case *syntax.PrimType:
		switch x.Prim {
		case syntax.PrimInteger:
			return tInt
		case syntax.PrimDecimal:
			return tDec
		case syntax.PrimString:
			return tStr
		case syntax.PrimBool:
			return tBool
		case syntax.PrimTime:
			return tTime
		case syntax.PrimUnit:
			return tUnit
		case syntax.PrimGuard, syntax.PrimKeyset:
			return tGuard
		case syntax.PrimList:
			return tAnyList
		case syntax.PrimObject:
			return tAnyObj
		}
	case *syntax.ListType:
		return listOf(c.declared(x.Elem))
	case *syntax.ModRefType:
		ifaces := make([]value.ModuleName, 0, len(x.Interfaces))
		for _, i := range x.Interfaces {
			mn := value.ModuleName{Namespace: i.Namespace, Name: i.Name}
			m := c.module(mn)
			if m == nil {
				return &ty{kind: kModRef}
			}
			ifaces = append(ifaces, m.Name)
		}
		return &ty{kind: kModRef, ifaces: ifaces}
	case *syntax.SchemaType:
		def := c.member(x.Schema)
		if def == nil || def.Kind != eval.DefSchemaKind {
			if x.Table {
				return tAnyTable
			}
			return tAnyObj
		}
		if x.Table {
			return &ty{kind: kTable, row: schemaRow(def.Schema)}
		}
		return objectOf(schemaRow(def.Schema))
	}
	return tAny
}

// module reads a module by a name as written in the checked module: in
// its namespace first, then in root.
func (c *checker) module(mn value.ModuleName) *eval.Module {
	if mn.Namespace == "" && c.mod.Name.Namespace != "" {
		if m := c.env.ModuleNamed(value.ModuleName{Namespace: c.mod.Name.Namespace, Name: mn.Name}); m != nil {
			return m
		}
	}
	return c.env.ModuleNamed(mn)
}

// member is the definition a bare or qualified name names, or nil.
func (c *checker) member(n syntax.Name) *eval.Def {
	switch n.Kind {
	case syntax.BareName:
		if d := c.mod.Defs[n.Name]; d != nil {
			return d
		}
		for _, u := range c.uses {
			if u.selective && !slices.Contains(u.names, n.Name) {
				continue
			}
			if d := u.m.Defs[n.Name]; d != nil {
				return d
			}
		}
	case syntax.QualifiedName:
		mn := value.ModuleName{Namespace: n.Namespace, Name: n.Module}
		if mn == c.mod.Name || (mn.Namespace == "" && mn.Name == c.mod.Name.Name) {
			return c.mod.Defs[n.Name]
		}
		if m := c.module(mn); m != nil {
			return m.Defs[n.Name]
		}
	}
	return nil
}

func (c *checker) lookupLocal(name string) (*ty, bool) {
	for i := len(c.scope) - 1; i >= 0; i-- {
		if c.scope[i].name == name {
			return c.scope[i].t, true
		}
	}
	return nil, false
}

// name is the type of a name in expression position.
func (c *checker) name(n syntax.Name) *ty {
	switch n.Kind {
	case syntax.BareName:
		if t, ok := c.lookupLocal(n.Name); ok {
			return t
		}
		if d := c.member(n); d != nil {
			return c.defType(d)
		}
		if m := c.module(value.ModuleName{Name: n.Name}); m != nil {
			return modRefOf(m)
		}
		if c.env.Native(n.Name) != nil {
			return tAnyFun
		}
	case syntax.QualifiedName:
		if d := c.member(n); d != nil {
			return c.defType(d)
		}
		if n.Namespace == "" {
			if m := c.env.ModuleNamed(value.ModuleName{Namespace: n.Module, Name: n.Name}); m != nil {
				return modRefOf(m)
			}
		}
	case syntax.DynamicName:
		if d := c.dynamic(n); d != nil {
			return c.defType(d)
		}
	}
	return tAny
}

// dynamic is the signature m::f names: f of an interface m is declared to
// implement, or of the module m names.
func (c *checker) dynamic(n syntax.Name) *eval.Def {
	var mt *ty
	if t, ok := c.lookupLocal(n.Module); ok {
		mt = t
	} else {
		mt = c.name(syntax.Name{Kind: syntax.BareName, Name: n.Module})
	}
	if mt.kind != kModRef {
		return nil
	}
	if mt.module != nil {
		if m := c.env.ModuleNamed(*mt.module); m != nil && m.Defs[n.Name] != nil {
			return m.Defs[n.Name]
		}
	}
	for _, i := range mt.ifaces {
		if m := c.env.ModuleNamed(i); m != nil && m.Defs[n.Name] != nil {
			return m.Defs[n.Name]
		}
	}
	return nil
}

func modRefOf(m *eval.Module) *ty {
	mn := m.Name
	return &ty{kind: kModRef, ifaces: m.Implements, module: &mn}
}

// defType is the type of a member named as a value.
func (c *checker) defType(d *eval.Def) *ty {
	switch d.Kind {
	case eval.DefConstant:
		if d.Value != nil {
			return fromValue(d.Value)
		}
		return tAny
	case eval.DefTableKind:
		if d.Table != nil {
			return &ty{kind: kTable, row: schemaRow(&d.Table.Schema)}
		}
		return tAnyTable
	case eval.DefSchemaKind:
		return tAny
	}
	params := make([]*ty, len(d.Args))
	for i, p := range d.Args {
		params[i] = fromDeclared(p.Type)
	}
	res := fromDeclared(d.Ret)
	if d.Ret == nil && d.Kind == eval.DefFun && d.Module == c.mod {
		res = c.inferredResult(d)
	}
	switch d.Kind {
	case eval.DefCapability:
		res = tCapToken
	case eval.DefPactKind:
		res = tAny
	}
	return &ty{kind: kFun, params: params, result: res, exact: true}
}

// nativeName is the native a call's head names, or "".
func (c *checker) nativeName(t resolve.Term) string {
	switch x := t.(type) {
	case *resolve.Builtin:
		return x.Name.Name
	case *resolve.Var:
		n := x.Name
		if n.Kind != syntax.BareName || c.env.Native(n.Name) == nil {
			return ""
		}
		if _, ok := c.lookupLocal(n.Name); ok || c.member(n) != nil {
			return ""
		}
		return n.Name
	}
	return ""
}

func (c *checker) app(x *resolve.App) *ty {
	if name := c.nativeName(x.Fn); name != "" {
		if t, ok := c.tableNative(name, x); ok {
			return t
		}
		args := make([]*ty, len(x.Args))
		for i, a := range x.Args {
			args[i] = c.infer(a)
		}
		if nativeSigs[name] == nil {
			return c.callUnsigned(name, x, args)
		}
		return c.callNative(name, x, args)
	}
	fn := c.infer(x.Fn)
	args := make([]*ty, len(x.Args))
	for i, a := range x.Args {
		args[i] = c.infer(a)
	}
	return c.apply(fn, x, args)
}

// apply is a call of a function value of type fn.
func (c *checker) apply(fn *ty, x *resolve.App, args []*ty) *ty {
	if fn.kind != kFun || fn.unknown {
		return tAny
	}
	name := callee(x)
	if fn.exact && len(args) > len(fn.params) {
		c.note(x.Span(), name+" takes "+plural(len(fn.params), "argument")+", not "+strconv.Itoa(len(args)), false)
		return tNever
	}
	n := min(len(args), len(fn.params))
	for i := 0; i < n; i++ {
		c.expect(args[i], fn.params[i], x.Args[i].Span(), "argument "+strconv.Itoa(i+1)+" of "+name, false)
	}
	if len(args) < len(fn.params) {
		// A partial application: a function of the rest.
		return &ty{kind: kFun, params: fn.params[len(args):], result: fn.result}
	}
	return fn.result
}

// callee names a call's head for messages.
func callee(x *resolve.App) string {
	if x.Src != nil {
		if v, ok := x.Src.Fn.(*syntax.Var); ok {
			return v.Name.String()
		}
	}
	return "the function"
}

// callNative checks a native's arguments against its signatures.
func (c *checker) callNative(name string, x *resolve.App, args []*ty) *ty {
	alts := nativeSigs[name]
	if alts == nil {
		return tAny
	}
	if c.mute == 0 {
		c.report.Checks++
	}
	var results []*ty
	best := mismatch
	var partial []sig
	for _, s := range alts {
		if len(s.params) != len(args) {
			if len(s.params) > len(args) {
				partial = append(partial, s)
			}
			continue
		}
		if v, res := s.call(args); v != mismatch {
			results = append(results, res)
			best = min(best, v)
		}
	}
	arities := false
	for _, s := range alts {
		arities = arities || len(s.params) == len(args)
	}
	if !arities {
		if len(partial) == 1 && len(args) > 0 {
			s := partial[0]
			b := make(bindings, s.vars)
			for i := range args {
				match(args[i], s.params[i], b)
			}
			rest := &ty{kind: kFun, params: s.params[len(args):], result: s.result}
			return subst(rest, b)
		}
		if len(partial) > 0 {
			return tAnyFun
		}
		c.note(x.Span(), fmt.Sprintf("%s takes %s, not %d", name, arityText(alts), len(args)), false)
		return tNever
	}
	if len(results) == 0 {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = a.String()
		}
		c.note(x.Span(), name+" cannot take arguments of type ("+strings.Join(ts, ", ")+")", false)
		// Reported: what follows from it is not reported again.
		return tNever
	}
	if best == undecided {
		c.note(x.Span(), "the arguments of "+name+" are of unknown types", true)
	}
	res := results[0]
	for _, r := range results[1:] {
		if !same(r, res) {
			res = tAny
			break
		}
	}
	if res.kind == kAny && slices.ContainsFunc(args, func(a *ty) bool { return a.kind == kParam }) {
		// It depends on what the function was passed: generic too.
		return tParam
	}
	return res
}

func arityText(alts []sig) string {
	var ns []int
	for _, s := range alts {
		if !slices.Contains(ns, len(s.params)) {
			ns = append(ns, len(s.params))
		}
	}
	slices.Sort(ns)
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	word := "arguments"
	if len(ns) == 1 && ns[0] == 1 {
		word = "argument"
	}
	return strings.Join(parts, " or ") + " " + word
}

// callUnsigned is a call of a native the signature table leaves out:
// only its arity is checked. Fewer arguments than it takes make a
// function of the rest.
func (c *checker) callUnsigned(name string, x *resolve.App, args []*ty) *ty {
	n := c.env.Native(name)
	switch {
	case n == nil:
		return tAny
	case len(args) < n.Min:
		return tAnyFun
	case n.Max >= 0 && len(args) > n.Max:
		c.note(x.Span(), name+" takes at most "+plural(n.Max, "argument")+", not "+strconv.Itoa(len(args)), false)
		return tNever
	}
	return tAny
}
