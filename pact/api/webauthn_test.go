package api

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
)

// A signature from a real WebAuthn browser session (ES256), and its key:
// P5's pact-tests/Pact/Core/Test/SignatureSchemeTests.hs (kadena-io/pact-5
// @ bfc5310c), someWebAuthnSignature.
const (
	realWebAuthnSig  = `{"authenticatorData":"+cNxurbmvuKrkAKBTgIRX89NPS7FT5KydvqIN951zwoBAAAADQ==","clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiTkFDbG5makJiT2o3R2ZuRTg2YzJOZVZHaTBZUkRKcllidUF0cmhFUzJiYyIsIm9yaWdpbiI6Imh0dHBzOi8vZ3JlZy10ZXN0aW5nLTIwMjMtMDItMDcuZ2l0aHViLmlvIiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ","signature":"MEYCIQDwQF19+Wjxs0boANssWEKoUFKhwHgiaycIeU5kRlY+RwIhAIAfCOUDVHr5aCrVQ1pbvCEw1xkeF0s4yjD48sDe9uO7"}`
	realWebAuthnKey  = "a5010203262001215820025b213619e0cbeadf7a4c62784f865d61c4da9268c724fa133efcf90ca7e00222582062ab25b410da272d9f2505b509bf599ac04f34888fad7cbb107d368add79edf1"
	realWebAuthnHash = "NAClnfjBbOj7GfnE86c2NeVGi0YRDJrYbuAtrhES2bc"
	otherHash        = "P7wJLbk1B1fiq09-6Xkr_NL1IgraWkvGhEh_YMYDQ2k"
)

func TestWebAuthnRealSignature(t *testing.T) {
	h, _ := ParseHash(realWebAuthnHash)
	sig := UserSig{Sig: realWebAuthnSig}
	for _, pk := range []string{realWebAuthnKey, WebAuthnPrefix + realWebAuthnKey} {
		if err := VerifyUserSig(h, sig, Signer{Scheme: SchemeWebAuthn, PubKey: pk}); err != nil {
			t.Errorf("pubKey %.20s...: %v", pk, err)
		}
	}
	other, _ := ParseHash(otherHash)
	if err := VerifyUserSig(other, sig, Signer{Scheme: SchemeWebAuthn, PubKey: realWebAuthnKey}); err == nil ||
		err.Error() != "Hash mismatch, signature signs for the wrong transaction" {
		t.Errorf("other hash: %v", err)
	}
	if err := VerifyUserSig(h, sig, Signer{PubKey: realWebAuthnKey}); err == nil ||
		err.Error() != "scheme of Nothing does not match signature type WebAuthn" {
		t.Errorf("no scheme: %v", err)
	}
	if err := VerifyUserSig(h, sig, Signer{Scheme: SchemeWebAuthn, PubKey: pub0}); err == nil ||
		!strings.HasPrefix(err.Error(), "failed to parse webauthn pubkey: ") {
		t.Errorf("Ed25519 key: %v", err)
	}
	w, ok := sig.WebAuthn()
	if !ok {
		t.Fatal("not parsed as WebAuthn")
	}
	w.AuthenticatorData = "+cNxurbmvuKrkAKBTgIRX89NPS7FT5KydvqIN951zwoBAAAADg=="
	tampered := UserSig{Sig: string(w.JSON())}
	if err := VerifyUserSig(h, tampered, Signer{Scheme: SchemeWebAuthn, PubKey: realWebAuthnKey}); err == nil ||
		err.Error() != "webauthn signature check: ECDSA Signature invalid" {
		t.Errorf("tampered authenticatorData: %v", err)
	}
	raw, _ := hex.DecodeString(realWebAuthnKey)
	k, err := ParseCOSEKey(raw)
	if err != nil || k.Alg != COSEAlgES256 || !bytes.Equal(k.Bytes(), raw) {
		t.Errorf("ParseCOSEKey: %v", err)
	}
}

func TestWebAuthnSignAndVerify(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	edKey := COSEKeyEd25519(pub)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecKey, err := COSEKeyP256(&ec.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	ecSecret, _ := ec.Bytes()
	for _, tc := range []struct {
		name   string
		key    *COSEKey
		secret []byte
	}{{"EdDSA", edKey, priv.Seed()}, {"ES256", ecKey, ecSecret}} {
		// The key survives its encoding.
		parsed, err := ParseCOSEKey(tc.key.Bytes())
		if err != nil || !bytes.Equal(parsed.Bytes(), tc.key.Bytes()) {
			t.Fatalf("%s: ParseCOSEKey: %v", tc.name, err)
		}
		p := testPayload()
		p.Signers = []Signer{{Scheme: SchemeWebAuthn, PubKey: WebAuthnPrefix + hex.EncodeToString(tc.key.Bytes())}}
		js, _ := p.JSON()
		c := &Command{Cmd: string(js), Hash: HashBytes(js)}
		w, err := SignWebAuthn(tc.key, tc.secret, []byte("fake-authdata"), c.Hash, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c.Sigs = []UserSig{{Sig: string(w.JSON())}}
		if _, err := VerifyCommand(c); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if _, err := SignWebAuthn(tc.key, make([]byte, 32), nil, c.Hash, nil); err == nil {
			t.Errorf("%s: signed with a secret that is not the key's", tc.name)
		}
	}
}

func TestCOSEKeyErrors(t *testing.T) {
	key, _ := hex.DecodeString(realWebAuthnKey)
	for _, tc := range []struct{ hex, want string }{
		{"", "unexpected end of CBOR input"},
		{"a4010103272006381858" + strings.Repeat("00", 32), "Expected COSE key parameter -2 but got -25"},
		{"a4010103272006215820" + strings.Repeat("00", 31), "unexpected end of CBOR input"},
		{"a401010327200621581f" + strings.Repeat("00", 31), "EdDSA public key for curve Ed25519 didn't have the expected size of 32 bytes, it has 31 bytes instead"},
		{"a40101032720015820", "Unknown COSE elliptic curve 1 for key type OKP"},
		{"a4010203272006", "Expected COSE key type OKP for COSE algorithm -8 but got COSE key type EC2 instead"},
		{"a5010103272006", "Expected CBOR map to contain 4 parameters for COSE key type OKP but got 5 parameters instead"},
		{"a401030339010021", "Signing algorithm must be EdDSA or P256"},
		{"a4010103381f", "Unknown COSE algorithm value -32"},
		{"a40118010327", "non-canonical CBOR"},
		{realWebAuthnKey[:len(realWebAuthnKey)-2] + "f0", "ECDSA public key point is not valid for curve P-256"},
		{realWebAuthnKey + "00", "trailing bytes after the COSE key"},
		{"a501020326200121" + hex.EncodeToString(key[8:42]) + "22f5", "Compressed EC2 y coordinate not yet supported"},
	} {
		raw, _ := hex.DecodeString(tc.hex)
		_, err := ParseCOSEKey(raw)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseCOSEKey(%s): %v, want %q", tc.hex, err, tc.want)
		}
	}
}

func TestWebAuthnSignatureDecoding(t *testing.T) {
	h, _ := ParseHash(realWebAuthnHash)
	signer := Signer{Scheme: SchemeWebAuthn, PubKey: realWebAuthnKey}
	for _, tc := range []struct{ sig, want string }{
		{`{"clientDataJSON":"","authenticatorData":"","signature":"***"}`, "signature: illegal base64 data at input byte 0"},
		{`{"clientDataJSON":"*","authenticatorData":"","signature":""}`, "clientData: Base64-encoded bytestring has invalid size"},
		{`{"clientDataJSON":"","authenticatorData":"AA","signature":""}`, "authData: illegal base64 data at input byte 0"},
		{`{"clientDataJSON":"","authenticatorData":"","signature":"AAAA"}`, "webauthn signature check: Failed to decode ECDSA DER value"},
	} {
		err := VerifyUserSig(h, UserSig{Sig: tc.sig}, signer)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.sig, err, tc.want)
		}
	}
	// A sig that is not a WebAuthn document is an Ed25519 signature.
	for _, s := range []string{"ab", `{"clientDataJSON":""}`, `{"clientDataJSON":1,"authenticatorData":"","signature":""}`, "[{}]"} {
		if _, ok := (UserSig{Sig: s}).WebAuthn(); ok {
			t.Errorf("%s parsed as WebAuthn", s)
		}
	}
}
