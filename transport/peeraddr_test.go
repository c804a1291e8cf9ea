package transport

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// The address policy: never the unspecified, link-local, multicast, broadcast or reserved
// addresses, nor this node's own peer API; loopback and private addresses only when allowed;
// host names pass (the dialer checks what they resolve to).
func TestAddressPolicy(t *testing.T) {
	own := []netip.Addr{netip.MustParseAddr("192.168.1.5"), netip.MustParseAddr("203.0.113.9")}
	public := &AddressPolicy{SelfPort: 1789, Own: own}
	private := &AddressPolicy{SelfPort: 1789, Own: own, AllowPrivate: true}
	for _, tc := range []struct {
		addr            string
		public, private bool // accepted by each policy
		why             string
	}{
		{"198.51.100.7:1789", true, true, ""},
		{"[2001:db8::1]:1789", true, true, ""},
		{"example.com:1789", true, true, ""},
		{"169.254.169.254:80", false, false, "link-local"},
		{"[fe80::1]:1789", false, false, "link-local"},
		{"0.0.0.0:1789", false, false, "unspecified"},
		{"[::]:1789", false, false, "unspecified"},
		{"0.1.2.3:1789", false, false, "0.0.0.0/8"},
		{"224.0.0.1:1789", false, false, "multicast"},
		{"[ff02::1]:1789", false, false, "multicast"},
		{"255.255.255.255:1789", false, false, "broadcast"},
		{"240.0.0.1:1789", false, false, "reserved"},
		{"[::ffff:169.254.169.254]:80", false, false, "link-local"},
		{"127.0.0.1:1789", false, false, "own"},
		{"203.0.113.9:1789", false, false, "own"},
		{"203.0.113.9:1790", true, true, ""},
		{"127.0.0.1:1790", false, true, "private"},
		{"10.0.0.1:22", false, true, "private"},
		{"192.168.1.20:1789", false, true, "private"},
		{"100.64.0.1:1789", false, true, "private"},
		{"[fd00::1]:1789", false, true, "private"},
		{"[::1]:1790", false, true, "private"},
	} {
		for _, c := range []struct {
			p    *AddressPolicy
			want bool
		}{{public, tc.public}, {private, tc.private}} {
			err := c.p.Check(tc.addr)
			if (err == nil) != c.want {
				t.Errorf("%s (private allowed %v): %v, want accepted %v", tc.addr, c.p.AllowPrivate, err, c.want)
				continue
			}
			if err != nil && (!errors.Is(err, ErrReservedAddress) || !strings.Contains(err.Error(), tc.why) && !(tc.why == "own" && strings.Contains(err.Error(), "own peer API")) &&
				!(tc.why == "private" && strings.Contains(err.Error(), "loopback or private"))) {
				t.Errorf("%s: %v, want a reason naming %q", tc.addr, err, tc.why)
			}
		}
	}
	if err := public.Check("nonsense"); err == nil {
		t.Error("an address without a port passed")
	}
}

// The dialer resolves a name and refuses what the policy refuses: a name cannot lead where an
// address would not.
func TestAddressPolicyDialer(t *testing.T) {
	public := &AddressPolicy{SelfPort: 1789}
	if _, err := public.Dialer(DefaultPeerTimeout)("localhost:1790"); !errors.Is(err, ErrReservedAddress) {
		t.Fatalf("dialing localhost on a public node: %v, want the policy's refusal", err)
	}
}
