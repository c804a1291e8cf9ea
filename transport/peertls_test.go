package transport

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors/peersync"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/connguard"
)

// serveTLSPeer runs a peer API over HTTPS, on a guarded listener as the node runs it, with a
// certificate of its own; it returns its address and certificate.
func serveTLSPeer(t *testing.T) (string, *PeerCertificate, *recordingNode) {
	t.Helper()
	f := newFixture(t)
	key, err := ecKey()
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := NewPeerCertificatePEM(key, "127.0.0.1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ParsePeerCertificate(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	n := &recordingNode{}
	svc := NewPeerService(ServiceConfig{Version: f.v, Store: f.db, Cut: func() *ledger.Cut { return ledger.NewCut(f.v, f.heads) }},
		PeerConfig{Node: n, Throttle: Throttle{Global: 1e6, PutPeer: 1e6, Mempool: 1e6}, TLS: PeerServerTLS(cert)})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := connguard.GuardListener(ln, connguard.ConnLimits{Max: 16}, "peer API", nil)
	done := make(chan error, 1)
	go func() { done <- svc.Serve(g) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangguard.Limit)
		defer cancel()
		svc.Shutdown(ctx)
		<-done
	})
	return ln.Addr().String(), cert, n
}

// The peer client speaks HTTPS: without an id it takes the certificate and reports its
// fingerprint as the peer's id; with the right id it works; with another it is refused at the
// handshake (ErrPeerIdentity, saying both ids) and the peer API never sees a request. Its own
// peer info goes with its introduction, and the peer list comes back with ids.
func TestPeerClientTLS(t *testing.T) {
	addr, cert, n := serveTLSPeer(t)
	ctx := context.Background()
	any := NewPeerClient(addr, ledger.Development, PeerClientConfig{})
	if any.ID() != "" {
		t.Errorf("an id before any handshake: %s", any.ID())
	}
	if _, err := any.Cut(ctx); err != nil {
		t.Fatal(err)
	}
	if any.ID() != cert.ID {
		t.Errorf("the client recorded id %q, the certificate's is %s", any.ID(), cert.ID)
	}
	self := PeerIDOf([]byte("this node")) + "@10.0.0.5:1789"
	if err := any.AddPeer(ctx, self); err != nil {
		t.Fatal(err)
	}
	if got := n.PeerInfos(); got[len(got)-1] != self {
		t.Errorf("the introduction reached the node as %q, want %q", got[len(got)-1], self)
	}
	list, err := any.Peers(ctx)
	if err != nil || list[len(list)-1] != self {
		t.Errorf("the peer list: %v %v, want %s last", list, err, self)
	}
	right := NewPeerClient(addr, ledger.Development, PeerClientConfig{ID: cert.ID})
	if _, err := right.Cut(ctx); err != nil {
		t.Errorf("the client with the right id: %v", err)
	}
	before := len(n.PeerInfos())
	wrong := NewPeerClient(addr, ledger.Development, PeerClientConfig{ID: PeerIDOf([]byte("another"))})
	_, err = wrong.Cut(ctx)
	var ie *PeerIdentityError
	if !errors.Is(err, peersync.ErrPeerIdentity) || !errors.As(err, &ie) || ie.Got != cert.ID ||
		!strings.Contains(err.Error(), cert.ID) || !strings.Contains(err.Error(), wrong.ID()) {
		t.Fatalf("the client with a wrong id: %v", err)
	}
	if err := wrong.AddPeer(ctx, PeerIDOf([]byte("other"))+"@10.0.0.6:1789"); !errors.Is(err, peersync.ErrPeerIdentity) || len(n.PeerInfos()) != before {
		t.Errorf("the client with a wrong id sent a request after the refused handshake: %v", err)
	}
}

// Plain HTTP to the TLS port is answered a 400 in plain HTTP that says the port speaks HTTPS;
// a request with bare-LF line ends over TLS still gets its 400 at once.
func TestPeerTLSPort(t *testing.T) {
	addr, _, _ := serveTLSPeer(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(hangguard.Limit))
	io.WriteString(c, "GET /chainweb/0.0/development/cut HTTP/1.1\r\nHost: x\r\n\r\n")
	b, _ := io.ReadAll(c)
	if !strings.HasPrefix(string(b), "HTTP/1.1 400 ") || !strings.Contains(string(b), "speaks HTTPS") {
		t.Errorf("plain HTTP: %q", b)
	}
	tc, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	tc.SetDeadline(time.Now().Add(hangguard.Limit))
	io.WriteString(tc, "GET /chainweb/0.0/development/cut HTTP/1.1\nHost: x\n\n")
	line, err := bufio.NewReader(tc).ReadString('\n')
	if !strings.HasPrefix(line, "HTTP/1.1 400") {
		t.Errorf("bare LF over TLS: %q %v", line, err)
	}
}
