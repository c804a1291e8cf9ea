package api

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/ledgernode/ledger-node/pact/crypto"
	"github.com/ledgernode/ledger-node/pact/jsontext"
)

// WebAuthn signatures (spec §1.3). The signer's pubKey is the hex of a
// COSE key in canonical CBOR, optionally prefixed "WEBAUTHN-"; only the
// algorithms -7 (ECDSA with SHA-256) and -8 (EdDSA over Ed25519) are
// accepted. The authenticator signs authenticatorData || SHA-256(
// clientDataJSON), and clientDataJSON's challenge must be the request key.

// WebAuthnPrefix marks WebAuthn keys in keysets and, optionally, in signers.
const WebAuthnPrefix = "WEBAUTHN-"

// COSE algorithm identifiers.
const (
	COSEAlgES256 = -7
	COSEAlgEdDSA = -8
)

// A WebAuthnSignature is the JSON document inside a WebAuthn sig.
type WebAuthnSignature struct {
	// ClientDataJSON is base64url (padding optional); the others are
	// standard padded base64.
	ClientDataJSON    string
	AuthenticatorData string
	Signature         string
}

// WebAuthn parses the sig as a WebAuthn signature document, as P5 tries
// first: a JSON object with the string fields clientDataJSON,
// authenticatorData and signature. Anything else is an Ed25519 signature.
func (s UserSig) WebAuthn() (*WebAuthnSignature, bool) {
	if !strings.Contains(s.Sig, "{") {
		return nil, false // hex, the usual case
	}
	n, err := parseJSON([]byte(s.Sig))
	if err != nil || n.kind != kObject {
		return nil, false
	}
	var w WebAuthnSignature
	for _, f := range []struct {
		key string
		dst *string
	}{{"clientDataJSON", &w.ClientDataJSON}, {"authenticatorData", &w.AuthenticatorData}, {"signature", &w.Signature}} {
		v, ok := n.get(f.key)
		if !ok || v.kind != kString {
			return nil, false
		}
		*f.dst = v.str
	}
	return &w, true
}

// JSON is the signature document as P5 writes it:
// {"authenticatorData","clientDataJSON","signature"}.
func (w *WebAuthnSignature) JSON() []byte {
	buf := []byte(`{"authenticatorData":`)
	buf = jsontext.AppendString(buf, w.AuthenticatorData)
	buf = append(buf, `,"clientDataJSON":`...)
	buf = jsontext.AppendString(buf, w.ClientDataJSON)
	buf = append(buf, `,"signature":`...)
	buf = jsontext.AppendString(buf, w.Signature)
	return append(buf, '}')
}

// A COSEKey is a WebAuthn public key: an Ed25519 key (alg -8) or an ECDSA
// key on P-256, P-384 or P-521 used with SHA-256 (alg -7).
type COSEKey struct {
	Alg     int
	Ed25519 ed25519.PublicKey
	ECDSA   *ecdsa.PublicKey
	raw     []byte
}

// Bytes is the key's canonical CBOR encoding.
func (k *COSEKey) Bytes() []byte { return bytes.Clone(k.raw) }

// ParseCOSEKey decodes a COSE key as P5 does: a canonical CBOR map of
// kty (1), alg (3), crv (-1), x (-2) and, for EC2 keys, y (-3), in that
// order and nothing else.
func ParseCOSEKey(b []byte) (*COSEKey, error) {
	d := cborReader{b: b}
	n, err := d.mapLen()
	if err != nil {
		return nil, err
	}
	if err := d.expectInt(1); err != nil {
		return nil, err
	}
	kty, err := d.int()
	if err != nil {
		return nil, err
	}
	if err := d.expectInt(3); err != nil {
		return nil, err
	}
	alg, err := d.int()
	if err != nil {
		return nil, err
	}
	k := &COSEKey{Alg: int(alg)}
	switch alg {
	case COSEAlgEdDSA:
		if err := checkKty(kty, 1, n, 4, alg); err != nil {
			return nil, err
		}
		if err := d.expectInt(-1); err != nil {
			return nil, err
		}
		crv, err := d.int()
		if err != nil {
			return nil, err
		}
		if crv != 6 {
			return nil, fmt.Errorf("Unknown COSE elliptic curve %d for key type OKP", crv)
		}
		if err := d.expectInt(-2); err != nil {
			return nil, err
		}
		x, err := d.bytes()
		if err != nil {
			return nil, err
		}
		if len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("EdDSA public key for curve Ed25519 didn't have the expected size of 32 bytes, it has %d bytes instead", len(x))
		}
		k.Ed25519 = ed25519.PublicKey(x)
	case COSEAlgES256, -35, -36:
		if err := checkKty(kty, 2, n, 5, alg); err != nil {
			return nil, err
		}
		if err := d.expectInt(-1); err != nil {
			return nil, err
		}
		crv, err := d.int()
		if err != nil {
			return nil, err
		}
		var curve elliptic.Curve
		switch crv {
		case 1:
			curve = elliptic.P256()
		case 2:
			curve = elliptic.P384()
		case 3:
			curve = elliptic.P521()
		default:
			return nil, fmt.Errorf("Unknown COSE elliptic curve %d for key type EC2", crv)
		}
		size := (curve.Params().BitSize + 7) / 8
		if err := d.expectInt(-2); err != nil {
			return nil, err
		}
		x, err := d.bytes()
		if err != nil {
			return nil, err
		}
		if err := d.expectInt(-3); err != nil {
			return nil, err
		}
		if d.peekMajor() == 7 {
			return nil, errors.New("Compressed EC2 y coordinate not yet supported")
		}
		y, err := d.bytes()
		if err != nil {
			return nil, err
		}
		if len(x) != size || len(y) != size {
			return nil, fmt.Errorf("EC2 coordinates have lengths %d and %d when length %d was expected", len(x), len(y), size)
		}
		pt := append(append([]byte{4}, x...), y...)
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, pt)
		if err != nil {
			return nil, fmt.Errorf("ECDSA public key point is not valid for curve %s", curve.Params().Name)
		}
		k.ECDSA = pub
	case -257, -258, -259, -65535:
		return nil, errors.New("Signing algorithm must be EdDSA or P256")
	default:
		return nil, fmt.Errorf("Unknown COSE algorithm value %d", alg)
	}
	if d.i != len(d.b) {
		return nil, errors.New("trailing bytes after the COSE key")
	}
	if k.Alg != COSEAlgES256 && k.Alg != COSEAlgEdDSA {
		return nil, errors.New("Signing algorithm must be EdDSA or P256")
	}
	k.raw = bytes.Clone(b)
	return k, nil
}

func checkKty(kty, wantKty, n, wantN, alg int64) error {
	names := map[int64]string{1: "OKP", 2: "EC2", 3: "RSA"}
	if kty != wantKty {
		got, ok := names[kty]
		if !ok {
			return fmt.Errorf("Unknown COSE key type %d", kty)
		}
		return fmt.Errorf("Expected COSE key type %s for COSE algorithm %d but got COSE key type %s instead", names[wantKty], alg, got)
	}
	if n != wantN {
		return fmt.Errorf("Expected CBOR map to contain %d parameters for COSE key type %s but got %d parameters instead", wantN, names[wantKty], n)
	}
	return nil
}

// verify checks sig over msg with the key (DER for ECDSA).
func (k *COSEKey) verify(msg, sig []byte) error {
	if k.Ed25519 != nil {
		if len(sig) != ed25519.SignatureSize {
			return errors.New("Failed to create Ed25519 signature: CryptoError_SignatureSizeInvalid")
		}
		if !ed25519.Verify(k.Ed25519, msg, sig) {
			return errors.New("EdDSA Signature invalid")
		}
		return nil
	}
	r, s, ok := parseDERSignature(sig)
	if !ok {
		return errors.New("Failed to decode ECDSA DER value")
	}
	digest := sha256.Sum256(msg)
	if r.Sign() <= 0 || s.Sign() <= 0 || !ecdsa.Verify(k.ECDSA, digest[:], r, s) {
		return errors.New("ECDSA Signature invalid")
	}
	return nil
}

func parseDERSignature(sig []byte) (r, s *big.Int, ok bool) {
	in := cryptobyte.String(sig)
	var inner cryptobyte.String
	r, s = new(big.Int), new(big.Int)
	if !in.ReadASN1(&inner, asn1.SEQUENCE) || !in.Empty() ||
		!inner.ReadASN1Integer(r) || !inner.ReadASN1Integer(s) || !inner.Empty() {
		return nil, nil, false
	}
	return r, s, true
}

// verifyWebAuthn is P5's verifyWebAuthnSig.
func (k *COSEKey) verifyWebAuthn(h Hash, w *WebAuthnSignature) error {
	sig, err := decodeStdBase64(w.Signature)
	if err != nil {
		return fmt.Errorf("signature: %v", err)
	}
	clientData, err := crypto.DecodeBase64URL([]byte(w.ClientDataJSON))
	if err != nil {
		return fmt.Errorf("clientData: %v", err)
	}
	authData, err := decodeStdBase64(w.AuthenticatorData)
	if err != nil {
		return fmt.Errorf("authData: %v", err)
	}
	digest := sha256.Sum256(clientData)
	if err := k.verify(append(authData, digest[:]...), sig); err != nil {
		return fmt.Errorf("webauthn signature check: %v", err)
	}
	n, err := parseJSON(clientData)
	if err != nil {
		return fmt.Errorf("challenge: %v", err)
	}
	if n.kind != kObject {
		return fmt.Errorf("challenge: expected an object, got %s", n.describe())
	}
	c, ok := n.get("challenge")
	if !ok || c.kind != kString {
		return errors.New(`challenge: key "challenge" not found or not a string`)
	}
	if c.str != h.String() {
		return errors.New("Hash mismatch, signature signs for the wrong transaction")
	}
	return nil
}

// decodeStdBase64 is base64-bytestring's strict decode: padded, canonical,
// nothing else (Go's decoder would skip newlines).
func decodeStdBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("invalid character (line break)")
	}
	return base64.StdEncoding.Strict().DecodeString(s)
}

// SignWebAuthn makes a WebAuthn signature of h as a test authenticator
// would (P5's signWebauthn, for WebAuthn key pairs in request YAML):
// clientDataJSON is {"challenge":"<h>"}, and secret is the 32-byte Ed25519
// seed or P-256 scalar of the key. random feeds ECDSA (nil: crypto/rand).
func SignWebAuthn(key *COSEKey, secret, authData []byte, h Hash, random io.Reader) (*WebAuthnSignature, error) {
	clientData := jsontext.AppendString([]byte(`{"challenge":`), h.String())
	clientData = append(clientData, '}')
	digest := sha256.Sum256(clientData)
	msg := append(bytes.Clone(authData), digest[:]...)
	var sig []byte
	switch {
	case key.Ed25519 != nil:
		if len(secret) != ed25519.SeedSize {
			return nil, fmt.Errorf("WebAuthn Ed25519 secret has %d bytes, want 32", len(secret))
		}
		priv := ed25519.NewKeyFromSeed(secret)
		if !bytes.Equal(priv.Public().(ed25519.PublicKey), key.Ed25519) {
			return nil, errors.New("WebAuthn secret does not match the public key")
		}
		sig = ed25519.Sign(priv, msg)
	case key.ECDSA != nil && key.ECDSA.Curve == elliptic.P256():
		priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), secret)
		if err != nil {
			return nil, fmt.Errorf("invalid WebAuthn P-256 secret: %v", err)
		}
		if !priv.PublicKey.Equal(key.ECDSA) {
			return nil, errors.New("WebAuthn secret does not match the public key")
		}
		d := sha256.Sum256(msg)
		if sig, err = ecdsa.SignASN1(random, priv, d[:]); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("WebAuthn signing supports Ed25519 and P-256 keys")
	}
	return &WebAuthnSignature{
		ClientDataJSON:    base64.URLEncoding.EncodeToString(clientData),
		AuthenticatorData: base64.StdEncoding.EncodeToString(authData),
		Signature:         base64.StdEncoding.EncodeToString(sig),
	}, nil
}

// cborReader reads the canonical CBOR of COSE keys (cborg's *Canonical
// decoders): definite lengths, shortest encodings.
type cborReader struct {
	b []byte
	i int
}

var errCBOR = errors.New("invalid CBOR")

// head reads an item's major type and argument, checking it is encoded
// in the fewest bytes.
func (d *cborReader) head() (major byte, arg uint64, err error) {
	if d.i >= len(d.b) {
		return 0, 0, errors.New("unexpected end of CBOR input")
	}
	c := d.b[d.i]
	d.i++
	major, info := c>>5, c&0x1f
	var size int
	switch {
	case info < 24:
		return major, uint64(info), nil
	case info == 24:
		size = 1
	case info == 25:
		size = 2
	case info == 26:
		size = 4
	case info == 27:
		size = 8
	default:
		return 0, 0, errCBOR
	}
	if len(d.b)-d.i < size {
		return 0, 0, errors.New("unexpected end of CBOR input")
	}
	for _, x := range d.b[d.i : d.i+size] {
		arg = arg<<8 | uint64(x)
	}
	d.i += size
	var minimum uint64
	switch size {
	case 1:
		minimum = 24
	case 2:
		minimum = 1 << 8
	case 4:
		minimum = 1 << 16
	case 8:
		minimum = 1 << 32
	}
	if arg < minimum {
		return 0, 0, errors.New("non-canonical CBOR")
	}
	return major, arg, nil
}

func (d *cborReader) peekMajor() byte {
	if d.i >= len(d.b) {
		return 0xff
	}
	return d.b[d.i] >> 5
}

func (d *cborReader) mapLen() (int64, error) {
	major, n, err := d.head()
	if err != nil {
		return 0, err
	}
	if major != 5 || n > 1<<20 {
		return 0, errors.New("expected a CBOR map")
	}
	return int64(n), nil
}

func (d *cborReader) int() (int64, error) {
	major, n, err := d.head()
	if err != nil {
		return 0, err
	}
	if n > 1<<62 {
		return 0, errors.New("CBOR integer out of range")
	}
	switch major {
	case 0:
		return int64(n), nil
	case 1:
		return -1 - int64(n), nil
	}
	return 0, errors.New("expected a CBOR integer")
}

func (d *cborReader) expectInt(want int64) error {
	got, err := d.int()
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("Expected COSE key parameter %d but got %d", want, got)
	}
	return nil
}

func (d *cborReader) bytes() ([]byte, error) {
	major, n, err := d.head()
	if err != nil {
		return nil, err
	}
	if major != 2 {
		return nil, errors.New("expected a CBOR byte string")
	}
	if n > uint64(len(d.b)-d.i) {
		return nil, errors.New("unexpected end of CBOR input")
	}
	b := d.b[d.i : d.i+int(n)]
	d.i += int(n)
	return b, nil
}

// COSEKeyEd25519 is the COSE key (alg -8) of an Ed25519 public key.
func COSEKeyEd25519(pub ed25519.PublicKey) *COSEKey {
	raw := []byte{0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20}
	raw = append(raw, pub...)
	return &COSEKey{Alg: COSEAlgEdDSA, Ed25519: bytes.Clone(pub), raw: raw}
}

// COSEKeyP256 is the COSE key (alg -7) of a P-256 public key.
func COSEKeyP256(pub *ecdsa.PublicKey) (*COSEKey, error) {
	pt, err := pub.Bytes()
	if err != nil || pub.Curve != elliptic.P256() {
		return nil, errors.New("not a P-256 public key")
	}
	raw := []byte{0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20}
	raw = append(raw, pt[1:33]...)
	raw = append(raw, 0x22, 0x58, 0x20)
	raw = append(raw, pt[33:]...)
	return &COSEKey{Alg: COSEAlgES256, ECDSA: pub, raw: raw}, nil
}
