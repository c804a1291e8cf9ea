package api

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ledgernode/ledger-node/pact/jsontext"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// A ParsedCommand is a command with its payload decoded and, for an exec,
// its code parsed.
type ParsedCommand struct {
	Command *Command
	Payload *Payload
	// Code is the parsed exec code, nil for a continuation.
	Code *syntax.File
	// RequestKey is the command's hash; HashAlg says which function
	// produced it (BLAKE2b-256, or BLAKE2s-256 as DECISIONS.md allows).
	RequestKey Hash
	HashAlg    HashAlg
}

// ParseCommand decodes cmd's payload and parses its code, without checking
// the hash or the signatures (for commands whose hash is known not to be
// of their cmd, such as upstream genesis transactions). Its errors are
// CommandErrors.
func ParseCommand(cmd *Command) (*ParsedCommand, error) {
	p, err := DecodePayload([]byte(cmd.Cmd))
	if err != nil {
		return nil, &CommandError{Reason: err.Error()}
	}
	pc := &ParsedCommand{Command: cmd, Payload: p, RequestKey: cmd.Hash}
	if p.Exec != nil {
		f, err := syntax.ParseProgram("", p.Exec.Code)
		if err != nil {
			return nil, &CommandError{Reason: err.Error()}
		}
		pc.Code = f
	}
	return pc, nil
}

// VerifyCommand checks a command as P5's verifyCommand does, in its order:
//
//  1. the payload JSON decodes and its code parses;
//  2. the hash is BLAKE2b-256 of the cmd bytes ("Hash Mismatch, received X
//     but our hashing resulted in Y"), or else BLAKE2s-256 of them;
//  3. there are as many sigs as signers;
//  4. each sig verifies against the signer in the same position.
//
// Every failure is a CommandError: "Invalid command: <reason>".
func VerifyCommand(cmd *Command) (*ParsedCommand, error) {
	pc, err := ParseCommand(cmd)
	if err != nil {
		return nil, err
	}
	if pc.HashAlg, err = checkHash(cmd.Hash, cmd.Cmd); err != nil {
		return nil, err
	}
	if err := verifySigs(cmd.Hash, cmd.Sigs, pc.Payload.Signers); err != nil {
		return nil, err
	}
	return pc, nil
}

// checkHash is P5's verifyHash, widened to BLAKE2s-256.
func checkHash(h Hash, cmd string) (HashAlg, error) {
	b := HashBytes([]byte(cmd))
	if h == b {
		return BLAKE2b256, nil
	}
	if h == HashBytesBLAKE2s([]byte(cmd)) {
		return BLAKE2s256, nil
	}
	return 0, invalid("Hash Mismatch, received %s but our hashing resulted in %s", h, b)
}

func verifySigs(h Hash, sigs []UserSig, signers []Signer) error {
	if len(sigs) != len(signers) {
		return invalid("Number of sig(s) does not match number of signer(s)")
	}
	pairs := make([]sigPair, len(sigs))
	for i := range sigs {
		pairs[i] = sigPair{&sigs[i], &signers[i]}
	}
	if msg := verifyPairs(h, pairs); msg != "" {
		return &CommandError{Reason: msg}
	}
	return nil
}

type sigPair struct {
	sig    *UserSig
	signer *Signer
}

// verifyPairs verifies every pair and reports all failures, as P5's
// verifyUserSigs does: "Invalid sig(s) found: " and a JSON object from each
// failing signer's public key to the reason.
func verifyPairs(h Hash, pairs []sigPair) string {
	var failed []byte
	for _, p := range pairs {
		if err := VerifyUserSig(h, *p.sig, *p.signer); err != nil {
			if failed == nil {
				failed = append(failed, '{')
			} else {
				failed = append(failed, ',')
			}
			failed = jsontext.AppendString(failed, p.signer.PubKey)
			failed = append(failed, ':')
			failed = jsontext.AppendString(failed, err.Error())
		}
	}
	if failed == nil {
		return ""
	}
	return "Invalid sig(s) found: " + string(append(failed, '}'))
}

// VerifyUserSig checks one signature over the 32 hash bytes against its
// signer, with P5's error texts: an Ed25519 signature for an ED25519 (or
// scheme-less) signer, a WebAuthn one for a WebAuthn signer.
func VerifyUserSig(h Hash, sig UserSig, signer Signer) error {
	wa, isWebAuthn := sig.WebAuthn()
	scheme := signer.Scheme
	if scheme == SchemeNone {
		scheme = SchemeED25519
	}
	switch {
	case !isWebAuthn && scheme == SchemeED25519:
		if signer.Addr != nil && *signer.Addr != signer.PubKey {
			return fmt.Errorf("address does not match pubkey")
		}
		pk, err := decodeHexSized(signer.PubKey, ed25519.PublicKeySize, "Public Key")
		if err != nil {
			return fmt.Errorf("failed to parse ed25519 pubkey: %v", err)
		}
		s, err := decodeHexSized(sig.Sig, ed25519.SignatureSize, "Signature")
		if err != nil {
			return fmt.Errorf("failed to parse ed25519 signature: %v", err)
		}
		if !ed25519.Verify(pk, h[:], s) {
			return fmt.Errorf("invalid ed25519 signature")
		}
		return nil
	case isWebAuthn && scheme == SchemeWebAuthn:
		raw, err := hex.DecodeString(strings.TrimPrefix(signer.PubKey, WebAuthnPrefix))
		if err != nil {
			return fmt.Errorf("failed to parse webauthn pubkey: %v", hexError(err))
		}
		key, err := ParseCOSEKey(raw)
		if err != nil {
			return fmt.Errorf("failed to parse webauthn pubkey: %v", err)
		}
		return key.verifyWebAuthn(h, wa)
	}
	got := "ED25519"
	if isWebAuthn {
		got = "WebAuthn"
	}
	shown := "Nothing"
	if signer.Scheme != SchemeNone {
		shown = "Just " + string(signer.Scheme)
	}
	return fmt.Errorf("scheme of %s does not match signature type %s", shown, got)
}

// decodeHexSized decodes hex (either case) of exactly size bytes.
func decodeHexSized(s string, size int, what string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, hexError(err)
	}
	if len(b) != size {
		return nil, fmt.Errorf("Invalid ED25519 %s: %q", what, strings.ToLower(hex.EncodeToString(b)))
	}
	return b, nil
}

func hexError(err error) error {
	switch e := err.(type) {
	case hex.InvalidByteError:
		return fmt.Errorf("invalid character %q", byte(e))
	}
	if err == hex.ErrLength {
		return fmt.Errorf("invalid bytestring size (odd number of hex digits)")
	}
	return err
}
