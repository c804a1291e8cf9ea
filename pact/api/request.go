package api

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ledgernode/ledger-node/pact/value"
)

// A Request is a request YAML (spec §1.2) as read, before defaults. Slices
// are nil when their key is absent (or null) and non-nil, possibly empty,
// when it is given.
type Request struct {
	// Type is "exec", "cont" or "" (exec).
	Type     string
	Code     *string
	CodeFile *string
	// Data is nil when absent; DataFile is a JSON file.
	Data     value.Value
	DataFile *string
	// KeyPairs sign the command (pact -a); Signers name the signers of an
	// unsigned one (pact -u only).
	KeyPairs   []RequestKeyPair
	Signers    []RequestSigner
	Verifiers  []Verifier
	Nonce      *string
	NetworkID  *string
	PublicMeta *RequestMeta
	// Continuation fields.
	PactTxHash *Hash
	Step       *int64
	Rollback   *bool
	Proof      *string
}

// A RequestKeyPair is one of keyPairs: an Ed25519 key pair (Secret is the
// 64-hex seed; Public, if given, must be its public key; Address, if given,
// must equal it) or, with Scheme WebAuthn, a test WebAuthn key (Public the
// hex COSE key, Secret its 32-byte secret).
type RequestKeyPair struct {
	Public  *string
	Secret  string
	Address *string
	Scheme  Scheme
	Caps    []SigCapability
}

// A RequestSigner is one of signers (pact -u): copied into the payload as
// given.
type RequestSigner struct {
	Public  string
	Address *string
	Scheme  Scheme
	Caps    []SigCapability
}

// RequestMeta is publicMeta; nil fields are absent.
type RequestMeta struct {
	ChainID      *string
	Sender       *string
	GasLimit     *uint64
	GasPrice     *value.Decimal
	TTL          *int64
	CreationTime *int64
}

// The keys of each mapping of a request YAML, those P5's ApiReq,
// ApiKeyPair, ApiSigner and ApiPublicMeta decoders read.
var (
	requestKeys = []string{"type", "code", "codeFile", "data", "dataFile", "keyPairs", "signers", "verifiers",
		"nonce", "networkId", "publicMeta", "pactTxHash", "step", "rollback", "proof"}
	keyPairKeys = []string{"public", "secret", "address", "scheme", "caps"}
	signerKeys  = []string{"public", "address", "scheme", "caps"}
	metaKeys    = []string{"chainId", "sender", "gasLimit", "gasPrice", "ttl", "creationTime"}
	// The wire types a request holds: a capability, a verifier.
	capKeys      = []string{"name", "args"}
	verifierKeys = []string{"name", "proof", "clist"}
)

// onlyKeys refuses a key of the mapping n that is not one of valid. P5
// ignores unknown keys; we refuse them, because a misspelt key (gaslimit,
// keypairs, chainID) would otherwise build a different command than the
// one meant without a word: its default takes its place.
func onlyKeys(n *node, path string, valid []string) error {
	for i, k := range n.keys {
		if slices.Contains(valid, k) {
			continue
		}
		where := ""
		if path != "" {
			where = " of " + path
		}
		return errAt(n.vals[i], join(path, k), "unknown key; the valid keys%s are %s", where, strings.Join(valid, ", "))
	}
	return nil
}

// requestCapKeys refuses unknown keys in a list of capabilities (caps,
// clist) before the wire decoder, which ignores them, reads it.
func requestCapKeys(n *node, path string) error {
	if n.kind != kArray {
		return nil // the decoder says what is wrong
	}
	for i, e := range n.elems {
		if e.kind == kObject {
			if err := onlyKeys(e, index(path, i), capKeys); err != nil {
				return err
			}
		}
	}
	return nil
}

// requestVerifierKeys refuses unknown keys in a verifier and its clist.
func requestVerifierKeys(n *node, path string) error {
	if n.kind != kObject {
		return nil
	}
	if err := onlyKeys(n, path, verifierKeys); err != nil {
		return err
	}
	if c, ok := n.get("clist"); ok {
		return requestCapKeys(c, join(path, "clist"))
	}
	return nil
}

// ParseRequest reads a request YAML. Null is the same as absent, as in P5;
// unknown keys are refused (onlyKeys), at every level P5's decoders define:
// the request, publicMeta, each key pair and each signer, and the
// capabilities and verifiers they hold.
func ParseRequest(data []byte) (*Request, error) {
	n, err := parseYAML(data)
	if err != nil {
		return nil, err
	}
	if n.kind != kObject {
		return nil, errAt(n, "", "expected a mapping of request fields, got %s", n.describe())
	}
	if err := onlyKeys(n, "", requestKeys); err != nil {
		return nil, err
	}
	r := &Request{}
	if t, err := optString(n, "type", ""); err != nil {
		return nil, err
	} else if t != nil {
		r.Type = *t
	}
	if r.PublicMeta, err = requestMeta(n); err != nil {
		return nil, err
	}
	if r.Proof, err = optString(n, "proof", ""); err != nil {
		return nil, err
	}
	if v, ok := n.opt("data"); ok {
		if r.Data, err = pactValue(v, "data"); err != nil {
			return nil, err
		}
	}
	if r.NetworkID, err = optString(n, "networkId", ""); err != nil {
		return nil, err
	}
	if r.Rollback, err = optBool(n, "rollback", ""); err != nil {
		return nil, err
	}
	if v, ok := n.opt("signers"); ok {
		elems, err := array(v, "signers")
		if err != nil {
			return nil, err
		}
		r.Signers = make([]RequestSigner, len(elems))
		for i, e := range elems {
			if r.Signers[i], err = requestSigner(e, index("signers", i)); err != nil {
				return nil, err
			}
		}
	}
	if v, ok := n.opt("verifiers"); ok {
		elems, err := array(v, "verifiers")
		if err != nil {
			return nil, err
		}
		r.Verifiers = make([]Verifier, len(elems))
		for i, e := range elems {
			if err := requestVerifierKeys(e, index("verifiers", i)); err != nil {
				return nil, err
			}
			if r.Verifiers[i], err = decodeVerifier(e, index("verifiers", i), false); err != nil {
				return nil, err
			}
		}
	}
	if v, ok := n.opt("step"); ok {
		s, err := intValue(v, "step")
		if err != nil {
			return nil, err
		}
		r.Step = &s
	}
	if r.Code, err = optString(n, "code", ""); err != nil {
		return nil, err
	}
	if h, err := optString(n, "pactTxHash", ""); err != nil {
		return nil, err
	} else if h != nil {
		v, _ := n.get("pactTxHash")
		hash, err := ParseHash(*h)
		if err != nil {
			return nil, errAt(v, "pactTxHash", "%v", err)
		}
		r.PactTxHash = &hash
	}
	if r.CodeFile, err = optString(n, "codeFile", ""); err != nil {
		return nil, err
	}
	if v, ok := n.opt("keyPairs"); ok {
		elems, err := array(v, "keyPairs")
		if err != nil {
			return nil, err
		}
		r.KeyPairs = make([]RequestKeyPair, len(elems))
		for i, e := range elems {
			if r.KeyPairs[i], err = requestKeyPair(e, index("keyPairs", i)); err != nil {
				return nil, err
			}
		}
	}
	if r.DataFile, err = optString(n, "dataFile", ""); err != nil {
		return nil, err
	}
	if r.Nonce, err = optString(n, "nonce", ""); err != nil {
		return nil, err
	}
	return r, nil
}

func requestKeyPair(n *node, path string) (RequestKeyPair, error) {
	var kp RequestKeyPair
	if err := want(n, kObject, path); err != nil {
		return kp, err
	}
	if err := onlyKeys(n, path, keyPairKeys); err != nil {
		return kp, err
	}
	sec, err := required(n, "secret", path)
	if err != nil {
		return kp, err
	}
	if kp.Secret, err = hexField(sec, join(path, "secret")); err != nil {
		return kp, err
	}
	if v, ok := n.opt("public"); ok {
		s, err := hexField(v, join(path, "public"))
		if err != nil {
			return kp, err
		}
		kp.Public = &s
	}
	if kp.Address, err = optString(n, "address", path); err != nil {
		return kp, err
	}
	if v, ok := n.opt("scheme"); ok {
		if kp.Scheme, err = decodeScheme(v, join(path, "scheme")); err != nil {
			return kp, err
		}
	}
	if v, ok := n.opt("caps"); ok {
		if err := requestCapKeys(v, join(path, "caps")); err != nil {
			return kp, err
		}
		if kp.Caps, err = decodeCaps(v, join(path, "caps"), false); err != nil {
			return kp, err
		}
	}
	return kp, nil
}

// hexField is a hex string (P5 decodes keys when it reads them).
func hexField(n *node, path string) (string, error) {
	if err := want(n, kString, path); err != nil {
		return "", err
	}
	if _, err := hex.DecodeString(n.str); err != nil {
		return "", errAt(n, path, "not hex: %v", hexError(err))
	}
	return n.str, nil
}

func requestSigner(n *node, path string) (RequestSigner, error) {
	var s RequestSigner
	if err := want(n, kObject, path); err != nil {
		return s, err
	}
	if err := onlyKeys(n, path, signerKeys); err != nil {
		return s, err
	}
	var err error
	if s.Public, err = requiredString(n, "public", path); err != nil {
		return s, err
	}
	if s.Address, err = optString(n, "address", path); err != nil {
		return s, err
	}
	if v, ok := n.opt("scheme"); ok {
		if s.Scheme, err = decodeScheme(v, join(path, "scheme")); err != nil {
			return s, err
		}
	}
	if v, ok := n.opt("caps"); ok {
		if err := requestCapKeys(v, join(path, "caps")); err != nil {
			return s, err
		}
		if s.Caps, err = decodeCaps(v, join(path, "caps"), false); err != nil {
			return s, err
		}
	}
	return s, nil
}

func requestMeta(n *node) (*RequestMeta, error) {
	v, ok := n.opt("publicMeta")
	if !ok {
		return nil, nil
	}
	const path = "publicMeta"
	if err := want(v, kObject, path); err != nil {
		return nil, err
	}
	if err := onlyKeys(v, path, metaKeys); err != nil {
		return nil, err
	}
	m := &RequestMeta{}
	if c, ok := v.opt("chainId"); ok {
		if c.kind != kString {
			msg := fmt.Sprintf("expected a string, got %s", c.describe())
			if c.kind == kNumber {
				msg += fmt.Sprintf(` (write chainId: "%s")`, c.str)
			}
			return nil, errAt(c, join(path, "chainId"), "%s", msg)
		}
		s := c.str
		m.ChainID = &s
	}
	var err error
	if m.Sender, err = optString(v, "sender", path); err != nil {
		return nil, err
	}
	if c, ok := v.opt("gasLimit"); ok {
		g, inexact, err := gasLimitValue(c, join(path, "gasLimit"))
		if err != nil {
			return nil, err
		}
		if inexact {
			// A node refuses such a command at /send: say so here, where it is written.
			return nil, errAt(c, join(path, "gasLimit"), "%s is not a whole number of gas (0 to %d)", c.describe(), ^uint64(0))
		}
		m.GasLimit = &g
	}
	if c, ok := v.opt("gasPrice"); ok {
		g, err := gasPriceValue(c, join(path, "gasPrice"))
		if err != nil {
			return nil, err
		}
		m.GasPrice = &g
	}
	if c, ok := v.opt("ttl"); ok {
		t, err := int64Value(c, join(path, "ttl"))
		if err != nil {
			return nil, err
		}
		m.TTL = &t
	}
	if c, ok := v.opt("creationTime"); ok {
		t, err := int64Value(c, join(path, "creationTime"))
		if err != nil {
			return nil, err
		}
		m.CreationTime = &t
	}
	return m, nil
}

// BuildOptions are the environment of Build.
type BuildOptions struct {
	// Dir is the directory codeFile and dataFile are relative to: the
	// request YAML's own.
	Dir string
	// Now is the time for the default nonce and creationTime; zero means
	// time.Now().
	Now time.Time
	// Rand feeds WebAuthn ECDSA test signatures (nil: crypto/rand).
	Rand io.Reader
}

// Build makes the command the request describes, as pact -a (signed with
// the key pairs) or, with unsigned, pact -u (with the signers, and no
// sigs) do. Defaults:
//
//   - type exec; data null; networkId null; nonce the time (DefaultNonce);
//   - publicMeta absent: chainId "", sender "", gasLimit 0, gasPrice 0,
//     ttl 0, creationTime 0; present: each missing field chainId "",
//     sender "", gasLimit 0, gasPrice 0, ttl 1800, creationTime now (epoch
//     seconds);
//   - unsigned continuations get their nonce quoted once more (P5's
//     `show`): "\"nonce\"".
func (r *Request) Build(unsigned bool, opts BuildOptions) (*Command, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	p := &Payload{NetworkID: r.NetworkID, Verifiers: r.Verifiers}
	switch r.Type {
	case "", "exec":
		code, err := r.code(opts.Dir)
		if err != nil {
			return nil, err
		}
		data, err := r.data(opts.Dir)
		if err != nil {
			return nil, err
		}
		p.Exec = &ExecMsg{Code: code, Data: data}
	case "cont":
		if r.PactTxHash == nil {
			return nil, errors.New("pactTxHash: missing (required for type cont)")
		}
		if r.Step == nil {
			return nil, errors.New("step: missing (required for type cont)")
		}
		if r.Rollback == nil {
			return nil, errors.New("rollback: missing (required for type cont)")
		}
		data, err := r.data(opts.Dir)
		if err != nil {
			return nil, err
		}
		p.Cont = &ContMsg{PactID: r.PactTxHash.String(), Step: *r.Step, Rollback: *r.Rollback, Data: data, Proof: r.Proof}
	default:
		return nil, fmt.Errorf(`type: expected "exec" or "cont", got %s`, quoteShort(r.Type))
	}
	p.Meta = Meta{Public: r.PublicMeta.resolve(now)}

	var signers []dynKey
	switch {
	case !unsigned && r.Signers != nil:
		return nil, errors.New("signers: only allowed with -u (an unsigned request); use keyPairs to sign")
	case !unsigned:
		for i := range r.KeyPairs {
			k, err := r.KeyPairs[i].key()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", index("keyPairs", i), err)
			}
			signers = append(signers, k)
			p.Signers = append(p.Signers, k.signer)
		}
	case r.KeyPairs != nil:
		return nil, errors.New("keyPairs: not allowed in an unsigned request (-u); use signers")
	case r.Signers == nil:
		return nil, errors.New("signers: missing (required for an unsigned request, -u)")
	default:
		for _, s := range r.Signers {
			p.Signers = append(p.Signers, Signer{Addr: s.Address, Scheme: s.Scheme, PubKey: s.Public, Clist: s.Caps})
		}
	}
	if r.Nonce != nil {
		p.Nonce = *r.Nonce
	} else {
		p.Nonce = DefaultNonce(now)
	}
	if unsigned && p.Cont != nil {
		p.Nonce = hsShow(p.Nonce)
	}
	js, err := p.JSON()
	if err != nil {
		return nil, err
	}
	c := &Command{Cmd: string(js), Hash: HashBytes(js), Sigs: []UserSig{}}
	for _, k := range signers {
		s, err := k.sign(c.Hash, opts.Rand)
		if err != nil {
			return nil, err
		}
		c.Sigs = append(c.Sigs, s)
	}
	return c, nil
}

func (r *Request) code(dir string) (string, error) {
	switch {
	case r.Code != nil && r.CodeFile == nil:
		return *r.Code, nil
	case r.CodeFile != nil && r.Code == nil:
		b, err := os.ReadFile(relativeTo(dir, *r.CodeFile))
		if err != nil {
			return "", fmt.Errorf("codeFile: %v", err)
		}
		if !utf8.Valid(b) {
			return "", fmt.Errorf("codeFile: %s is not UTF-8", *r.CodeFile)
		}
		return string(b), nil
	case r.Code != nil:
		return "", errors.New("code, codeFile: give one of them, not both")
	}
	return "", errors.New("code: missing (an exec request needs code or codeFile)")
}

func (r *Request) data(dir string) (value.Value, error) {
	switch {
	case r.Data != nil && r.DataFile != nil:
		return nil, errors.New("data, dataFile: give at most one of them")
	case r.Data != nil:
		return r.Data, nil
	case r.DataFile != nil:
		b, err := os.ReadFile(relativeTo(dir, *r.DataFile))
		if err != nil {
			return nil, fmt.Errorf("dataFile: %v", err)
		}
		v, err := value.DecodeJSON(b)
		if err != nil {
			return nil, fmt.Errorf("dataFile: %s: %v", *r.DataFile, err)
		}
		return v, nil
	}
	return value.UnitValue, nil
}

func relativeTo(dir, f string) string {
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(dir, f)
}

func (m *RequestMeta) resolve(now time.Time) *PublicMeta {
	if m == nil {
		return &PublicMeta{}
	}
	pm := &PublicMeta{TTL: 1800, CreationTime: now.Unix()}
	if m.ChainID != nil {
		pm.ChainID = *m.ChainID
	}
	if m.Sender != nil {
		pm.Sender = *m.Sender
	}
	if m.GasLimit != nil {
		pm.GasLimit = *m.GasLimit
	}
	if m.GasPrice != nil {
		pm.GasPrice = *m.GasPrice
	}
	if m.TTL != nil {
		pm.TTL = *m.TTL
	}
	if m.CreationTime != nil {
		pm.CreationTime = *m.CreationTime
	}
	return pm
}

// dynKey is a signing key of a request: Ed25519, or a WebAuthn test key.
type dynKey struct {
	signer   Signer
	ed25519  *KeyPair
	webauthn *COSEKey
	secret   []byte
}

func (k dynKey) sign(h Hash, random io.Reader) (UserSig, error) {
	if k.ed25519 != nil {
		return k.ed25519.SignHash(h), nil
	}
	w, err := SignWebAuthn(k.webauthn, k.secret, nil, h, random)
	if err != nil {
		return UserSig{}, err
	}
	return UserSig{Sig: string(w.JSON())}, nil
}

// key is P5's mkKeyPairs for one pair. The signer it makes has only the
// public key (and, for WebAuthn, the scheme): address and scheme are
// checks, not copied.
func (kp *RequestKeyPair) key() (dynKey, error) {
	switch {
	case kp.Scheme != SchemeWebAuthn:
		k, err := ImportKeyPair(kp.Public, kp.Secret)
		if err != nil {
			return dynKey{}, err
		}
		if kp.Address != nil {
			addr, err := hex.DecodeString(*kp.Address)
			if err != nil {
				return dynKey{}, fmt.Errorf("address: not hex: %v", hexError(err))
			}
			if hex.EncodeToString(addr) != k.PublicHex() {
				return dynKey{}, fmt.Errorf("address %s does not match the public key %s", *kp.Address, k.PublicHex())
			}
		}
		return dynKey{signer: Signer{PubKey: k.PublicHex(), Clist: kp.Caps}, ed25519: k}, nil
	case kp.Public != nil && kp.Address == nil:
		raw, _ := hex.DecodeString(*kp.Public)
		key, err := ParseCOSEKey(raw)
		if err != nil {
			return dynKey{}, fmt.Errorf("public: invalid WebAuthn public key: %v", err)
		}
		secret, _ := hex.DecodeString(kp.Secret)
		return dynKey{
			signer:   Signer{Scheme: SchemeWebAuthn, PubKey: hex.EncodeToString(key.Bytes()), Clist: kp.Caps},
			webauthn: key,
			secret:   secret,
		}, nil
	}
	return dynKey{}, errors.New("a WebAuthn key pair needs public (its COSE key in hex) and no address")
}

// BuildRequestFile reads the request YAML at path and builds its command
// (Request.Build), with codeFile and dataFile relative to path's
// directory.
func BuildRequestFile(path string, unsigned bool, now time.Time) (*Command, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := ParseRequest(b)
	if err != nil {
		return nil, err
	}
	return r.Build(unsigned, BuildOptions{Dir: filepath.Dir(path), Now: now})
}

// RequestHelp lists the fields of a request YAML, for error messages.
const RequestHelp = `Valid fields are:
Common fields:
  type: 'exec' or 'cont', indicating Exec or Cont message type (default exec)
  data|dataFile: (optional) transaction data, as YAML (data) or a JSON file (dataFile)
  keyPairs: list of key pairs for signing (use pact -g to generate), not with -u: [
    public: (optional) base 16 public key, must match the secret
    secret: base 16 secret key (the 32-byte seed)
    address: (optional) base 16 address, must equal the public key
    scheme: (optional) 'ED25519' (default) or 'WebAuthn'
    caps: (optional) capability list: [ name: module.CAP, args: [JSON values] ]
    ]
  signers: list of signers, only with -u: [ public, address?, scheme?, caps? ]
  verifiers: (optional) list of [ name, proof, clist ]
  nonce: (optional) request nonce, defaults to the current time
  networkId: (optional) network identifier, null when absent
  publicMeta: (optional) data for public-chain execution: [
    chainId: chain or shard identifier (a string)
    sender: gas-paying sender account
    gasLimit: integer gas max limit
    gasPrice: decimal gas unit price
    ttl: TTL value in seconds
    creationTime: epoch time integer value in seconds
    ]
Exec-only fields:
  code|codeFile: Pact code, as a string (code) or file path (codeFile)
Cont-only fields:
  pactTxHash: pact ID to continue
  step: step index to continue
  rollback: rollback/cancel flag
  proof: platform-specific continuation proof data`
