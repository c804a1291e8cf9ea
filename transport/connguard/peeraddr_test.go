package connguard

import (
	"net"
	"testing"
)

func TestPeerAddrFormat(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 80}, "10.1.2.3:80"},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:10.1.2.3"), Port: 81}, "10.1.2.3:81"},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 443}, "[2001:db8::1]:443"},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, "/tmp/s"},
	} {
		if got := string(AppendPeerAddr(nil, c.addr)); got != c.want {
			t.Errorf("%v: %q, want %q", c.addr, got, c.want)
		}
	}
}
