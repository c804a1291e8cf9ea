package api

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
)

// A KeyPair is an Ed25519 key pair. Its secret is the 32-byte seed, which
// is what pact -g prints and key files and request YAML hold.
type KeyPair struct {
	priv ed25519.PrivateKey
}

// GenerateKeyPair makes a fresh key pair from random (nil: crypto/rand).
func GenerateKeyPair(random io.Reader) (*KeyPair, error) {
	if random == nil {
		random = rand.Reader
	}
	_, priv, err := ed25519.GenerateKey(random)
	if err != nil {
		return nil, err
	}
	return &KeyPair{priv: priv}, nil
}

// KeyPairFromSeed makes the key pair of a 32-byte seed.
func KeyPairFromSeed(seed []byte) (*KeyPair, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("Invalid ED25519 Private Key: %q (%d bytes, want 32)", hex.EncodeToString(seed), len(seed))
	}
	return &KeyPair{priv: ed25519.NewKeyFromSeed(seed)}, nil
}

// KeyPairFromHex makes the key pair of a seed written in hex (64 digits,
// either case).
func KeyPairFromHex(secret string) (*KeyPair, error) {
	seed, err := hex.DecodeString(secret)
	if err != nil {
		return nil, fmt.Errorf("secret key is not hex: %v", hexError(err))
	}
	return KeyPairFromSeed(seed)
}

// ImportKeyPair is P5's importEd25519KeyPair: the key pair of a hex seed,
// whose public key, when given (hex), must be the one the seed derives.
func ImportKeyPair(public *string, secret string) (*KeyPair, error) {
	kp, err := KeyPairFromHex(secret)
	if err != nil {
		return nil, err
	}
	if public != nil {
		pub, err := hex.DecodeString(*public)
		if err != nil {
			return nil, fmt.Errorf("public key is not hex: %v", hexError(err))
		}
		if len(pub) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("Invalid ED25519 Public Key: %q (%d bytes, want 32)", hex.EncodeToString(pub), len(pub))
		}
		if !bytes.Equal(pub, kp.Public()) {
			return nil, fmt.Errorf("public key %s does not match the secret, whose public key is %s",
				hex.EncodeToString(pub), kp.PublicHex())
		}
	}
	return kp, nil
}

// Public is the 32-byte public key.
func (k *KeyPair) Public() []byte { return k.priv.Public().(ed25519.PublicKey) }

// PublicHex is the public key in lowercase hex.
func (k *KeyPair) PublicHex() string { return hex.EncodeToString(k.Public()) }

// Seed is the 32-byte secret.
func (k *KeyPair) Seed() []byte { return k.priv.Seed() }

// SecretHex is the secret in lowercase hex.
func (k *KeyPair) SecretHex() string { return hex.EncodeToString(k.priv.Seed()) }

// Sign signs msg (for a command, the 32 raw bytes of its hash) and returns
// the 64-byte signature.
func (k *KeyPair) Sign(msg []byte) []byte { return ed25519.Sign(k.priv, msg) }

// SignHash returns the command signature of h: {"sig": <128 hex digits>}.
func (k *KeyPair) SignHash(h Hash) UserSig {
	return UserSig{Sig: hex.EncodeToString(k.Sign(h[:]))}
}

// KeyFileYAML is the key file of k, as pact -g prints it.
func (k *KeyPair) KeyFileYAML() []byte {
	return []byte("public: " + k.PublicHex() + "\nsecret: " + k.SecretHex() + "\n")
}

// ParseKeyFile reads a key file: YAML with "public" and "secret", both hex
// strings, the public key matching the secret.
func ParseKeyFile(data []byte) (*KeyPair, error) {
	n, err := parseYAML(data)
	if err != nil {
		return nil, err
	}
	if err := want(n, kObject, ""); err != nil {
		return nil, err
	}
	pub, err := required(n, "public", "")
	if err != nil {
		return nil, err
	}
	if err := want(pub, kString, "public"); err != nil {
		return nil, err
	}
	sec, err := required(n, "secret", "")
	if err != nil {
		return nil, err
	}
	if err := want(sec, kString, "secret"); err != nil {
		return nil, err
	}
	kp, err := ImportKeyPair(&pub.str, sec.str)
	if err != nil {
		return nil, errAt(sec, "", "%v", err)
	}
	return kp, nil
}
