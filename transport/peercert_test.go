package transport

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A node's own certificate has upstream's shape (Network/X509/SelfSigned.hs, DefCertType
// RsaCert): RSA-4096, SHA-512, a year, CA with path length 0, server and client auth; it is kept
// under the data directory and read back unchanged; its id is base64url (no padding) of the
// SHA-256 of its DER.
func TestPeerCertificateKept(t *testing.T) {
	if testing.Short() {
		t.Skip("makes an RSA-4096 key")
	}
	dir := t.TempDir()
	c, created, err := LoadOrCreatePeerCertificate(dir, "node.example", nil)
	if err != nil || !created {
		t.Fatal(created, err)
	}
	leaf, err := x509.ParseCertificate(c.TLS.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := leaf.PublicKey.(*rsa.PublicKey)
	if !ok || pub.N.BitLen() != 4096 || leaf.SignatureAlgorithm != x509.SHA512WithRSA {
		t.Errorf("key %T (%d bits), signature %v; want RSA-4096 with SHA512-RSA", leaf.PublicKey, bitLen(pub), leaf.SignatureAlgorithm)
	}
	if d := leaf.NotAfter.Sub(leaf.NotBefore); d != 365*24*time.Hour {
		t.Errorf("valid for %v, want 365 days", d)
	}
	if leaf.Subject.CommonName != "node.example" || leaf.Issuer.CommonName != "node.example" || !leaf.IsCA ||
		leaf.MaxPathLen != 0 || !leaf.MaxPathLenZero || leaf.SerialNumber.Int64() != 1 || len(leaf.ExtKeyUsage) != 2 {
		t.Errorf("subject %q issuer %q CA %v pathlen %d/%v serial %v ext key usage %v", leaf.Subject.CommonName,
			leaf.Issuer.CommonName, leaf.IsCA, leaf.MaxPathLen, leaf.MaxPathLenZero, leaf.SerialNumber, leaf.ExtKeyUsage)
	}
	if err := leaf.CheckSignatureFrom(leaf); err != nil {
		t.Errorf("not self-signed: %v", err)
	}
	sum := sha256.Sum256(leaf.Raw)
	if want := base64.RawURLEncoding.EncodeToString(sum[:]); c.ID != want || len(c.ID) != 43 || CheckPeerID(c.ID) != nil {
		t.Errorf("id %s, want %s", c.ID, want)
	}
	if st, err := os.Stat(filepath.Join(dir, PeerCertDir, peerKeyFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the key file: %v, %v; want mode 0600", st, err)
	}
	// Read back at the next start: the same certificate, no new key.
	again, created, err := LoadOrCreatePeerCertificate(dir, "other.example", func() (crypto.Signer, error) {
		t.Error("a new key was made for a directory that keeps one")
		return nil, errors.New("no")
	})
	if err != nil || created || again.ID != c.ID {
		t.Errorf("read back: id %v (was %s), created %v, %v", again, c.ID, created, err)
	}
}

func bitLen(p *rsa.PublicKey) int {
	if p == nil {
		return 0
	}
	return p.N.BitLen()
}

func ecKey() (crypto.Signer, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }

// A directory with only one of the two files, or a damaged one, is refused with the files named
// and what to do: never replaced silently by a new certificate, which would change the id.
func TestPeerCertificateDamaged(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := LoadOrCreatePeerCertificate(dir, "127.0.0.1", ecKey); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, PeerCertDir, peerKeyFile)
	b, _ := os.ReadFile(key)
	os.WriteFile(key, bytes.ReplaceAll(b, []byte("A"), []byte("B")), 0o600)
	if _, _, err := LoadOrCreatePeerCertificate(dir, "127.0.0.1", ecKey); err == nil || !strings.Contains(err.Error(), "remove both") {
		t.Errorf("a damaged key: %v", err)
	}
	os.Remove(key)
	if _, _, err := LoadOrCreatePeerCertificate(dir, "127.0.0.1", ecKey); err == nil || !strings.Contains(err.Error(), "is missing") {
		t.Errorf("a missing key: %v", err)
	}
}

// Peer infos "[ID@]HOST:PORT" and peer ids: what is wrong with a malformed one is said.
func TestParsePeerInfo(t *testing.T) {
	id := PeerIDOf([]byte("a certificate"))
	for s, want := range map[string]string{
		id + "@10.0.0.1:1789": id + "@10.0.0.1:1789",
		"10.0.0.1:1789":       "10.0.0.1:1789",
		id + "@[::1]:1789":    id + "@[::1]:1789",
	} {
		p, err := ParsePeerInfo(s)
		if err != nil || p.Text() != want {
			t.Errorf("%s: %v %v", s, p.Text(), err)
		}
	}
	for s, want := range map[string]string{
		"x@10.0.0.1:1789":              "is not a certificate fingerprint",
		id[:42] + "@10.0.0.1:1789":     "is not a certificate fingerprint",
		id + "=@10.0.0.1:1789":         "is not a certificate fingerprint",
		id + "@10.0.0.1":               "missing port",
		id + "@10.0.0.1:0":             "the port must be a number",
		id + "@bad_host:1789":          "not a letter, digit",
		"@10.0.0.1:1789":               "is not a certificate fingerprint",
		id + "@" + id + "@10.0.0.1:17": "not a letter, digit",
	} {
		if _, err := ParsePeerInfo(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", s, err, want)
		}
	}
}
