package eval

import (
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Native is a built-in function: its name, arity and implementation.
type Native struct {
	Name string
	// Min and Max bound the argument count; Max < 0 means any number.
	Min, Max int
	// Fn receives evaluated arguments.
	Fn func(c Call, args []value.Value) (value.Value, error)
	// Special, when set, receives unevaluated arguments instead (expect,
	// expect-failure: their arguments are lazy).
	Special func(c Call, args []Thunk) (value.Value, error)
	// TopLevelOnly natives fail inside module code.
	TopLevelOnly bool
	// Repl natives exist only in REPL scripts. They cost nothing.
	Repl bool

	// flat is the table model's flat cost of applying the native, and
	// gasHook its argument-dependent charges (nativegas.go), both set when
	// the core table is built.
	flat    gas.MilliGas
	gasHook func(in *Interp, a []value.Value) error
	// elements, for the natives that build lists cheaply from a count,
	// is how many elements a call would build (see Interp.MaxElements).
	elements func(a []value.Value) int64
	// argsLent says Fn never keeps its argument list (nor a part of it)
	// once it returns: the evaluator lends it one from a stack that the
	// next call uses again (Interp.lent), instead of cutting one for good.
	argsLent bool
}

// gasName is the native's name in P5's gas tables.
func (n *Native) gasName() string { return n.Name }

// Call is a native's view of its invocation.
type Call struct {
	in     *Interp
	Native *Native
	// loc points at the application's span (nil: none). Three words, so
	// that a call's Call and argument list pass in registers: a Span is
	// six words more, copied on every native call.
	loc *syntax.Span
}

// Loc is the span of the application.
func (c Call) Loc() syntax.Span {
	if c.loc == nil {
		return syntax.Span{}
	}
	return *c.loc
}

// Interp is the interpreter the native runs in.
func (c Call) Interp() *Interp { return c.in }

// argsErr is the type error for this native's arguments.
func (c Call) argsErr(args []value.Value) error { return value.ArgsError(c.Native.Name, args...) }

func fixed(name string, n int, fn func(c Call, a []value.Value) (value.Value, error)) *Native {
	return &Native{Name: name, Min: n, Max: n, Fn: fn}
}

func ranged(name string, min, max int, fn func(c Call, a []value.Value) (value.Value, error)) *Native {
	return &Native{Name: name, Min: min, Max: max, Fn: fn}
}

// pure1 and pure2 natives pass on their arguments one by one: their lists
// can be lent.
func pure1(name string, f func(value.Value) (value.Value, error)) *Native {
	n := fixed(name, 1, func(_ Call, a []value.Value) (value.Value, error) { return f(a[0]) })
	n.argsLent = true
	return n
}

func pure2(name string, f func(value.Value, value.Value) (value.Value, error)) *Native {
	n := fixed(name, 2, func(_ Call, a []value.Value) (value.Value, error) { return f(a[0], a[1]) })
	n.argsLent = true
	return n
}

// lent marks n as keeping no part of its argument list (argsLent).
func lent(n *Native) *Native { n.argsLent = true; return n }

// lentArgsNatives are the other natives whose argument lists can be lent:
// each reads its arguments and keeps none of its list (read and checked,
// these are the ones a coin transfer calls most).
var lentArgsNatives = []string{"+", "-", "=", "!=", "round", "ceiling", "floor", "read", "write", "update",
	"insert", "with-read", "with-default-read", "require-capability", "compose-capability", "emit-event",
	"enforce-guard"}

// boolFnNative is `and`/`or` used as a function value: both arguments
// already evaluated.
func boolFnNative(form resolve.Form) *Native {
	name := "and"
	if form == resolve.FormOr {
		name = "or"
	}
	return fixed(name, 2, func(c Call, a []value.Value) (value.Value, error) {
		x, ok1 := a[0].(value.Bool)
		y, ok2 := a[1].(value.Bool)
		if !ok1 || !ok2 {
			return nil, c.argsErr(a)
		}
		if form == resolve.FormOr {
			return value.Bool(x || y), nil
		}
		return value.Bool(x && y), nil
	})
}

// CoreNativeNames is P5's order of the core natives, the order `pact -b`
// prints them in (internal overload names left out).
var CoreNativeNames = []string{
	"+", "-", "*", "/", "negate", "abs", "^", "not", "=", "!=", ">", ">=", "<", "<=", "&", "|", "xor", "~",
	"shift", "mod", "round", "ceiling", "floor", "exp", "ln", "sqrt", "log", "length", "take", "drop",
	"concat", "reverse", "map", "filter", "contains", "sort", "remove", "if", "int-to-str", "str-to-int",
	"fold", "zip", "distinct", "format", "enumerate", "show", "read-msg", "read-integer", "read-decimal",
	"read-string", "read-keyset", "enforce-guard", "enforce-keyset", "keyset-ref-guard",
	"create-capability-guard", "create-capability-pact-guard", "create-module-guard", "create-pact-guard",
	"at", "make-list", "base64-encode", "base64-decode", "str-to-list", "yield", "resume", "bind",
	"require-capability", "compose-capability", "install-capability", "emit-event", "create-table",
	"describe-keyset", "describe-module", "describe-table", "define-keyset", "fold-db", "insert", "keys",
	"read", "select", "update", "with-default-read", "with-read", "write", "tx-hash", "acquire-module-admin",
	"and?", "or?", "where", "not?", "hash", "continue", "parse-time", "format-time", "time", "add-time",
	"diff-time", "hours", "minutes", "days", "compose", "create-principal", "is-principal",
	"typeof-principal", "validate-principal", "namespace", "define-namespace", "describe-namespace",
	"pairing-check", "scalar-mult", "point-add", "poseidon-hash-hack-a-chain", "chain-data", "is-charset",
	"pact-id", "typeof", "dec", "cond", "identity", "verify-spv", "enforce-verifier",
	"hyperlane-message-id", "hyperlane-decode-token-message", "hyperlane-encode-token-message",
	"list-modules", "static-redeploy", "hash-keccak256", "hash-poseidon",
}

func coreNatives() []*Native {
	ns := []*Native{
		ranged("+", 2, 2, func(c Call, a []value.Value) (value.Value, error) {
			if x, y, ok := decimals(a); ok {
				return c.in.alloc.decimal(x.Add(y)), nil
			}
			return value.Add(a[0], a[1])
		}),
		ranged("-", 1, 2, func(c Call, a []value.Value) (value.Value, error) {
			if len(a) == 1 {
				return value.Negate(a[0])
			}
			if x, y, ok := decimals(a); ok {
				return c.in.alloc.decimal(x.Sub(y)), nil
			}
			return value.Sub(a[0], a[1])
		}),
		pure2("*", value.Mul), pure2("/", value.Div), pure1("negate", value.Negate), pure1("abs", value.Abs), pure2("^", value.Pow),
		pure1("not", func(a value.Value) (value.Value, error) {
			b, ok := a.(value.Bool)
			if !ok {
				return nil, value.ArgsError("not", a)
			}
			return !b, nil
		}),
		fixed("=", 2, func(c Call, a []value.Value) (value.Value, error) { return eqNative(c, a, true) }),
		fixed("!=", 2, func(c Call, a []value.Value) (value.Value, error) { return eqNative(c, a, false) }),
		pure2(">", value.Gt), pure2(">=", value.Geq), pure2("<", value.Lt), pure2("<=", value.Leq),
		pure2("&", value.BitAnd), pure2("|", value.BitOr), pure2("xor", value.BitXor), pure1("~", value.BitNot), pure2("shift", value.Shift),
		pure2("mod", value.Mod),
		roundNative("round", value.RoundHalfEven), roundNative("ceiling", value.RoundCeiling), roundNative("floor", value.RoundFloor),
		pure1("exp", value.Exp), pure1("ln", value.Ln), pure1("sqrt", value.Sqrt), pure2("log", value.Log),
		lent(fixed("length", 1, nativeLength)), lent(fixed("take", 2, nativeTake)),
		lent(fixed("drop", 2, nativeDrop)), pure1("concat", value.Concat),
		pure1("reverse", value.Reverse),
		fixed("map", 2, nativeMap), fixed("filter", 2, nativeFilter), fixed("contains", 2, nativeContains),
		ranged("sort", 1, 2, func(c Call, a []value.Value) (value.Value, error) {
			if len(a) == 1 {
				return value.Sort(a[0])
			}
			return value.SortObjects(a[0], a[1])
		}),
		pure2("remove", value.Remove),
		fixed("if", 3, func(c Call, a []value.Value) (value.Value, error) {
			b, ok := a[0].(value.Bool)
			if !ok {
				return nil, c.argsErr(a)
			}
			if b {
				return a[1], nil
			}
			return a[2], nil
		}),
		pure2("int-to-str", value.IntToStr),
		ranged("str-to-int", 1, 2, func(c Call, a []value.Value) (value.Value, error) { return value.StrToInt(a...) }),
		fixed("fold", 3, nativeFold), fixed("zip", 3, nativeZip), fixed("distinct", 1, nativeDistinct),
		fixed("format", 2, nativeFormat),
		ranged("enumerate", 2, 3, func(c Call, a []value.Value) (value.Value, error) { return value.Enumerate(a[0], a[1], a[2:]...) }),
		pure1("show", value.ShowNative),
		ranged("read-msg", 0, 1, nativeReadMsg),
		fixed("read-integer", 1, nativeReadInteger), fixed("read-decimal", 1, nativeReadDecimal),
		fixed("read-string", 1, nativeReadString), fixed("read-keyset", 1, nativeReadKeyset),
		fixed("enforce-guard", 1, nativeEnforceGuard), fixed("enforce-keyset", 1, nativeEnforceGuard),
		fixed("keyset-ref-guard", 1, nativeKeysetRefGuard),
		fixed("create-capability-guard", 1, nativeCapGuard(false)),
		fixed("create-capability-pact-guard", 1, nativeCapGuard(true)),
		fixed("create-module-guard", 1, nativeModuleGuard), fixed("create-pact-guard", 1, nativePactGuard),
		pure2("at", value.At), pure2("make-list", value.MakeList), pure1("base64-encode", value.Base64Encode),
		pure1("base64-decode", value.Base64Decode), pure1("str-to-list", value.StrToList),
		ranged("yield", 1, 2, nativeYield), fixed("resume", 1, nativeResume),
		fixed("bind", 2, func(c Call, a []value.Value) (value.Value, error) {
			if _, ok := a[0].(*value.Object); !ok {
				return nil, c.argsErr(a)
			}
			return c.in.apply(a[1], a[:1], c.loc)
		}),
		fixed("require-capability", 1, nativeRequireCap), fixed("compose-capability", 1, nativeComposeCap),
		fixed("install-capability", 1, nativeInstallCap), fixed("emit-event", 1, nativeEmitEvent),
		fixed("create-table", 1, nativeCreateTable),
		fixed("describe-keyset", 1, nativeDescribeKeyset), fixed("describe-module", 1, nativeDescribeModule),
		fixed("describe-table", 1, nativeDescribeTable),
		ranged("define-keyset", 1, 2, nativeDefineKeyset),
		fixed("fold-db", 3, nativeFoldDB), fixed("insert", 3, nativeWrite("insert")),
		fixed("keys", 1, nativeKeys), ranged("read", 2, 3, nativeRead), ranged("select", 2, 3, nativeSelect),
		fixed("update", 3, nativeWrite("update")), fixed("with-default-read", 4, nativeWithDefaultRead),
		fixed("with-read", 3, nativeWithRead), fixed("write", 3, nativeWrite("write")),
		fixed("tx-hash", 0, func(c Call, a []value.Value) (value.Value, error) { return value.String(c.in.TxHash), nil }),
		fixed("acquire-module-admin", 1, nativeAcquireModuleAdmin),
		fixed("and?", 3, nativeBoolCombinator(true)), fixed("or?", 3, nativeBoolCombinator(false)),
		fixed("where", 3, nativeWhere), fixed("not?", 2, nativeNotQ),
		pure1("hash", value.HashValue), fixed("continue", 1, func(c Call, a []value.Value) (value.Value, error) { return a[0], nil }),
		fixed("parse-time", 2, func(c Call, a []value.Value) (value.Value, error) {
			f, ok1 := a[0].(value.String)
			s, ok2 := a[1].(value.String)
			if !ok1 || !ok2 {
				return nil, c.argsErr(a)
			}
			return value.ParseTimeNative(string(f), string(s))
		}),
		pure2("format-time", value.FormatTimeNative),
		pure1("time", func(a value.Value) (value.Value, error) {
			s, ok := a.(value.String)
			if !ok {
				return nil, value.ArgsError("time", a)
			}
			return value.ParseISOTime(string(s))
		}),
		pure2("add-time", value.AddTime), pure2("diff-time", value.DiffTime), pure1("hours", value.Hours),
		pure1("minutes", value.Minutes), pure1("days", value.Days),
		fixed("compose", 3, func(c Call, a []value.Value) (value.Value, error) {
			v, err := c.in.apply(a[0], a[2:], c.loc)
			if err != nil {
				return nil, err
			}
			return c.in.apply(a[1], []value.Value{v}, c.loc)
		}),
		fixed("create-principal", 1, nativeCreatePrincipal), pure1("is-principal", value.IsPrincipal),
		pure1("typeof-principal", value.TypeOfPrincipal), fixed("validate-principal", 2, nativeValidatePrincipal),
		fixed("namespace", 1, nativeNamespace), fixed("define-namespace", 3, nativeDefineNamespace),
		fixed("describe-namespace", 1, nativeDescribeNamespace),
		fixed("chain-data", 0, func(c Call, a []value.Value) (value.Value, error) { return c.in.ChainData, nil }),
		pure2("is-charset", value.IsCharset),
		fixed("pact-id", 0, nativePactID),
		pure1("typeof", func(a value.Value) (value.Value, error) { return value.String(value.TypeOf(a)), nil }),
		pure1("dec", value.Dec),
		fixed("identity", 1, func(c Call, a []value.Value) (value.Value, error) { return a[0], nil }),
		fixed("cond", 1, func(c Call, a []value.Value) (value.Value, error) {
			if a[0].Kind() != value.KindClosure {
				return nil, c.argsErr(a)
			}
			return c.in.apply(a[0], nil, c.loc)
		}),
		fixed("verify-spv", 2, nativeVerifySPV),
		fixed("enforce-verifier", 1, nativeEnforceVerifier),
		fixed("list-modules", 0, nativeListModules),
		fixed("static-redeploy", 1, nativeStaticRedeploy),
		// CHARSET_ASCII and CHARSET_LATIN1 are constants in P5's desugarer.
	}
	ns = append(ns, cryptoNatives()...)
	for _, n := range ns {
		switch n.Name {
		case "create-table", "describe-table", "describe-keyset", "describe-module", "define-keyset",
			"namespace", "define-namespace", "static-redeploy":
			// P5's setTopLevelOnly natives: they fail when called from
			// module code.
			n.TopLevelOnly = true
		}
	}
	return ns
}

func nativeTake(c Call, a []value.Value) (value.Value, error) {
	return value.TakeCached(&c.in.chars, a[0], a[1])
}

func nativeDrop(c Call, a []value.Value) (value.Value, error) {
	return value.DropCached(&c.in.chars, a[0], a[1])
}

func roundNative(name string, mode value.RoundMode) *Native {
	return ranged(name, 1, 2, func(c Call, a []value.Value) (value.Value, error) {
		if d, ok := a[0].(value.Decimal); ok && len(a) == 2 {
			if p, ok := a[1].(value.Integer); ok {
				return c.in.alloc.decimal(d.RoundTo(p.ToWord8(), mode)), nil
			}
		}
		return value.Round(mode, a[0], a[1:]...)
	})
}

// decimals are a binary native's two arguments when both are decimals:
// its result is then a decimal, made a Value by arena.decimal.
func decimals(a []value.Value) (value.Decimal, value.Decimal, bool) {
	x, ok1 := a[0].(value.Decimal)
	y, ok2 := a[1].(value.Decimal)
	return x, y, ok1 && ok2
}

func eqNative(c Call, a []value.Value, eq bool) (value.Value, error) {
	for _, v := range a {
		if v.Kind() == value.KindClosure {
			return nil, c.argsErr(a)
		}
	}
	same, err := c.in.equalGassed(a[0], a[1])
	if err != nil {
		return nil, err
	}
	return value.Bool(same == eq), nil
}

func nativeMap(c Call, a []value.Value) (value.Value, error) {
	l, ok := a[1].(value.List)
	if !ok {
		return nil, c.argsErr(a)
	}
	out := make(value.List, len(l))
	for i, x := range l {
		if err := c.in.chargeUncons(); err != nil {
			return nil, err
		}
		v, err := c.in.apply(a[0], []value.Value{x}, c.loc)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func nativeFilter(c Call, a []value.Value) (value.Value, error) {
	l, ok := a[1].(value.List)
	if !ok {
		return nil, c.argsErr(a)
	}
	out := make(value.List, 0, len(l))
	for _, x := range l {
		if err := c.in.chargeUncons(); err != nil {
			return nil, err
		}
		keep, err := applyBool(c, a[0], x)
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, x)
		}
	}
	return out, nil
}

func nativeFold(c Call, a []value.Value) (value.Value, error) {
	l, ok := a[2].(value.List)
	if !ok {
		return nil, c.argsErr(a)
	}
	acc := a[1]
	args := make([]value.Value, 2)
	for _, x := range l {
		if err := c.in.chargeUncons(); err != nil {
			return nil, err
		}
		args[0], args[1] = acc, x
		v, err := c.in.apply(a[0], args[:2:2], c.loc)
		if err != nil {
			return nil, err
		}
		acc = v
	}
	return acc, nil
}

func nativeZip(c Call, a []value.Value) (value.Value, error) {
	l1, ok1 := a[1].(value.List)
	l2, ok2 := a[2].(value.List)
	if !ok1 || !ok2 {
		return nil, c.argsErr(a)
	}
	n := min(len(l1), len(l2))
	out := make(value.List, n)
	for i := range n {
		if err := c.in.chargeUncons(); err != nil {
			return nil, err
		}
		v, err := c.in.apply(a[0], []value.Value{l1[i], l2[i]}, c.loc)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func nativeBoolCombinator(and bool) func(c Call, a []value.Value) (value.Value, error) {
	return func(c Call, a []value.Value) (value.Value, error) {
		x, err := applyBool(c, a[0], a[2])
		if err != nil {
			return nil, err
		}
		if x != and {
			return value.Bool(x), nil
		}
		return applyBoolValue(c, a[1], a[2])
	}
}

func applyBool(c Call, fn, arg value.Value) (bool, error) {
	return asBool(c.in.apply(fn, []value.Value{arg}, c.loc))
}

// asBool takes a function's result where P5 requires a boolean.
func asBool(v value.Value, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	b, ok := v.(value.Bool)
	if !ok {
		return false, value.EvalError("expected bool value, got " + value.Pretty(v))
	}
	return bool(b), nil
}

func applyBoolValue(c Call, fn, arg value.Value) (value.Value, error) {
	b, err := applyBool(c, fn, arg)
	if err != nil {
		return nil, err
	}
	return value.Bool(b), nil
}

func nativeNotQ(c Call, a []value.Value) (value.Value, error) {
	b, err := applyBool(c, a[0], a[1])
	if err != nil {
		return nil, err
	}
	return value.Bool(!b), nil
}

func nativeWhere(c Call, a []value.Value) (value.Value, error) {
	f, ok1 := a[0].(value.String)
	o, ok2 := a[2].(*value.Object)
	if !ok1 || !ok2 {
		return nil, c.argsErr(a)
	}
	v, err := o.At(string(f))
	if err != nil {
		return nil, err
	}
	return applyBoolValue(c, a[1], v)
}

// Message data. P5 charges the lookup of the key in the data object (and
// the conversion of a string to a number) before answering.

func nativeReadMsg(c Call, a []value.Value) (value.Value, error) {
	if len(a) == 0 {
		return c.in.Data, nil
	}
	k, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	v, ok, err := c.in.readData(string(k))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, value.UserError("read-msg failure")
	}
	return v, nil
}

// readData looks a key up in the message data, charging the lookup when
// the data is an object.
func (in *Interp) readData(k string) (value.Value, bool, error) {
	o, ok := in.Data.(*value.Object)
	if !ok {
		return nil, false, nil
	}
	if err := in.chargeObjLookup(k, o.Len()); err != nil {
		return nil, false, err
	}
	v, ok := o.Get(k)
	return v, ok, nil
}

func nativeReadInteger(c Call, a []value.Value) (value.Value, error) {
	return readNumber(c, a, "read-integer", func(v value.Value) (value.Value, bool) { return value.ReadIntegerValue(v) })
}

func nativeReadDecimal(c Call, a []value.Value) (value.Value, error) {
	return readNumber(c, a, "read-decimal", func(v value.Value) (value.Value, bool) {
		if _, ok := v.(value.Decimal); ok {
			return v, true // already a Value: made one again, it would allocate
		}
		d, ok := value.ReadDecimalValue(v)
		if !ok {
			return nil, false
		}
		return c.in.alloc.decimal(d), true
	})
}

// readNumber is read-integer and read-decimal: the message data's value at
// a key, parsed (and charged for parsing, when it is a string) by parse.
func readNumber(c Call, a []value.Value, name string, parse func(value.Value) (value.Value, bool)) (value.Value, error) {
	k, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	v, ok, err := c.in.readData(string(k))
	if err != nil {
		return nil, err
	}
	if ok {
		if err := c.in.chargeNumberParse(v); err != nil {
			return nil, err
		}
		if n, ok := parse(v); ok {
			return n, nil
		}
	}
	return nil, value.UserError(name + " failure")
}

// chargeNumberParse is what reading a number from a string of the message
// data costs.
func (in *Interp) chargeNumberParse(v value.Value) error {
	if s, ok := v.(value.String); ok {
		return in.chargeStrOp("StrOpConvToInt", value.CharCount(string(s)), 0)
	}
	return nil
}

func nativeReadString(c Call, a []value.Value) (value.Value, error) {
	k, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	v, ok, err := c.in.readData(string(k))
	if err != nil {
		return nil, err
	}
	if ok {
		if x, ok := v.(value.String); ok {
			return x, nil
		}
	}
	return nil, value.UserError("read-string failure")
}

func nativeReadKeyset(c Call, a []value.Value) (value.Value, error) {
	k, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	ks, ok, err := c.in.readKeysetData(string(k))
	if err != nil {
		return nil, err
	}
	if ok {
		if err := c.in.checkKeyFormats(ks); err != nil {
			return nil, err
		}
		return ks, nil
	}
	return nil, value.UserError("read-keyset failure")
}

// readKeysetData is P5's readKeyset': the keyset under a key of the
// message data. A value decoded as a keyset costs only the lookup; a raw
// {keys, pred} object costs the lookups of both fields and the parse of
// the predicate.
func (in *Interp) readKeysetData(k string) (*value.KeySet, bool, error) {
	v, ok, err := in.readData(k)
	if err != nil || !ok {
		return nil, false, err
	}
	if o, isObj := v.(*value.Object); isObj && in.metered() {
		if err := in.chargeObjLookup("keys", o.Len()); err != nil {
			return nil, false, err
		}
		if err := in.chargeObjLookup("pred", o.Len()); err != nil {
			return nil, false, err
		}
		ks, ok := value.ReadKeySetValue(o)
		if ok {
			if err := in.chargeParse(ks.Pred); err != nil {
				return nil, false, err
			}
		}
		return ks, ok, nil
	}
	ks, ok := value.ReadKeySetValue(v)
	return ks, ok, nil
}

// nativePactID reads the defpact state (P5 esDefPactExec), which outlives
// the step that set it until the transaction ends.
func nativePactID(c Call, a []value.Value) (value.Value, error) {
	if c.in.tx.defpact == nil {
		return nil, value.EvalError("Attempted to fetch defpact data, but currently not within defpact execution")
	}
	return value.String(c.in.tx.defpact.PactID), nil
}

func nativeVerifySPV(c Call, a []value.Value) (value.Value, error) {
	kind, ok1 := a[0].(value.String)
	obj, ok2 := a[1].(*value.Object)
	if !ok1 || !ok2 {
		return nil, c.argsErr(a)
	}
	if c.in.SPV == nil {
		return nil, value.EvalError("SPV verification failure: SPV verification not supported")
	}
	out, err := c.in.SPV(string(kind), obj)
	if err != nil {
		return nil, value.EvalError("SPV verification failure: " + err.Error())
	}
	return out, nil
}

func nativeEnforceVerifier(c Call, a []value.Value) (value.Value, error) {
	name, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	if len(c.in.tx.caps.evaluating) == 0 {
		return nil, value.NativeError("enforce-verifier", "native must be called within a defcap body")
	}
	for _, v := range c.in.Verifiers {
		if v.Name != string(name) {
			continue
		}
		granted := c.in.tx.caps.acquiring()
		for _, vc := range v.Caps {
			for _, g := range granted {
				if capTokensEqual(vc, g) {
					return value.True, nil
				}
			}
		}
	}
	for _, v := range c.in.Verifiers {
		if v.Name == string(name) {
			return nil, value.UserError("Verifier failure " + string(name) + ": not in scope")
		}
	}
	return nil, value.UserError("Verifier failure " + string(name) + ": not in transaction")
}
