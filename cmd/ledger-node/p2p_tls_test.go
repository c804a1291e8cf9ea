package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport"
)

// The peer API speaks HTTPS with a self-signed certificate, as chainweb-node's does. The
// package's tests talk to it with Go's default client, which takes any certificate here: what a
// test asserts of a peer's identity it asserts by its fingerprint, as the nodes do.
func init() {
	http.DefaultTransport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec
}

// testPeerKey makes a P-256 key for a test node's certificate: upstream's RSA-4096 takes a
// second or more to make, and the tests start many nodes.
func testPeerKey() (crypto.Signer, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }

// testPeerCert is a self-signed peer certificate for a fake peer.
func testPeerCert(t *testing.T) *transport.PeerCertificate {
	t.Helper()
	key, err := testPeerKey()
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := transport.NewPeerCertificatePEM(key, "127.0.0.1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, err := transport.ParsePeerCertificate(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// servePeerTLS serves srv on ln over TLS with a certificate of its own, as a peer API; it
// returns the certificate's peer id.
func servePeerTLS(t *testing.T, srv *http.Server, ln net.Listener) string {
	t.Helper()
	c := testPeerCert(t)
	go srv.Serve(tls.NewListener(ln, transport.PeerServerTLS(c)))
	return c.ID
}

// listedInfos reads the peer list the node at p2p serves, as peer infos ID@HOST:PORT.
func listedInfos(t *testing.T, p2p string, v *ledger.Version) []string {
	t.Helper()
	var page struct {
		Items []transport.PeerInfo `json:"items"`
	}
	getJSON(t, "https://"+p2p+"/chainweb/0.0/"+v.Name+"/cut/peer", "application/json", &page)
	var out []string
	for _, it := range page.Items {
		out = append(out, it.Text())
	}
	return out
}

// peerCertID is the peer id of the certificate the peer API at addr presents in a handshake.
func peerCertID(t *testing.T, addr string) string {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec
	if err != nil {
		t.Fatalf("TLS handshake with the peer API at %s: %v", addr, err)
	}
	defer c.Close()
	return transport.PeerIDOf(c.ConnectionState().PeerCertificates[0].Raw)
}

// Two nodes over TLS: the first's peer API answers GET cut over HTTPS (and a plain-HTTP request
// a 400 saying it wants HTTPS); the second, given the first as ID@HOST:PORT, syncs from it and
// lists it with the fingerprint of its certificate as its id, in upstream's JSON; a third,
// given the first with another id, refuses it (a log line says why), never lists it, and
// syncs nothing; the certificate is kept in the data directory, so that a restart keeps the id.
func TestPeersOverTLS(t *testing.T) {
	t.Parallel() // mostly waits on other nodes: it overlaps with the other slow ones
	opts := nodeOptions{genesisTarget: testTarget(t), workers: 1}
	dirA := t.TempDir()
	a := startNodeOpts(t, opts, "--data-dir", dirA, "--miner-key", devMinerKey)
	v := a.node.version
	idA := peerCertID(t, a.p2p)
	if idA != a.node.peerID || transport.CheckPeerID(idA) != nil {
		t.Fatalf("the certificate presented has id %s; the node says its id is %s", idA, a.node.peerID)
	}
	if !strings.Contains(a.log.String(), "peerId="+idA) {
		t.Errorf("the node does not log its peer id %s", idA)
	}
	// curl -k https://127.0.0.1:P2P/chainweb/0.0/development/cut
	if c := fetchPeerCut(t, "https://"+a.p2p+"/chainweb/0.0/development/cut"); c.Version.Name != v.Name {
		t.Fatalf("GET cut over HTTPS: %+v", c)
	}
	resp, err := http.Get("http://" + a.p2p + "/chainweb/0.0/development/cut")
	if err != nil {
		t.Fatalf("plain HTTP to the peer API: %v (want a 400 saying it speaks HTTPS)", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "HTTPS") {
		t.Errorf("plain HTTP to the peer API: %d %q, want 400 saying it speaks HTTPS", resp.StatusCode, body)
	}

	b := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--mining", "off", "--peer", idA+"@"+a.p2p)
	waitCut(t, b.url, 2)
	waitListedInfo(t, b.p2p, v, idA+"@"+a.p2p)
	var page struct {
		Items []json.RawMessage `json:"items"`
	}
	getJSON(t, "https://"+b.p2p+"/chainweb/0.0/"+v.Name+"/cut/peer", "application/json", &page)
	host, port, _ := net.SplitHostPort(a.p2p)
	want := `{"id":"` + idA + `","address":{"hostname":"` + host + `","port":` + port + `}}`
	if !slices.ContainsFunc(page.Items, func(r json.RawMessage) bool { return string(r) == want }) {
		t.Errorf("GET cut/peer of the second node: %s, want an item %s", page.Items, want)
	}
	// The first learns the second from its introduction, and lists it with its id too.
	waitListedInfo(t, a.p2p, v, b.node.peerID+"@"+b.p2p)

	wrong := transport.PeerIDOf([]byte("another certificate"))
	c := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--mining", "off", "--peer", wrong+"@"+a.p2p)
	deadline := hangguard.Deadline()
	for !strings.Contains(c.log.String(), "peer refused: its certificate is not the one its peer id names") {
		if time.Now().After(deadline) {
			t.Fatalf("%s\n%s", hangguard.Failure("a log line refusing the peer of the wrong id"), lastLines(c.log.String(), 20))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if listed := listedInfos(t, c.p2p, v); len(listed) != 0 {
		t.Errorf("the node given a wrong id lists %v", listed)
	}
	if h := fetchCut(t, c.url).Height; h != 0 {
		t.Errorf("the node given a wrong id synced to cut height %d from the peer it refused", h)
	}
	if n := strings.Count(c.log.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d ERROR lines for the peer of the wrong id, want 1:\n%s", n, lastLines(c.log.String(), 20))
	}

	// The certificate survives a restart: same files, same id.
	a.stop()
	if _, err := os.Stat(filepath.Join(dirA, transport.PeerCertDir, "key.pem")); err != nil {
		t.Fatalf("the certificate's key is not kept in the data directory: %v", err)
	}
	a = startNodeOpts(t, opts, "--data-dir", dirA, "--mining", "off")
	if got := peerCertID(t, a.p2p); got != idA {
		t.Errorf("after a restart the node presents a certificate of id %s, before %s", got, idA)
	}
}

// waitListedInfo waits until the node at p2p lists info (ID@HOST:PORT) as a peer.
func waitListedInfo(t *testing.T, p2p string, v *ledger.Version, info string) {
	t.Helper()
	deadline := hangguard.Deadline()
	for !slices.Contains(listedInfos(t, p2p, v), info) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (its list: %v)", hangguard.Failure("the node listing "+info), listedInfos(t, p2p, v))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fetchPeerCut reads a cut from a peer API URL.
func fetchPeerCut(t *testing.T, url string) *ledger.Cut {
	t.Helper()
	c, _, err := ledger.DecodeCutJSON(get(t, url, "application/json"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A configured certificate (chainweb-node's p2p.peer.certificateChain and key) is the one the
// peer API presents, and its fingerprint the node's id; a chain without a key is refused.
func TestConfiguredPeerCertificate(t *testing.T) {
	dir := t.TempDir()
	key, _ := testPeerKey()
	certPEM, keyPEM, err := transport.NewPeerCertificatePEM(key, "node.example", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "chain.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, certPEM, 0o644)
	os.WriteFile(keyFile, keyPEM, 0o600)
	want, _ := transport.ParsePeerCertificate(certPEM, keyPEM)
	n := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off",
		"--p2p-certificate-chain-file", certFile, "--p2p-certificate-key-file", keyFile)
	if got := peerCertID(t, n.p2p); got != want.ID || n.node.peerID != want.ID {
		t.Errorf("the node presents id %s (says %s), want the configured certificate's %s", got, n.node.peerID, want.ID)
	}
	// The same through chainweb-node's keys, inline.
	file := filepath.Join(dir, "node.yaml")
	y := "chainweb:\n  chainwebVersion: development\n  p2p:\n    peer:\n      certificateChain: |\n" + indent(string(certPEM), 8) +
		"      key: |\n" + indent(string(keyPEM), 8)
	os.WriteFile(file, []byte(y), 0o600)
	cfg, _, err := loadConfig([]string{"--config-file", file}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if gc, err := cfg.P2P.givenCertificate(); err != nil || gc == nil || gc.ID != want.ID {
		t.Errorf("chainweb's p2p.peer.certificateChain and key: %v, %v", gc, err)
	}
	// --print-config does not print the key.
	if out := string(printConfig(cfg, printFull)); strings.Contains(out, "PRIVATE KEY") || !strings.Contains(out, "<redacted>") {
		t.Errorf("--print-config shows the peer certificate's key:\n%s", out)
	}
	if _, _, err := loadConfig([]string{"--p2p-certificate-chain-file", certFile}, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "without its key") {
		t.Errorf("a chain without a key: %v", err)
	}
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(pad + l)
		}
	}
	return b.String()
}

// Peer infos are [ID@]HOST:PORT: a malformed one is refused at start with a message saying what
// is wrong, in our --peer, chainweb-node's --known-peer-info, and in YAML.
func TestMalformedPeerInfo(t *testing.T) {
	good := transport.PeerIDOf([]byte("x"))
	for _, c := range []struct{ arg, want string }{
		{"--peer=nope@127.0.0.1:1789", "is not a certificate fingerprint"},
		{"--known-peer-info=" + good[:42] + "@127.0.0.1:1789", "is not a certificate fingerprint"},
		{"--peer=" + good + "@127.0.0.1", "missing port"},
		{"--peer=" + good + "@:1789", "the host name is empty"},
		{"--peer=@127.0.0.1:1789", "is not a certificate fingerprint"},
		{"--known-peer-info=127.0.0.1:0", "the port must be a number in 1–65535"},
		{"--p2p-hostname=bad_host", "p2p.hostname"},
	} {
		_, _, err := loadConfig([]string{c.arg}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.arg, err, c.want)
		}
	}
	for _, ok := range []string{"--peer=" + good + "@127.0.0.1:1789", "--known-peer-info=" + good + "@10.0.0.1:1789", "--peer=a.example:1789"} {
		cfg, _, err := loadConfig([]string{ok}, io.Discard)
		if err != nil {
			t.Errorf("%s: %v", ok, err)
			continue
		}
		if _, v, _ := strings.Cut(ok, "="); !slices.Contains(cfg.P2P.Peers, v) {
			t.Errorf("%s: peers %v", ok, cfg.P2P.Peers)
		}
	}
}

// The certificate flags' values for TestEveryFlagHasItsYAMLKey: a chain needs its key (a
// companion), the chain file a file that holds one.
func init() {
	key, err := testPeerKey()
	if err != nil {
		panic(err)
	}
	certPEM, keyPEM, err := transport.NewPeerCertificatePEM(key, "node.example", time.Unix(1_800_000_000, 0))
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "ledger-node-peer-cert")
	if err != nil {
		panic(err)
	}
	chainFile := filepath.Join(dir, "chain.pem")
	if err := os.WriteFile(chainFile, certPEM, 0o600); err != nil {
		panic(err)
	}
	printed, _ := yaml.Marshal(string(certPEM))
	flagValues["p2p-hostname"] = "node.example"
	flagValues["p2p-certificate-chain"] = string(certPEM)
	listValues["p2p-certificate-chain"] = struct{ printed, file string }{strings.Trim(strings.TrimSpace(string(printed)), `"'`),
		strconv.Quote(string(certPEM))}
	companions["p2p-certificate-chain"] = []string{"--p2p-key", string(keyPEM)}
	companionKeys["p2p-certificate-chain"] = "p2p.key"
	flagValues["p2p-certificate-chain-file"] = chainFile
	companions["p2p-certificate-chain-file"] = []string{"--p2p-key", string(keyPEM)}
	companionKeys["p2p-certificate-chain-file"] = "p2p.key"
	// A key without a chain is ignored, as upstream ignores it: any text passes.
	flagValues["p2p-key"] = "KEY"
	flagValues["p2p-certificate-key-file"] = "/nonexistent/key.pem"
}

// Both APIs bind 0.0.0.0 (chainweb's "*") on every network but development, and on development
// when a chainweb-node file or flag configures the node; development with our own settings
// keeps 127.0.0.1; a named interface always wins.
func TestBindingDefaults(t *testing.T) {
	dir := t.TempDir()
	cwFile := filepath.Join(dir, "chainweb.yaml")
	os.WriteFile(cwFile, []byte("chainweb:\n  chainwebVersion: development\n"), 0o600)
	ours := filepath.Join(dir, "ours.yaml")
	os.WriteFile(ours, []byte("network: development\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "127.0.0.1"},
		{[]string{"--config-file", ours}, "127.0.0.1"},
		{[]string{"--network", "mainnet01"}, "0.0.0.0"},
		{[]string{"--network", "testnet04"}, "0.0.0.0"},
		{[]string{"--config-file", cwFile}, "0.0.0.0"},
		{[]string{"--chainweb-version", "development"}, "0.0.0.0"},
		{[]string{"--network", "mainnet01", "--service-interface", "10.0.0.1", "--p2p-interface", "10.0.0.2"}, ""},
	} {
		cfg, _, err := loadConfig(c.args, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		svc, p2p := c.want, c.want
		if c.want == "" {
			svc, p2p = "10.0.0.1", "10.0.0.2"
		}
		if cfg.ServiceAPI.Interface != svc || cfg.P2P.Interface != p2p {
			t.Errorf("%v: service API on %s, peer API on %s; want %s and %s", c.args, cfg.ServiceAPI.Interface, cfg.P2P.Interface, svc, p2p)
		}
	}
}

// --p2p-hostname is what a node announces: its peer lists it at that name, and its /config says
// it.
func TestAnnouncedHostname(t *testing.T) {
	t.Parallel()
	opts := nodeOptions{genesisTarget: testTarget(t), workers: 1}
	a := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--mining", "off")
	b := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--mining", "off", "--p2p-hostname", "localhost",
		"--peer", a.node.peerID+"@"+a.p2p)
	_, port, _ := net.SplitHostPort(b.p2p)
	waitListedInfo(t, a.p2p, a.node.version, b.node.peerID+"@localhost:"+port)
	var cfg map[string]any
	getJSON(t, "https://"+b.p2p+"/config", "application/json", &cfg)
	if got := lookup(cfg, "p2p.peer.hostaddress.hostname"); got != "localhost" {
		t.Errorf("/config: p2p.peer.hostaddress.hostname %q, want localhost", got)
	}
	if got := lookup(cfg, "p2p.tls"); got != "true" {
		t.Errorf("/config: p2p.tls %q, want true", got)
	}
	if got := lookup(cfg, "p2p.peers"); !strings.Contains(got, "id: "+a.node.peerID) {
		t.Errorf("/config: p2p.peers %q, want the configured peer with its id %s", got, a.node.peerID)
	}
}
