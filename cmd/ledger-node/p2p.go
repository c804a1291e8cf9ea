package main

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"

	"github.com/ledgernode/ledger-node/transport"
)

// The peer API's transport settings (DECISIONS.md, "binding" and "peer API transport"): its
// certificate, the host it announces, and what the peer infos of the configuration say.

// bindDefaults fills the interfaces left empty (DECISIONS.md, "binding"): 0.0.0.0 (chainweb's
// "*") for the service and peer APIs, as chainweb-node binds them, on every network but
// development, and on any network configured by a chainweb-node file or flag (devnet's
// containers must reach each other's peer port); the development network with our own
// settings alone keeps 127.0.0.1, so that `make run` stays on the machine.
func (c *Config) bindDefaults() {
	def := "0.0.0.0"
	if c.Network == "development" && !c.chainwebOrigin {
		def = "127.0.0.1"
	}
	if c.ServiceAPI.Interface == "" {
		c.ServiceAPI.Interface = def
	}
	if c.P2P.Interface == "" {
		c.P2P.Interface = def
	}
}

// check checks the peer settings: peer infos, the announced host name, and a given
// certificate (read and parsed here, so that a bad one is a configuration error at start).
func (p *P2PConfig) check() error {
	for _, s := range p.Peers {
		if _, err := transport.ParsePeerInfo(s); err != nil {
			return fmt.Errorf("p2p.peers (--peer): %v", err)
		}
	}
	if p.Key == redactedSecret {
		return fmt.Errorf("p2p.key: %q is what --print-config prints in place of the key: put the key itself (PEM) here, "+
			"or use p2p.keyFile", redactedSecret)
	}
	if p.Hostname != "" {
		if err := transport.CheckHostname(p.Hostname); err != nil {
			return fmt.Errorf("p2p.hostname (--p2p-hostname): %v", err)
		}
	}
	_, err := p.givenCertificate()
	return err
}

// givenCertificate is the configured certificate of the peer API, nil when none is configured.
// As upstream (P2P/Peer.hs, getPeerCertificate): the inline chain wins over the file, the
// inline key over its file, a key without a chain is ignored, and a chain without a key is an
// error.
func (p *P2PConfig) givenCertificate() (*transport.PeerCertificate, error) {
	chain, err := pemSetting([]byte(p.CertificateChain), p.CertificateChainFile, "p2p.certificateChainFile (--p2p-certificate-chain-file)")
	if err != nil || chain == nil {
		return nil, err
	}
	key, err := pemSetting([]byte(p.Key), p.KeyFile, "p2p.keyFile (--p2p-certificate-key-file)")
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, errors.New("p2p.certificateChain (--p2p-certificate-chain, or its file) is given without its key: " +
			"set p2p.key (--p2p-key) or p2p.keyFile (--p2p-certificate-key-file)")
	}
	c, err := transport.ParsePeerCertificate(chain, key)
	if err != nil {
		return nil, fmt.Errorf("p2p.certificateChain and p2p.key: %v", err)
	}
	return c, nil
}

// pemSetting is an inline PEM setting, or else the content of its file (nil: neither set).
func pemSetting(inline []byte, file, name string) ([]byte, error) {
	if len(inline) > 0 {
		return inline, nil
	}
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return b, nil
}

// peerCertificate is the peer API's certificate: the configured one, or the one kept in the
// data directory, made at the first start (with a key from newKey; nil: upstream's RSA-4096).
func (n *node) peerCertificate(host string, newKey func() (crypto.Signer, error)) (*transport.PeerCertificate, error) {
	c, err := n.cfg.P2P.givenCertificate()
	if err != nil || c != nil {
		return c, err
	}
	c, created, err := transport.LoadOrCreatePeerCertificate(n.cfg.DataDir, host, newKey)
	if err != nil {
		return nil, err
	}
	if created {
		n.log.Info("made the peer API's certificate", "peerId", c.ID, "dir", n.cfg.DataDir+string(os.PathSeparator)+transport.PeerCertDir)
	}
	return c, nil
}

// peerHost is the host this node announces to its peers: p2p.hostname when set; else the
// address the peer API is bound to; on an unspecified address, the address this machine
// reaches its first configured peer from (what that peer sees), else its first address that
// is not loopback, else 127.0.0.1.
func peerHost(cfg P2PConfig, bound net.IP) string {
	if cfg.Hostname != "" {
		return cfg.Hostname
	}
	if !bound.IsUnspecified() {
		return bound.String()
	}
	for _, s := range cfg.Peers {
		p, err := transport.ParsePeerInfo(s)
		if err != nil {
			continue
		}
		// A UDP "connection" sends nothing: it only asks the kernel for the route.
		c, err := net.DialTimeout("udp", p.String(), time.Second)
		if err != nil {
			continue
		}
		ip := c.LocalAddr().(*net.UDPAddr).IP
		c.Close()
		if !ip.IsUnspecified() {
			return ip.String()
		}
	}
	for _, a := range transport.LocalAddresses() {
		if a.Is4() && !a.IsLoopback() && !a.IsLinkLocalUnicast() {
			return a.String()
		}
	}
	return "127.0.0.1"
}

// privateHost reports whether host (an address, or a name resolved here) is a loopback or
// private address: a node announced on one is on a network of such addresses, whose peers it
// takes (transport.AddressPolicy.AllowPrivate).
func privateHost(host string) bool {
	ips := []netip.Addr{}
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = append(ips, ip)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		ips, _ = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	for _, ip := range ips {
		ip = ip.Unmap()
		if ip.IsLoopback() || ip.IsPrivate() || sharedAddressSpace.Contains(ip) {
			return true
		}
	}
	return false
}

// sharedAddressSpace is RFC 6598's (carrier-grade NAT): private in all but name.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")
