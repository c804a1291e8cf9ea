package api

import (
	"slices"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/jsontext"
	"github.com/ledgernode/ledger-node/pact/value"
)

// The command wire format (spec §1.3). Decoders check every field they
// read and name the path of what they reject; unknown keys are ignored (as
// aeson does), a key given twice in one of the envelope's own objects is
// an error (so that no reader can see a different signer list or payload
// than the one that was signed). Encoders write P5's bytes.

// A Command is a signed transaction: the payload JSON (Cmd, hashed and
// signed byte for byte), its hash and one signature per signer.
type Command struct {
	Hash Hash
	Sigs []UserSig
	Cmd  string
}

// A UserSig is one entry of a command's sigs: {"sig": Sig}. Sig is 128
// hex digits for Ed25519, or for WebAuthn a JSON document (see
// WebAuthnSignature).
type UserSig struct {
	Sig string
}

// SubmitBatch is the body of /send and the output of pact -a:
// {"cmds": [CMD, ...]}.
type SubmitBatch struct {
	Cmds []*Command
}

// Scheme is a signer's key scheme. The empty Scheme is an absent "scheme"
// key, which means ED25519.
type Scheme string

const (
	SchemeNone     Scheme = ""
	SchemeED25519  Scheme = "ED25519"
	SchemeWebAuthn Scheme = "WebAuthn"
)

// Payload is the JSON inside a command's cmd.
type Payload struct {
	// NetworkID is null when nil.
	NetworkID *string
	// Exactly one of Exec and Cont is set.
	Exec *ExecMsg
	Cont *ContMsg
	// Signers correspond one to one with the command's sigs.
	Signers []Signer
	// Verifiers: the "verifiers" key is omitted when there are none.
	Verifiers []Verifier
	Meta      Meta
	Nonce     string
}

// ExecMsg is {"exec": {"data": Data, "code": Code}}. Data is unit (null)
// when absent.
type ExecMsg struct {
	Code string
	Data value.Value
}

// ContMsg is {"cont": {"proof", "data", "pactId", "rollback", "step"}}:
// the continuation of a defpact.
type ContMsg struct {
	PactID   string
	Step     int64
	Rollback bool
	Data     value.Value
	// Proof is the SPV proof, null when nil.
	Proof *string
}

// A Signer is {"addr"?, "scheme"?, "pubKey", "clist"?}: "addr" and
// "scheme" are omitted when absent, "clist" when empty.
type Signer struct {
	Addr   *string
	Scheme Scheme
	PubKey string
	Clist  []SigCapability
}

// A SigCapability is {"name": "mod.CAP" or "ns.mod.CAP", "args": [...]}.
type SigCapability struct {
	Name string
	Args []value.Value
}

// A Verifier is {"name", "proof", "clist"}.
type Verifier struct {
	Name  string
	Proof value.Value
	Clist []SigCapability
}

// Meta is a payload's "meta": public meta (the usual case) or private
// meta (DECISIONS.md, `private`). Exactly one is set.
type Meta struct {
	Public  *PublicMeta
	Private *PrivateMeta
}

// PublicMeta is {"creationTime", "ttl", "gasLimit", "chainId", "gasPrice",
// "sender"}. On input the integers may be numbers (rounded), numeric
// strings or {"int": n}; gasPrice a number or a numeric string. GasLimit
// saturates at 0 and 2^64-1 as P5's does.
type PublicMeta struct {
	CreationTime int64
	TTL          int64
	GasLimit     uint64
	ChainID      string
	GasPrice     value.Decimal
	Sender       string
	// GasLimitInexact says the gas limit as written was not a whole number of gas in range:
	// a fraction (rounded) or a number below 0 or above 2^64-1 (saturated). Blocks take it as
	// P5 does; /send refuses such a command (mempool), where the rounding would only hide a
	// client's mistake.
	GasLimitInexact bool
}

// PrivateMeta is {"address": {"to": [entity...], "from": entity}} or
// {"address": null}.
type PrivateMeta struct {
	Address *Address
}

// Address names the sending entity and the receiving ones (To is sorted
// and without repetitions, a set).
type Address struct {
	From string
	To   []string
}

// ---------------------------------------------------------------------------
// Decoding

// DecodeCommand decodes a command's JSON.
func DecodeCommand(data []byte) (*Command, error) {
	n, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	return decodeCommand(n, "")
}

// DecodeSubmitBatch decodes {"cmds": [CMD, ...]}, which must hold at least
// one command.
func DecodeSubmitBatch(data []byte) (*SubmitBatch, error) {
	n, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if err := object(n, "", true); err != nil {
		return nil, err
	}
	v, err := required(n, "cmds", "")
	if err != nil {
		return nil, err
	}
	elems, err := array(v, "cmds")
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, errAt(v, "cmds", "no commands")
	}
	b := &SubmitBatch{Cmds: make([]*Command, len(elems))}
	for i, e := range elems {
		if b.Cmds[i], err = decodeCommand(e, index("cmds", i)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func decodeCommand(n *node, path string) (*Command, error) {
	if err := object(n, path, true); err != nil {
		return nil, err
	}
	c := &Command{}
	var err error
	if c.Cmd, err = requiredString(n, "cmd", path); err != nil {
		return nil, err
	}
	sigs, err := required(n, "sigs", path)
	if err != nil {
		return nil, err
	}
	elems, err := array(sigs, join(path, "sigs"))
	if err != nil {
		return nil, err
	}
	c.Sigs = make([]UserSig, len(elems))
	for i, e := range elems {
		p := index(join(path, "sigs"), i)
		if err := object(e, p, true); err != nil {
			return nil, err
		}
		if c.Sigs[i].Sig, err = requiredString(e, "sig", p); err != nil {
			return nil, err
		}
	}
	h, err := requiredString(n, "hash", path)
	if err != nil {
		return nil, err
	}
	if c.Hash, err = ParseHash(h); err != nil {
		return nil, errAt(n, join(path, "hash"), "%v", err)
	}
	return c, nil
}

// DecodePayload decodes the payload JSON of a command's cmd.
func DecodePayload(data []byte) (*Payload, error) {
	n, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	return decodePayload(n, "")
}

func decodePayload(n *node, path string) (*Payload, error) {
	if err := object(n, path, true); err != nil {
		return nil, err
	}
	p := &Payload{}
	rpc, err := required(n, "payload", path)
	if err != nil {
		return nil, err
	}
	if err := decodeRPC(p, rpc, join(path, "payload")); err != nil {
		return nil, err
	}
	if p.Nonce, err = requiredString(n, "nonce", path); err != nil {
		return nil, err
	}
	meta, err := required(n, "meta", path)
	if err != nil {
		return nil, err
	}
	if p.Meta, err = decodeMeta(meta, join(path, "meta")); err != nil {
		return nil, err
	}
	signers, err := required(n, "signers", path)
	if err != nil {
		return nil, err
	}
	elems, err := array(signers, join(path, "signers"))
	if err != nil {
		return nil, err
	}
	p.Signers = make([]Signer, len(elems))
	for i, e := range elems {
		if p.Signers[i], err = decodeSigner(e, index(join(path, "signers"), i)); err != nil {
			return nil, err
		}
	}
	if v, ok := n.opt("verifiers"); ok {
		elems, err := array(v, join(path, "verifiers"))
		if err != nil {
			return nil, err
		}
		p.Verifiers = make([]Verifier, len(elems))
		for i, e := range elems {
			if p.Verifiers[i], err = decodeVerifier(e, index(join(path, "verifiers"), i), true); err != nil {
				return nil, err
			}
		}
	}
	if p.NetworkID, err = optString(n, "networkId", path); err != nil {
		return nil, err
	}
	return p, nil
}

func decodeRPC(p *Payload, n *node, path string) error {
	if err := object(n, path, true); err != nil {
		return err
	}
	if v, ok := n.get("exec"); ok {
		path = join(path, "exec")
		if err := object(v, path, true); err != nil {
			return err
		}
		code, err := requiredString(v, "code", path)
		if err != nil {
			return err
		}
		data := value.UnitValue
		if d, ok := v.opt("data"); ok {
			if data, err = pactValue(d, join(path, "data")); err != nil {
				return err
			}
		}
		p.Exec = &ExecMsg{Code: code, Data: data}
		return nil
	}
	v, ok := n.get("cont")
	if !ok {
		return errAt(n, path, `expected an object with an "exec" or a "cont" key`)
	}
	path = join(path, "cont")
	if err := object(v, path, true); err != nil {
		return err
	}
	c := &ContMsg{}
	var err error
	if c.PactID, err = requiredString(v, "pactId", path); err != nil {
		return err
	}
	step, err := required(v, "step", path)
	if err != nil {
		return err
	}
	if c.Step, err = intValue(step, join(path, "step")); err != nil {
		return err
	}
	rb, err := required(v, "rollback", path)
	if err != nil {
		return err
	}
	if err := want(rb, kBool, join(path, "rollback")); err != nil {
		return err
	}
	c.Rollback = rb.b
	d, err := required(v, "data", path)
	if err != nil {
		return err
	}
	if c.Data, err = pactValue(d, join(path, "data")); err != nil {
		return err
	}
	if c.Proof, err = optString(v, "proof", path); err != nil {
		return err
	}
	p.Cont = c
	return nil
}

func decodeSigner(n *node, path string) (Signer, error) {
	var s Signer
	if err := object(n, path, true); err != nil {
		return s, err
	}
	var err error
	if v, ok := n.opt("scheme"); ok {
		if s.Scheme, err = decodeScheme(v, join(path, "scheme")); err != nil {
			return s, err
		}
	}
	if s.PubKey, err = requiredString(n, "pubKey", path); err != nil {
		return s, err
	}
	if s.Addr, err = optString(n, "addr", path); err != nil {
		return s, err
	}
	if v, ok := n.opt("clist"); ok {
		if s.Clist, err = decodeCaps(v, join(path, "clist"), true); err != nil {
			return s, err
		}
	}
	return s, nil
}

func decodeScheme(n *node, path string) (Scheme, error) {
	if err := want(n, kString, path); err != nil {
		return "", err
	}
	switch s := Scheme(n.str); s {
	case SchemeED25519, SchemeWebAuthn:
		return s, nil
	}
	return "", errAt(n, path, `invalid scheme %s: want "ED25519" or "WebAuthn"`, quoteShort(n.str))
}

func decodeCaps(n *node, path string, strict bool) ([]SigCapability, error) {
	elems, err := array(n, path)
	if err != nil {
		return nil, err
	}
	caps := make([]SigCapability, len(elems))
	for i, e := range elems {
		if caps[i], err = decodeCap(e, index(path, i), strict); err != nil {
			return nil, err
		}
	}
	return caps, nil
}

func decodeCap(n *node, path string, strict bool) (SigCapability, error) {
	var c SigCapability
	if err := object(n, path, strict); err != nil {
		return c, err
	}
	name, err := required(n, "name", path)
	if err != nil {
		return c, err
	}
	if c.Name, err = qualifiedName(name, join(path, "name")); err != nil {
		return c, err
	}
	args, err := required(n, "args", path)
	if err != nil {
		return c, err
	}
	elems, err := array(args, join(path, "args"))
	if err != nil {
		return c, err
	}
	c.Args = make([]value.Value, len(elems))
	for i, e := range elems {
		if c.Args[i], err = pactValue(e, index(join(path, "args"), i)); err != nil {
			return c, err
		}
	}
	return c, nil
}

func qualifiedName(n *node, path string) (string, error) {
	if err := want(n, kString, path); err != nil {
		return "", err
	}
	if _, ok := value.ParseQualifiedName(n.str); !ok {
		return "", errAt(n, path, `%s is not a qualified name (want "module.NAME" or "namespace.module.NAME")`, quoteShort(n.str))
	}
	return n.str, nil
}

func decodeVerifier(n *node, path string, strict bool) (Verifier, error) {
	var v Verifier
	if err := object(n, path, strict); err != nil {
		return v, err
	}
	var err error
	if v.Name, err = requiredString(n, "name", path); err != nil {
		return v, err
	}
	proof, err := required(n, "proof", path)
	if err != nil {
		return v, err
	}
	if v.Proof, err = pactValue(proof, join(path, "proof")); err != nil {
		return v, err
	}
	clist, err := required(n, "clist", path)
	if err != nil {
		return v, err
	}
	if v.Clist, err = decodeCaps(clist, join(path, "clist"), strict); err != nil {
		return v, err
	}
	return v, nil
}

func decodeMeta(n *node, path string) (Meta, error) {
	if err := object(n, path, true); err != nil {
		return Meta{}, err
	}
	if _, ok := n.get("address"); ok {
		pm, err := decodePrivateMeta(n, path)
		return Meta{Private: pm}, err
	}
	pm, err := decodePublicMeta(n, path)
	return Meta{Public: pm}, err
}

func decodePublicMeta(n *node, path string) (*PublicMeta, error) {
	m := &PublicMeta{}
	var err error
	if m.ChainID, err = requiredString(n, "chainId", path); err != nil {
		return nil, err
	}
	if m.Sender, err = requiredString(n, "sender", path); err != nil {
		return nil, err
	}
	v, err := required(n, "gasLimit", path)
	if err != nil {
		return nil, err
	}
	if m.GasLimit, m.GasLimitInexact, err = gasLimitValue(v, join(path, "gasLimit")); err != nil {
		return nil, err
	}
	if v, err = required(n, "gasPrice", path); err != nil {
		return nil, err
	}
	if m.GasPrice, err = gasPriceValue(v, join(path, "gasPrice")); err != nil {
		return nil, err
	}
	if v, err = required(n, "ttl", path); err != nil {
		return nil, err
	}
	if m.TTL, err = int64Value(v, join(path, "ttl")); err != nil {
		return nil, err
	}
	if v, err = required(n, "creationTime", path); err != nil {
		return nil, err
	}
	if m.CreationTime, err = int64Value(v, join(path, "creationTime")); err != nil {
		return nil, err
	}
	return m, nil
}

func decodePrivateMeta(n *node, path string) (*PrivateMeta, error) {
	v, ok := n.opt("address")
	if !ok {
		return &PrivateMeta{}, nil
	}
	path = join(path, "address")
	if err := object(v, path, true); err != nil {
		return nil, err
	}
	a := &Address{}
	var err error
	if a.From, err = requiredString(v, "from", path); err != nil {
		return nil, err
	}
	to, err := required(v, "to", path)
	if err != nil {
		return nil, err
	}
	elems, err := array(to, join(path, "to"))
	if err != nil {
		return nil, err
	}
	for i, e := range elems {
		if err := want(e, kString, index(join(path, "to"), i)); err != nil {
			return nil, err
		}
		a.To = append(a.To, e.str)
	}
	slices.Sort(a.To)
	a.To = slices.Compact(a.To)
	return &PrivateMeta{Address: a}, nil
}

// pactValue decodes a Pact value (spec §2.6): numbers are decimals,
// {"int": n} integers, and so on.
func pactValue(n *node, path string) (value.Value, error) {
	v, err := value.DecodeJSON(n.appendJSON(nil))
	if err != nil {
		return nil, errAt(n, path, "%v", err)
	}
	return v, nil
}

// intValue is aeson's Int: a number with an integral value that fits.
func intValue(n *node, path string) (int64, error) {
	if err := want(n, kNumber, path); err != nil {
		return 0, err
	}
	neg, digits, exp := splitNumber(n.str)
	// Bring the value to an integer: drop zeros the exponent removes.
	for exp < 0 && len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if digits == "" {
		return 0, nil
	}
	if exp < 0 {
		return 0, errAt(n, path, "expected an integer, got %s", n.str)
	}
	if int64(len(digits))+exp > 19 {
		return 0, errAt(n, path, "integer %s out of range", n.str)
	}
	text := digits + zeros(int(exp))
	if neg {
		text = "-" + text
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, errAt(n, path, "integer %s out of range", n.str)
	}
	return v, nil
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

// splitNumber splits JSON number text into its sign, its significant
// digits (no leading zeros; empty for zero) and the power of ten they are
// scaled by. The exponent saturates far beyond any value we accept.
func splitNumber(s string) (neg bool, digits string, exp int64) {
	if s != "" && s[0] == '-' {
		neg, s = true, s[1:]
	}
	mant, e, hasExp := s, "", false
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			mant, e, hasExp = s[:i], s[i+1:], true
			break
		}
	}
	intPart, frac := mant, ""
	for i := 0; i < len(mant); i++ {
		if mant[i] == '.' {
			intPart, frac = mant[:i], mant[i+1:]
			break
		}
	}
	digits = intPart + frac
	exp = -int64(len(frac))
	if hasExp {
		eneg := false
		if e != "" && (e[0] == '+' || e[0] == '-') {
			eneg, e = e[0] == '-', e[1:]
		}
		var ev int64
		for i := 0; i < len(e); i++ {
			if ev < 1<<40 {
				ev = ev*10 + int64(e[i]-'0')
			}
		}
		if eneg {
			ev = -ev
		}
		exp += ev
	}
	i := 0
	for i < len(digits) && digits[i] == '0' {
		i++
	}
	digits = digits[i:]
	return neg, digits, exp
}

// parsedInteger is P5's ParsedInteger: a number (rounded half to even), a
// string holding an integer literal, or an integer value such as
// {"int": n}.
func parsedInteger(n *node, path string) (value.Integer, error) {
	switch n.kind {
	case kString:
		v, err := value.ParseNumber(n.str)
		if i, ok := v.(value.Integer); ok && err == nil {
			return i, nil
		}
		return value.Integer{}, errAt(n, path, "expected an integer, got the string %s", quoteShort(n.str))
	case kNumber:
		if _, digits, exp := splitNumber(n.str); digits != "" && int64(len(digits))+exp > 400 {
			return value.Integer{}, errAt(n, path, "integer %s out of range", n.str)
		}
		v, err := value.DecodeJSON([]byte(n.str))
		if d, ok := v.(value.Decimal); ok && err == nil {
			return d.RoundTo(0, value.RoundHalfEven).Mantissa(), nil
		}
		return value.Integer{}, errAt(n, path, "invalid number %s", n.str)
	case kObject:
		v, err := value.DecodeJSON(n.appendJSON(nil))
		if i, ok := v.(value.Integer); ok && err == nil {
			return i, nil
		}
	}
	return value.Integer{}, errAt(n, path, "expected an integer (a number, a numeric string or {\"int\": n}), got %s", n.describe())
}

func int64Value(n *node, path string) (int64, error) {
	i, err := parsedInteger(n, path)
	if err != nil {
		return 0, err
	}
	if !i.IsSmall() {
		if b := i.Big(); b.IsInt64() {
			return b.Int64(), nil
		}
		return 0, errAt(n, path, "integer %s out of range", i.Text())
	}
	return i.Int64(), nil
}

// gasLimitValue is P5's GasLimit: an integer saturated to a 64-bit word. inexact says the
// number as written was not that word: a fraction P5 rounds, or a value it saturates.
func gasLimitValue(n *node, path string) (g uint64, inexact bool, err error) {
	i, err := parsedInteger(n, path)
	if err != nil {
		return 0, false, err
	}
	if n.kind == kNumber {
		if v, err := value.DecodeJSON([]byte(n.str)); err == nil {
			if d, ok := v.(value.Decimal); ok {
				inexact = !d.RoundTo(0, value.RoundHalfEven).Equal(d)
			}
		}
	}
	switch b := i.Big(); {
	case b.Sign() < 0:
		return 0, true, nil
	case b.IsUint64():
		return b.Uint64(), inexact, nil
	}
	return ^uint64(0), true, nil
}

// gasPriceValue is P5's GasPrice: a number, or a string holding a numeric
// literal.
func gasPriceValue(n *node, path string) (value.Decimal, error) {
	switch n.kind {
	case kString:
		v, err := value.ParseNumber(n.str)
		if err == nil {
			switch x := v.(type) {
			case value.Decimal:
				return x, nil
			case value.Integer:
				return value.DecimalFromInt(x), nil
			}
		}
		return value.Decimal{}, errAt(n, path, "expected a decimal, got the string %s", quoteShort(n.str))
	case kNumber:
		v, err := value.DecodeJSON([]byte(n.str))
		if d, ok := v.(value.Decimal); ok && err == nil {
			return d, nil
		}
		return value.Decimal{}, errAt(n, path, "invalid number %s", n.str)
	}
	return value.Decimal{}, errAt(n, path, "expected a decimal, got %s", n.describe())
}

// ---------------------------------------------------------------------------
// Encoding

// AppendJSON appends {"hash","sigs","cmd"}.
func (c *Command) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"hash":`...)
	buf = jsontext.AppendString(buf, c.Hash.String())
	buf = append(buf, `,"sigs":[`...)
	for i, s := range c.Sigs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"sig":`...)
		buf = jsontext.AppendString(buf, s.Sig)
		buf = append(buf, '}')
	}
	buf = append(buf, `],"cmd":`...)
	buf = jsontext.AppendString(buf, c.Cmd)
	return append(buf, '}')
}

// JSON is the command's JSON.
func (c *Command) JSON() []byte { return c.AppendJSON(nil) }

// AppendJSON appends {"cmds":[...]}.
func (b *SubmitBatch) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"cmds":[`...)
	for i, c := range b.Cmds {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = c.AppendJSON(buf)
	}
	return append(buf, "]}"...)
}

// AppendJSON appends the payload JSON in P5's key order: networkId,
// payload, signers, verifiers (omitted when none), meta, nonce. It fails
// only for a Pact value that has no JSON form (a closure).
func (p *Payload) AppendJSON(buf []byte) ([]byte, error) {
	var err error
	buf = append(buf, `{"networkId":`...)
	if p.NetworkID == nil {
		buf = append(buf, "null"...)
	} else {
		buf = jsontext.AppendString(buf, *p.NetworkID)
	}
	buf = append(buf, `,"payload":`...)
	switch {
	case p.Exec != nil:
		buf = append(buf, `{"exec":{"data":`...)
		if buf, err = appendValue(buf, p.Exec.Data); err != nil {
			return nil, err
		}
		buf = append(buf, `,"code":`...)
		buf = jsontext.AppendString(buf, p.Exec.Code)
		buf = append(buf, "}}"...)
	case p.Cont != nil:
		c := p.Cont
		buf = append(buf, `{"cont":{"proof":`...)
		if c.Proof == nil {
			buf = append(buf, "null"...)
		} else {
			buf = jsontext.AppendString(buf, *c.Proof)
		}
		buf = append(buf, `,"data":`...)
		if buf, err = appendValue(buf, c.Data); err != nil {
			return nil, err
		}
		buf = append(buf, `,"pactId":`...)
		buf = jsontext.AppendString(buf, c.PactID)
		buf = append(buf, `,"rollback":`...)
		buf = strconv.AppendBool(buf, c.Rollback)
		buf = append(buf, `,"step":`...)
		buf = strconv.AppendInt(buf, c.Step, 10)
		buf = append(buf, "}}"...)
	default:
		buf = append(buf, "null"...)
	}
	buf = append(buf, `,"signers":[`...)
	for i := range p.Signers {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = p.Signers[i].AppendJSON(buf); err != nil {
			return nil, err
		}
	}
	buf = append(buf, ']')
	if len(p.Verifiers) > 0 {
		buf = append(buf, `,"verifiers":[`...)
		for i := range p.Verifiers {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = p.Verifiers[i].AppendJSON(buf); err != nil {
				return nil, err
			}
		}
		buf = append(buf, ']')
	}
	buf = append(buf, `,"meta":`...)
	buf = p.Meta.AppendJSON(buf)
	buf = append(buf, `,"nonce":`...)
	buf = jsontext.AppendString(buf, p.Nonce)
	return append(buf, '}'), nil
}

// JSON is the payload's JSON.
func (p *Payload) JSON() ([]byte, error) { return p.AppendJSON(nil) }

func appendValue(buf []byte, v value.Value) ([]byte, error) {
	if v == nil {
		v = value.UnitValue
	}
	return value.AppendJSON(buf, v)
}

// AppendJSON appends {"addr"?,"scheme"?,"pubKey","clist"?}.
func (s *Signer) AppendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, '{')
	if s.Addr != nil {
		buf = append(buf, `"addr":`...)
		buf = jsontext.AppendString(buf, *s.Addr)
		buf = append(buf, ',')
	}
	if s.Scheme != SchemeNone {
		buf = append(buf, `"scheme":`...)
		buf = jsontext.AppendString(buf, string(s.Scheme))
		buf = append(buf, ',')
	}
	buf = append(buf, `"pubKey":`...)
	buf = jsontext.AppendString(buf, s.PubKey)
	if len(s.Clist) > 0 {
		buf = append(buf, `,"clist":`...)
		var err error
		if buf, err = appendCaps(buf, s.Clist); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

func appendCaps(buf []byte, caps []SigCapability) ([]byte, error) {
	buf = append(buf, '[')
	for i := range caps {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = caps[i].AppendJSON(buf); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

// AppendJSON appends {"name","args"} (P5's order).
func (c *SigCapability) AppendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, `{"name":`...)
	buf = jsontext.AppendString(buf, c.Name)
	buf = append(buf, `,"args":[`...)
	for i, a := range c.Args {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = appendValue(buf, a); err != nil {
			return nil, err
		}
	}
	return append(buf, "]}"...), nil
}

// AppendJSON appends {"name","proof","clist"} ("clist" even when empty).
func (v *Verifier) AppendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, `{"name":`...)
	buf = jsontext.AppendString(buf, v.Name)
	buf = append(buf, `,"proof":`...)
	var err error
	if buf, err = appendValue(buf, v.Proof); err != nil {
		return nil, err
	}
	buf = append(buf, `,"clist":`...)
	if buf, err = appendCaps(buf, v.Clist); err != nil {
		return nil, err
	}
	return append(buf, '}'), nil
}

// AppendJSON appends the meta object.
func (m Meta) AppendJSON(buf []byte) []byte {
	switch {
	case m.Private != nil:
		buf = append(buf, `{"address":`...)
		if a := m.Private.Address; a == nil {
			buf = append(buf, "null"...)
		} else {
			buf = append(buf, `{"to":[`...)
			for i, t := range a.To {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = jsontext.AppendString(buf, t)
			}
			buf = append(buf, `],"from":`...)
			buf = jsontext.AppendString(buf, a.From)
			buf = append(buf, '}')
		}
		return append(buf, '}')
	case m.Public != nil:
		return m.Public.AppendJSON(buf)
	}
	return append(buf, "null"...)
}

// AppendJSON appends {"creationTime","ttl","gasLimit","chainId","gasPrice",
// "sender"}; gasPrice is a JSON number written as aeson writes it.
func (m *PublicMeta) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"creationTime":`...)
	buf = strconv.AppendInt(buf, m.CreationTime, 10)
	buf = append(buf, `,"ttl":`...)
	buf = strconv.AppendInt(buf, m.TTL, 10)
	buf = append(buf, `,"gasLimit":`...)
	buf = strconv.AppendUint(buf, m.GasLimit, 10)
	buf = append(buf, `,"chainId":`...)
	buf = jsontext.AppendString(buf, m.ChainID)
	buf = append(buf, `,"gasPrice":`...)
	buf = append(buf, value.ScientificText(m.GasPrice)...)
	buf = append(buf, `,"sender":`...)
	buf = jsontext.AppendString(buf, m.Sender)
	return append(buf, '}')
}
