package connguard

import (
	"net"
	"net/netip"
	"strconv"
)

// AppendPeerAddr appends the client address as "ip:port", IPv6 in brackets, as upstream's
// X-Peer-Addr shows it. IPv4 peers of a dual-stack listener arrive as IPv4-mapped IPv6; they are
// unmapped so a client sees the address it connected from.
func AppendPeerAddr(dst []byte, a net.Addr) []byte {
	if t, ok := a.(*net.TCPAddr); ok {
		if ip4 := t.IP.To4(); ip4 != nil && t.Zone == "" && 0 <= t.Port && t.Port <= 0xffff {
			// The common case written by hand: netip's formatting costs about four times as
			// much, on every request. The same text (TestAppendPeerAddr).
			for i, b := range ip4 {
				if i > 0 {
					dst = append(dst, '.')
				}
				dst = strconv.AppendUint(dst, uint64(b), 10)
			}
			dst = append(dst, ':')
			return strconv.AppendUint(dst, uint64(t.Port), 10)
		}
		ap := t.AddrPort()
		if ap.Addr().Is4In6() {
			ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		}
		return ap.AppendTo(dst)
	}
	return append(dst, a.String()...)
}
