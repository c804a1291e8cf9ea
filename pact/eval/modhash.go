package eval

import (
	"bytes"
	"math/big"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/crypto/blake2b"

	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Pact 5 module hashes.
//
// P5 (Pact.Core.IR.ModuleHashing) hashes a module or interface as the
// BLAKE2b-256 of the CBOR serialisation (Pact.Core.Serialise.CBOR_V1) of
// its desugared, name-resolved IR with every info field set to (), after
// its defconsts have been evaluated, with the module's own hash and tx hash
// fields emptied. This file rebuilds that IR, the way Pact.Core.IR.Desugar
// does, from the terms of the desugaring pass the compiler also reads
// (package resolve, run as P5 runs it), and writes the CBOR directly:
//
//   - lowering: the terms are written in the IR's shape (most without
//     building it, see encDesugared): special forms BuiltinForm
//     nodes, let and binding forms nested Lets, lambdas without arguments
//     Nullary, natives Builtin nodes (arity overloads resolved), cond
//     nested ifs under the cond native;
//   - renaming: the names are resolved by the renamer the compiler also
//     uses (rename.go, reading them as P5's renamer does: r.hashing), and
//     written as P5's Names: locals de Bruijn indices, module members
//     NTopLevel with the module hash (the module's own members with the
//     "#placeholder" hash, an interface's with "placeholder"), module
//     references NModRef and modref::member NDynRef;
//   - the definitions come in the order Data.Graph.stronglyConnComp puts
//     them (dependencies first), which is what the hash is taken over.

// placeholder hashes P5's desugarer gives a module and an interface
// before hashing them.
var (
	p5ModulePlaceholder = []byte("#placeholder")
	p5IfacePlaceholder  = []byte("placeholder")
)

// p5Pass says what one encoding of a module writes: its defconsts as
// their terms or their values, and the record's own hash and tx hash
// fields. The names of the module's own members carry h.self.
type p5Pass struct {
	constTerms   bool
	hash, txHash []byte
}

// moduleHashP5 is P5's hash of the module or interface x, whose full name
// (namespace applied) is mn, as it would be installed now: names resolve
// against the modules in the database, the current namespace and the
// top-level `use`s. The result is unpadded base64url.
func moduleHashP5(in *Interp, x syntax.Node, mn value.ModuleName) (string, error) {
	h := newP5Hasher(in, x, mn)
	hash, _, err := h.hashPass(x)
	return hash, err
}

func newP5Hasher(in *Interp, x syntax.Node, mn value.ModuleName) *p5Hasher {
	h := &p5Hasher{
		mn:       mn,
		noPact53: in.Flags["DisablePact53"],
		noPact51: in.Flags["DisablePact51"],
		depMods:  map[value.ModuleName]bool{},
	}
	h.placeholder = p5ModulePlaceholder
	if _, ok := x.(*syntax.Interface); ok {
		h.iface = true
		h.placeholder = p5IfacePlaceholder
	}
	h.renamer = renamer{in: in, hashing: true, deps: h.depMods,
		mod: &Module{Name: mn, Interface: h.iface, Defs: map[string]*Def{}}}
	h.self = h.placeholder
	return h
}

// encodeTop writes x as the current pass wants it.
func (h *p5Hasher) encodeTop(w *p5.Writer, x syntax.Node) error {
	switch x := x.(type) {
	case *syntax.Module:
		return h.module(w, x)
	case *syntax.Interface:
		return h.iface_(w, x)
	}
	return value.EvalError("module hash: not a module or interface")
}

// builtinSize is the size estimate of a native in this interpreter's IR:
// the REPL's natives are ReplBuiltin-wrapped.
func (h *p5Hasher) builtinSize() uint64 {
	if h.in.ReplEvaluator {
		return 4
	}
	return 2
}

// desugarPass is the renamer's pass: it resolves every name (loading, and
// charging, the modules named, in P5's order) and measures the module as
// P5's desugarer charges it: infos erased, constants as terms, the
// placeholder hash and the transaction's hash.
func (h *p5Hasher) desugarPass(x syntax.Node, txHash []byte) (uint64, error) {
	h.charged = true
	defer func() { h.charged = false }()
	h.self = h.placeholder
	h.pass = p5Pass{constTerms: true, hash: h.placeholder, txHash: txHash}
	w := p5.Writer{BuiltinSize: h.builtinSize()}
	err := h.encodeTop(&w, x)
	if h.loadErr != nil {
		return 0, h.loadErr
	}
	if err != nil {
		return 0, err
	}
	return w.Size, nil
}

// hashPass computes the module hash (the BLAKE2b-256 of the CBOR with
// constants evaluated, infos erased, own names under the placeholder and
// the hash fields empty) and the size the hash is charged by (the same
// module with the placeholder hash and the tx hash).
func (h *p5Hasher) hashPass(x syntax.Node) (string, uint64, error) {
	h.self = h.placeholder
	h.pass = p5Pass{}
	w := p5.Writer{CBOR: true, BuiltinSize: h.builtinSize()}
	if err := h.encodeTop(&w, x); err != nil {
		return "", 0, err
	}
	sum := blake2b.Sum256(w.Buf)
	return value.EncodeBase64URL(sum[:]), w.Size, nil
}

// imagePass measures the module as it is stored: the real hash, infos,
// constants evaluated; it records each definition's image.
func (h *p5Hasher) imagePass(x syntax.Node, hash, txHash []byte) (*p5.Image, error) {
	h.self = hash
	h.pass = p5Pass{hash: hash, txHash: txHash}
	infos := p5.InfoLine
	if h.in.ReplEvaluator {
		infos = p5.InfoSpan
	}
	h.img = &p5.Image{Hash: string(hash)}
	defer func() { h.img = nil }()
	w := p5.Writer{CBOR: true, Infos: infos, BuiltinSize: h.builtinSize()}
	if err := h.encodeTop(&w, x); err != nil {
		return nil, err
	}
	img := h.img
	img.Size, img.CBOR = w.Size, len(w.Buf)
	return img, nil
}

// moduleHashOr is the hash defineModule and defineInterface store: P5's
// hash of x, or fallback when x cannot be hashed (it does not resolve, for
// instance), in which case compiling the module reports the error.
func moduleHashOr(in *Interp, x syntax.Node, mn value.ModuleName, fallback string) string {
	h, err := moduleHashP5(in, x, mn)
	if err != nil {
		return fallback
	}
	return h
}

// isBuiltin reports whether a bare name is a native for the desugarer:
// every core native, and the REPL natives when this interpreter has them.
func (h *p5Hasher) isBuiltin(name string) bool {
	repl, ok := p5.SourceBuiltin(name)
	if !ok {
		return false
	}
	if repl {
		return h.in.natives[name] != nil
	}
	return true
}

// ---------------------------------------------------------------------------
// The desugared term (Term ParsedName DesugarType b i).
//
// The renamer reads the desugaring pass's terms (package resolve) and writes
// each as its lowering into P5's IR shape would be written, without
// building that lowering (encDesugared); only the rarer shapes (cond,
// natives whose overload wraps their arguments, and, or and enforce at
// another arity than two) are lowered, one level deep, into the nodes
// below, whose children may be terms again.

type dsTerm interface{}

type (
	dsVar struct{ n syntax.Name }
	dsLam struct {
		args []dsArg
		body dsTerm
	}
	dsApp struct {
		fn   dsTerm
		args []dsTerm
	}
	dsNullary struct{ body dsTerm }
	// dsForm is a BuiltinForm; tag is its serialisation tag.
	dsForm struct {
		tag  uint64
		args []dsTerm
	}
	dsBuiltin struct{ name string }
	dsLit     struct{ v value.Value }
	dsList    struct{ elems []dsTerm }
	// dsBlock is a body, in P5's IR its terms in a Sequence (one term
	// alone).
	dsBlock []resolve.Term
)

// dsArg is an argument as written: its name and type annotation (its
// span is not the IR's, which carries the definition's).
type dsArg = syntax.Arg

// BuiltinForm serialisation tags.
const (
	formAnd            = 0
	formOr             = 1
	formIf             = 2
	formEnforceOne     = 3
	formEnforce        = 4
	formWithCapability = 5
	formTry            = 6
	formCreateUserGard = 7
	formError          = 8
	formPure           = 9
)

func bareName(s string) syntax.Name { return syntax.Name{Kind: syntax.BareName, Name: s} }

// desugarer is the shared desugaring pass (package resolve) as P5 runs it.
func (h *p5Hasher) desugarer() *resolve.Desugarer {
	if h.dsr == nil {
		h.dsr = &resolve.Desugarer{P5: true, NoPact53: h.noPact53, Builtin: h.isBuiltin}
	}
	return h.dsr
}

// dsBlock desugars a body.
func (h *p5Hasher) dsBlock(xs []syntax.Expr, loc syntax.Span) (dsBlock, error) {
	return desugared(h.desugarer().Block(xs, loc, resolve.EmptyBody))
}

// lowered gives the rarer terms the shape of P5's IR, one level deep: cond
// its native over a Nullary of nested ifs, a native's overload that wraps
// its arguments, and, or and enforce at another arity than two a lambda
// over the form. Every other term encDesugared writes itself.
func (h *p5Hasher) lowered(t resolve.Term) dsTerm {
	switch t := t.(type) {
	case *resolve.Cond:
		var body dsTerm = t.Default
		for i := len(t.Clauses) - 1; i >= 0; i-- {
			c := t.Clauses[i]
			body = dsForm{formIf, []dsTerm{c.Test, c.Branch, body}}
		}
		return dsApp{fn: dsBuiltin{"cond"}, args: []dsTerm{dsNullary{body}}}
	case *resolve.App:
		b := t.Fn.(*resolve.Builtin).Name.Name
		name, _ := appArity(b, t.Args)
		return wrapArgs(b, name, asTerms(t.Args))
	case *resolve.Special:
		return dsApp{fn: condLam2(p5FormTags[t.Form]), args: asTerms(t.Args)}
	}
	return nil
}

func asTerms(ts []resolve.Term) []dsTerm {
	out := make([]dsTerm, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

// p5FormTags are the BuiltinForms of the special forms that are one.
var p5FormTags = map[resolve.Form]uint64{
	resolve.FormAnd: formAnd, resolve.FormOr: formOr, resolve.FormIf: formIf, resolve.FormEnforceOne: formEnforceOne, resolve.FormEnforce: formEnforce,
	resolve.FormTry: formTry, resolve.FormCreateUserGuard: formCreateUserGard, resolve.FormError: formError, resolve.FormPure: formPure,
}

// lowersToNullary says whether t's lowering is a Nullary: an argument-less
// lambda, or a do or a let without binders around one term that is.
func lowersToNullary(t resolve.Term) bool {
	switch t := t.(type) {
	case *resolve.Lam:
		return len(t.Args) == 0
	case *resolve.Special:
		return t.Form == resolve.FormDo && len(t.Args) == 1 && lowersToNullary(t.Args[0])
	case *resolve.Let:
		return len(t.Binders) == 0 && len(t.Body) == 1 && lowersToNullary(t.Body[0])
	}
	return false
}

// appArity is desugarAppArity's choice of native for b applied to args, and
// whether it also wraps them (wrapArgs).
func appArity(b string, args []resolve.Term) (name string, wraps bool) {
	n := len(args)
	switch {
	case b == "-" && n == 1:
		return "negate", false
	case b == "enumerate" && n == 3:
		return "enumerate-step", false
	case b == "select" && n == 3:
		return "select-with-fields", false
	case b == "sort" && n == 2:
		return "sort-object", false
	case (b == "round" || b == "ceiling" || b == "floor") && n == 2:
		return b + "-prec", false
	case b == "str-to-int" && n == 2:
		return "str-to-int-base", false
	case b == "read-msg" && n == 0:
		return "read-msg-default", false
	case b == "define-keyset" && n == 1:
		return "define-read-keyset", false
	case b == "poseidon-hash-hack-a-chain" || b == "hash-poseidon":
		return b, true
	case b == "yield" && n == 2:
		return "yield-to-chain", false
	case b == "read" && n == 3:
		return "read-with-fields", false
	// REPL natives
	case b == "load" && n == 2:
		return "load-with-env", false
	case b == "expect" && n == 3 && !lowersToNullary(args[2]):
		return "expect", true
	case b == "expect-failure" && n == 2 && !lowersToNullary(args[1]):
		return "expect-failure", true
	case b == "expect-failure" && n == 3 && !lowersToNullary(args[1]):
		return "expect-failure-match", true
	case b == "pact-state" && n == 1:
		return "reset-pact-state", false
	case b == "continue-pact" && n == 2:
		return "continue-pact-with-rollback", false
	case b == "continue-pact" && n == 3:
		return "continue-pact-rollback-yield", false
	case b == "continue-pact" && n == 4:
		return "continue-pact-rollback-yield-object", false
	case b == "env-gas" && n == 1:
		return "env-set-gas", false
	case b == "env-gasmodel" && n == 0:
		return "env-ask-gasmodel", false
	case b == "begin-tx" && n == 1:
		return "begin-named-tx", false
	case b == "enforce-pact-version" && n == 2:
		return "enforce-pact-version-range", false
	}
	return b, false
}

// wrapArgs is the native name, chosen by appArity for b, applied to args as
// it wraps them: poseidon's in a list, expect's and expect-failure's
// expressions in Nullary lambdas.
func wrapArgs(b, name string, args []dsTerm) dsTerm {
	app := func(as ...dsTerm) dsTerm { return dsApp{fn: dsBuiltin{name}, args: as} }
	switch {
	case b == "expect":
		return app(args[0], dsNullary{args[1]}, dsNullary{args[2]})
	case b == "expect-failure" && len(args) == 2:
		return app(args[0], dsNullary{args[1]})
	case b == "expect-failure":
		return app(args[0], args[1], dsNullary{args[2]})
	}
	return app(dsList{args})
}

// condLam2 is conditionalLam2Arg: and, or and enforce used at another
// arity become a two-argument lambda over the form.
func condLam2(tag uint64) dsTerm {
	boolTy := &syntax.PrimType{Prim: syntax.PrimBool}
	return dsLam{
		args: []dsArg{{Name: "#condArg1", Type: boolTy}, {Name: "#condArg2", Type: boolTy}},
		body: dsForm{tag, []dsTerm{dsVar{bareName("#condArg1")}, dsVar{bareName("#condArg2")}}},
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// ---------------------------------------------------------------------------
// Definitions

type p5Def struct {
	kind DefKind
	name string
	loc  syntax.Span
	// sig is an interface signature (defun, defcap or defpact without body).
	sig  bool
	args []dsArg
	ret  syntax.Type
	// term: a defun's Lam or Nullary, a defcap's body, a defconst's value.
	term  dsTerm
	steps [][]dsTerm // defpact: [expr] or [expr, rollback]
	// defconst: its value desugared
	constTerm resolve.Term
	// defschema
	fields []syntax.Arg
	// deftable
	schema syntax.Name
	// defcap
	meta *syntax.CapMeta
}

func (h *p5Hasher) desugarDef(d syntax.Decl) (*p5Def, error) {
	switch x := d.(type) {
	case *syntax.Defun:
		pd := &p5Def{kind: DefFun, name: x.Name, loc: x.Loc, args: x.Args, ret: x.Ret}
		if h.iface {
			pd.sig = true
			return pd, nil
		}
		body, err := h.dsBlock(x.Body, x.Loc)
		if err != nil {
			return nil, err
		}
		if len(x.Args) == 0 {
			pd.term = dsNullary{body}
		} else {
			pd.term = dsLam{args: pd.args, body: body}
		}
		return pd, nil
	case *syntax.DefCap:
		pd := &p5Def{kind: DefCapability, name: x.Name, loc: x.Loc, args: x.Args, ret: x.Ret, meta: x.Meta}
		if x.Meta != nil && !x.Meta.Event && x.Meta.Manager != nil && managedIndex(x) < 0 {
			return nil, compileErr(x.Meta.Loc, "Invalid managed argument: "+x.Meta.Param)
		}
		if h.iface {
			pd.sig = true
			return pd, nil
		}
		body, err := h.dsBlock(x.Body, x.Loc)
		if err != nil {
			return nil, err
		}
		pd.term = body
		return pd, nil
	case *syntax.DefPact:
		pd := &p5Def{kind: DefPactKind, name: x.Name, loc: x.Loc, args: x.Args, ret: x.Ret}
		if h.iface {
			pd.sig = true
			return pd, nil
		}
		for i, s := range x.Steps {
			if s.Entity != nil {
				return nil, compileErr(s.Loc, "entity expressions are not allowed in defpact steps")
			}
			e, err := desugared(h.desugarer().Expr(s.Expr))
			if err != nil {
				return nil, err
			}
			st := []dsTerm{e}
			if s.Rollback != nil {
				if i == len(x.Steps)-1 {
					return nil, compileErr(s.Loc, "rollbacks aren't allowed on the last step")
				}
				rb, err := desugared(h.desugarer().Expr(s.Rollback))
				if err != nil {
					return nil, err
				}
				st = append(st, rb)
			}
			pd.steps = append(pd.steps, st)
		}
		return pd, nil
	case *syntax.DefConst:
		t, err := desugared(h.desugarer().Expr(x.Value))
		if err != nil {
			return nil, err
		}
		return &p5Def{kind: DefConstant, name: x.Name, loc: x.Loc, ret: x.Type, term: t, constTerm: t}, nil
	case *syntax.DefSchema:
		return &p5Def{kind: DefSchemaKind, name: x.Name, loc: x.Loc, fields: x.Fields}, nil
	case *syntax.DefTable:
		return &p5Def{kind: DefTableKind, name: x.Name, loc: x.Loc, schema: x.Schema}, nil
	}
	return nil, nil
}

func managedIndex(x *syntax.DefCap) int {
	for i, a := range x.Args {
		if a.Name == x.Meta.Param {
			return i
		}
	}
	return -1
}

// ---------------------------------------------------------------------------
// Dependency order (the renamer's termSCC and friends, then
// Data.Graph.stronglyConnComp).

type nameSet map[string]bool

func (s nameSet) without(names ...string) nameSet {
	hit := false
	for _, n := range names {
		if s[n] {
			hit = true
		}
	}
	if !hit {
		return s
	}
	c := make(nameSet, len(s))
	for k := range s {
		c[k] = true
	}
	for _, n := range names {
		delete(c, n)
	}
	return c
}

func (h *p5Hasher) nameDeps(n syntax.Name, cd nameSet, out nameSet) {
	switch n.Kind {
	case syntax.BareName:
		if cd[n.Name] {
			out[n.Name] = true
		}
	case syntax.QualifiedName:
		if cd[n.Name] && (value.ModuleName{Namespace: n.Namespace, Name: n.Module}) == h.mn {
			out[n.Name] = true
		}
	}
}

func (h *p5Hasher) typeDeps(t syntax.Type, cd nameSet, out nameSet) {
	switch t := t.(type) {
	case *syntax.ListType:
		h.typeDeps(t.Elem, cd, out)
	case *syntax.SchemaType:
		h.nameDeps(t.Schema, cd, out)
	}
}

func (h *p5Hasher) argDeps(as []dsArg, cd nameSet, out nameSet) {
	for _, a := range as {
		h.typeDeps(a.Type, cd, out)
	}
}

// termDeps collects the names t depends on as its lowering binds them: a
// lambda's arguments, and each let and binding variable, are not the
// members of those names in what they scope over. t is a term, or a
// definition's body (dsLam, dsNullary, dsBlock) around terms.
func (h *p5Hasher) termDeps(t dsTerm, cd nameSet, out nameSet) {
	switch t := t.(type) {
	case *resolve.Var:
		h.nameDeps(t.Name, cd, out)
	case *resolve.List:
		h.termsDeps(t.Elems, cd, out)
	case *resolve.Object:
		h.termsDeps(t.Vals, cd, out)
	case *resolve.App:
		h.termDeps(t.Fn, cd, out)
		h.termsDeps(t.Args, cd, out)
	case *resolve.Special:
		h.termsDeps(t.Args, cd, out)
	case *resolve.Cond:
		for _, c := range t.Clauses {
			h.termDeps(c.Test, cd, out)
			h.termDeps(c.Branch, cd, out)
		}
		h.termDeps(t.Default, cd, out)
	case *resolve.Lam:
		h.lamDeps(t.Args, dsBlock(t.Body), cd, out)
	case dsLam:
		h.lamDeps(t.args, t.body, cd, out)
	case dsNullary:
		h.termDeps(t.body, cd, out)
	case dsBlock:
		h.termsDeps(t, cd, out)
	case *resolve.Let:
		for _, b := range t.Binders {
			h.typeDeps(b.Arg.Type, cd, out)
			h.termDeps(b.Val, cd, out)
			cd = cd.without(b.Arg.Name)
		}
		h.termsDeps(t.Body, cd, out)
	case *resolve.Binding:
		cd = cd.without(bindObject)
		for _, v := range t.Vars {
			h.typeDeps(v.Type, cd, out)
			h.nameDeps(bareName(bindObject), cd, out)
			cd = cd.without(v.Name)
		}
		h.termsDeps(t.Body, cd, out)
	}
}

func (h *p5Hasher) termsDeps(ts []resolve.Term, cd nameSet, out nameSet) {
	for _, t := range ts {
		h.termDeps(t, cd, out)
	}
}

func (h *p5Hasher) lamDeps(args []dsArg, body dsTerm, cd nameSet, out nameSet) {
	h.argDeps(args, cd, out)
	h.termDeps(body, cd.without(argNames(args)...), out)
}

func (h *p5Hasher) defDeps(d *p5Def, cd nameSet) []string {
	out := nameSet{}
	switch d.kind {
	case DefFun, DefCapability, DefPactKind:
		h.argDeps(d.args, cd, out)
		h.typeDeps(d.ret, cd, out)
		if d.term != nil {
			h.termDeps(d.term, cd, out)
		}
		for _, s := range d.steps {
			for _, t := range s {
				h.termDeps(t, cd, out)
			}
		}
		if d.meta != nil && !d.meta.Event && d.meta.Manager != nil {
			if h.iface {
				h.nameDeps(bareName(d.meta.Manager.Name), cd, out)
			} else {
				h.nameDeps(*d.meta.Manager, cd, out)
			}
		}
	case DefConstant:
		h.termDeps(d.term, cd, out)
		h.typeDeps(d.ret, cd, out)
	case DefSchemaKind:
		for _, f := range d.fields {
			h.typeDeps(f.Type, cd, out)
		}
	case DefTableKind:
		h.nameDeps(d.schema, cd, out)
	}
	deps := make([]string, 0, len(out))
	for k := range out {
		deps = append(deps, k)
	}
	slices.Sort(deps)
	return deps
}

// sccOrder is Data.Graph.stronglyConnComp over the definitions (keyed by
// name, with edges to the names they depend on): the order it returns them
// in, dependencies first. A cycle is an error, as in P5.
func (h *p5Hasher) sccOrder(defs []*p5Def) ([]*p5Def, error) {
	n := len(defs)
	if n == 0 {
		return nil, nil
	}
	cd := nameSet{}
	for _, d := range defs {
		cd[d.name] = true
	}
	// graphFromEdges: vertices are the definitions sorted by key.
	sorted := slices.Clone(defs)
	slices.SortStableFunc(sorted, func(a, b *p5Def) int { return strings.Compare(a.name, b.name) })
	vertex := map[string]int{}
	for v, d := range sorted {
		if _, dup := vertex[d.name]; dup {
			return nil, compileErr(d.loc, "Duplicate definition: "+d.name)
		}
		vertex[d.name] = v
	}
	g := make([][]int, n)
	for v, d := range sorted {
		for _, k := range h.defDeps(d, cd) {
			if w, ok := vertex[k]; ok {
				g[v] = append(g[v], w)
			}
		}
	}
	// transposeG = buildG (reverseE g): accumArray (flip (:)) conses each
	// edge, so a vertex's predecessors come out in reverse edge order.
	gt := make([][]int, n)
	for v := 0; v < n; v++ {
		for _, w := range g[v] {
			gt[w] = append([]int{v}, gt[w]...)
		}
	}
	// reversePostOrder (dff (transposeG g))
	visited := make([]bool, n)
	var post []int
	var dfsT func(v int)
	dfsT = func(v int) {
		visited[v] = true
		for _, c := range gt[v] {
			if !visited[c] {
				dfsT(c)
			}
		}
		post = append(post, v)
	}
	for v := 0; v < n; v++ {
		if !visited[v] {
			dfsT(v)
		}
	}
	slices.Reverse(post)
	// dfs g over that order: every tree is one component.
	visited = make([]bool, n)
	var tree []int
	var dfsG func(v int)
	dfsG = func(v int) {
		visited[v] = true
		tree = append(tree, v)
		for _, c := range g[v] {
			if !visited[c] {
				dfsG(c)
			}
		}
	}
	out := make([]*p5Def, 0, n)
	for _, v := range post {
		if visited[v] {
			continue
		}
		tree = tree[:0]
		dfsG(v)
		if len(tree) > 1 || slices.Contains(g[v], v) {
			names := make([]string, len(tree))
			for i, t := range tree {
				names[i] = sorted[t].name
			}
			return nil, compileErr(sorted[v].loc, "Recursive definitions are not allowed: "+strings.Join(names, ", "))
		}
		out = append(out, sorted[v])
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Renaming

type p5Hasher struct {
	// renamer resolves the module's names as P5's renamer does; its mod
	// stands for the module hashed (mn, iface), its Defs the members
	// renamed so far, its uses the module's imports.
	renamer
	mn    value.ModuleName
	iface bool
	self  []byte
	// placeholder is the hash P5's desugarer gives the module.
	placeholder []byte
	// pass is what the current encoding writes; charged (the renamer's)
	// says its module reads are P5's renamer's, charged as such.
	pass p5Pass
	// img, during the image pass, collects the definitions' images; trace
	// is the current definition's walk.
	img   *p5.Image
	trace *p5.DefTrace
	// defs (in dependency order), uses, blessed hashes and implements
	// declarations are desugared once for every pass.
	defs      []*p5Def
	useDecls  []*syntax.Use
	blessed   [][]byte
	implDecls []*syntax.Implements
	// depMods are the modules whose members the code names (P5's
	// rsDependencies): the renamer's deps.
	depMods    map[value.ModuleName]bool
	implements []value.ModuleName
	consts     map[string]value.Value
	constsErr  error
	constsDone bool
	body       []syntax.Decl
	noPact53   bool
	noPact51   bool
	// ds is the desugaring pass, run as P5 runs it.
	dsr *resolve.Desugarer
}

// p5Ref is a resolved name, as P5's Name holds it.
type p5Ref struct {
	name string
	kind byte // 0 NBound, 1 NTopLevel, 2 NModRef, 3 NDynRef
	// NBound, NDynRef: the de Bruijn index
	idx uint64
	// NTopLevel: the member's module and its hash, and the member's kind
	// and (a schema's) schema; NModRef: the module and its interfaces
	mod     value.ModuleName
	hash    []byte
	defKind DefKind
	schema  *value.Schema
	imps    []value.ModuleName
	// NDynRef: the member invoked
	arg string
}

const (
	nkBound = iota
	nkTopLevel
	nkModRef
	nkDynRef
)

func hashBytes(m *Module) []byte {
	b, err := value.DecodeBase64URL(m.Hash)
	if err != nil {
		return []byte(m.Hash)
	}
	return b
}

// resolveModuleData is P5's: the module as written, then (for a bare
// name) in the current namespace, which must be installed.
func (h *p5Hasher) resolveModuleData(mn value.ModuleName, loc syntax.Span) (*Module, error) {
	m, err := h.moduleData(mn, loc)
	if err == nil && m == nil {
		err = compileErr(loc, "Cannot find module: "+mn.String())
	}
	return m, err
}

// implementsInOrder is a module's interface list in source order, as P5
// keeps it (Module.Implements is sorted).
func implementsInOrder(m *Module) []value.ModuleName {
	if len(m.Implements) < 2 || m.Code == "" {
		return m.Implements
	}
	f, err := syntax.ParseProgram("", m.Code)
	if err != nil || len(f.Items) != 1 {
		return m.Implements
	}
	x, ok := f.Items[0].(*syntax.Module)
	if !ok {
		return m.Implements
	}
	var out []value.ModuleName
	used := make([]bool, len(m.Implements))
	for _, d := range x.Body {
		imp, ok := d.(*syntax.Implements)
		if !ok {
			continue
		}
		want := value.ModuleName{Namespace: imp.Interface.Namespace, Name: imp.Interface.Name}
		found := -1
		for i, c := range m.Implements {
			if !used[i] && c == want {
				found = i
			}
		}
		if found < 0 && want.Namespace == "" {
			for i, c := range m.Implements {
				if !used[i] && c.Name == want.Name {
					found = i
					break
				}
			}
		}
		if found >= 0 {
			used[found] = true
			out = append(out, m.Implements[found])
		}
	}
	for i, c := range m.Implements {
		if !used[i] {
			out = append(out, c)
		}
	}
	return out
}

// ref is the Name a name resolves to.
func (h *p5Hasher) ref(n syntax.Name, env *scope, loc syntax.Span) (p5Ref, error) {
	var res resolution
	if err := h.rename(n, env, loc, &res); err != nil {
		return p5Ref{}, err
	}
	r := p5Ref{name: n.Name}
	switch res.kind {
	case resLocal:
		r.kind, r.idx = nkBound, res.index
		if res.dynamic {
			r.kind, r.name, r.arg = nkDynRef, n.Module, n.Name
		}
	case resMember:
		r.kind, r.mod, r.defKind, r.schema = nkTopLevel, res.modName, res.def.Kind, res.def.Schema
		switch res.origin {
		case inSelf:
			r.hash = h.self
		case inRepl:
			r.hash = []byte("#repl")
		default:
			r.hash = hashBytes(res.mod)
		}
	case resModRef:
		r.kind = nkModRef
		if res.mod == nil {
			r.mod, r.imps = h.mn, h.implements
		} else {
			r.mod, r.imps = res.mod.Name, implementsInOrder(res.mod)
		}
	}
	return r, nil
}

// ---------------------------------------------------------------------------
// Encoding the renamed IR

func (h *p5Hasher) encArg(w *p5.Writer, a dsArg, env *scope, loc syntax.Span) error {
	w.Rec(3)
	w.Text(a.Name)
	if a.Type == nil {
		w.Maybe(false, nil)
	} else {
		t, err := h.renameType(a.Type, env)
		if err != nil {
			return err
		}
		w.Maybe(true, func() { w.Type(t) })
	}
	w.Info(loc)
	return nil
}

func (h *p5Hasher) encArgs(w *p5.Writer, as []dsArg, env *scope, loc syntax.Span) error {
	return w.HList(len(as), func(i int) error { return h.encArg(w, as[i], env, loc) })
}

// encRef writes a Name: its text and its NameKind. A reference to a
// top-level member is recorded for the transitive-dependency walk.
func (h *p5Hasher) encRef(w *p5.Writer, r *p5Ref) {
	w.Rec(2)
	w.Text(r.name)
	switch r.kind {
	case nkBound:
		w.Con(0, 1)
		w.Word(r.idx, p5.SizeWord64)
	case nkTopLevel:
		w.Con(1, 2)
		w.ModuleName(r.mod)
		w.Hash(r.hash)
		h.trace.Ref(p5.DefKey{Module: r.mod, Name: r.name, Hash: string(r.hash)})
	case nkModRef:
		w.Con(2, 2)
		w.ModuleName(r.mod)
		w.ModuleNames(r.imps)
	case nkDynRef:
		w.Con(3, 1)
		w.Rec(2)
		w.Text(r.arg)
		w.Word(r.idx, p5.SizeWord64)
	}
}

// encTerm renames t in env and writes it: a term of the desugaring pass
// (encDesugared), a body, or a node of the lowered shape. Every node of
// the lowered shape is one node of the transitive-dependency walk.
func (h *p5Hasher) encTerm(w *p5.Writer, t dsTerm, env *scope, loc syntax.Span) error {
	switch t := t.(type) {
	case resolve.Term:
		return h.encDesugared(w, t, env, loc)
	case dsBlock:
		return encSeq(h, w, t, env, loc)
	}
	h.trace.Node()
	switch t := t.(type) {
	case dsVar:
		return h.encVar(w, t.n, env, loc)
	case dsLam:
		return h.encLam(w, t.args, t.body, env, loc)
	case dsApp:
		return encApp(h, w, t.fn, t.args, env, loc)
	case dsNullary:
		return h.encNullary(w, t.body, env, loc)
	case dsForm:
		return encForm(h, w, t.tag, t.args, env, loc)
	case dsBuiltin:
		encBuiltin(w, t.name, loc)
	case dsLit:
		encLit(w, t.v, loc)
	case dsList:
		return encList(h, w, t.elems, env, loc)
	default:
		return compileErr(loc, "module hash: unexpected term")
	}
	return nil
}

// encDesugared writes a term of the desugaring pass as its lowering into
// P5's IR (one Let a binder, a body a Sequence, an argument-less lambda
// Nullary, a binding form a lambda of lets over `at`, a special form its
// BuiltinForm, a native its arity overload) would be written; the rarer
// shapes it lowers (lowered).
func (h *p5Hasher) encDesugared(w *p5.Writer, t resolve.Term, env *scope, loc syntax.Span) error {
	switch t := t.(type) {
	case *resolve.Var:
		h.trace.Node()
		return h.encVar(w, t.Name, env, loc)
	case *resolve.Lit:
		h.trace.Node()
		encLitTerm(w, t, loc)
		return nil
	case *resolve.Builtin:
		h.trace.Node()
		encBuiltin(w, t.Name.Name, loc)
		return nil
	case *resolve.List:
		h.trace.Node()
		return encList(h, w, t.Elems, env, loc)
	case *resolve.Object:
		h.trace.Node()
		w.Con(10, 2)
		err := w.HList(len(t.Keys), func(i int) error {
			w.Rec(2)
			w.Text(t.Keys[i])
			return h.encDesugared(w, t.Vals[i], env, loc)
		})
		if err != nil {
			return err
		}
		w.Info(loc)
		return nil
	case *resolve.Lam:
		h.trace.Node()
		if len(t.Args) == 0 {
			return h.encNullary(w, dsBlock(t.Body), env, loc)
		}
		return h.encLam(w, t.Args, dsBlock(t.Body), env, loc)
	case *resolve.Let:
		return h.encLets(w, t.Binders, t.Body, env, loc)
	case *resolve.Binding:
		h.trace.Node()
		return h.encLam(w, []dsArg{{Name: bindObject}}, t, env, loc)
	case *resolve.App:
		fn := dsTerm(t.Fn)
		if b, ok := t.Fn.(*resolve.Builtin); ok {
			name, wraps := appArity(b.Name.Name, t.Args)
			if wraps {
				break
			}
			if name != b.Name.Name {
				fn = dsBuiltin{name}
			}
		}
		h.trace.Node()
		return encApp(h, w, fn, t.Args, env, loc)
	case *resolve.Special:
		switch t.Form {
		case resolve.FormDo:
			return encSeq(h, w, t.Args, env, loc)
		case resolve.FormWithCapability:
			h.trace.Node()
			return encForm(h, w, formWithCapability, []dsTerm{t.Args[0], dsBlock(t.Args[1:])}, env, loc)
		case resolve.FormAnd, resolve.FormOr, resolve.FormEnforce:
			if len(t.Args) != 2 {
				return h.encTerm(w, h.lowered(t), env, loc)
			}
		}
		h.trace.Node()
		return encForm(h, w, p5FormTags[t.Form], t.Args, env, loc)
	}
	return h.encTerm(w, h.lowered(t), env, loc)
}

// bindObject is the parameter of a binding form's lambda.
const bindObject = "#bindObject"

// encLets writes a let's binders, each a Let over the rest, then its body.
func (h *p5Hasher) encLets(w *p5.Writer, bs []resolve.Binder, body []resolve.Term, env *scope, loc syntax.Span) error {
	if len(bs) == 0 {
		return encSeq(h, w, body, env, loc)
	}
	return h.encLet(w, bs[0].Arg, bs[0].Val, env, loc, func(env *scope) error {
		return h.encLets(w, bs[1:], body, env, loc)
	})
}

// encBindings writes a binding form's variables, each a Let of the
// object's field (at "key" obj) over the rest, then its body.
func (h *p5Hasher) encBindings(w *p5.Writer, t *resolve.Binding, i int, env *scope, loc syntax.Span) error {
	if i == len(t.Vars) {
		return encSeq(h, w, t.Body, env, loc)
	}
	access := dsApp{fn: dsBuiltin{"at"}, args: []dsTerm{dsLit{value.String(t.Keys[i])}, dsVar{bareName(bindObject)}}}
	return h.encLet(w, t.Vars[i], access, env, loc, func(env *scope) error {
		return h.encBindings(w, t, i+1, env, loc)
	})
}

// encLet writes a Let of arg to val over what body writes.
func (h *p5Hasher) encLet(w *p5.Writer, arg dsArg, val dsTerm, env *scope, loc syntax.Span, body func(*scope) error) error {
	h.trace.Node()
	w.Con(2, 4)
	if err := h.encArg(w, arg, env, loc); err != nil {
		return err
	}
	if err := h.encTerm(w, val, env, loc); err != nil {
		return err
	}
	if err := body(env.bind(arg.Name)); err != nil {
		return err
	}
	w.Info(loc)
	return nil
}

func (h *p5Hasher) encVar(w *p5.Writer, n syntax.Name, env *scope, loc syntax.Span) error {
	r, err := h.ref(n, env, loc)
	if err != nil {
		return err
	}
	if r.kind == nkTopLevel && r.defKind == DefSchemaKind {
		return compileErr(loc, "Invalid definition in term variable position: "+n.String())
	}
	w.Con(0, 2)
	h.encRef(w, &r)
	w.Info(loc)
	return nil
}

// encLam writes a Lam; body is written in env with args bound, a binding
// form's as encBindings writes them.
func (h *p5Hasher) encLam(w *p5.Writer, args []dsArg, body dsTerm, env *scope, loc syntax.Span) error {
	w.Con(1, 3)
	if err := h.encArgs(w, args, env, loc); err != nil {
		return err
	}
	env = env.bind(argNames(args)...)
	var err error
	if b, ok := body.(*resolve.Binding); ok {
		err = h.encBindings(w, b, 0, env, loc)
	} else {
		err = h.encTerm(w, body, env, loc)
	}
	if err != nil {
		return err
	}
	w.Info(loc)
	return nil
}

func (h *p5Hasher) encNullary(w *p5.Writer, body dsTerm, env *scope, loc syntax.Span) error {
	w.Con(5, 2)
	if err := h.encTerm(w, body, env, loc); err != nil {
		return err
	}
	w.Info(loc)
	return nil
}

func encBuiltin(w *p5.Writer, name string, loc syntax.Span) {
	w.Con(7, 2)
	w.Builtin(p5.BuiltinIndex(name))
	w.Info(loc)
}

func encLit(w *p5.Writer, v value.Value, loc syntax.Span) {
	w.Con(8, 2)
	w.Literal(v)
	w.Info(loc)
}

// encLitTerm writes a literal term as encLit writes its value, the value
// made where it is written so that it is not boxed (litValue's would be):
// the hasher writes every literal of every module it hashes.
func encLitTerm(w *p5.Writer, t *resolve.Lit, loc syntax.Span) {
	w.Con(8, 2)
	switch x := t.Src.(type) {
	case *syntax.IntLit, *syntax.Var:
		w.Literal(litInt(t))
	case *syntax.DecimalLit:
		w.Literal(value.NewDecimal(litInt(t), uint8(x.Places())))
	case *syntax.StringLit:
		w.Literal(value.String(x.Value))
	default:
		w.Literal(litValue(t))
	}
	w.Info(loc)
}

// The writers below take the terms of the pass or lowered nodes alike.

// encSeq writes ts as nested Sequences (one term alone).
func encSeq[T dsTerm](h *p5Hasher, w *p5.Writer, ts []T, env *scope, loc syntax.Span) error {
	for i, t := range ts {
		if i < len(ts)-1 {
			h.trace.Node()
			w.Con(4, 3)
		}
		if err := h.encTerm(w, t, env, loc); err != nil {
			return err
		}
	}
	for range len(ts) - 1 {
		w.Info(loc)
	}
	return nil
}

func encApp[T dsTerm](h *p5Hasher, w *p5.Writer, fn dsTerm, args []T, env *scope, loc syntax.Span) error {
	w.Con(3, 3)
	if err := h.encTerm(w, fn, env, loc); err != nil {
		return err
	}
	if err := encTerms(h, w, args, env, loc); err != nil {
		return err
	}
	w.Info(loc)
	return nil
}

func encForm[T dsTerm](h *p5Hasher, w *p5.Writer, tag uint64, args []T, env *scope, loc syntax.Span) error {
	w.Con(6, 2)
	w.Con(tag, len(args))
	for _, a := range args {
		if err := h.encTerm(w, a, env, loc); err != nil {
			return err
		}
	}
	w.Info(loc)
	return nil
}

func encList[T dsTerm](h *p5Hasher, w *p5.Writer, elems []T, env *scope, loc syntax.Span) error {
	w.Con(9, 2)
	if err := encTerms(h, w, elems, env, loc); err != nil {
		return err
	}
	w.Info(loc)
	return nil
}

func encTerms[T dsTerm](h *p5Hasher, w *p5.Writer, ts []T, env *scope, loc syntax.Span) error {
	return w.HList(len(ts), func(i int) error { return h.encTerm(w, ts[i], env, loc) })
}

// encSpec writes a definition's name and return type (an Arg).
func (h *p5Hasher) encSpec(w *p5.Writer, d *p5Def) error {
	return h.encArg(w, dsArg{Name: d.name, Type: d.ret}, nil, d.loc)
}

func argNames(as []dsArg) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

// ownSchema renames a defschema.
func (h *p5Hasher) ownSchema(d *p5Def) (*value.Schema, error) {
	s := &value.Schema{Name: value.QualifiedName{Module: h.mn, Name: d.name}}
	byName := map[string]int{}
	for _, f := range d.fields {
		t := &value.Type{Kind: value.TyAny}
		if f.Type != nil {
			var err error
			if t, err = h.renameType(f.Type, nil); err != nil {
				return nil, err
			}
		}
		if i, dup := byName[f.Name]; dup {
			s.Fields[i].Type = *t
			continue
		}
		byName[f.Name] = len(s.Fields)
		s.Fields = append(s.Fields, value.SchemaField{Name: f.Name, Type: *t})
	}
	sortFields(s.Fields)
	return s, nil
}

// encDef renames and writes one definition (Def, or IfDef in an
// interface) and records it as in scope for those that follow. The walk
// of its body for transitive dependencies is traced into h.trace.
func (h *p5Hasher) encDef(w *p5.Writer, d *p5Def) error {
	var schema *value.Schema
	loc := d.loc
	switch d.kind {
	case DefFun:
		w.Con(0, 1) // Dfun, IfDfun
		if d.sig {
			w.Rec(3)
			if err := h.encSpec(w, d); err != nil {
				return err
			}
			if err := h.encArgs(w, d.args, nil, loc); err != nil {
				return err
			}
			w.Info(loc)
			break
		}
		w.Rec(4)
		if err := h.encSpec(w, d); err != nil {
			return err
		}
		if err := h.encArgs(w, d.args, nil, loc); err != nil {
			return err
		}
		if err := h.encTerm(w, d.term, nil, loc); err != nil {
			return err
		}
		w.Info(loc)
	case DefConstant:
		w.Con(1, 1)
		w.Rec(3)
		if err := h.encSpec(w, d); err != nil {
			return err
		}
		if h.pass.constTerms {
			w.Con(0, 1) // TermConst
			saved := h.trace
			h.trace = nil // a constant's term is not walked for dependencies
			err := h.encTerm(w, d.term, nil, loc)
			h.trace = saved
			if err != nil {
				return err
			}
		} else {
			v, err := h.constValue(d)
			if err != nil {
				return err
			}
			w.Con(1, 1) // EvaledConst
			if err := w.PactValue(v); err != nil {
				return err
			}
		}
		w.Info(loc)
	case DefCapability:
		w.Con(2, 1)
		if d.sig {
			w.Rec(4)
		} else {
			w.Rec(5)
		}
		if err := h.encSpec(w, d); err != nil {
			return err
		}
		if err := h.encArgs(w, d.args, nil, loc); err != nil {
			return err
		}
		if !d.sig {
			managed := d.meta != nil && !d.meta.Event && d.meta.Manager != nil
			mark := h.trace.Mark()
			if err := h.encTerm(w, d.term, &scope{names: argNames(d.args)}, loc); err != nil {
				return err
			}
			if err := h.encCapMeta(w, d); err != nil {
				return err
			}
			if managed {
				// The walk checks a managed cap's manager before its body.
				h.trace.LastRefFirst(mark)
			}
		} else if err := h.encCapMeta(w, d); err != nil {
			return err
		}
		w.Info(loc)
	case DefSchemaKind:
		w.Con(3, 1)
		s, err := h.ownSchema(d)
		if err != nil {
			return err
		}
		schema = s
		w.Rec(3)
		w.Text(d.name)
		w.Fields(s.Fields)
		w.Info(loc)
	case DefTableKind:
		w.Con(4, 1)
		s, err := h.renameSchema(d.schema, nil, d.loc)
		if err != nil {
			return err
		}
		w.Rec(3)
		w.Text(d.name)
		w.Extra(p5.SizeADT) // TableSchema's ResolvedTable tag
		w.Schema(s)
		w.Info(loc)
	case DefPactKind:
		if h.iface {
			w.Con(4, 1) // IfDPact
		} else {
			w.Con(5, 1)
		}
		if d.sig {
			w.Rec(3)
		} else {
			w.Rec(4)
		}
		if err := h.encSpec(w, d); err != nil {
			return err
		}
		if err := h.encArgs(w, d.args, nil, loc); err != nil {
			return err
		}
		if !d.sig {
			env := &scope{names: argNames(d.args)}
			err := w.HList(len(d.steps), func(i int) error {
				s := d.steps[i]
				w.Con(uint64(len(s)-1), len(s))
				for _, t := range s {
					if err := h.encTerm(w, t, env, loc); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		w.Info(loc)
	}
	if !h.iface || d.kind == DefConstant || d.kind == DefSchemaKind {
		h.mod.Defs[d.name] = &Def{Kind: d.kind, Name: d.name, Schema: schema}
	}
	return nil
}

func (h *p5Hasher) encCapMeta(w *p5.Writer, d *p5Def) error {
	m := d.meta
	switch {
	case m == nil:
		w.Con(2, 0) // Unmanaged
		return nil
	case m.Event:
		w.Con(0, 0)
		return nil
	case m.Manager == nil:
		w.Con(1, 1)
		w.Con(1, 0) // AutoManagedMeta
		return nil
	}
	idx := -1
	for i, a := range d.args {
		if a.Name == m.Param {
			idx = i
			break
		}
	}
	w.Con(1, 1)
	w.Con(0, 2)
	w.Rec(2) // the (Int, Text) pair
	w.Int(int64(idx))
	w.Text(m.Param)
	if h.iface {
		w.Text(m.Manager.Name)
		return nil
	}
	r, err := h.ref(*m.Manager, nil, m.Loc)
	if err != nil {
		return err
	}
	if r.kind != nkTopLevel {
		return compileErr(m.Loc, "Expected free variable: "+m.Manager.String())
	}
	if !h.noPact51 && r.defKind != DefFun {
		return compileErr(m.Loc, "Invalid managed capability manager function "+m.Manager.String())
	}
	w.Extra(p5.SizeADT) // FQNameRef's FQName tag
	w.FQN(r.mod, r.name, r.hash)
	h.trace.Ref(p5.DefKey{Module: r.mod, Name: r.name, Hash: string(r.hash)})
	return nil
}

// ---------------------------------------------------------------------------
// Constants: P5 hashes a defconst's evaluated value.

// constValue is the value of a defconst: computed directly for a literal,
// otherwise by compiling the module's members on a scratch module (as the
// module load will) and evaluating its constants.
func (h *p5Hasher) constValue(d *p5Def) (value.Value, error) {
	if v, ok := termValue(d.constTerm); ok {
		return v, nil
	}
	if !h.constsDone {
		h.constsDone = true
		h.consts, h.constsErr = h.evalConsts(false)
	}
	if h.constsErr != nil {
		return nil, h.constsErr
	}
	v, ok := h.consts[d.name]
	if !ok || v == nil {
		return nil, compileErr(d.loc, "module hash: no value for constant "+d.name)
	}
	return v, nil
}

// evalConsts evaluates the module's constants by compiling its members on
// a scratch module. The module load evaluates them again, so this leaves no
// trace (call stack, step count), and charges nothing unless charged: then
// it is P5's constant evaluation, which installing a module pays for (the
// names it resolves were read, and charged, by the renamer's pass).
func (h *p5Hasher) evalConsts(charged bool) (map[string]value.Value, error) {
	m := &Module{Name: h.mn, Interface: h.iface, Defs: map[string]*Def{}, Blessed: map[string]bool{},
		Hash: value.EncodeBase64URL(h.self)}
	c := &compiler{renamer: renamer{in: h.in, mod: m, allowRepl: true}}
	stack, meter, steps := h.in.stack, h.in.Gas, h.in.steps
	if !charged {
		h.in.Gas.Unlimit()
		h.in.Gas.SetBudget(0)
	}
	defer func() {
		h.in.stack, h.in.steps = stack, steps
		if !charged {
			h.in.Gas = meter
		}
	}()
	if err := c.declare(h.body); err != nil {
		return nil, err
	}
	// Constants may name the module itself.
	loading := h.in.loading
	if !h.iface {
		h.in.loading = m
	}
	err := c.compileBodies(h.body)
	h.in.loading = loading
	if err != nil {
		return nil, err
	}
	out := map[string]value.Value{}
	for name, d := range m.Defs {
		if d.Kind == DefConstant {
			out[name] = d.Value
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Modules and interfaces

// parseModuleHashText is parseModuleHash: 32 bytes of unpadded base64url.
func parseModuleHashText(s string, loc syntax.Span) ([]byte, error) {
	b, err := value.DecodeBase64URL(s)
	if err != nil || len(b) != 32 {
		return nil, compileErr(loc, "Invalid blessed hash: "+s)
	}
	return b, nil
}

// encImports resolves the module's uses (handleImport) into h.uses and
// writes their Import list into w (a separate writer: imports are renamed
// before the definitions but written after them).
func (h *p5Hasher) encImports(w *p5.Writer, uses []*syntax.Use) error {
	type imp struct {
		u    *syntax.Use
		hash []byte
	}
	var imps []imp
	for _, u := range uses {
		var hb []byte
		if u.HasHash {
			var err error
			if hb, err = parseModuleHashText(u.Hash, u.Loc); err != nil {
				return err
			}
		}
		imps = append(imps, imp{u, hb})
	}
	for _, im := range imps {
		u := im.u
		m, err := h.resolveModuleData(value.ModuleName{Namespace: u.Module.Namespace, Name: u.Module.Name}, u.Loc)
		if err != nil {
			return err
		}
		mh := hashBytes(m)
		if im.hash != nil && !bytes.Equal(im.hash, mh) {
			return compileErr(u.Loc, "Module "+m.Name.String()+" hash mismatch: expected "+u.Hash+", found "+m.Hash)
		}
		if u.HasImports {
			for _, n := range u.Imports {
				if d, ok := m.Defs[n]; !ok || !memberVisible(m, d) {
					return compileErr(u.Loc, "Module member does not exist "+m.Name.String()+"."+n)
				}
			}
		}
		imp := useImport{mod: m}
		if u.HasImports {
			imp.imports = u.Imports
			if imp.imports == nil {
				imp.imports = []string{}
			}
		}
		h.uses = append(h.uses, imp)
	}
	return w.HList(len(imps), func(i int) error {
		u := imps[i].u
		w.Rec(3)
		w.ModuleName(value.ModuleName{Namespace: u.Module.Namespace, Name: u.Module.Name})
		w.Maybe(imps[i].hash != nil, func() { w.Hash(imps[i].hash) })
		w.Maybe(u.HasImports, func() {
			_ = w.HList(len(u.Imports), func(j int) error { w.Text(u.Imports[j]); return nil })
		})
		return nil
	})
}

func (h *p5Hasher) desugarDefs(body []syntax.Decl) ([]*p5Def, []*syntax.Use, error) {
	var defs []*p5Def
	var uses []*syntax.Use
	for _, d := range body {
		if u, ok := d.(*syntax.Use); ok {
			uses = append(uses, u)
			continue
		}
		pd, err := h.desugarDef(d)
		if err != nil {
			return nil, nil, err
		}
		if pd != nil {
			defs = append(defs, pd)
		}
	}
	return defs, uses, nil
}

// encDefs writes the definitions in dependency order, each measured on its
// own (what a dependent module's stored dependencies repeat of it).
func (h *p5Hasher) encDefs(w *p5.Writer, defs []*p5Def) error {
	return w.HList(len(defs), func(i int) error {
		d := defs[i]
		size, n := w.Size, len(w.Buf)
		if h.img != nil {
			h.trace = &p5.DefTrace{}
		}
		err := h.encDef(w, d)
		if h.img != nil {
			// Of an interface only the constants and schemas are
			// definitions others can load (P5's ifDefToDef).
			if !h.iface || d.kind == DefConstant || d.kind == DefSchemaKind {
				walked := !d.sig && (d.kind == DefFun || d.kind == DefCapability || d.kind == DefPactKind)
				h.img.AddDef(d.name, walked, h.trace, w.Size-size, len(w.Buf)-n)
			}
			h.trace = nil
		}
		return err
	})
}

// prepareDefs desugars a module's or interface's definitions and puts them
// in P5's dependency order, once for all passes.
func (h *p5Hasher) prepareDefs(body []syntax.Decl) error {
	h.body = body
	defs, uses, err := h.desugarDefs(body)
	if err != nil {
		return err
	}
	if h.defs, err = h.sccOrder(defs); err != nil {
		return err
	}
	h.useDecls = uses
	return nil
}

// module writes the Module record of x as the current pass wants it.
func (h *p5Hasher) module(w *p5.Writer, x *syntax.Module) error {
	if h.defs == nil {
		if err := h.prepareDefs(x.Body); err != nil {
			return err
		}
		for _, d := range x.Body {
			switch d := d.(type) {
			case *syntax.Bless:
				b, err := parseModuleHashText(d.Hash, d.Loc)
				if err != nil {
					return err
				}
				h.blessed = append(h.blessed, b)
			case *syntax.Implements:
				h.implDecls = append(h.implDecls, d)
			}
		}
		slices.SortFunc(h.blessed, bytes.Compare)
		h.blessed = slices.CompactFunc(h.blessed, bytes.Equal)
	}
	h.mod.Defs, h.uses, h.implements = map[string]*Def{}, h.uses[:0], nil
	// The renamer resolves the imports, then the interfaces implemented,
	// then the definitions.
	var importsW p5.Writer
	importsW.CBOR, importsW.Infos, importsW.BuiltinSize = w.CBOR, w.Infos, w.BuiltinSize
	if err := h.encImports(&importsW, h.useDecls); err != nil {
		return err
	}
	for _, i := range h.implDecls {
		mn, err := h.interfaceName(value.ModuleName{Namespace: i.Interface.Namespace, Name: i.Interface.Name}, i.Loc)
		if err != nil {
			return err
		}
		h.implements = append(h.implements, mn)
	}

	w.Rec(9) // ten fields; the code is not serialised
	w.ModuleName(h.mn)
	// governance
	if x.Gov.Cap {
		var gov *p5Def
		for _, d := range h.defs {
			if d.name == x.Gov.Name {
				gov = d
				break
			}
		}
		if gov == nil || gov.kind != DefCapability || len(gov.args) != 0 {
			return compileErr(x.Gov.Loc, "Invalid governance: "+x.Gov.Name)
		}
		w.Con(1, 1)
		w.Extra(p5.SizeADT) // FQNameRef's FQName tag
		w.FQN(h.mn, gov.name, h.self)
	} else {
		ns, name, ok := parseKeysetName(x.Gov.Name)
		if !ok {
			return compileErr(x.Gov.Loc, "Invalid keyset name format: "+x.Gov.Name)
		}
		w.Con(0, 1)
		w.Rec(2)
		w.Text(name)
		w.Maybe(ns != "", func() { w.Text(ns) })
	}
	if err := h.encDefs(w, h.defs); err != nil {
		return err
	}
	w.Array(len(h.blessed))
	for _, b := range h.blessed {
		w.Hash(b)
	}
	w.Raw(importsW.Buf...)
	w.Size += importsW.Size
	w.ModuleNames(h.implements)
	w.Hash(h.pass.hash)
	w.Hash(h.pass.txHash)
	w.Info(x.Loc)
	return nil
}

func (h *p5Hasher) iface_(w *p5.Writer, x *syntax.Interface) error {
	if h.defs == nil {
		if err := h.prepareDefs(x.Body); err != nil {
			return err
		}
	}
	h.mod.Defs, h.uses = map[string]*Def{}, h.uses[:0]
	var importsW p5.Writer
	importsW.CBOR, importsW.Infos, importsW.BuiltinSize = w.CBOR, w.Infos, w.BuiltinSize
	if err := h.encImports(&importsW, h.useDecls); err != nil {
		return err
	}
	w.Rec(6) // seven fields; the code is not serialised
	w.ModuleName(h.mn)
	if err := h.encDefs(w, h.defs); err != nil {
		return err
	}
	w.Raw(importsW.Buf...)
	w.Size += importsW.Size
	w.Hash(h.pass.hash)
	w.Hash(h.pass.txHash)
	w.Info(x.Loc)
	return nil
}

// parseKeysetName is parseAnyKeysetName: `ns.name` when the text starts
// with two identifiers joined by a dot (trailing text is ignored, as
// attoparsec's parseOnly does), otherwise the whole non-empty text as a
// root keyset name.
func parseKeysetName(s string) (ns, name string, ok bool) {
	a, rest := leadingIdent(s)
	if a != "" && strings.HasPrefix(rest, ".") {
		if b, _ := leadingIdent(strings.TrimLeft(rest[1:], " \t\r\n")); b != "" {
			return a, b, true
		}
	}
	if s == "" {
		return "", "", false
	}
	return "", s, true
}

// leadingIdent splits off a leading identifier (a letter or special, then
// letters, digits and specials) and the whitespace after it. true and false
// are reserved.
func leadingIdent(s string) (ident, rest string) {
	end := 0
	for i, r := range s {
		if !(unicode.IsLetter(r) || strings.ContainsRune(value.IdentSpecials, r) || (i > 0 && r >= '0' && r <= '9')) {
			break
		}
		end = i + len(string(r))
	}
	ident = s[:end]
	if ident == "true" || ident == "false" {
		return "", s
	}
	return ident, strings.TrimLeft(s[end:], " \t\r\n")
}
