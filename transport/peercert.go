package transport

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The peer API's certificate and the peer id (DECISIONS.md, "peer API transport"). As
// chainweb-node's (P2P/Peer.hs, Network/X509/SelfSigned.hs), the peer API speaks HTTPS with a
// self-signed certificate, and a peer's id is the SHA-256 fingerprint of its certificate's DER,
// base64url without padding: 43 characters. A peer info "ID@HOST:PORT" names the certificate
// the peer at HOST:PORT must present; one without the id accepts any.
//
// chainweb-node makes a new certificate at every start unless one is configured; this node
// makes one at its first start and keeps it in the data directory, so that its id survives a
// restart and peers configured with it keep working. Its shape is upstream's default build's
// (DefCertType RsaCert): a 4096-bit RSA key, signed with SHA-512, valid for 365 days from its
// making, serial 1, subject and issuer CN the announced host, key usages digitalSignature,
// keyCertSign, keyAgreement, keyEncipherment, dataEncipherment, nonRepudiation, extended key
// usages serverAuth and clientAuth, basic constraints CA with path length 0. Peers check the
// fingerprint, not the dates, so a kept certificate past its year goes on working.

// PeerIDBytes is the length of a peer id's fingerprint (SHA-256).
const PeerIDBytes = sha256.Size

// peerCertDays is the validity of a certificate the node makes (upstream's 365 days).
const peerCertDays = 365

// PeerKeyBits is the size of the RSA key of a certificate the node makes (upstream's).
const PeerKeyBits = 4096

// PeerIDOf is the peer id of the certificate whose DER is der: base64url (no padding) of its
// SHA-256.
func PeerIDOf(der []byte) string {
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// CheckPeerID says what is wrong with a peer id, nil when it is one: base64url without padding
// of 32 bytes (43 characters).
func CheckPeerID(id string) error {
	b, err := base64.RawURLEncoding.Strict().DecodeString(id)
	if err != nil || len(b) != PeerIDBytes {
		return fmt.Errorf("peer id %s is not a certificate fingerprint: base64url without padding of a SHA-256 (43 characters)", httpkit.Echo([]byte(id)))
	}
	return nil
}

// PeerCertificate is the peer API's certificate with its key, and its id.
type PeerCertificate struct {
	TLS tls.Certificate
	ID  string
}

// GeneratePeerKey makes the key of a new peer certificate: upstream's RSA-4096.
func GeneratePeerKey() (crypto.Signer, error) {
	return rsa.GenerateKey(rand.Reader, PeerKeyBits)
}

// NewPeerCertificatePEM makes a self-signed certificate of upstream's shape for key, with host
// as its common name, valid from now for peerCertDays; it returns the certificate and the key
// as PEM.
func NewPeerCertificatePEM(key crypto.Signer, host string, now time.Time) (certPEM, keyPEM []byte, err error) {
	name := pkix.Name{CommonName: host}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      name,
		Issuer:       name,
		NotBefore:    now,
		NotAfter:     now.Add(peerCertDays * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign | x509.KeyUsageKeyAgreement |
			x509.KeyUsageKeyEncipherment | x509.KeyUsageDataEncipherment | x509.KeyUsageContentCommitment,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            0,
		MaxPathLenZero:        true,
	}
	if _, ok := key.(*rsa.PrivateKey); ok {
		tmpl.SignatureAlgorithm = x509.SHA512WithRSA
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, fmt.Errorf("make the peer certificate: %w", err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the peer certificate's key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), nil
}

// ParsePeerCertificate reads a certificate chain and its key, both PEM (chainweb's
// p2p.peer.certificateChain and key). The first certificate of the chain is the peer's: its
// fingerprint is the peer id.
func ParsePeerCertificate(chainPEM, keyPEM []byte) (*PeerCertificate, error) {
	c, err := tls.X509KeyPair(chainPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("peer certificate: %w", err)
	}
	if len(c.Certificate) == 0 {
		return nil, errors.New("peer certificate: the chain holds no certificate")
	}
	return &PeerCertificate{TLS: c, ID: PeerIDOf(c.Certificate[0])}, nil
}

// Names of the files of the certificate a node keeps in its data directory.
const (
	PeerCertDir  = "peer"
	peerCertFile = "certificate.pem"
	peerKeyFile  = "key.pem"
)

// LoadOrCreatePeerCertificate reads the peer certificate kept under dir (PeerCertDir), or, when
// there is none, makes one with a key from newKey (GeneratePeerKey if nil) and the common name
// host, and keeps it there (the key readable by the owner only). created reports a new one.
func LoadOrCreatePeerCertificate(dir, host string, newKey func() (crypto.Signer, error)) (pc *PeerCertificate, created bool, err error) {
	d := filepath.Join(dir, PeerCertDir)
	certPath, keyPath := filepath.Join(d, peerCertFile), filepath.Join(d, peerKeyFile)
	certPEM, cerr := os.ReadFile(certPath)
	keyPEM, kerr := os.ReadFile(keyPath)
	switch {
	case cerr == nil && kerr == nil:
		pc, err := ParsePeerCertificate(certPEM, keyPEM)
		if err != nil {
			return nil, false, fmt.Errorf("%s and %s: %w (remove both to make a new certificate, which changes the peer id)", certPath, keyPath, err)
		}
		return pc, false, nil
	case errors.Is(cerr, fs.ErrNotExist) && errors.Is(kerr, fs.ErrNotExist):
	case cerr != nil && !errors.Is(cerr, fs.ErrNotExist):
		return nil, false, fmt.Errorf("peer certificate: %w", cerr)
	case kerr != nil && !errors.Is(kerr, fs.ErrNotExist):
		return nil, false, fmt.Errorf("peer certificate key: %w", kerr)
	default:
		return nil, false, fmt.Errorf("peer certificate: %s or %s is missing; remove the other to make a new certificate (which changes the peer id)",
			certPath, keyPath)
	}
	if newKey == nil {
		newKey = GeneratePeerKey
	}
	key, err := newKey()
	if err != nil {
		return nil, false, fmt.Errorf("peer certificate key: %w", err)
	}
	certPEM, keyPEM, err = NewPeerCertificatePEM(key, host, time.Now().UTC().Truncate(time.Second))
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(d, 0o700); err != nil {
		return nil, false, fmt.Errorf("peer certificate: %w", err)
	}
	// The key first, each file written whole under a temporary name and renamed: a crash
	// leaves either both files or what the next start reports.
	if err := writeFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return nil, false, err
	}
	if err := writeFileAtomic(certPath, certPEM, 0o644); err != nil {
		return nil, false, err
	}
	pc, err = ParsePeerCertificate(certPEM, keyPEM)
	return pc, err == nil, err
}

func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("peer certificate: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("peer certificate: %w", err)
	}
	return nil
}

// PeerServerTLS is the peer API's TLS configuration with certificate c.
func PeerServerTLS(c *PeerCertificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{c.TLS}, MinVersion: tls.VersionTLS12}
}

// splitPeerInfo splits "[ID@]HOST:PORT".
func splitPeerInfo(s string) (id, addr string, hasID bool) {
	if i := strings.IndexByte(s, '@'); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return "", s, false
}
