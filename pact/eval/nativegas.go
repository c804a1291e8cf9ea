package eval

import (
	"strings"

	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/value"
)

// The variable costs of the natives whose cost depends only on their
// arguments: each hook runs after the native's flat cost and before the
// native itself, charging what P5's implementation charges (CEK/CoreBuiltin.hs)
// and nothing where P5 raises its error before charging (a division by
// zero, a negative square root, arguments of the wrong types: those fail in
// the native right after). Natives whose charges interleave with their work
// (map, fold, the database natives, format, distinct, ...) charge in their
// own code.
var nativeGasHooks = map[string]func(in *Interp, a []value.Value) error{
	"+": func(in *Interp, a []value.Value) error {
		if x, y, ok := intPair(a); ok {
			return in.chargeIntOp(opAdd, x, y)
		}
		if x, y, ok := decPair(a); ok {
			return in.chargeIntOp(opAdd, x.Mantissa(), y.Mantissa())
		}
		switch x := a[0].(type) {
		case value.String:
			if y, ok := a[1].(value.String); ok {
				return in.chargeTextConcat(int64(value.CharCount(string(x)) + value.CharCount(string(y))))
			}
		case *value.Object:
			if y, ok := a[1].(*value.Object); ok {
				return in.chargeObjLit(x.Len() + y.Len())
			}
		case value.List:
			if y, ok := a[1].(value.List); ok {
				return in.chargeListLit(len(x) + len(y))
			}
		}
		return nil
	},
	"-": func(in *Interp, a []value.Value) error {
		if len(a) != 2 {
			return nil
		}
		if x, y, ok := intPair(a); ok {
			return in.chargeIntOp(opSub, x, y)
		}
		if x, y, ok := decPair(a); ok {
			return in.chargeIntOp(opSub, x.Mantissa(), y.Mantissa())
		}
		return nil
	},
	"*": func(in *Interp, a []value.Value) error {
		if x, y, ok := intPair(a); ok {
			return in.chargeIntOp(opMul, x, y)
		}
		if x, y, ok := decPair(a); ok {
			return in.chargeIntOp(opMul, x.Mantissa(), y.Mantissa())
		}
		return nil
	},
	"/": func(in *Interp, a []value.Value) error {
		if x, y, ok := intPair(a); ok {
			if y.IsZero() {
				return nil
			}
			return in.chargeIntOp(opDiv, x, y)
		}
		if x, y, ok := decPair(a); ok {
			if y.IsZero() {
				return nil
			}
			return in.chargeIntOp(opDiv, x.Mantissa(), y.Mantissa())
		}
		return nil
	},
	"^": func(in *Interp, a []value.Value) error {
		if x, y, ok := intPair(a); ok {
			return in.chargeIntOp(opPow, x, y) // charged before the negative-exponent error
		}
		if x, y, ok := decPair(a); ok {
			if x.IsZero() && y.Sign() < 0 {
				return nil
			}
			return in.chargeIntOp(opPow, decCeiling(x), decCeiling(y))
		}
		return nil
	},
	"shift": func(in *Interp, a []value.Value) error {
		if x, y, ok := intPair(a); ok {
			return in.chargeIntOp(opShift, x, y)
		}
		return nil
	},
	"exp": func(in *Interp, a []value.Value) error {
		switch x := a[0].(type) {
		case value.Integer:
			return in.chargeExp(x)
		case value.Decimal:
			return in.chargeExp(x.Mantissa())
		}
		return nil
	},
	"ln": func(in *Interp, a []value.Value) error {
		switch x := a[0].(type) {
		case value.Integer:
			return in.chargeLn(x)
		case value.Decimal:
			return in.chargeLn(decCeiling(x))
		}
		return nil
	},
	"sqrt": func(in *Interp, a []value.Value) error {
		switch x := a[0].(type) {
		case value.Integer:
			if x.Sign() < 0 {
				return nil
			}
			return in.chargeSqrt(x)
		case value.Decimal:
			if x.Sign() < 0 {
				return nil
			}
			return in.chargeSqrt(x.Mantissa())
		}
		return nil
	},
	"log": func(in *Interp, a []value.Value) error {
		if b, x, ok := intPair(a); ok {
			if b.Equal(value.NewInt(1)) || b.Sign() < 0 || x.Sign() <= 0 {
				return nil
			}
			return in.chargeLogBase(b, x)
		}
		if b, x, ok := decPair(a); ok {
			if b.Cmp(value.DecimalFromInt(value.NewInt(1))) == 0 || b.Sign() < 0 || x.Sign() <= 0 {
				return nil
			}
			return in.chargeLogBase(decCeiling(b), decCeiling(x))
		}
		return nil
	},
	">": chargeLiteralCompare, ">=": chargeLiteralCompare, "<": chargeLiteralCompare, "<=": chargeLiteralCompare,
	"take": func(in *Interp, a []value.Value) error {
		switch n := a[0].(type) {
		case value.Integer:
			switch x := a[1].(type) {
			case value.String:
				// Counting only up to the count kept: a whole-string count
				// would read far more than take charges for.
				s := string(x)
				return in.chargeTextConcat(in.takeCharge(n, func(k int) int { return in.chars.CharCountUpTo(s, k) }))
			case value.List:
				return in.chargeListLit(int(in.takeCharge(n, func(k int) int { return min(k, len(x)) })))
			}
		case value.List:
			if _, ok := a[1].(*value.Object); ok {
				for _, k := range n {
					if _, ok := k.(value.String); !ok {
						return nil
					}
				}
				return in.chargeObjLit(len(n))
			}
		}
		return nil
	},
	"reverse": func(in *Interp, a []value.Value) error {
		switch x := a[0].(type) {
		case value.List:
			return in.chargeListLit(len(x))
		case value.String:
			return in.chargeTextConcat(int64(value.CharCount(string(x))))
		}
		return nil
	},
	"concat": func(in *Interp, a []value.Value) error {
		l, ok := a[0].(value.List)
		if !ok || len(l) == 0 {
			return nil
		}
		total := 0
		for _, v := range l {
			s, ok := v.(value.String)
			if !ok {
				return nil
			}
			total += value.CharCount(string(s))
		}
		return in.chargeTextListConcat(int64(total), int64(len(l)))
	},
	"str-to-list": func(in *Interp, a []value.Value) error {
		if s, ok := a[0].(value.String); ok {
			return in.chargeStrOp("StrOpExplode", value.CharCount(string(s)), 0)
		}
		return nil
	},
	"remove": func(in *Interp, a []value.Value) error {
		k, ok1 := a[0].(value.String)
		o, ok2 := a[1].(*value.Object)
		if ok1 && ok2 {
			return in.chargeObjRemove(string(k), o.Len())
		}
		return nil
	},
	"sort": func(in *Interp, a []value.Value) error {
		l, ok := a[0].(value.List)
		if len(a) != 1 || !ok || len(l) == 0 {
			return nil
		}
		var largest uint64
		for _, v := range l {
			if v.Kind() == value.KindClosure {
				return nil
			}
			sz, err := in.sizeOf(v)
			if err != nil {
				return err
			}
			largest = max(largest, sz)
		}
		return in.chargeSort(largest, len(l))
	},
	"int-to-str": func(in *Interp, a []value.Value) error {
		b, x, ok := intPair(a)
		if !ok || x.Sign() < 0 {
			return nil
		}
		switch {
		case b.Cmp(value.NewInt(2)) >= 0 && b.Cmp(value.NewInt(16)) <= 0:
			return in.chargeTextConcat(int64(1 + value.IntLogBase(b.Int64(), x)))
		case b.Equal(value.NewInt(64)):
			n := 1 + value.IntLogBase(256, x)
			return in.chargeTextConcat(int64(n * 4 / 3))
		}
		return nil
	},
	"str-to-int": func(in *Interp, a []value.Value) error {
		if len(a) == 1 {
			if s, ok := a[0].(value.String); ok {
				return in.chargeParse(string(s))
			}
			return nil
		}
		b, ok1 := a[0].(value.Integer)
		s, ok2 := a[1].(value.String)
		if ok1 && ok2 && (b.Equal(value.NewInt(64)) || b.Cmp(value.NewInt(2)) >= 0 && b.Cmp(value.NewInt(16)) <= 0) {
			return in.chargeParse(string(s))
		}
		return nil
	},
	"enumerate": func(in *Interp, a []value.Value) error {
		f, ok1 := a[0].(value.Integer)
		t, ok2 := a[1].(value.Integer)
		if !ok1 || !ok2 {
			return nil
		}
		inc := value.NewInt(1)
		if f.Cmp(t) > 0 {
			inc = value.NewInt(-1)
		}
		if len(a) == 3 {
			s, ok := a[2].(value.Integer)
			if !ok {
				return nil
			}
			inc = s
		}
		switch {
		case f.Equal(t):
			return in.chargeMakeList(value.NewInt(1), p5.IntSize(f))
		case inc.IsZero():
			return nil
		case f.Cmp(t) < 0 && f.Add(inc).Cmp(f) < 0, f.Cmp(t) > 0 && f.Add(inc).Cmp(f) > 0:
			return nil // the divergence errors come first
		}
		n := f.Sub(t).Abs().DivFloor(inc.Abs()).Add(value.NewInt(1))
		big := f.Abs()
		if t.Abs().Cmp(big) > 0 {
			big = t.Abs()
		}
		return in.chargeMakeList(n, p5.IntSize(big))
	},
	"show": func(in *Interp, a []value.Value) error {
		if a[0].Kind() == value.KindClosure {
			return nil
		}
		sz, err := in.sizeOf(a[0])
		if err != nil {
			return err
		}
		return in.chargeTextConcat(int64(sz))
	},
	"keyset-ref-guard": chargeStringParse(0),
	"at": func(in *Interp, a []value.Value) error {
		k, ok1 := a[0].(value.String)
		o, ok2 := a[1].(*value.Object)
		if ok1 && ok2 {
			return in.chargeObjLookup(string(k), o.Len())
		}
		return nil
	},
	"make-list": func(in *Interp, a []value.Value) error {
		n, ok := a[0].(value.Integer)
		if !ok || a[1].Kind() == value.KindClosure {
			return nil
		}
		sz, err := in.sizeOf(a[1])
		if err != nil {
			return err
		}
		return in.chargeMakeList(n, sz)
	},
	"base64-encode": chargeStringParse(0),
	"base64-decode": chargeStringParse(0),
	"where": func(in *Interp, a []value.Value) error {
		k, ok1 := a[0].(value.String)
		o, ok2 := a[2].(*value.Object)
		if ok1 && ok2 && a[1].Kind() == value.KindClosure {
			return in.chargeObjLookup(string(k), o.Len())
		}
		return nil
	},
	"hash": func(in *Interp, a []value.Value) error {
		if s, ok := a[0].(value.String); ok {
			return in.chargeHash(uint64(len(s)))
		}
		if a[0].Kind() == value.KindClosure {
			return nil
		}
		sz, err := in.sizeOf(a[0])
		if err != nil {
			return err
		}
		return in.chargeHash(sz)
	},
	"parse-time": func(in *Interp, a []value.Value) error {
		f, ok1 := a[0].(value.String)
		s, ok2 := a[1].(value.String)
		if ok1 && ok2 {
			return in.chargeStrOp("StrOpParseTime", value.CharCount(string(f)), value.CharCount(string(s)))
		}
		return nil
	},
	"format-time": func(in *Interp, a []value.Value) error {
		f, ok1 := a[0].(value.String)
		_, ok2 := a[1].(value.Time)
		if ok1 && ok2 {
			return in.chargeStrOp("StrOpFormatTime", value.CharCount(string(f)), 0)
		}
		return nil
	},
	"minutes":          chargeSeconds(60),
	"hours":            chargeSeconds(3600),
	"days":             chargeSeconds(86400),
	"is-principal":     chargeStringParse(0),
	"typeof-principal": chargeStringParse(0),
	"is-charset": func(in *Interp, a []value.Value) error {
		_, ok1 := a[0].(value.Integer)
		s, ok2 := a[1].(value.String)
		if ok1 && ok2 {
			return in.chargeParse(string(s))
		}
		return nil
	},
	"pairing-check": func(in *Interp, a []value.Value) error {
		p1, ok1 := a[0].(value.List)
		p2, ok2 := a[1].(value.List)
		if ok1 && ok2 {
			n := max(len(p1), len(p2))
			return in.charge(gas.Pairing(n), &gasWhat{k: gkZK, op: "Pairing " + itoa(n)})
		}
		return nil
	},
	"scalar-mult": func(in *Interp, a []value.Value) error {
		g := zkGroupArg(a)
		if g == 0 {
			return nil
		}
		return in.charge(gas.ScalarMult(g), &gasWhat{k: gkZK, op: "ScalarMult " + zkGroupName(g)})
	},
	"point-add": func(in *Interp, a []value.Value) error {
		g := zkGroupArg(a)
		if g == 0 {
			return nil
		}
		return in.charge(gas.PointAdd(g), &gasWhat{k: gkZK, op: "PointAdd " + zkGroupName(g)})
	},
	"poseidon-hash-hack-a-chain": chargePoseidon,
	"hash-poseidon":              chargePoseidon,
	"hash-keccak256": func(in *Interp, a []value.Value) error {
		l, ok := a[0].(value.List)
		if !ok {
			return nil
		}
		lens := make([]int, len(l))
		for i, v := range l {
			s, ok := v.(value.String)
			if !ok {
				return nil
			}
			lens[i] = len(s)
		}
		return in.charge(gas.Keccak(in.cfg(), lens), &gasWhat{k: gkHash, op: "GHashKeccak", s: keccakShow(lens)})
	},
	"hyperlane-decode-token-message": func(in *Interp, a []value.Value) error {
		if s, ok := a[0].(value.String); ok {
			return in.chargeHyperlaneToken(value.CharCount(string(s)))
		}
		return nil
	},
}

// nativeElements are the natives that build a list from a count at a few
// milligas per element, and how many elements a call builds.
var nativeElements = map[string]func(a []value.Value) int64{
	"make-list": func(a []value.Value) int64 {
		if n, ok := a[0].(value.Integer); ok {
			return satInt64(n)
		}
		return 0
	},
	"enumerate": func(a []value.Value) int64 {
		f, ok1 := a[0].(value.Integer)
		t, ok2 := a[1].(value.Integer)
		if !ok1 || !ok2 {
			return 0
		}
		step := value.NewInt(1)
		if len(a) == 3 {
			s, ok := a[2].(value.Integer)
			if !ok || s.IsZero() {
				return 0
			}
			step = s
		}
		return satInt64(f.Sub(t).Abs().DivFloor(step.Abs()).Add(value.NewInt(1)))
	},
	"str-to-list": func(a []value.Value) int64 {
		if s, ok := a[0].(value.String); ok {
			return int64(len(s))
		}
		return 0
	},
}

// chargeHyperlaneToken is GHyperlaneEncodeDecodeTokenMessage.
func (in *Interp) chargeHyperlaneToken(n int) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.MilliGas(n), &gasWhat{k: gkHyperlaneToken, n: int64(n)})
}

// chargeHyperlaneID is GHyperlaneMessageId.
func (in *Interp) chargeHyperlaneID(n int) error {
	if !in.metered() {
		return nil
	}
	return in.charge(gas.MilliGas(n), &gasWhat{k: gkHyperlaneID, n: int64(n)})
}

func keccakShow(lens []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, n := range lens {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(itoa(n))
	}
	b.WriteByte(']')
	return b.String()
}

// chargePoseidon charges the Poseidon natives, which take their integers
// as arguments: P5's desugarer gathers them into a list literal (charged as
// one), and the hash costs by their number.
func chargePoseidon(in *Interp, a []value.Value) error {
	if err := in.chargeListLit(len(a)); err != nil {
		return err
	}
	if len(a) == 0 || len(a) > 8 {
		return nil
	}
	for _, v := range a {
		if _, ok := v.(value.Integer); !ok {
			return nil
		}
	}
	return in.charge(gas.Poseidon(in.cfg(), len(a)), &gasWhat{k: gkHash, op: "GHashPoseidon", n: int64(len(a))})
}

// zkGroupArg is the group a point-add or scalar-mult names (1 or 2), 0 when
// the arguments are not of its shape.
func zkGroupArg(a []value.Value) int {
	s, ok := a[0].(value.String)
	if !ok {
		return 0
	}
	if _, ok := a[1].(*value.Object); !ok {
		return 0
	}
	switch strings.ToLower(string(s)) {
	case "g1":
		return gas.G1
	case "g2":
		return gas.G2
	}
	return 0
}

func zkGroupName(g int) string {
	if g == gas.G2 {
		return "ZKG2"
	}
	return "ZKG1"
}

// chargeStringParse charges StrOpParse of the string argument i.
func chargeStringParse(i int) func(in *Interp, a []value.Value) error {
	return func(in *Interp, a []value.Value) error {
		if s, ok := a[i].(value.String); ok {
			return in.chargeParse(string(s))
		}
		return nil
	}
}

// chargeSeconds is minutes', hours' and days' multiplication.
func chargeSeconds(k int64) func(in *Interp, a []value.Value) error {
	return func(in *Interp, a []value.Value) error {
		switch x := a[0].(type) {
		case value.Integer:
			return in.chargeIntOp(opMul, x, value.NewInt(k))
		case value.Decimal:
			return in.chargeIntOp(opMul, x.Mantissa(), value.NewInt(k))
		}
		return nil
	}
}

// chargeLiteralCompare is P5's litCmpGassed for <, <=, > and >=: integers,
// decimals and strings cost by their size; booleans, units and times are
// free; mismatched kinds fail without a charge.
func chargeLiteralCompare(in *Interp, a []value.Value) error {
	return in.chargeLiteralCmp(a[0], a[1])
}

func (in *Interp) chargeLiteralCmp(x, y value.Value) error {
	switch x := x.(type) {
	case value.Integer:
		if y, ok := y.(value.Integer); ok {
			return in.chargeIntCmp(x, y)
		}
	case value.Decimal:
		if y, ok := y.(value.Decimal); ok {
			return in.chargeDecCmp(x, y)
		}
	case value.String:
		if _, ok := y.(value.String); ok {
			return in.chargeTextCmp(string(x))
		}
	}
	return nil
}

// takeCharge is what take charges on a string or list: the count kept for
// n >= 0, and |n| itself (not clamped) for a negative count, as P5's Int
// arithmetic computes it. Counted against the budget of an evaluation
// without gas, it is the work really done (the count kept): P5's figure
// for a huge negative count is no work at all. upTo(k) is min(k, length).
func (in *Interp) takeCharge(n value.Integer, upTo func(k int) int) int64 {
	if n.Sign() >= 0 || in.Gas.Budgeted() {
		return int64(upTo(n.Abs().ClampInt()))
	}
	return -value.WrapInt(n)
}

func intPair(a []value.Value) (value.Integer, value.Integer, bool) {
	if len(a) != 2 {
		return value.Integer{}, value.Integer{}, false
	}
	x, ok1 := a[0].(value.Integer)
	y, ok2 := a[1].(value.Integer)
	return x, y, ok1 && ok2
}

// decPair is two numbers at least one of which is a decimal, the other
// promoted to a 0-place decimal (P5's Decimal 0 i).
func decPair(a []value.Value) (value.Decimal, value.Decimal, bool) {
	if len(a) != 2 {
		return value.Decimal{}, value.Decimal{}, false
	}
	_, _, x, y, ints, ok := value.NumPair(a[0], a[1])
	return x, y, ok && !ints
}

// decCeiling is Haskell's ceiling of a decimal.
func decCeiling(d value.Decimal) value.Integer { return d.RoundTo(0, value.RoundCeiling).Mantissa() }

// equalGassed is P5's valEqGassed: structural equality that charges its
// comparisons. Literals of one kind cost their comparison; lists, objects,
// capability tokens and the arguments of user and capability guards of one
// length cost 100 per element and are compared element by element up to the
// first difference; values of different kinds are unequal for free.
func (in *Interp) equalGassed(a, b value.Value) (bool, error) {
	if !in.metered() {
		return value.Equal(a, b), nil
	}
	// Each literal kind is one Go type, so the kinds match when b has a's
	// type; booleans and units compare for free.
	switch x := a.(type) {
	case value.Integer:
		y, ok := b.(value.Integer)
		if !ok {
			return false, nil
		}
		if err := in.chargeIntCmp(x, y); err != nil {
			return false, err
		}
		return x.Equal(y), nil
	case value.Decimal:
		y, ok := b.(value.Decimal)
		if !ok {
			return false, nil
		}
		if err := in.chargeDecCmp(x, y); err != nil {
			return false, err
		}
		return x.Equal(y), nil
	case value.String:
		y, ok := b.(value.String)
		if !ok {
			return false, nil
		}
		if err := in.chargeTextCmp(string(x)); err != nil {
			return false, err
		}
		return x == y, nil
	case value.Bool:
		y, ok := b.(value.Bool)
		return ok && x == y, nil
	case value.Unit:
		_, ok := b.(value.Unit)
		return ok, nil
	case value.List:
		y, ok := b.(value.List)
		if !ok || len(x) != len(y) {
			return false, nil
		}
		if err := in.chargeListCmp(len(x)); err != nil {
			return false, err
		}
		return in.equalListGassed(x, y)
	case *value.Object:
		y, ok := b.(*value.Object)
		if !ok || x.Len() != y.Len() {
			return false, nil
		}
		if err := in.chargeObjCmp(x.Len()); err != nil {
			return false, err
		}
		for i, k := range x.Keys() {
			if y.Keys()[i] != k {
				return false, nil
			}
		}
		return in.equalListGassed(x.Values(), y.Values())
	case *value.CapToken:
		y, ok := b.(*value.CapToken)
		if !ok || x.Name != y.Name || len(x.Args) != len(y.Args) {
			return false, nil
		}
		if err := in.chargeListCmp(len(x.Args)); err != nil {
			return false, err
		}
		return in.equalListGassed(x.Args, y.Args)
	case *value.UserGuard:
		y, ok := b.(*value.UserGuard)
		if !ok || x.Fun != y.Fun || len(x.Args) != len(y.Args) {
			return false, nil
		}
		if err := in.chargeListCmp(len(x.Args)); err != nil {
			return false, err
		}
		return in.equalListGassed(x.Args, y.Args)
	case *value.CapabilityGuard:
		y, ok := b.(*value.CapabilityGuard)
		if !ok || x.Name != y.Name || x.HasPactID != y.HasPactID || x.PactID != y.PactID || len(x.Args) != len(y.Args) {
			return false, nil
		}
		if err := in.chargeListCmp(len(x.Args)); err != nil {
			return false, err
		}
		return in.equalListGassed(x.Args, y.Args)
	}
	return value.Equal(a, b), nil
}

func (in *Interp) equalListGassed(x, y []value.Value) (bool, error) {
	for i := range x {
		eq, err := in.equalGassed(x[i], y[i])
		if err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// Natives whose charges interleave with their work.

// nativeLength is `length`, which charges a string by its length: counted
// once, for the charge and the result (P5 prices the count at a hundredth
// of a milligas a character, less than reading the string costs).
func nativeLength(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return value.Length(a[0])
	}
	n := c.in.chars.CharCount(string(s))
	if err := c.in.chargeStrOp("StrOpLength", n, 0); err != nil {
		return nil, err
	}
	return value.IntValue(int64(n)), nil
}

// nativeContains is `contains`: a field of an object and a substring cost
// by their sizes; an element of a list costs the comparisons made until it
// is found.
func nativeContains(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	switch h := a[1].(type) {
	case *value.Object:
		if _, ok := a[0].(value.String); ok {
			if err := in.chargeFieldSearch(h.Len()); err != nil {
				return nil, err
			}
		}
	case value.String:
		if s, ok := a[0].(value.String); ok {
			if err := in.chargeSubstring(string(s), string(h)); err != nil {
				return nil, err
			}
		}
	case value.List:
		if a[0].Kind() != value.KindClosure && in.metered() {
			for _, v := range h {
				eq, err := in.equalGassed(a[0], v)
				if err != nil {
					return nil, err
				}
				if eq {
					return value.True, nil
				}
			}
			return value.False, nil
		}
	}
	return value.Contains(a[0], a[1])
}

// nativeDistinct is `distinct`, charged as P5's nubBy: each element kept is
// compared with every element after it that is still in the list.
func nativeDistinct(c Call, a []value.Value) (value.Value, error) {
	l, ok := a[0].(value.List)
	if !ok || !c.in.metered() {
		return value.Distinct(a[0])
	}
	rest := append(value.List(nil), l...)
	out := make(value.List, 0, len(l))
	for len(rest) > 0 {
		x := rest[0]
		keep := rest[1:1:1]
		for _, y := range rest[1:] {
			eq, err := c.in.equalGassed(x, y)
			if err != nil {
				return nil, err
			}
			if !eq {
				keep = append(keep, y)
			}
		}
		out = append(out, x)
		rest = keep
	}
	return out, nil
}

// nativeFormat is `format`: a template without holes costs its parse; one
// with holes costs the rendering of each non-string argument used, then the
// length of the result.
func nativeFormat(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	t, ok1 := a[0].(value.String)
	l, ok2 := a[1].(value.List)
	if !ok1 || !ok2 || !in.metered() {
		return value.Format(a[0], a[1])
	}
	parts := strings.Split(string(t), "{}")
	if len(parts) == 1 {
		if err := in.chargeParse(string(t)); err != nil {
			return nil, err
		}
		return t, nil
	}
	if len(parts)-len(l) > 1 {
		return nil, value.NativeError("format", "not enough arguments for template")
	}
	total := 0
	for _, p := range parts {
		total += value.CharCount(p)
	}
	// Each argument is rendered once, here, and the result built from
	// these renderings: a huge integer's digits take as long to write as
	// all the rest of format.
	texts := make([]string, len(parts)-1)
	for i, v := range l[:len(parts)-1] {
		if s, ok := v.(value.String); ok {
			texts[i] = string(s)
		} else {
			if err := in.chargeRender(v); err != nil {
				return nil, err
			}
			texts[i] = value.Show(v)
		}
		total += value.CharCount(texts[i])
	}
	if err := in.chargeTextConcat(int64(total)); err != nil {
		return nil, err
	}
	return value.String(value.Interleave(parts, texts)), nil
}

// chargeRender is P5's renderPactValue: the value's estimated size as a
// text concatenation.
func (in *Interp) chargeRender(v value.Value) error {
	if v.Kind() == value.KindClosure {
		return nil
	}
	sz, err := in.sizeOf(v)
	if err != nil {
		return err
	}
	return in.chargeTextConcat(int64(sz))
}

// chargePrincipal is P5's createPrincipalForGuard: 1000 for a k:, r:, m: or
// p: principal or for the hash of a w: one (plus the name of a qualified
// custom predicate), and the estimated size of a user or capability guard
// hashed before the 1000 of its u: or c: hash.
func (in *Interp) chargePrincipal(g value.Guard) error {
	if !in.metered() {
		return nil
	}
	switch g := g.(type) {
	case *value.KeySet:
		if len(g.Keys) == 1 && g.Pred == value.KeysAll && value.IsEd25519HexKey(g.Keys[0]) {
			return in.chargeConst(1000)
		}
		if err := in.chargeConst(1000); err != nil {
			return err
		}
		if i := strings.LastIndexByte(g.Pred, '.'); i >= 0 {
			return in.chargeTextConcat(int64(value.CharCount(g.Pred) - strings.Count(g.Pred, ".")))
		}
		return nil
	case *value.UserGuard, *value.CapabilityGuard:
		c := p5.NewSizeCounter(in.Gas.SizeBudget())
		c.GuardBody(g)
		sz, err := sizeResult(in, &c)
		if err != nil {
			return err
		}
		if err := in.chargeHash(sz); err != nil {
			return err
		}
	}
	return in.chargeConst(1000)
}

func nativeCreatePrincipal(c Call, a []value.Value) (value.Value, error) {
	if g, ok := a[0].(value.Guard); ok {
		if err := c.in.chargePrincipal(g); err != nil {
			return nil, err
		}
	}
	return value.CreatePrincipal(a[0])
}

func nativeValidatePrincipal(c Call, a []value.Value) (value.Value, error) {
	g, ok1 := a[0].(value.Guard)
	s, ok2 := a[1].(value.String)
	if ok1 && ok2 {
		if err := c.in.chargePrincipal(g); err != nil {
			return nil, err
		}
		if err := c.in.chargeTextCmp(string(s)); err != nil {
			return nil, err
		}
	}
	return value.ValidatePrincipal(a[0], a[1])
}
