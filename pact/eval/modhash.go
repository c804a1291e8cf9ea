package eval

import (
	"bytes"
	"math/big"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/crypto/blake2b"

	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Pact 5 module hashes.
//
// P5 (Pact.Core.IR.ModuleHashing) hashes a module or interface as the
// BLAKE2b-256 of the CBOR serialisation (Pact.Core.Serialise.CBOR_V1) of
// its desugared, name-resolved IR with every info field set to (), after
// its defconsts have been evaluated, with the module's own hash and tx hash
// fields emptied. This file rebuilds that IR from the syntax tree, the way
// Pact.Core.IR.Desugar does, and writes the CBOR directly:
//
//   - desugaring: special forms become BuiltinForm nodes, let and binding
//     forms nested Lets, lambdas without arguments Nullary, natives Builtin
//     nodes (arity overloads resolved), cond nested ifs under the cond
//     native, map's partial-application first argument eta-expanded;
//   - renaming: locals are de Bruijn indices, module members NTopLevel with
//     the module hash (the module's own members with the "#placeholder"
//     hash, an interface's with "placeholder"), module references NModRef
//     and modref::member NDynRef;
//   - the definitions come in the order Data.Graph.stronglyConnComp puts
//     them (dependencies first), which is what the hash is taken over.

// placeholder hashes P5's desugarer gives a module and an interface
// before hashing them.
var (
	p5ModulePlaceholder = []byte("#placeholder")
	p5IfacePlaceholder  = []byte("placeholder")
)

// moduleHashP5 is P5's hash of the module or interface x, whose full name
// (namespace applied) is mn, as it would be installed now: names resolve
// against the modules in the database, the current namespace and the
// top-level `use`s. The result is unpadded base64url.
func moduleHashP5(in *Interp, x syntax.Node, mn ModuleName) (string, error) {
	h := &p5Hasher{
		in:       in,
		mn:       mn,
		own:      map[string]*p5Bind{},
		imports:  map[string]*p5Bind{},
		noPact53: in.Flags["DisablePact53"],
		noPact51: in.Flags["DisablePact51"],
	}
	var w cborW
	var err error
	switch x := x.(type) {
	case *syntax.Module:
		h.self = p5ModulePlaceholder
		err = h.module(&w, x)
	case *syntax.Interface:
		h.iface = true
		h.self = p5IfacePlaceholder
		err = h.iface_(&w, x)
	default:
		return "", EvalError("module hash: not a module or interface")
	}
	if err != nil {
		return "", err
	}
	sum := blake2b.Sum256(w.b)
	return EncodeBase64URL(sum[:]), nil
}

// moduleHashOr is the hash defineModule and defineInterface store: P5's
// hash of x, or fallback when x cannot be hashed (it does not resolve, for
// instance), in which case compiling the module reports the error.
func moduleHashOr(in *Interp, x syntax.Node, mn ModuleName, fallback string) string {
	h, err := moduleHashP5(in, x, mn)
	if err != nil {
		return fallback
	}
	return h
}

// ---------------------------------------------------------------------------
// CBOR, as cborg writes it: shortest heads, Haskell lists as indefinite
// arrays (empty ones as a definite empty array), sets, vectors and maps
// definite.

type cborW struct{ b []byte }

func (w *cborW) head(major byte, n uint64) {
	m := major << 5
	switch {
	case n < 24:
		w.b = append(w.b, m|byte(n))
	case n <= 0xff:
		w.b = append(w.b, m|24, byte(n))
	case n <= 0xffff:
		w.b = append(w.b, m|25, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		w.b = append(w.b, m|26, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	default:
		w.b = append(w.b, m|27, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32),
			byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

func (w *cborW) word(n uint64)  { w.head(0, n) }
func (w *cborW) list(n int)     { w.head(4, uint64(n)) }
func (w *cborW) mapLen(n int)   { w.head(5, uint64(n)) }
func (w *cborW) text(s string)  { w.head(3, uint64(len(s))); w.b = append(w.b, s...) }
func (w *cborW) bytes(b []byte) { w.head(2, uint64(len(b))); w.b = append(w.b, b...) }
func (w *cborW) null()          { w.b = append(w.b, 0xf6) }

func (w *cborW) bool(b bool) {
	if b {
		w.b = append(w.b, 0xf5)
	} else {
		w.b = append(w.b, 0xf4)
	}
}

func (w *cborW) int64(n int64) {
	if n >= 0 {
		w.head(0, uint64(n))
	} else {
		w.head(1, uint64(-1-n))
	}
}

// integer is cborg's encodeInteger: a plain head within 64 bits, a bignum
// (tag 2 or 3) beyond.
func (w *cborW) integer(i *big.Int) {
	if i.Sign() >= 0 {
		if i.IsUint64() {
			w.head(0, i.Uint64())
			return
		}
		w.b = append(w.b, 0xc2)
		w.bytes(i.Bytes())
		return
	}
	m := new(big.Int).Neg(i)
	m.Sub(m, big.NewInt(1))
	if m.IsUint64() {
		w.head(1, m.Uint64())
		return
	}
	w.b = append(w.b, 0xc3)
	w.bytes(m.Bytes())
}

// hlist writes a Haskell list (serialise's defaultEncodeList).
func (w *cborW) hlist(n int, item func(i int) error) error {
	if n == 0 {
		w.list(0)
		return nil
	}
	w.b = append(w.b, 0x9f)
	for i := 0; i < n; i++ {
		if err := item(i); err != nil {
			return err
		}
	}
	w.b = append(w.b, 0xff)
	return nil
}

// maybe writes a Haskell Maybe: [] or [x].
func (w *cborW) maybe(present bool, item func()) {
	if !present {
		w.list(0)
		return
	}
	w.list(1)
	item()
}

func (w *cborW) moduleName(m ModuleName) {
	w.list(2)
	w.text(m.Name)
	w.maybe(m.Namespace != "", func() { w.text(m.Namespace) })
}

func (w *cborW) moduleNames(ms []ModuleName) {
	_ = w.hlist(len(ms), func(i int) error { w.moduleName(ms[i]); return nil })
}

func (w *cborW) qualName(q QualifiedName) {
	w.list(2)
	w.text(q.Name)
	w.moduleName(q.Module)
}

func (w *cborW) fqn(m ModuleName, name string, hash []byte) {
	w.list(3)
	w.moduleName(m)
	w.text(name)
	w.bytes(hash)
}

// ---------------------------------------------------------------------------
// Natives: P5's CoreBuiltin and ReplOnlyBuiltin constructors in declaration
// order (their Enum index is what the serialiser writes, the REPL ones
// offset by the number of core ones), named as coreBuiltinToText and
// replBuiltinsToText name them.

var p5CoreBuiltins = []string{
	"+", "-", "*", "/", "negate", "abs", "^", "not", "=", "!=",
	">", ">=", "<", "<=", "&", "|", "xor", "~", "shift", "round",
	"ceiling", "floor", "round-prec", "ceiling-prec", "floor-prec", "exp", "ln", "sqrt", "log", "length",
	"take", "drop", "concat", "reverse", "contains", "sort", "sort-object", "remove", "mod", "map",
	"filter", "zip", "int-to-str", "str-to-int", "str-to-int-base", "fold", "distinct", "format", "enumerate", "enumerate-step",
	"show", "read-msg", "read-msg-default", "read-integer", "read-decimal", "read-string", "read-keyset", "enforce-guard", "enforce-keyset", "keyset-ref-guard",
	"at", "make-list", "base64-encode", "base64-decode", "str-to-list", "yield", "yield-to-chain", "resume", "bind", "require-capability",
	"compose-capability", "install-capability", "emit-event", "create-capability-guard", "create-capability-pact-guard", "create-module-guard", "create-pact-guard", "create-table", "describe-keyset", "describe-module",
	"describe-table", "define-keyset", "define-read-keyset", "fold-db", "insert", "keys", "read", "select", "select-with-fields", "update",
	"with-default-read", "with-read", "write", "tx-hash", "and?", "or?", "where", "not?", "hash", "continue",
	"parse-time", "format-time", "time", "add-time", "diff-time", "hours", "minutes", "days", "compose", "create-principal",
	"is-principal", "typeof-principal", "validate-principal", "namespace", "define-namespace", "describe-namespace", "chain-data", "is-charset", "pact-id", "pairing-check",
	"scalar-mult", "point-add", "poseidon-hash-hack-a-chain", "typeof", "dec", "cond", "identity", "verify-spv", "enforce-verifier", "acquire-module-admin",
	"hyperlane-message-id", "hyperlane-decode-token-message", "hyperlane-encode-token-message", "read-with-fields", "list-modules", "static-redeploy", "hash-keccak256", "hash-poseidon",
}

var p5ReplBuiltins = []string{
	"expect", "expect-failure", "expect-failure-match", "expect-that", "print", "env-stackframe", "env-chain-data", "env-data", "env-events", "env-hash",
	"env-keys", "env-sigs", "begin-tx", "begin-named-tx", "commit-tx", "rollback-tx", "sig-keyset", "test-capability", "env-exec-config", "env-namespace-policy",
	"env-gas", "env-set-gas", "env-milligas", "env-set-milligas", "env-gaslimit", "env-gaslog", "env-gasmodel", "env-ask-gasmodel", "continue-pact", "continue-pact-with-rollback",
	"continue-pact-rollback-yield", "continue-pact-rollback-yield-object", "pact-state", "reset-pact-state", "pact-version", "enforce-pact-version", "enforce-pact-version-range", "env-enable-repl-natives", "env-module-admin", "env-verifiers",
	"env-set-debug-flag", "load", "load-with-env", "typecheck",
}

// p5Overloads are the internal overloads, which source names cannot reach.
var p5Overloads = map[string]bool{
	"enumerate-step": true, "select-with-fields": true, "sort-object": true, "round-prec": true,
	"ceiling-prec": true, "floor-prec": true, "str-to-int-base": true, "read-msg-default": true,
	"define-read-keyset": true, "yield-to-chain": true, "read-with-fields": true,
	"env-ask-gasmodel": true, "env-set-gas": true, "load-with-env": true, "reset-pact-state": true,
	"expect-failure-match": true, "continue-pact-with-rollback": true, "continue-pact-rollback-yield": true,
	"continue-pact-rollback-yield-object": true, "begin-named-tx": true, "enforce-pact-version-range": true,
}

var p5BuiltinIndex = func() map[string]int {
	m := map[string]int{}
	for i, n := range p5CoreBuiltins {
		m[n] = i
	}
	for i, n := range p5ReplBuiltins {
		m[n] = len(p5CoreBuiltins) + i
	}
	return m
}()

// isBuiltin reports whether a bare name is a native for the desugarer:
// every core native, and the REPL natives when this interpreter has them.
func (h *p5Hasher) isBuiltin(name string) bool {
	i, ok := p5BuiltinIndex[name]
	if !ok || p5Overloads[name] {
		return false
	}
	if i >= len(p5CoreBuiltins) {
		return h.in.natives[name] != nil
	}
	return true
}

// ---------------------------------------------------------------------------
// The desugared term (Term ParsedName DesugarType b i).

type dsTerm interface{}

type (
	dsVar struct{ n syntax.Name }
	dsLam struct {
		args []dsArg
		body dsTerm
	}
	dsLet struct {
		arg       dsArg
		val, body dsTerm
	}
	dsApp struct {
		fn   dsTerm
		args []dsTerm
	}
	dsSeq     struct{ a, b dsTerm }
	dsNullary struct{ body dsTerm }
	// dsForm is a BuiltinForm; tag is its serialisation tag.
	dsForm struct {
		tag  uint64
		args []dsTerm
	}
	dsBuiltin struct{ name string }
	dsLit     struct{ v Value }
	dsList    struct{ elems []dsTerm }
	dsObject  struct {
		keys []string
		vals []dsTerm
	}
)

type dsArg struct {
	name string
	ty   syntax.Type
}

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

func seqTerms(ts []dsTerm) dsTerm {
	out := ts[len(ts)-1]
	for i := len(ts) - 2; i >= 0; i-- {
		out = dsSeq{ts[i], out}
	}
	return out
}

func (h *p5Hasher) dsBlock(xs []syntax.Expr, loc syntax.Span) (dsTerm, error) {
	if len(xs) == 0 {
		return nil, compileErr(loc, "Invalid syntax: empty body")
	}
	ts, err := h.dsExprs(xs)
	if err != nil {
		return nil, err
	}
	return seqTerms(ts), nil
}

func (h *p5Hasher) dsExprs(xs []syntax.Expr) ([]dsTerm, error) {
	out := make([]dsTerm, len(xs))
	for i, x := range xs {
		t, err := h.ds(x)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// ds is desugarLispTerm.
func (h *p5Hasher) ds(x syntax.Expr) (dsTerm, error) {
	switch x := x.(type) {
	case *syntax.IntLit:
		v, ok := x.Value()
		if !ok {
			return nil, compileErr(x.Loc, "invalid integer literal")
		}
		return dsLit{NewIntBig(v)}, nil
	case *syntax.DecimalLit:
		d, ok := decimalLitValue(x)
		if !ok {
			return nil, compileErr(x.Loc, "invalid decimal literal")
		}
		return dsLit{d}, nil
	case *syntax.StringLit:
		return dsLit{String(x.Value)}, nil
	case *syntax.BoolLit:
		return dsLit{Bool(x.Value)}, nil
	case *syntax.UnitLit:
		return dsLit{UnitValue}, nil
	case *syntax.List:
		es, err := h.dsExprs(x.Elems)
		if err != nil {
			return nil, err
		}
		return dsList{es}, nil
	case *syntax.Object:
		o := dsObject{}
		for _, f := range x.Fields {
			v, err := h.ds(f.Value)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, f.Key.Name)
			o.vals = append(o.vals, v)
		}
		return o, nil
	case *syntax.Var:
		return h.dsName(x.Name), nil
	case *syntax.Let:
		body, err := h.dsBlock(x.Body, x.Loc)
		if err != nil {
			return nil, err
		}
		for i := len(x.Binders) - 1; i >= 0; i-- {
			b := x.Binders[i]
			v, err := h.ds(b.Value)
			if err != nil {
				return nil, err
			}
			body = dsLet{arg: dsArg{b.Var.Name, b.Var.Type}, val: v, body: body}
		}
		return body, nil
	case *syntax.Lambda:
		body, err := h.dsBlock(x.Body, x.Loc)
		if err != nil {
			return nil, err
		}
		if len(x.Args) == 0 {
			return dsNullary{body}, nil
		}
		return dsLam{args: syntaxArgs(x.Args), body: body}, nil
	case *syntax.Binding:
		if len(x.Body) == 0 {
			return nil, compileErr(x.Loc, "Invalid syntax: empty binding body")
		}
		body, err := h.dsBlock(x.Body, x.Loc)
		if err != nil {
			return nil, err
		}
		obj := dsVar{bareName("#bindObject")}
		for i := len(x.Binds) - 1; i >= 0; i-- {
			b := x.Binds[i]
			access := dsApp{fn: dsBuiltin{"at"}, args: []dsTerm{dsLit{String(b.Key.Name)}, obj}}
			body = dsLet{arg: dsArg{b.Var.Name, b.Var.Type}, val: access, body: body}
		}
		return dsLam{args: []dsArg{{name: "#bindObject"}}, body: body}, nil
	case *syntax.App:
		if v, ok := x.Fn.(*syntax.Var); ok && v.Name.Kind == syntax.BareName {
			return h.dsSpecial(v.Name.Name, x)
		}
		fn, err := h.ds(x.Fn)
		if err != nil {
			return nil, err
		}
		args, err := h.dsExprs(x.Args)
		if err != nil {
			return nil, err
		}
		return h.dsApply(fn, args), nil
	}
	return nil, compileErr(x.Span(), "unsupported expression")
}

func syntaxArgs(as []syntax.Arg) []dsArg {
	out := make([]dsArg, len(as))
	for i, a := range as {
		out[i] = dsArg{a.Name, a.Type}
	}
	return out
}

func decimalLitValue(x *syntax.DecimalLit) (Decimal, bool) {
	neg := strings.HasPrefix(x.Int, "-")
	m, ok := new(big.Int).SetString(strings.TrimPrefix(x.Int, "-")+x.Frac, 10)
	if !ok || len(x.Frac) > 255 {
		return Decimal{}, false
	}
	if neg {
		m.Neg(m)
	}
	return NewDecimal(NewIntBig(m), uint8(len(x.Frac))), true
}

// dsName is desugarLispTerm on a variable: natives first (they shadow
// everything, locals included), then the two charset constants and
// constantly.
func (h *p5Hasher) dsName(n syntax.Name) dsTerm {
	if n.Kind != syntax.BareName {
		return dsVar{n}
	}
	if h.isBuiltin(n.Name) {
		return dsBuiltin{n.Name}
	}
	switch n.Name {
	case "constantly":
		return dsLam{
			args: []dsArg{{name: "#constantlyA1"}, {name: "#constantlyA2"}},
			body: dsVar{bareName("#constantlyA1")},
		}
	case "CHARSET_ASCII":
		return dsLit{NewInt(0)}
	case "CHARSET_LATIN1":
		return dsLit{NewInt(1)}
	}
	return dsVar{n}
}

// dsApply applies fn, resolving a native's arity overloads.
func (h *p5Hasher) dsApply(fn dsTerm, args []dsTerm) dsTerm {
	if b, ok := fn.(dsBuiltin); ok {
		return h.arity(b.name, args)
	}
	return dsApp{fn: fn, args: args}
}

// arity is desugarAppArity.
func (h *p5Hasher) arity(b string, args []dsTerm) dsTerm {
	app := func(name string, as ...dsTerm) dsTerm { return dsApp{fn: dsBuiltin{name}, args: as} }
	isNullary := func(t dsTerm) bool { _, ok := t.(dsNullary); return ok }
	n := len(args)
	switch {
	case b == "-" && n == 1:
		return app("negate", args...)
	case b == "enumerate" && n == 3:
		return app("enumerate-step", args...)
	case b == "select" && n == 3:
		return app("select-with-fields", args...)
	case b == "sort" && n == 2:
		return app("sort-object", args...)
	case (b == "round" || b == "ceiling" || b == "floor") && n == 2:
		return app(b+"-prec", args...)
	case b == "str-to-int" && n == 2:
		return app("str-to-int-base", args...)
	case b == "read-msg" && n == 0:
		return app("read-msg-default")
	case b == "define-keyset" && n == 1:
		return app("define-read-keyset", args...)
	case b == "poseidon-hash-hack-a-chain" || b == "hash-poseidon":
		return app(b, dsList{args})
	case b == "yield" && n == 2:
		return app("yield-to-chain", args...)
	case b == "read" && n == 3:
		return app("read-with-fields", args...)
	// REPL natives
	case b == "load" && n == 2:
		return app("load-with-env", args...)
	case b == "expect" && n == 3 && !isNullary(args[2]):
		return app("expect", args[0], dsNullary{args[1]}, dsNullary{args[2]})
	case b == "expect-failure" && n == 2 && !isNullary(args[1]):
		return app("expect-failure", args[0], dsNullary{args[1]})
	case b == "expect-failure" && n == 3 && !isNullary(args[1]):
		return app("expect-failure-match", args[0], args[1], dsNullary{args[2]})
	case b == "pact-state" && n == 1:
		return app("reset-pact-state", args...)
	case b == "continue-pact" && n == 2:
		return app("continue-pact-with-rollback", args...)
	case b == "continue-pact" && n == 3:
		return app("continue-pact-rollback-yield", args...)
	case b == "continue-pact" && n == 4:
		return app("continue-pact-rollback-yield-object", args...)
	case b == "env-gas" && n == 1:
		return app("env-set-gas", args...)
	case b == "env-gasmodel" && n == 0:
		return app("env-ask-gasmodel")
	case b == "begin-tx" && n == 1:
		return app("begin-named-tx", args...)
	case b == "enforce-pact-version" && n == 2:
		return app("enforce-pact-version-range", args...)
	}
	return app(b, args...)
}

// condLam2 is conditionalLam2Arg: and, or and enforce used at another
// arity become a two-argument lambda over the form.
func condLam2(tag uint64) dsTerm {
	boolTy := &syntax.PrimType{Prim: syntax.PrimBool}
	return dsLam{
		args: []dsArg{{"#condArg1", boolTy}, {"#condArg2", boolTy}},
		body: dsForm{tag, []dsTerm{dsVar{bareName("#condArg1")}, dsVar{bareName("#condArg2")}}},
	}
}

// dsSpecial is desugarSpecial: an application whose head is a bare name.
func (h *p5Hasher) dsSpecial(name string, x *syntax.App) (dsTerm, error) {
	args := x.Args
	form := func(tag uint64, want int) (dsTerm, error) {
		if len(args) != want {
			return nil, compileErr(x.Loc, "Invalid syntax: "+name+" expects "+itoa(want)+" arguments")
		}
		ts, err := h.dsExprs(args)
		if err != nil {
			return nil, err
		}
		return dsForm{tag, ts}, nil
	}
	orLam := func(tag uint64) (dsTerm, error) {
		if len(args) == 2 {
			return form(tag, 2)
		}
		ts, err := h.dsExprs(args)
		if err != nil {
			return nil, err
		}
		return dsApp{fn: condLam2(tag), args: ts}, nil
	}
	switch name {
	case "and":
		return orLam(formAnd)
	case "or":
		return orLam(formOr)
	case "enforce":
		return orLam(formEnforce)
	case "if":
		return form(formIf, 3)
	case "enforce-one":
		return form(formEnforceOne, 2)
	case "try":
		return form(formTry, 2)
	case "error":
		if !h.noPact53 {
			return form(formError, 1)
		}
	case "pure":
		if !h.noPact53 {
			return form(formPure, 1)
		}
	case "do":
		if len(args) == 0 {
			return nil, compileErr(x.Loc, "Invalid syntax: do form must have at least 1 expression")
		}
		return h.dsBlock(args, x.Loc)
	case "with-capability":
		if len(args) < 2 {
			return nil, compileErr(x.Loc, "Invalid syntax: with-capability must take at least 2 expressions")
		}
		c, err := h.ds(args[0])
		if err != nil {
			return nil, err
		}
		body, err := h.dsBlock(args[1:], x.Loc)
		if err != nil {
			return nil, err
		}
		return dsForm{formWithCapability, []dsTerm{c, body}}, nil
	case "suspend":
		if len(args) != 1 {
			return nil, compileErr(x.Loc, "Invalid syntax: suspend must take only 1 argument")
		}
		t, err := h.ds(args[0])
		if err != nil {
			return nil, err
		}
		return dsNullary{t}, nil
	case "create-user-guard":
		if len(args) == 1 {
			if _, ok := args[0].(*syntax.App); ok {
				return form(formCreateUserGard, 1)
			}
		}
		return nil, compileErr(x.Loc, "Invalid syntax: create-user-guard must take one argument, which must be an application")
	case "map":
		// desugar1ArgHOF: (map (f a) xs) becomes (map (lambda (x) (f a x)) xs)
		if len(args) > 0 {
			if a0, ok := args[0].(*syntax.App); ok {
				v := &syntax.Var{Loc: x.Loc, Name: bareName(":ijHO1")}
				lam := &syntax.Lambda{
					Loc:  a0.Loc,
					Args: []syntax.Arg{{Loc: a0.Loc, Name: ":ijHO1"}},
					Body: []syntax.Expr{&syntax.App{Loc: a0.Loc, Fn: a0.Fn, Args: append(slices.Clip(a0.Args), v)}},
				}
				args = append([]syntax.Expr{lam}, args[1:]...)
			}
		}
	case "cond":
		if len(args) == 0 {
			return nil, compileErr(x.Loc, "Invalid syntax: cond: expected list of conditions with a default case")
		}
		body, err := h.ds(args[len(args)-1])
		if err != nil {
			return nil, err
		}
		for i := len(args) - 2; i >= 0; i-- {
			clause, ok := args[i].(*syntax.App)
			if !ok || len(clause.Args) != 1 {
				return nil, compileErr(x.Loc, "Invalid syntax: cond: expected application of conditions")
			}
			c, err := h.ds(clause.Fn)
			if err != nil {
				return nil, err
			}
			b, err := h.ds(clause.Args[0])
			if err != nil {
				return nil, err
			}
			body = dsForm{formIf, []dsTerm{c, b, body}}
		}
		return dsApp{fn: dsBuiltin{"cond"}, args: []dsTerm{dsNullary{body}}}, nil
	}
	fn := h.dsName(bareName(name))
	ts, err := h.dsExprs(args)
	if err != nil {
		return nil, err
	}
	return h.dsApply(fn, ts), nil
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
	// defconst
	constExpr syntax.Expr
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
		pd := &p5Def{kind: DefFun, name: x.Name, loc: x.Loc, args: syntaxArgs(x.Args), ret: x.Ret}
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
		pd := &p5Def{kind: DefCapability, name: x.Name, loc: x.Loc, args: syntaxArgs(x.Args), ret: x.Ret, meta: x.Meta}
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
		pd := &p5Def{kind: DefPactKind, name: x.Name, loc: x.Loc, args: syntaxArgs(x.Args), ret: x.Ret}
		if h.iface {
			pd.sig = true
			return pd, nil
		}
		for i, s := range x.Steps {
			if s.Entity != nil {
				return nil, compileErr(s.Loc, "entity expressions are not allowed in defpact steps")
			}
			e, err := h.ds(s.Expr)
			if err != nil {
				return nil, err
			}
			st := []dsTerm{e}
			if s.Rollback != nil {
				if i == len(x.Steps)-1 {
					return nil, compileErr(s.Loc, "rollbacks aren't allowed on the last step")
				}
				rb, err := h.ds(s.Rollback)
				if err != nil {
					return nil, err
				}
				st = append(st, rb)
			}
			pd.steps = append(pd.steps, st)
		}
		return pd, nil
	case *syntax.DefConst:
		t, err := h.ds(x.Value)
		if err != nil {
			return nil, err
		}
		return &p5Def{kind: DefConstant, name: x.Name, loc: x.Loc, ret: x.Type, term: t, constExpr: x.Value}, nil
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
		if cd[n.Name] && (ModuleName{Namespace: n.Namespace, Name: n.Module}) == h.mn {
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
		h.typeDeps(a.ty, cd, out)
	}
}

func (h *p5Hasher) termDeps(t dsTerm, cd nameSet, out nameSet) {
	switch t := t.(type) {
	case dsVar:
		h.nameDeps(t.n, cd, out)
	case dsLam:
		h.argDeps(t.args, cd, out)
		names := make([]string, len(t.args))
		for i, a := range t.args {
			names[i] = a.name
		}
		h.termDeps(t.body, cd.without(names...), out)
	case dsLet:
		h.typeDeps(t.arg.ty, cd, out)
		h.termDeps(t.val, cd, out)
		h.termDeps(t.body, cd.without(t.arg.name), out)
	case dsApp:
		h.termDeps(t.fn, cd, out)
		for _, a := range t.args {
			h.termDeps(a, cd, out)
		}
	case dsSeq:
		h.termDeps(t.a, cd, out)
		h.termDeps(t.b, cd, out)
	case dsNullary:
		h.termDeps(t.body, cd, out)
	case dsForm:
		for _, a := range t.args {
			h.termDeps(a, cd, out)
		}
	case dsList:
		for _, e := range t.elems {
			h.termDeps(e, cd, out)
		}
	case dsObject:
		for _, v := range t.vals {
			h.termDeps(v, cd, out)
		}
	}
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
	in    *Interp
	mn    ModuleName
	iface bool
	self  []byte
	// own are the module's definitions renamed so far; imports are the
	// members brought in by the module's `use`s.
	own, imports map[string]*p5Bind
	implements   []ModuleName
	consts       map[string]Value
	constsErr    error
	constsDone   bool
	body         []syntax.Decl
	noPact53     bool
	noPact51     bool
}

// p5Bind is a module member in scope: NTopLevel mod hash, with its kind.
type p5Bind struct {
	mod    ModuleName
	hash   []byte
	kind   DefKind
	schema *Schema
}

// p5Ref is a resolved name.
type p5Ref struct {
	name string
	kind byte // 0 NBound, 1 NTopLevel, 2 NModRef, 3 NDynRef
	idx  uint64
	bind *p5Bind
	mod  ModuleName
	imps []ModuleName
	arg  string
}

const (
	nkBound = iota
	nkTopLevel
	nkModRef
	nkDynRef
)

type p5Local struct {
	name  string
	depth uint64
	up    *p5Local
}

// p5Env is the renamer's local scope: names bound to de Bruijn levels.
type p5Env struct {
	locals *p5Local
	depth  uint64
}

func (e p5Env) bind(names ...string) p5Env {
	for _, n := range names {
		e.locals = &p5Local{name: n, depth: e.depth, up: e.locals}
		e.depth++
	}
	return e
}

func (e p5Env) lookup(name string) (uint64, bool) {
	for l := e.locals; l != nil; l = l.up {
		if l.name == name {
			return e.depth - l.depth - 1, true
		}
	}
	return 0, false
}

func hashBytes(m *Module) []byte {
	b, err := DecodeBase64URL(m.Hash)
	if err != nil {
		return []byte(m.Hash)
	}
	return b
}

func bindOf(m *Module, d *Def) *p5Bind {
	return &p5Bind{mod: m.Name, hash: hashBytes(m), kind: d.Kind, schema: d.Schema}
}

// memberVisible: an interface exposes only its constants and schemas
// (ifDefToDef).
func memberVisible(m *Module, d *Def) bool {
	return !m.Interface || d.Kind == DefConstant || d.Kind == DefSchemaKind
}

// topLevel looks a bare name up in the REPL's top-level scope: the modules
// used or loaded at top level (the latest first), then REPL definitions.
func (h *p5Hasher) topLevel(name string) *p5Bind {
	uses := h.in.topUses
	for i := len(uses) - 1; i >= 0; i-- {
		u := uses[i]
		if u.imports != nil && !slices.Contains(u.imports, name) {
			continue
		}
		if d, ok := u.mod.Defs[name]; ok && memberVisible(u.mod, d) {
			return bindOf(u.mod, d)
		}
	}
	if d, ok := h.in.replDefs[name]; ok {
		return &p5Bind{mod: ModuleName{Name: "#repl"}, hash: []byte("#repl"), kind: d.Kind, schema: d.Schema}
	}
	return nil
}

// resolveModuleData looks a module up as written, then (for a bare name)
// in the current namespace.
func (h *p5Hasher) resolveModuleData(mn ModuleName, loc syntax.Span) (*Module, error) {
	if m := h.in.lookupModule(mn); m != nil {
		return m, nil
	}
	if mn.Namespace == "" && h.in.namespace != "" {
		if m := h.in.lookupModule(ModuleName{Namespace: h.in.namespace, Name: mn.Name}); m != nil {
			return m, nil
		}
	}
	return nil, compileErr(loc, "Cannot find module: "+mn.String())
}

// resolveInterfaceName resolves the name of an interface (implements,
// module{...} types).
func (h *p5Hasher) resolveInterfaceName(mn ModuleName, loc syntax.Span) (ModuleName, error) {
	if h.iface {
		if mn == h.mn {
			return mn, nil
		}
		if m := h.in.lookupModule(mn); m != nil {
			if !m.Interface {
				return ModuleName{}, compileErr(loc, "Invalid module reference: "+mn.String())
			}
			return mn, nil
		}
		if mn.Namespace != "" || h.in.namespace == "" {
			return ModuleName{}, compileErr(loc, "Cannot find module: "+mn.String())
		}
		ns := ModuleName{Namespace: h.in.namespace, Name: mn.Name}
		if ns == h.mn {
			return h.mn, nil
		}
	}
	m, err := h.resolveModuleData(mn, loc)
	if err != nil {
		return ModuleName{}, err
	}
	if !m.Interface {
		return ModuleName{}, compileErr(loc, "Invalid module reference: "+mn.String())
	}
	return m.Name, nil
}

// resolveModuleName resolves a bare name used as a module reference.
func (h *p5Hasher) resolveModuleName(name string, loc syntax.Span) (ModuleName, []ModuleName, error) {
	mn := ModuleName{Name: name}
	if !h.iface {
		if mn == h.mn {
			return h.mn, h.implements, nil
		}
		m := h.in.lookupModule(mn)
		if m == nil {
			if h.in.namespace == "" {
				return ModuleName{}, nil, compileErr(loc, "Cannot resolve "+name)
			}
			ns := ModuleName{Namespace: h.in.namespace, Name: name}
			if ns == h.mn {
				return h.mn, h.implements, nil
			}
			if m = h.in.lookupModule(ns); m == nil {
				return ModuleName{}, nil, compileErr(loc, "Cannot resolve "+name)
			}
		}
		if m.Interface {
			return ModuleName{}, nil, compileErr(loc, "Invalid module reference: "+name)
		}
		return m.Name, implementsInOrder(m), nil
	}
	m, err := h.resolveModuleData(mn, loc)
	if err != nil {
		return ModuleName{}, nil, compileErr(loc, "Cannot resolve "+name)
	}
	if m.Interface {
		return ModuleName{}, nil, compileErr(loc, "Invalid module reference: "+name)
	}
	return m.Name, implementsInOrder(m), nil
}

// implementsInOrder is a module's interface list in source order, as P5
// keeps it (Module.Implements is sorted).
func implementsInOrder(m *Module) []ModuleName {
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
	var out []ModuleName
	used := make([]bool, len(m.Implements))
	for _, d := range x.Body {
		imp, ok := d.(*syntax.Implements)
		if !ok {
			continue
		}
		want := ModuleName{Namespace: imp.Interface.Namespace, Name: imp.Interface.Name}
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

// resolveBare is the renamer's resolveBare.
func (h *p5Hasher) resolveBare(name string, env p5Env, loc syntax.Span) (*p5Ref, error) {
	if i, ok := env.lookup(name); ok {
		return &p5Ref{name: name, kind: nkBound, idx: i}, nil
	}
	if b := h.own[name]; b != nil {
		return &p5Ref{name: name, kind: nkTopLevel, bind: b}, nil
	}
	if b := h.imports[name]; b != nil {
		return &p5Ref{name: name, kind: nkTopLevel, bind: b}, nil
	}
	if b := h.topLevel(name); b != nil {
		return &p5Ref{name: name, kind: nkTopLevel, bind: b}, nil
	}
	mn, imps, err := h.resolveModuleName(name, loc)
	if err != nil {
		return nil, err
	}
	return &p5Ref{name: name, kind: nkModRef, mod: mn, imps: imps}, nil
}

// resolveQualified is the renamer's resolveQualified for qn in module qmn.
func (h *p5Hasher) resolveQualified(qn string, qmn ModuleName, loc syntax.Span) (*p5Ref, error) {
	if r := h.baseLookup(qn, qmn); r != nil {
		return r, nil
	}
	if qmn.Namespace != "" {
		return nil, compileErr(loc, "Module member does not exist "+qmn.String()+"."+qn)
	}
	if m := h.in.lookupModule(ModuleName{Namespace: qmn.Name, Name: qn}); m != nil && !m.Interface {
		return &p5Ref{name: qn, kind: nkModRef, mod: m.Name, imps: implementsInOrder(m)}, nil
	}
	if h.in.namespace != "" {
		if r := h.baseLookup(qn, ModuleName{Namespace: h.in.namespace, Name: qmn.Name}); r != nil {
			return r, nil
		}
	}
	return nil, compileErr(loc, "Module member does not exist "+qmn.String()+"."+qn)
}

func (h *p5Hasher) baseLookup(qn string, qmn ModuleName) *p5Ref {
	// lookupLocalQual (modules only: an interface's renamer has no
	// module-local table)
	if !h.iface && qmn == h.mn {
		if b := h.own[qn]; b != nil {
			return &p5Ref{name: qn, kind: nkTopLevel, bind: b}
		}
	}
	m := h.in.lookupModule(qmn)
	if m == nil {
		return nil
	}
	d, ok := m.Defs[qn]
	if !ok || !memberVisible(m, d) {
		return nil
	}
	b := bindOf(m, d)
	b.mod = qmn
	return &p5Ref{name: qn, kind: nkTopLevel, bind: b}
}

func (h *p5Hasher) resolveName(n syntax.Name, env p5Env, loc syntax.Span) (*p5Ref, error) {
	switch n.Kind {
	case syntax.QualifiedName:
		return h.resolveQualified(n.Name, ModuleName{Namespace: n.Namespace, Name: n.Module}, loc)
	case syntax.DynamicName:
		i, ok := env.lookup(n.Module)
		if !ok {
			if h.own[n.Module] != nil || h.imports[n.Module] != nil || h.topLevel(n.Module) != nil {
				return nil, compileErr(loc, "Invalid dynamic invoke "+n.String())
			}
			return nil, compileErr(loc, "Unbound variable "+n.Module)
		}
		return &p5Ref{name: n.Module, kind: nkDynRef, idx: i, arg: n.Name}, nil
	}
	return h.resolveBare(n.Name, env, loc)
}

// resolveType is renameType.
func (h *p5Hasher) resolveType(t syntax.Type, env p5Env) (*Type, error) {
	switch t := t.(type) {
	case *syntax.PrimType:
		switch t.Prim {
		case syntax.PrimList:
			return &Type{Kind: TyAnyList}, nil
		case syntax.PrimObject:
			return &Type{Kind: TyAnyObject}, nil
		case syntax.PrimKeyset:
			return &Type{Kind: TyPrim, Prim: "guard"}, nil
		}
		return &Type{Kind: TyPrim, Prim: string(t.Prim)}, nil
	case *syntax.ListType:
		e, err := h.resolveType(t.Elem, env)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: TyList, Elem: e}, nil
	case *syntax.ModRefType:
		var ms []ModuleName
		for _, i := range t.Interfaces {
			mn, err := h.resolveInterfaceName(ModuleName{Namespace: i.Namespace, Name: i.Name}, t.Loc)
			if err != nil {
				return nil, err
			}
			ms = append(ms, mn)
		}
		slices.SortFunc(ms, compareModuleNames)
		ms = slices.Compact(ms)
		return &Type{Kind: TyModRef, ModRefs: ms}, nil
	case *syntax.SchemaType:
		r, err := h.resolveName(t.Schema, env, t.Loc)
		if err != nil {
			return nil, err
		}
		if r.bind == nil || r.bind.kind != DefSchemaKind || r.bind.schema == nil {
			return nil, compileErr(t.Loc, "Invalid schema "+t.Schema.String())
		}
		if t.Table {
			return &Type{Kind: TyTable, Schema: r.bind.schema}, nil
		}
		return &Type{Kind: TyObject, Schema: r.bind.schema}, nil
	}
	return nil, compileErr(syntax.Span{}, "unsupported type")
}

// ---------------------------------------------------------------------------
// Encoding the renamed IR

var p5PrimIndex = map[string]uint64{
	"integer": 0, "decimal": 1, "bool": 2, "string": 3, "guard": 4, "keyset": 4, "time": 5, "unit": 6,
}

func (h *p5Hasher) encType(w *cborW, t *Type) {
	switch t.Kind {
	case TyPrim:
		w.list(2)
		w.word(0)
		w.word(p5PrimIndex[t.Prim])
	case TyList:
		w.list(2)
		w.word(1)
		h.encType(w, t.Elem)
	case TyAnyList:
		w.list(1)
		w.word(2)
	case TyModRef:
		w.list(2)
		w.word(3)
		w.list(len(t.ModRefs))
		for _, m := range t.ModRefs {
			w.moduleName(m)
		}
	case TyObject:
		w.list(2)
		w.word(4)
		h.encSchema(w, t.Schema)
	case TyAnyObject:
		w.list(1)
		w.word(5)
	case TyTable:
		w.list(2)
		w.word(6)
		h.encSchema(w, t.Schema)
	case TyCapToken:
		w.list(1)
		w.word(7)
	default:
		w.list(1)
		w.word(8)
	}
}

func (h *p5Hasher) encSchema(w *cborW, s *Schema) {
	w.list(2)
	w.qualName(s.Name)
	h.encFields(w, s.Fields)
}

func (h *p5Hasher) encFields(w *cborW, fs []SchemaField) {
	w.mapLen(len(fs))
	for i := range fs {
		w.text(fs[i].Name)
		h.encType(w, &fs[i].Type)
	}
}

func (h *p5Hasher) encArg(w *cborW, a dsArg, env p5Env) error {
	w.list(3)
	w.text(a.name)
	if a.ty == nil {
		w.list(0)
	} else {
		t, err := h.resolveType(a.ty, env)
		if err != nil {
			return err
		}
		w.list(1)
		h.encType(w, t)
	}
	w.null()
	return nil
}

func (h *p5Hasher) encArgs(w *cborW, as []dsArg, env p5Env) error {
	return w.hlist(len(as), func(i int) error { return h.encArg(w, as[i], env) })
}

func (h *p5Hasher) encRef(w *cborW, r *p5Ref) {
	w.list(2)
	w.text(r.name)
	switch r.kind {
	case nkBound:
		w.list(2)
		w.word(0)
		w.word(r.idx)
	case nkTopLevel:
		w.list(3)
		w.word(1)
		w.moduleName(r.bind.mod)
		w.bytes(r.bind.hash)
	case nkModRef:
		w.list(3)
		w.word(2)
		w.moduleName(r.mod)
		w.moduleNames(r.imps)
	case nkDynRef:
		w.list(2)
		w.word(3)
		w.list(2)
		w.text(r.arg)
		w.word(r.idx)
	}
}

func encLiteral(w *cborW, v Value) {
	switch v := v.(type) {
	case String:
		w.list(2)
		w.word(0)
		w.text(string(v))
	case Integer:
		w.list(2)
		w.word(1)
		w.integer(v.Big())
	case Decimal:
		w.list(2)
		w.word(2)
		w.list(2)
		w.word(uint64(v.Places()))
		w.integer(v.Mantissa().Big())
	case Unit:
		w.list(1)
		w.word(3)
	case Bool:
		w.list(2)
		w.word(4)
		w.bool(bool(v))
	}
}

// encTerm renames t in env and writes it.
func (h *p5Hasher) encTerm(w *cborW, t dsTerm, env p5Env, loc syntax.Span) error {
	switch t := t.(type) {
	case dsVar:
		r, err := h.resolveName(t.n, env, loc)
		if err != nil {
			return err
		}
		if r.bind != nil && r.bind.kind == DefSchemaKind {
			return compileErr(loc, "Invalid definition in term variable position: "+t.n.String())
		}
		w.list(3)
		w.word(0)
		h.encRef(w, r)
		w.null()
	case dsLam:
		w.list(4)
		w.word(1)
		if err := h.encArgs(w, t.args, env); err != nil {
			return err
		}
		names := make([]string, len(t.args))
		for i, a := range t.args {
			names[i] = a.name
		}
		if err := h.encTerm(w, t.body, env.bind(names...), loc); err != nil {
			return err
		}
		w.null()
	case dsLet:
		w.list(5)
		w.word(2)
		if err := h.encArg(w, t.arg, env); err != nil {
			return err
		}
		if err := h.encTerm(w, t.val, env, loc); err != nil {
			return err
		}
		if err := h.encTerm(w, t.body, env.bind(t.arg.name), loc); err != nil {
			return err
		}
		w.null()
	case dsApp:
		w.list(4)
		w.word(3)
		if err := h.encTerm(w, t.fn, env, loc); err != nil {
			return err
		}
		if err := h.encTerms(w, t.args, env, loc); err != nil {
			return err
		}
		w.null()
	case dsSeq:
		w.list(4)
		w.word(4)
		if err := h.encTerm(w, t.a, env, loc); err != nil {
			return err
		}
		if err := h.encTerm(w, t.b, env, loc); err != nil {
			return err
		}
		w.null()
	case dsNullary:
		w.list(3)
		w.word(5)
		if err := h.encTerm(w, t.body, env, loc); err != nil {
			return err
		}
		w.null()
	case dsForm:
		w.list(3)
		w.word(6)
		w.list(1 + len(t.args))
		w.word(t.tag)
		for _, a := range t.args {
			if err := h.encTerm(w, a, env, loc); err != nil {
				return err
			}
		}
		w.null()
	case dsBuiltin:
		w.list(3)
		w.word(7)
		w.word(uint64(p5BuiltinIndex[t.name]))
		w.null()
	case dsLit:
		w.list(3)
		w.word(8)
		encLiteral(w, t.v)
		w.null()
	case dsList:
		w.list(3)
		w.word(9)
		if err := h.encTerms(w, t.elems, env, loc); err != nil {
			return err
		}
		w.null()
	case dsObject:
		w.list(3)
		w.word(10)
		err := w.hlist(len(t.keys), func(i int) error {
			w.list(2)
			w.text(t.keys[i])
			return h.encTerm(w, t.vals[i], env, loc)
		})
		if err != nil {
			return err
		}
		w.null()
	default:
		return compileErr(loc, "module hash: unexpected term")
	}
	return nil
}

func (h *p5Hasher) encTerms(w *cborW, ts []dsTerm, env p5Env, loc syntax.Span) error {
	return w.hlist(len(ts), func(i int) error { return h.encTerm(w, ts[i], env, loc) })
}

// encSpec writes a definition's name and return type (an Arg).
func (h *p5Hasher) encSpec(w *cborW, d *p5Def) error {
	return h.encArg(w, dsArg{d.name, d.ret}, p5Env{})
}

func argNames(as []dsArg) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.name
	}
	return out
}

// ownSchema renames a defschema.
func (h *p5Hasher) ownSchema(d *p5Def) (*Schema, error) {
	s := &Schema{Name: QualifiedName{Module: h.mn, Name: d.name}}
	byName := map[string]int{}
	for _, f := range d.fields {
		t := &Type{Kind: TyAny}
		if f.Type != nil {
			var err error
			if t, err = h.resolveType(f.Type, p5Env{}); err != nil {
				return nil, err
			}
		}
		if i, dup := byName[f.Name]; dup {
			s.Fields[i].Type = *t
			continue
		}
		byName[f.Name] = len(s.Fields)
		s.Fields = append(s.Fields, SchemaField{Name: f.Name, Type: *t})
	}
	slices.SortFunc(s.Fields, func(a, b SchemaField) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// encDef renames and writes one definition (Def, or IfDef in an
// interface) and records it as in scope for those that follow.
func (h *p5Hasher) encDef(w *cborW, d *p5Def) error {
	var schema *Schema
	w.list(2)
	switch d.kind {
	case DefFun:
		if d.sig {
			w.word(0) // IfDfun
			w.list(3)
			if err := h.encSpec(w, d); err != nil {
				return err
			}
			if err := h.encArgs(w, d.args, p5Env{}); err != nil {
				return err
			}
			w.null()
			break
		}
		w.word(0)
		w.list(4)
		if err := h.encSpec(w, d); err != nil {
			return err
		}
		if err := h.encArgs(w, d.args, p5Env{}); err != nil {
			return err
		}
		if err := h.encTerm(w, d.term, p5Env{}, d.loc); err != nil {
			return err
		}
		w.null()
	case DefConstant:
		w.word(1)
		w.list(3)
		if err := h.encSpec(w, d); err != nil {
			return err
		}
		v, err := h.constValue(d)
		if err != nil {
			return err
		}
		w.list(2)
		w.word(1) // EvaledConst
		if err := h.encPactValue(w, v); err != nil {
			return err
		}
		w.null()
	case DefCapability:
		w.word(2)
		if d.sig {
			w.list(4)
		} else {
			w.list(5)
		}
		if err := h.encSpec(w, d); err != nil {
			return err
		}
		if err := h.encArgs(w, d.args, p5Env{}); err != nil {
			return err
		}
		if !d.sig {
			if err := h.encTerm(w, d.term, p5Env{}.bind(argNames(d.args)...), d.loc); err != nil {
				return err
			}
		}
		if err := h.encCapMeta(w, d); err != nil {
			return err
		}
		w.null()
	case DefSchemaKind:
		w.word(3)
		s, err := h.ownSchema(d)
		if err != nil {
			return err
		}
		schema = s
		w.list(3)
		w.text(d.name)
		h.encFields(w, s.Fields)
		w.null()
	case DefTableKind:
		w.word(4)
		r, err := h.resolveName(d.schema, p5Env{}, d.loc)
		if err != nil {
			return err
		}
		if r.bind == nil || r.bind.kind != DefSchemaKind || r.bind.schema == nil {
			return compileErr(d.loc, "Invalid schema "+d.schema.String())
		}
		w.list(3)
		w.text(d.name)
		h.encSchema(w, r.bind.schema)
		w.null()
	case DefPactKind:
		if h.iface {
			w.word(4) // IfDPact
		} else {
			w.word(5)
		}
		if d.sig {
			w.list(3)
		} else {
			w.list(4)
		}
		if err := h.encSpec(w, d); err != nil {
			return err
		}
		if err := h.encArgs(w, d.args, p5Env{}); err != nil {
			return err
		}
		if !d.sig {
			env := p5Env{}.bind(argNames(d.args)...)
			err := w.hlist(len(d.steps), func(i int) error {
				s := d.steps[i]
				w.list(1 + len(s))
				w.word(uint64(len(s) - 1))
				for _, t := range s {
					if err := h.encTerm(w, t, env, d.loc); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		w.null()
	}
	if !h.iface || d.kind == DefConstant || d.kind == DefSchemaKind {
		h.own[d.name] = &p5Bind{mod: h.mn, hash: h.self, kind: d.kind, schema: schema}
	}
	return nil
}

func (h *p5Hasher) encCapMeta(w *cborW, d *p5Def) error {
	m := d.meta
	switch {
	case m == nil:
		w.list(1)
		w.word(2) // Unmanaged
		return nil
	case m.Event:
		w.list(1)
		w.word(0)
		return nil
	case m.Manager == nil:
		w.list(2)
		w.word(1)
		w.list(1)
		w.word(1) // AutoManagedMeta
		return nil
	}
	idx := -1
	for i, a := range d.args {
		if a.name == m.Param {
			idx = i
			break
		}
	}
	w.list(2)
	w.word(1)
	w.list(3)
	w.word(0)
	w.list(2)
	w.int64(int64(idx))
	w.text(m.Param)
	if h.iface {
		w.text(m.Manager.Name)
		return nil
	}
	r, err := h.resolveName(*m.Manager, p5Env{}, m.Loc)
	if err != nil {
		return err
	}
	if r.kind != nkTopLevel {
		return compileErr(m.Loc, "Expected free variable: "+m.Manager.String())
	}
	if !h.noPact51 && r.bind.kind != DefFun {
		return compileErr(m.Loc, "Invalid managed capability manager function "+m.Manager.String())
	}
	w.fqn(r.bind.mod, r.name, r.bind.hash)
	return nil
}

// ---------------------------------------------------------------------------
// Constants: P5 hashes a defconst's evaluated value.

// constValue is the value of a defconst: computed directly for a literal,
// otherwise by compiling the module's members on a scratch module (as the
// module load will) and evaluating its constants.
func (h *p5Hasher) constValue(d *p5Def) (Value, error) {
	if v, ok := literalValue(d.constExpr); ok {
		return v, nil
	}
	if !h.constsDone {
		h.constsDone = true
		h.consts, h.constsErr = h.evalConsts()
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

func literalValue(x syntax.Expr) (Value, bool) {
	switch x := x.(type) {
	case *syntax.IntLit:
		v, ok := x.Value()
		if !ok {
			return nil, false
		}
		return NewIntBig(v), true
	case *syntax.DecimalLit:
		return decimalLitValue(x)
	case *syntax.StringLit:
		return String(x.Value), true
	case *syntax.BoolLit:
		return Bool(x.Value), true
	case *syntax.UnitLit:
		return UnitValue, true
	case *syntax.List:
		l := make(List, len(x.Elems))
		for i, e := range x.Elems {
			v, ok := literalValue(e)
			if !ok {
				return nil, false
			}
			l[i] = v
		}
		return l, true
	case *syntax.Object:
		fs := make([]Field, len(x.Fields))
		for i, f := range x.Fields {
			v, ok := literalValue(f.Value)
			if !ok {
				return nil, false
			}
			fs[i] = Field{Key: f.Key.Name, Val: v}
		}
		return NewObject(fs...), true
	}
	return nil, false
}

func (h *p5Hasher) evalConsts() (map[string]Value, error) {
	m := &Module{Name: h.mn, Interface: h.iface, Defs: map[string]*Def{}, Blessed: map[string]bool{},
		Hash: EncodeBase64URL(h.self)}
	c := &compiler{in: h.in, mod: m, allowRepl: true}
	// The module load evaluates the constants again: this pass must leave
	// no trace (call stack, gas, step count).
	stack, meter, steps := h.in.stack, h.in.Gas, h.in.steps
	h.in.Gas.Unlimit()
	defer func() { h.in.stack, h.in.Gas, h.in.steps = stack, meter, steps }()
	if err := c.declare(h.body); err != nil {
		return nil, err
	}
	if err := c.compileBodies(h.body); err != nil {
		return nil, err
	}
	out := map[string]Value{}
	for name, d := range m.Defs {
		if d.Kind == DefConstant {
			out[name] = d.Value
		}
	}
	return out, nil
}

// encPactValue writes a PactValue.
func (h *p5Hasher) encPactValue(w *cborW, v Value) error {
	w.list(2)
	switch v := v.(type) {
	case String, Integer, Decimal, Unit, Bool:
		w.word(0)
		encLiteral(w, v)
	case List:
		w.word(1)
		w.list(len(v))
		for _, e := range v {
			if err := h.encPactValue(w, e); err != nil {
				return err
			}
		}
	case Guard:
		w.word(2)
		return h.encGuard(w, v)
	case *Object:
		w.word(3)
		w.mapLen(v.Len())
		for i := 0; i < v.Len(); i++ {
			w.text(v.Key(i))
			if err := h.encPactValue(w, v.Val(i)); err != nil {
				return err
			}
		}
	case *ModRef:
		w.word(4)
		w.list(2)
		w.moduleName(v.Module)
		w.list(len(v.Implemented))
		for _, m := range v.Implemented {
			w.moduleName(m)
		}
	case *CapToken:
		w.word(5)
		w.list(2)
		hb, _ := DecodeBase64URL(v.Name.Hash)
		w.fqn(v.Name.Module, v.Name.Name, hb)
		return h.encValues(w, v.Args)
	case Time:
		w.word(6)
		w.int64(v.mjdMicros())
	case *Table:
		w.word(7)
		w.list(3)
		w.list(2)
		w.text(v.Name)
		w.moduleName(v.Module)
		hb, _ := DecodeBase64URL(v.Hash)
		w.bytes(hb)
		s := v.Schema
		h.encSchema(w, &s)
	default:
		return EvalError("module hash: a constant's value cannot be serialised: " + v.String())
	}
	return nil
}

func (h *p5Hasher) encValues(w *cborW, vs []Value) error {
	return w.hlist(len(vs), func(i int) error { return h.encPactValue(w, vs[i]) })
}

func (h *p5Hasher) encGuard(w *cborW, g Guard) error {
	w.list(2)
	switch g := g.(type) {
	case *KeySet:
		w.word(0)
		w.list(2)
		keys := slices.Clone(g.Keys)
		slices.Sort(keys)
		keys = slices.Compact(keys)
		w.list(len(keys))
		for _, k := range keys {
			w.text(k)
		}
		switch g.Pred {
		case KeysAll, "":
			w.list(1)
			w.word(0)
		case Keys2:
			w.list(1)
			w.word(1)
		case KeysAny:
			w.list(1)
			w.word(2)
		default:
			w.list(2)
			w.word(3)
			w.list(2)
			if q, ok := ParseQualifiedName(g.Pred); ok {
				w.word(0)
				w.qualName(q)
			} else {
				w.word(1)
				w.text(g.Pred)
			}
		}
	case *KeySetRef:
		w.word(1)
		w.list(2)
		w.text(g.Name)
		w.maybe(g.Namespace != "", func() { w.text(g.Namespace) })
	case *UserGuard:
		w.word(2)
		w.list(2)
		w.qualName(g.Fun)
		return h.encValues(w, g.Args)
	case *CapabilityGuard:
		w.word(3)
		w.list(3)
		w.qualName(g.Name)
		if err := h.encValues(w, g.Args); err != nil {
			return err
		}
		w.maybe(g.HasPactID, func() { w.text(g.PactID) })
	case *ModuleGuard:
		w.word(4)
		w.list(2)
		w.moduleName(g.Module)
		w.text(g.Name)
	case *PactGuard:
		w.word(5)
		w.list(2)
		w.text(g.PactID)
		w.text(g.Name)
	default:
		return EvalError("module hash: unknown guard")
	}
	return nil
}

// ---------------------------------------------------------------------------
// Modules and interfaces

// parseModuleHashText is parseModuleHash: 32 bytes of unpadded base64url.
func parseModuleHashText(s string, loc syntax.Span) ([]byte, error) {
	b, err := DecodeBase64URL(s)
	if err != nil || len(b) != 32 {
		return nil, compileErr(loc, "Invalid blessed hash: "+s)
	}
	return b, nil
}

// imports resolves the module's uses (handleImport) into h.imports and
// writes their Import list.
func (h *p5Hasher) encImports(w *cborW, uses []*syntax.Use) error {
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
		m, err := h.resolveModuleData(ModuleName{Namespace: u.Module.Namespace, Name: u.Module.Name}, u.Loc)
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
		for name, d := range m.Defs {
			if !memberVisible(m, d) || (u.HasImports && !slices.Contains(u.Imports, name)) {
				continue
			}
			h.imports[name] = bindOf(m, d)
		}
	}
	return w.hlist(len(imps), func(i int) error {
		u := imps[i].u
		w.list(3)
		w.moduleName(ModuleName{Namespace: u.Module.Namespace, Name: u.Module.Name})
		w.maybe(imps[i].hash != nil, func() { w.bytes(imps[i].hash) })
		w.maybe(u.HasImports, func() {
			_ = w.hlist(len(u.Imports), func(j int) error { w.text(u.Imports[j]); return nil })
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

func (h *p5Hasher) encDefs(w *cborW, defs []*p5Def) error {
	order, err := h.sccOrder(defs)
	if err != nil {
		return err
	}
	// Encode each definition separately: a definition's CBOR does not
	// depend on those after it.
	return w.hlist(len(order), func(i int) error { return h.encDef(w, order[i]) })
}

func (h *p5Hasher) module(w *cborW, x *syntax.Module) error {
	h.body = x.Body
	defs, uses, err := h.desugarDefs(x.Body)
	if err != nil {
		return err
	}
	var blessed [][]byte
	var implements []*syntax.Implements
	for _, d := range x.Body {
		switch d := d.(type) {
		case *syntax.Bless:
			b, err := parseModuleHashText(d.Hash, d.Loc)
			if err != nil {
				return err
			}
			blessed = append(blessed, b)
		case *syntax.Implements:
			implements = append(implements, d)
		}
	}
	slices.SortFunc(blessed, bytes.Compare)
	blessed = slices.CompactFunc(blessed, bytes.Equal)
	for _, i := range implements {
		mn, err := h.resolveInterfaceName(ModuleName{Namespace: i.Interface.Namespace, Name: i.Interface.Name}, i.Loc)
		if err != nil {
			return err
		}
		h.implements = append(h.implements, mn)
	}

	w.list(9)
	w.moduleName(h.mn)
	// governance
	if x.Gov.Cap {
		var gov *p5Def
		for _, d := range defs {
			if d.name == x.Gov.Name {
				gov = d
				break
			}
		}
		if gov == nil || gov.kind != DefCapability || len(gov.args) != 0 {
			return compileErr(x.Gov.Loc, "Invalid governance: "+x.Gov.Name)
		}
		w.list(2)
		w.word(1)
		w.fqn(h.mn, gov.name, h.self)
	} else {
		ns, name, ok := parseKeysetName(x.Gov.Name)
		if !ok {
			return compileErr(x.Gov.Loc, "Invalid keyset name format: "+x.Gov.Name)
		}
		w.list(2)
		w.word(0)
		w.list(2)
		w.text(name)
		w.maybe(ns != "", func() { w.text(ns) })
	}
	// The definitions are renamed with the imports in scope, but written
	// before them.
	var importsW cborW
	if err := h.encImports(&importsW, uses); err != nil {
		return err
	}
	if err := h.encDefs(w, defs); err != nil {
		return err
	}
	w.list(len(blessed))
	for _, b := range blessed {
		w.bytes(b)
	}
	w.b = append(w.b, importsW.b...)
	w.moduleNames(h.implements)
	w.bytes(nil) // hash
	w.bytes(nil) // tx hash
	w.null()
	return nil
}

func (h *p5Hasher) iface_(w *cborW, x *syntax.Interface) error {
	h.body = x.Body
	defs, uses, err := h.desugarDefs(x.Body)
	if err != nil {
		return err
	}
	var importsW cborW
	if err := h.encImports(&importsW, uses); err != nil {
		return err
	}
	w.list(6)
	w.moduleName(h.mn)
	if err := h.encDefs(w, defs); err != nil {
		return err
	}
	w.b = append(w.b, importsW.b...)
	w.bytes(nil)
	w.bytes(nil)
	w.null()
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
		if !(unicode.IsLetter(r) || strings.ContainsRune(identSpecials, r) || (i > 0 && r >= '0' && r <= '9')) {
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
