package value

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/crypto"
)

// Adapters from Pact values to the pure cores in pact/crypto: argument
// shapes and error texts follow P5's natives (CoreBuiltin.hs, zk*,
// poseidonHash, coreHashKeccak256, coreHyperlane*). Errors other than
// argument errors are P5 execution errors (ErrEval): `try` does not catch
// them.

// HashKeccak256 is `hash-keccak256`: the unpadded base64url Keccak-256 of
// the concatenated bytes of a list of base64url strings (padding is
// optional). Every element must be a string before any is decoded.
func HashKeccak256(list Value) (Value, error) {
	l, ok := list.(List)
	if !ok {
		return nil, ArgsError("hash-keccak256", list)
	}
	chunks := make([][]byte, len(l))
	for i, v := range l {
		s, ok := v.(String)
		if !ok {
			return nil, ArgsError("hash-keccak256", v)
		}
		chunks[i] = []byte(s)
	}
	for i, c := range chunks {
		b, err := crypto.DecodeBase64URL(c)
		if err != nil {
			return nil, EvalError("Base64URL decode failed: " + err.Error())
		}
		chunks[i] = b
	}
	sum := crypto.Keccak256(chunks...)
	return String(crypto.EncodeBase64URL(sum[:])), nil
}

// HashPoseidon is `hash-poseidon`: the circom Poseidon hash of 1 to 8
// integers, reduced modulo the BN254 scalar field.
func HashPoseidon(args ...Value) (Value, error) { return poseidon("hash-poseidon", args) }

// PoseidonHashHackAChain is `poseidon-hash-hack-a-chain`, the older name
// of hash-poseidon; only the native named in its errors differs.
func PoseidonHashHackAChain(args ...Value) (Value, error) {
	return poseidon("poseidon-hash-hack-a-chain", args)
}

// poseidon: P5 desugars the arguments into one list, so a wrong count or
// a non-integer is an argument error about a single "list".
func poseidon(native string, args []Value) (Value, error) {
	if len(args) < 1 || len(args) > crypto.PoseidonMaxInputs {
		return nil, ArgsError(native, List(args))
	}
	ins := make([]*big.Int, len(args))
	for i, a := range args {
		n, ok := a.(Integer)
		if !ok {
			return nil, ArgsError(native, List(args))
		}
		ins[i] = n.Big()
	}
	h, err := crypto.Poseidon(ins)
	if err != nil {
		return nil, ArgsError(native, List(args))
	}
	return NewIntBig(h), nil
}

// Points are objects: G1 {x: integer, y: integer}; G2 {x: [integer],
// y: [integer]}, each list the coefficients c0, c1 of c0 + c1·u. Other
// fields are ignored, coordinates are reduced modulo q, and (0, 0) is the
// point at infinity. A malformed point is an argument error; a point off
// its curve is P5's PointNotOnCurve.

const pointNotOnCurve = "Point lies outside of elliptic curve"

func pointErr(err error) error {
	if err == crypto.ErrNotOnCurve {
		return EvalError(pointNotOnCurve)
	}
	return EvalError(err.Error())
}

func g1Arg(v Value) (crypto.G1Point, bool) {
	o, ok := v.(*Object)
	if !ok {
		return crypto.G1Point{}, false
	}
	x, ok1 := o.Get("x")
	y, ok2 := o.Get("y")
	xi, ok3 := x.(Integer)
	yi, ok4 := y.(Integer)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return crypto.G1Point{}, false
	}
	return crypto.G1Point{X: xi.Big(), Y: yi.Big()}, true
}

func g2Arg(v Value) (crypto.G2Point, bool) {
	o, ok := v.(*Object)
	if !ok {
		return crypto.G2Point{}, false
	}
	x, ok1 := fq2Arg(o, "x")
	y, ok2 := fq2Arg(o, "y")
	return crypto.G2Point{X: x, Y: y}, ok1 && ok2
}

// fq2Arg reads a list of integers as an element of Fq2. P5 accepts lists
// of any length, as polynomials in u, and keeps them unreduced: values
// agree, but its results can then show more than two coefficients. Here
// longer lists are folded with u² = -1, so results are always reduced.
func fq2Arg(o *Object, key string) ([2]*big.Int, bool) {
	v, ok := o.Get(key)
	l, ok2 := v.(List)
	if !ok || !ok2 {
		return [2]*big.Int{}, false
	}
	c := [2]*big.Int{new(big.Int), new(big.Int)}
	for k, e := range l {
		n, ok := e.(Integer)
		if !ok {
			return [2]*big.Int{}, false
		}
		if k%4 < 2 { // u^k is 1, u, -1, -u, ...
			c[k%2].Add(c[k%2], n.Big())
		} else {
			c[k%2].Sub(c[k%2], n.Big())
		}
	}
	return c, true
}

func g1Value(p crypto.G1Point) Value {
	return NewObject(Field{"x", NewIntBig(p.X)}, Field{"y", NewIntBig(p.Y)})
}

// g2Value renders as P5's fromG2: the point at infinity as {x: [0],
// y: [0]}, otherwise each coordinate's coefficients without trailing
// zeros (Data.Poly normalizes them away), so 5 + 0·u is [5].
func g2Value(p crypto.G2Point) Value {
	if p.X[0].Sign() == 0 && p.X[1].Sign() == 0 && p.Y[0].Sign() == 0 && p.Y[1].Sign() == 0 {
		zero := List{NewInt(0)}
		return NewObject(Field{"x", zero}, Field{"y", zero})
	}
	coeffs := func(c [2]*big.Int) List {
		n := 2
		for n > 0 && c[n-1].Sign() == 0 {
			n--
		}
		l := make(List, n)
		for i := range l {
			l[i] = NewIntBig(c[i])
		}
		return l
	}
	return NewObject(Field{"x", coeffs(p.X)}, Field{"y", coeffs(p.Y)})
}

// pointType is P5's T.toLower on the type string: "g1" or "g2".
func pointType(typ Value) string {
	if s, ok := typ.(String); ok {
		return strings.ToLower(string(s))
	}
	return ""
}

// PointAdd is `point-add`: the sum of two points of the named group
// ("g1" or "g2", any case).
func PointAdd(typ, p1, p2 Value) (Value, error) {
	argsErr := func() error { return ArgsError("point-add", typ, p1, p2) }
	_, ok1 := p1.(*Object)
	_, ok2 := p2.(*Object)
	if !ok1 || !ok2 {
		return nil, argsErr()
	}
	switch pointType(typ) {
	case "g1":
		a, ok1 := g1Arg(p1)
		b, ok2 := g1Arg(p2)
		if !ok1 || !ok2 {
			return nil, argsErr()
		}
		r, err := crypto.G1Add(a, b)
		if err != nil {
			return nil, pointErr(err)
		}
		return g1Value(r), nil
	case "g2":
		a, ok1 := g2Arg(p1)
		b, ok2 := g2Arg(p2)
		if !ok1 || !ok2 {
			return nil, argsErr()
		}
		r, err := crypto.G2Add(a, b)
		if err != nil {
			return nil, pointErr(err)
		}
		return g2Value(r), nil
	}
	return nil, argsErr()
}

// ScalarMult is `scalar-mult`: [k mod r]P in the named group.
func ScalarMult(typ, p, scalar Value) (Value, error) {
	argsErr := func() error { return ArgsError("scalar-mult", typ, p, scalar) }
	k, ok := scalar.(Integer)
	if _, isObj := p.(*Object); !ok || !isObj {
		return nil, argsErr()
	}
	switch pointType(typ) {
	case "g1":
		a, ok := g1Arg(p)
		if !ok {
			return nil, argsErr()
		}
		r, err := crypto.G1ScalarMul(a, k.Big())
		if err != nil {
			return nil, pointErr(err)
		}
		return g1Value(r), nil
	case "g2":
		a, ok := g2Arg(p)
		if !ok {
			return nil, argsErr()
		}
		r, err := crypto.G2ScalarMul(a, k.Big())
		if err != nil {
			return nil, pointErr(err)
		}
		return g2Value(r), nil
	}
	return nil, argsErr()
}

// PairingCheck is `pairing-check` with Pact 5.4 semantics: G2 points must
// be in the prime-order subgroup.
func PairingCheck(g1s, g2s Value) (Value, error) { return pairingCheck(g1s, g2s, true) }

// PairingCheckPre54 is `pairing-check` under P5's DisablePact54 flag:
// G2 points are only checked to be on the curve.
func PairingCheckPre54(g1s, g2s Value) (Value, error) { return pairingCheck(g1s, g2s, false) }

func pairingCheck(g1s, g2s Value, subgroup bool) (Value, error) {
	argsErr := func() error { return ArgsError("pairing-check", g1s, g2s) }
	l1, ok1 := g1s.(List)
	l2, ok2 := g2s.(List)
	if !ok1 || !ok2 {
		return nil, argsErr()
	}
	ps := make([]crypto.G1Point, len(l1))
	for i, v := range l1 {
		if ps[i], ok1 = g1Arg(v); !ok1 {
			return nil, argsErr()
		}
	}
	qs := make([]crypto.G2Point, len(l2))
	for i, v := range l2 {
		if qs[i], ok2 = g2Arg(v); !ok2 {
			return nil, argsErr()
		}
	}
	ok, err := crypto.PairingCheck(ps, qs, subgroup)
	if err != nil {
		return nil, pointErr(err)
	}
	return Bool(ok), nil
}

// Hyperlane. P5 reports problems with the Pact object as HyperlaneError
// and problems with an encoded token message as HyperlaneDecodeError.

func hyperlaneErr(msg string) error { return EvalError("Hyperlane native error: " + msg) }

func hyperlaneDecodeErr(msg string) error { return EvalError("Hyperlane decode error: " + msg) }

// hlString is P5's grabField for a string: a missing key and a value of
// the wrong type are the same error.
func hlString(o *Object, key string) (string, error) {
	if v, ok := o.Get(key); ok {
		if s, ok := v.(String); ok {
			return string(s), nil
		}
	}
	return "", hyperlaneErr("Failed to find key in object: " + key)
}

// hlUint is grabInt: an integer within [0, max].
func hlUint(o *Object, key string, max uint64) (uint64, error) {
	v, ok := o.Get(key)
	n, ok2 := v.(Integer)
	if !ok || !ok2 {
		return 0, hyperlaneErr("Failed to find key in object: " + key)
	}
	if n.Sign() < 0 || n.Big().Cmp(new(big.Int).SetUint64(max)) > 0 {
		return 0, hyperlaneErr("Object key " + key + " was out of bounds")
	}
	return n.Big().Uint64(), nil
}

// hlBytes reads a base64url string field; size >= 0 requires that length.
func hlBytes(o *Object, key string, size int) ([]byte, error) {
	s, err := hlString(o, key)
	if err != nil {
		return nil, err
	}
	b, err := crypto.DecodeBase64URL([]byte(s))
	if err != nil {
		return nil, hyperlaneErr("Invalid base64 encoding on field " + key)
	}
	if size >= 0 && len(b) != size {
		return nil, hyperlaneErr("Incorrect binary data size " + key + ". Expected: " +
			strconv.Itoa(size) + ", but got " + strconv.Itoa(len(b)))
	}
	return b, nil
}

// HyperlaneMessageID is `hyperlane-message-id`: the Keccak-256 id of a
// message object {version, nonce, originDomain, sender, destinationDomain,
// recipient, messageBody}, fields read and checked in that order.
func HyperlaneMessageID(obj Value) (Value, error) {
	o, ok := obj.(*Object)
	if !ok {
		return nil, ArgsError("hyperlane-message-id", obj)
	}
	var m crypto.HyperlaneMessage
	var err error
	var n uint64
	if n, err = hlUint(o, "version", 0xff); err != nil {
		return nil, err
	}
	m.Version = uint8(n)
	if n, err = hlUint(o, "nonce", 0xffffffff); err != nil {
		return nil, err
	}
	m.Nonce = uint32(n)
	if n, err = hlUint(o, "originDomain", 0xffffffff); err != nil {
		return nil, err
	}
	m.OriginDomain = uint32(n)
	if m.Sender, err = hlBytes(o, "sender", 32); err != nil {
		return nil, err
	}
	if n, err = hlUint(o, "destinationDomain", 0xffffffff); err != nil {
		return nil, err
	}
	m.DestinationDomain = uint32(n)
	if m.Recipient, err = hlBytes(o, "recipient", 32); err != nil {
		return nil, err
	}
	if m.Body, err = hlBytes(o, "messageBody", -1); err != nil {
		return nil, err
	}
	return String(crypto.HyperlaneMessageID(&m)), nil
}

// weiPerToken is 10^18: decoded amounts are divided by it (P5's
// wordToDecimal); encoding does not multiply, as the chain side aligns
// precisions.
var weiPerToken = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// HyperlaneDecodeTokenMessage is `hyperlane-decode-token-message`: a
// base64url token message to {recipient: guard, amount: decimal,
// chainId: string}. The recipient bytes must be a guard as JSON.
func HyperlaneDecodeTokenMessage(s Value) (Value, error) {
	str, ok := s.(String)
	if !ok {
		return nil, ArgsError("hyperlane-decode-token-message", s)
	}
	raw, err := crypto.DecodeBase64URL([]byte(str))
	if err != nil {
		return nil, hyperlaneDecodeErr("Failed to base64-decode token message")
	}
	tm, err := crypto.DecodeTokenMessage(raw)
	if err != nil {
		return nil, hyperlaneDecodeErr("Decoding error: binary decoding failed")
	}
	g, ok := decodeGuardJSON(tm.Recipient)
	if !ok {
		return nil, hyperlaneDecodeErr("Could not parse recipient into a guard")
	}
	amount := DecimalFromRat(new(big.Rat).SetFrac(tm.Amount, weiPerToken))
	return NewObject(
		Field{"recipient", g},
		Field{"amount", amount},
		Field{"chainId", String(strconv.Itoa(int(tm.ChainID)))},
	), nil
}

// HyperlaneEncodeTokenMessage is `hyperlane-encode-token-message`:
// {recipient: base64url string, amount: decimal, chainId: string} to the
// base64url token message. The amount is rounded half-to-even to an
// integer (P5's `round` into a Word256, so it wraps modulo 2^256).
func HyperlaneEncodeTokenMessage(obj Value) (Value, error) {
	o, ok := obj.(*Object)
	if !ok {
		return nil, ArgsError("hyperlane-encode-token-message", obj)
	}
	recipient, err := hlBytes(o, "recipient", -1)
	if err != nil {
		return nil, err
	}
	v, _ := o.Get("amount")
	d, ok := v.(Decimal)
	if !ok {
		return nil, hyperlaneErr("Failed to find key in object: amount")
	}
	cid, err := hlString(o, "chainId")
	if err != nil {
		return nil, err
	}
	chain, err := parseChainID(cid)
	if err != nil {
		return nil, err
	}
	tm := crypto.TokenMessage{
		Amount:    d.RoundTo(0, RoundHalfEven).Mantissa().Big(),
		ChainID:   chain,
		Recipient: recipient,
	}
	return String(crypto.EncodeBase64URL(crypto.EncodeTokenMessage(&tm))), nil
}

// parseChainID is P5's parseChainId, i.e. Data.Text.Read.decimal at type
// Word16: the leading ASCII digits, wrapping modulo 2^16, with anything
// after them ignored ("12abc" is 12, "65537" is 1).
func parseChainID(s string) (uint16, error) {
	var v uint16
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		v = v*10 + uint16(s[i]-'0')
	}
	if i == 0 {
		return 0, hyperlaneErr("Failed to decode chainId: input does not start with a digit")
	}
	return v, nil
}

// decodeGuardJSON is aeson's decoding of a StableEncoding Guard: the first
// of keyset ({keys, pred?}, or a bare array of keys meaning keys-all),
// keyset reference, user, capability, module and defpact guard shapes
// that parses.
func decodeGuardJSON(b []byte) (Value, bool) {
	n, err := parseJSONTree(b)
	if err != nil {
		return nil, false
	}
	if n.kind == 'a' {
		keys := make([]string, len(n.arr))
		for i, k := range n.arr {
			if k.kind != 's' {
				return nil, false
			}
			keys[i] = k.str
		}
		return NewKeySet(keys, KeysAll), true
	}
	for _, shape := range []func() (Value, bool, error){
		n.asKeySet, n.asKeySetRef, n.asUserGuard, n.asCapabilityGuard, n.asModuleGuard, n.asPactGuard,
	} {
		if v, ok, err := shape(); err == nil && ok {
			return v, true
		}
	}
	return nil, false
}
