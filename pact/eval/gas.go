package eval

import (
	"errors"
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Metering. Interp.Gas is the meter (package gas); every charging point of
// P5's evaluator and natives calls one of the charge methods below with the
// measures P5 charges by, in P5's order, so that totals, the log and the
// out-of-gas error match upstream's. When the meter has no limit (the free
// model, the REPL before env-gaslimit) each method returns at its first
// line.

// gasKind names a P5 GasArgs constructor, for the gas log.
type gasKind uint8

const (
	gkConstant gasKind = iota
	gkNative
	gkIntOp
	gkApply
	gkConcat
	gkMakeList
	gkZK
	gkWrite
	gkRead
	gkCompare
	gkSearch
	gkHyperlaneID
	gkHyperlaneToken
	gkModule
	gkTrans
	gkStr
	gkObj
	gkCap
	gkHash
)

// gasWhat describes a charge for the gas log: the GasArgs constructor
// (k), its sub-constructor (op) and its operands.
type gasWhat struct {
	k    gasKind
	op   string
	n, m int64
	x, y value.Integer
	// dx, dy are a decimal comparison's operands.
	dx, dy value.Decimal
	s, t   string
	nat    *Native
	def    *Def // the applied function, nil for a lambda
}

// charge adds c to the meter, logging w, and fails with P5's GasExceeded
// once the limit is passed.
//
// A node's case (a limit, no rate, no log) is the meter's inlined
// AddWithin; the description w is only read when logging.
func (in *Interp) charge(c gas.MilliGas, w *gasWhat) error {
	if in.Interrupt != nil && in.Interrupt.Load() {
		return in.interrupted()
	}
	if in.Gas.Quiet() {
		return in.chargeQuick(c)
	}
	charged, exceeded := in.Gas.Charge(c)
	if in.Gas.Logging() && w != nil {
		in.Gas.Record(w.show()+" "+in.gasLoc(), charged)
	}
	if exceeded {
		if in.Gas.OverBudget() {
			return &value.Error{Kind: value.ErrGas, Msg: in.Gas.BudgetText()}
		}
		return &value.Error{Kind: value.ErrGas, Msg: in.Gas.ExceededText()}
	}
	return nil
}

// chargeQuick is charge on a Quiet meter, which never reads the charge's
// description. The charging points a transfer passes most often call it
// themselves, so that a node's charges build no gasWhat.
func (in *Interp) chargeQuick(c gas.MilliGas) error {
	if in.Interrupt != nil {
		return in.chargeInterruptible(c)
	}
	if in.Gas.AddWithin(c) {
		return nil
	}
	return in.gasExceeded()
}

// chargeInterruptible is chargeQuick with Interrupt set, apart so that
// chargeQuick stays inlined.
//
//go:noinline
func (in *Interp) chargeInterruptible(c gas.MilliGas) error {
	if in.Interrupt.Load() {
		return in.interrupted()
	}
	if in.Gas.AddWithin(c) {
		return nil
	}
	return in.gasExceeded()
}

// interrupted is what a charge returns once Interrupt is set (a new
// error each time: the evaluator attaches a location to it).
func (in *Interp) interrupted() error {
	reason := in.InterruptReason
	if reason == "" {
		reason = "the node's time bound on a transaction passed"
	}
	return &value.Error{Kind: value.ErrInterrupted, Msg: "Execution interrupted: " + reason}
}

// Interrupted reports whether err is an evaluation stopped by Interrupt.
func Interrupted(err error) bool {
	var e *value.Error
	return errors.As(err, &e) && e.Kind == value.ErrInterrupted
}

// gasExceeded is chargeQuick's error, apart so that chargeQuick is inlined.
//
//go:noinline
func (in *Interp) gasExceeded() error {
	return &value.Error{Kind: value.ErrGas, Msg: in.Gas.ExceededText()}
}

// gasLoc renders the position of the charge as P5's gas log does
// (file:startLine:startCol-endLine:endCol); we know the innermost
// application being evaluated.
func (in *Interp) gasLoc() string {
	if in.gasAt == nil {
		return ""
	}
	s := in.gasAt.span()
	return s.File + ":" + strconv.Itoa(int(s.Start.Line)) + ":" + strconv.Itoa(int(s.Start.Col)) + "-" +
		strconv.Itoa(int(s.End.Line)) + ":" + strconv.Itoa(int(s.End.Col))
}

func gasMul(a, b uint64) gas.MilliGas { return gas.MilliGas(gas.Mul(a, b)) }

// metered reports whether charges count.
func (in *Interp) metered() bool { return in.Gas.Charging() }

func (in *Interp) cfg() *gas.Config { return in.Gas.Config() }

// chargeConst is GAConstant.
func (in *Interp) chargeConst(c gas.MilliGas) error {
	if !in.metered() {
		return nil
	}
	if in.Gas.Quiet() {
		return in.chargeQuick(c)
	}
	return in.charge(c, &gasWhat{k: gkConstant, n: int64(c)})
}

// chargeNative is GNative: a native's flat cost, charged when it is
// applied to all its arguments.
func (in *Interp) chargeNative(n *Native) error {
	if !in.metered() {
		return nil
	}
	var c gas.MilliGas
	if in.Gas.Pricing().Natives {
		c = n.flat
	}
	if in.Gas.Quiet() {
		return in.chargeQuick(c)
	}
	return in.charge(c, &gasWhat{k: gkNative, nat: n})
}

// chargeApply is GAApplyLam: applying a closure (the defun, defcap or
// defpact d, or a lambda when d is nil) to n arguments.
func (in *Interp) chargeApply(d *Def, n int) error {
	if !in.metered() {
		return nil
	}
	cost := gas.Apply(in.cfg(), int64(n))
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkApply, n: int64(n), def: d})
}

// chargeUncons is one element step of map, filter, fold and zip (and try,
// enforce-one).
func (in *Interp) chargeUncons() error {
	if !in.metered() {
		return nil
	}
	c := gas.MilliGas(in.cfg().UnconsWork)
	return in.charge(c, &gasWhat{k: gkConstant, n: int64(c)})
}

// chargeTick charges k runtime type-check steps.
func (in *Interp) chargeTick(k int) error {
	if !in.metered() {
		return nil
	}
	c := gasMul(in.cfg().MachineTickCost, uint64(k))
	return in.charge(c, &gasWhat{k: gkConstant, n: int64(c)})
}

// Concatenations and constructions (GConcat).
const (
	catText     = "TextConcat"
	catTextList = "TextListConcat"
	catList     = "ListConcat"
	catObj      = "ObjConcat"
)

func (in *Interp) chargeListLit(n int) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.ListConcat(in.cfg(), int64(n)), &gasWhat{k: gkConcat, op: catList, n: int64(n)})
}

func (in *Interp) chargeObjLit(n int) error {
	if !in.metered() {
		return nil
	}
	cost := gas.ObjConcat(in.cfg(), int64(n))
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkConcat, op: catObj, n: int64(n)})
}

func (in *Interp) chargeTextConcat(n int64) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.TextConcat(in.cfg(), n), &gasWhat{k: gkConcat, op: catText, n: n})
}

func (in *Interp) chargeTextListConcat(n, k int64) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.TextListConcat(in.cfg(), n, k), &gasWhat{k: gkConcat, op: catTextList, n: n, m: k})
}

// Integer operations (GIntegerOpCost): P5 prices them by the operand with
// the larger signed value.
const (
	opAdd   = "PrimOpAdd"
	opSub   = "PrimOpSub"
	opMul   = "PrimOpMul"
	opDiv   = "PrimOpDiv"
	opShift = "PrimOpShift"
	opPow   = "PrimOpPow"
)

func (in *Interp) chargeIntOp(op string, a, b value.Integer) error {
	if !in.metered() {
		return nil
	}
	var c gas.MilliGas
	switch op {
	case opAdd, opSub:
		c = gas.IntAdd(signedMax(a, b).BitLen())
	case opMul, opDiv:
		c = gas.IntMul(signedMax(a, b).BitLen())
	case opPow:
		c = gas.IntPow(a.BitLen(), b.BitLen())
	case opShift:
		c = gas.Shift(a.BitLen(), satInt64(b), b.BitLen(), satCount(b))
	}
	if in.Gas.Quiet() {
		return in.chargeQuick(c)
	}
	return in.charge(c, &gasWhat{k: gkIntOp, op: op, x: a, y: b})
}

func signedMax(a, b value.Integer) value.Integer {
	if a.Cmp(b) > 0 {
		return a
	}
	return b
}

// satInt64 is i clamped to the int64 range (only its sign and size
// matter to the callers).
func satInt64(i value.Integer) int64 {
	if i.IsSmall() {
		return i.Int64()
	}
	if i.Big().Sign() < 0 {
		return -1 << 63
	}
	return 1<<63 - 1
}

// satCount is i as a SatWord: negative values are 0, values past 2^64-1
// saturate.
func satCount(i value.Integer) uint64 {
	if i.IsSmall() {
		if i.Int64() < 0 {
			return 0
		}
		return uint64(i.Int64())
	}
	if i.Big().Sign() < 0 {
		return 0
	}
	if i.Big().IsUint64() {
		return i.Big().Uint64()
	}
	return ^uint64(0)
}

// Transcendental functions (GTranscendental).
func (in *Interp) chargeExp(p value.Integer) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.Exp(p.BitLen()), &gasWhat{k: gkTrans, op: "TransExp", x: p})
}

func (in *Interp) chargeLn(p value.Integer) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.MilliGas(gas.Ln(p.BitLen())), &gasWhat{k: gkTrans, op: "TransLn", x: p})
}

func (in *Interp) chargeLogBase(b, x value.Integer) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.LogBase(b.BitLen(), x.BitLen()), &gasWhat{k: gkTrans, op: "TransLogBase", x: b, y: x})
}

func (in *Interp) chargeSqrt(p value.Integer) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.Sqrt(p.BitLen(), p.Sign() > 0), &gasWhat{k: gkTrans, op: "TransSqrt", x: p})
}

// Comparisons (GComparison).
func (in *Interp) chargeTextCmp(s string) error {
	if !in.metered() {
		return nil
	}
	cost := gas.TextCompare(in.cfg(), value.CharCount(s))
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkCompare, op: "TextComparison", s: s})
}

func (in *Interp) chargeIntCmp(a, b value.Integer) error {
	if !in.metered() {
		return nil
	}
	cost := gas.IntCompare(in.cfg(), a.CmpBits(), b.CmpBits())
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkCompare, op: "IntComparison", x: a, y: b})
}

func (in *Interp) chargeDecCmp(a, b value.Decimal) error {
	if !in.metered() {
		return nil
	}
	cost := decCmpCost(in.cfg(), a.Mantissa(), b.Mantissa())
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkCompare, op: "DecimalComparison", dx: a, dy: b})
}

// decCmpCost is a decimal comparison's cost on the mantissas ma and mb.
// Mantissas that fit a machine word (a coin amount's do) take no detour
// through Integer's methods: both compare as 64 bits, and the larger's
// bit length is taken of the word itself.
func decCmpCost(c *gas.Config, ma, mb value.Integer) gas.MilliGas {
	if ma.IsSmall() && mb.IsSmall() {
		return gas.DecimalCompare(c, value.WordBitLen(max(ma.Int64(), mb.Int64())), 64, 64)
	}
	return gas.DecimalCompare(c, signedMax(ma, mb).BitLen(), ma.CmpBits(), mb.CmpBits())
}

func (in *Interp) chargeListCmp(n int) error {
	if !in.metered() {
		return nil
	}
	cost := gas.ListCompare(in.cfg(), n)
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkCompare, op: "ListComparison", n: int64(n)})
}

func (in *Interp) chargeObjCmp(n int) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.ListCompare(in.cfg(), n), &gasWhat{k: gkCompare, op: "ObjComparison", n: int64(n)})
}

func (in *Interp) chargeSort(maxBytes uint64, n int) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.Sort(in.cfg(), maxBytes, n), &gasWhat{k: gkCompare, op: "SortComparisons", n: int64(maxBytes), m: int64(n)})
}

// Searches (GSearch).
func (in *Interp) chargeSubstring(needle, hay string) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.SubstringSearch(in.cfg(), value.CharCount(needle), value.CharCount(hay)),
		&gasWhat{k: gkSearch, op: "SubstringSearch", s: needle, t: hay})
}

func (in *Interp) chargeFieldSearch(n int) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.FieldSearch(in.cfg(), n), &gasWhat{k: gkSearch, op: "FieldSearch", n: int64(n)})
}

// String operations (GStrOp).
func (in *Interp) chargeStrOp(op string, n, m int) error {
	if !in.metered() {
		return nil
	}
	var c gas.MilliGas
	switch op {
	case "StrOpLength":
		c = gas.StrLength(n)
	case "StrOpConvToInt":
		c = gas.StrToInt(n)
	case "StrOpParse":
		c = gas.StrParse(n)
	case "StrOpExplode":
		c = gas.StrExplode(n)
	case "StrOpParseTime":
		c = gas.ParseTime(n, m)
	case "StrOpFormatTime":
		c = gas.FormatTime(n)
	}
	if in.Gas.Quiet() {
		return in.chargeQuick(c)
	}
	return in.charge(c, &gasWhat{k: gkStr, op: op, n: int64(n), m: int64(m)})
}

// chargeParse is the common StrOpParse of a string argument.
func (in *Interp) chargeParse(s string) error {
	if !in.metered() {
		return nil
	}
	return in.chargeStrOp("StrOpParse", value.CharCount(s), 0)
}

// Object operations (GObjOp).
func (in *Interp) chargeObjLookup(key string, size int) error {
	if !in.metered() {
		return nil
	}
	cost := gas.ObjLookup(value.CharCount(key), size)
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkObj, op: "ObjOpLookup", s: key, n: int64(size)})
}

func (in *Interp) chargeObjRemove(key string, size int) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.ObjRemove(value.CharCount(key), size), &gasWhat{k: gkObj, op: "ObjOpRemove", s: key, n: int64(size)})
}

// Database bytes (GRead, GWrite).
func (in *Interp) chargeRead(bytes uint64) error {
	if !in.metered() {
		return nil
	}
	cost := gas.Read(in.cfg(), bytes)
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkRead, n: int64(bytes)})
}

func (in *Interp) chargeWrite(bytes uint64) error {
	if !in.metered() {
		return nil
	}
	cost := gas.Write(in.cfg(), bytes)
	if in.Gas.Quiet() {
		return in.chargeQuick(cost)
	}
	return in.charge(cost, &gasWhat{k: gkWrite, n: int64(bytes)})
}

// chargeHash is GHash: BLAKE2b over an estimated n bytes.
func (in *Interp) chargeHash(n uint64) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.Hash(in.cfg(), n), &gasWhat{k: gkHash, op: "GHashBlake", n: int64(n)})
}

// chargeMakeList is GMakeList: n elements of size bytes.
func (in *Interp) chargeMakeList(n value.Integer, size uint64) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.MakeList(satInt64(n), size), &gasWhat{k: gkMakeList, x: n, n: int64(size)})
}

// show renders the charge as P5's gas log does (Haskell's Show of the
// GasArgs value). Names of functions are rendered as text.
func (w *gasWhat) show() string {
	var b strings.Builder
	switch w.k {
	case gkConstant:
		b.WriteString("GAConstant (MilliGas " + strconv.FormatInt(w.n, 10) + ")")
	case gkNative:
		b.WriteString("GNative ")
		b.WriteString(nativeShow(w.nat))
	case gkIntOp:
		b.WriteString("GIntegerOpCost " + w.op + " " + hsInt(w.x) + " " + hsInt(w.y))
	case gkApply:
		b.WriteString("GAApplyLam ")
		if w.def == nil {
			b.WriteString("Nothing")
		} else {
			b.WriteString("(Just " + hsFQN(w.def.fqn()) + ")")
		}
		b.WriteString(" " + strconv.FormatInt(w.n, 10))
	case gkConcat:
		switch w.op {
		case catTextList:
			b.WriteString("GConcat (TextListConcat (GasTextLength " + strconv.FormatInt(w.n, 10) +
				") (GasListLength " + strconv.FormatInt(w.m, 10) + "))")
		case catText:
			b.WriteString("GConcat (TextConcat (GasTextLength " + strconv.FormatInt(w.n, 10) + "))")
		case catList:
			b.WriteString("GConcat (ListConcat (GasListLength " + strconv.FormatInt(w.n, 10) + "))")
		default:
			b.WriteString("GConcat (ObjConcat " + strconv.FormatInt(w.n, 10) + ")")
		}
	case gkMakeList:
		b.WriteString("GMakeList " + hsInt(w.x) + " " + strconv.FormatInt(w.n, 10))
	case gkZK:
		b.WriteString("GAZKArgs (" + w.op + ")")
	case gkWrite:
		b.WriteString("GWrite " + strconv.FormatInt(w.n, 10))
	case gkRead:
		b.WriteString("GRead " + strconv.FormatInt(w.n, 10))
	case gkCompare:
		b.WriteString("GComparison (" + w.op + " ")
		switch w.op {
		case "TextComparison":
			b.WriteString(strconv.Quote(w.s))
		case "IntComparison":
			b.WriteString(hsInt(w.x) + " " + hsInt(w.y))
		case "DecimalComparison":
			b.WriteString(w.dx.String() + " " + w.dy.String())
		case "SortComparisons":
			b.WriteString(strconv.FormatInt(w.n, 10) + " " + strconv.FormatInt(w.m, 10))
		default:
			b.WriteString(strconv.FormatInt(w.n, 10))
		}
		b.WriteString(")")
	case gkSearch:
		if w.op == "SubstringSearch" {
			b.WriteString("GSearch (SubstringSearch " + strconv.Quote(w.s) + " " + strconv.Quote(w.t) + ")")
		} else {
			b.WriteString("GSearch (FieldSearch " + strconv.FormatInt(w.n, 10) + ")")
		}
	case gkHyperlaneID:
		b.WriteString("GHyperlaneMessageId " + strconv.FormatInt(w.n, 10))
	case gkHyperlaneToken:
		b.WriteString("GHyperlaneEncodeDecodeTokenMessage " + strconv.FormatInt(w.n, 10))
	case gkModule:
		b.WriteString("GModuleOp (" + w.op + " " + strconv.FormatInt(w.n, 10))
		if w.op == "MOpMergeDeps" {
			b.WriteString(" " + strconv.FormatInt(w.m, 10))
		}
		b.WriteString(")")
	case gkTrans:
		b.WriteString("GTranscendental (" + w.op + " " + hsInt(w.x))
		if w.op == "TransLogBase" {
			b.WriteString(" " + hsInt(w.y))
		}
		b.WriteString(")")
	case gkStr:
		b.WriteString("GStrOp (" + w.op + " " + strconv.FormatInt(w.n, 10))
		if w.op == "StrOpParseTime" {
			b.WriteString(" " + strconv.FormatInt(w.m, 10))
		}
		b.WriteString(")")
	case gkObj:
		b.WriteString("GObjOp (" + w.op + " " + strconv.Quote(w.s) + " " + strconv.FormatInt(w.n, 10) + ")")
	case gkCap:
		b.WriteString("GCapOp (CapOpRequire " + strconv.FormatInt(w.n, 10) + ")")
	case gkHash:
		switch w.op {
		case "GHashBlake":
			b.WriteString("GHashOp (GHashBlake " + strconv.FormatInt(w.n, 10) + ")")
		case "GHashPoseidon":
			b.WriteString("GHashOp (GHashPoseidon " + strconv.FormatInt(w.n, 10) + ")")
		default:
			b.WriteString("GHashOp (GHashKeccak " + w.s + ")")
		}
	}
	return b.String()
}

// hsInt shows an integer as Haskell does in a constructor argument:
// negative numbers in parentheses.
func hsInt(i value.Integer) string {
	if i.Sign() < 0 {
		return "(" + i.Text() + ")"
	}
	return i.Text()
}

func hsModuleName(m value.ModuleName) string {
	ns := "Nothing"
	if m.Namespace != "" {
		ns = "Just " + strconv.Quote(m.Namespace)
	}
	return "ModuleName {_mnName = " + strconv.Quote(m.Name) + ", _mnNamespace = " + ns + "}"
}

func hsFQN(f value.FullyQualifiedName) string {
	return "(FullyQualifiedName {_fqModule = " + hsModuleName(f.Module) + ", _fqName = " + strconv.Quote(f.Name) +
		", _fqHash = ModuleHash {_mhHash = " + strconv.Quote(f.Hash) + "}})"
}

// nativeShow is a native as the REPL's gas log names it: its P5
// constructor, wrapped as the REPL wraps core natives.
func nativeShow(n *Native) string {
	if n == nil {
		return "(RBuiltinWrap ?)"
	}
	if c, ok := p5CoreConstructors[n.gasName()]; ok {
		return "(RBuiltinWrap " + c + ")"
	}
	return "(RBuiltinRepl " + n.Name + ")"
}
