package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"
)

// Which peer addresses a node accepts (issue 30). A peer's address is one this node will
// connect to and hand on to every other node: PUT cut/peer took 169.254.169.254:80 (a cloud's
// metadata service), 10.0.0.1:22, 0.0.0.0, multicast addresses and the node's own address, and
// then polled them every 2 s. An address that is never a peer's (unspecified, link-local,
// multicast, broadcast, reserved, this node's own) is refused always; loopback and private
// ranges only where the node itself is on such an address (a development network on one
// machine, a LAN) or AllowPrivate says so.

// AddressPolicy says which peer addresses a node accepts.
type AddressPolicy struct {
	// AllowPrivate admits loopback, private (RFC 1918, fc00::/7) and shared (100.64.0.0/10)
	// addresses.
	AllowPrivate bool
	// SelfPort is this node's peer API port: an address with that port on one of this
	// machine's addresses (Own), on loopback, or unspecified, is the node itself.
	SelfPort uint16
	// Own are this machine's addresses (net.InterfaceAddrs at start).
	Own []netip.Addr
}

// ErrReservedAddress marks an address the policy refuses.
var ErrReservedAddress = errors.New("not a peer address")

// CheckIP says why ip (with port) cannot be a peer's, nil when it can.
func (p *AddressPolicy) CheckIP(ip netip.Addr, port uint16) error {
	ip = ip.Unmap()
	var why string
	switch {
	case !ip.IsValid():
		why = "it is not an IP address"
	case ip.IsUnspecified():
		why = "it is the unspecified address"
	case ip.Is4() && ip.As4()[0] == 0:
		why = "it is in 0.0.0.0/8, which names this host, not a peer"
	case ip.IsLinkLocalUnicast():
		why = "it is link-local (such as 169.254.169.254, a cloud's metadata service)"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		why = "it is a multicast address"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		why = "it is the broadcast address"
	case ip.Is4() && ip.As4()[0] >= 240:
		why = "it is in 240.0.0.0/4, which is reserved"
	case p.isSelf(ip, port):
		why = "it is this node's own peer API"
	case !p.AllowPrivate && (ip.IsLoopback() || ip.IsPrivate() || sharedSpace.Contains(ip)):
		why = "it is a loopback or private address, which a node on a public address does not take from peers " +
			"(p2p.allowPrivatePeers admits them)"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s: %s", ErrReservedAddress, netip.AddrPortFrom(ip, port), why)
}

// sharedSpace is RFC 6598's shared address space (carrier-grade NAT), private in all but name.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

func (p *AddressPolicy) isSelf(ip netip.Addr, port uint16) bool {
	if p.SelfPort == 0 || port != p.SelfPort {
		return false
	}
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	for _, o := range p.Own {
		if o.Unmap() == ip {
			return true
		}
	}
	return false
}

// Check says why the peer address hostport cannot be a peer's. A host name passes here: what it
// resolves to is checked when the node connects (Dialer).
func (p *AddressPolicy) Check(hostport string) error {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("peer address %q: %w", hostport, err)
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return fmt.Errorf("peer address %q: the port must be a number in 1–65535", hostport)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return nil // a host name
	}
	return p.CheckIP(ip, uint16(n))
}

// Dialer connects to peers at the addresses the policy admits: a host name is resolved and each
// of its addresses checked, so that a name cannot lead where an address would not.
// (fasthttp.Client.Dial)
func (p *AddressPolicy) Dialer(timeout time.Duration) func(addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout}
	return func(addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("peer address %q: bad port", addr)
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		var firstErr error
		for _, ip := range ips {
			if err := p.CheckIP(ip, uint16(n)); err != nil {
				firstErr = err
				continue
			}
			c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(ip.Unmap(), uint16(n)).String())
			if err == nil {
				return c, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("%s resolves to no address", host)
		}
		return nil, firstErr
	}
}

// LocalAddresses returns this machine's interface addresses (none if they cannot be read).
func LocalAddresses() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, a := range addrs {
		if pn, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(pn.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out
}
