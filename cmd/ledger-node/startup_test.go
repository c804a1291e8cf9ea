package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A node whose service or peer port is taken exits with an error naming the port before it
// creates the data directory: nothing is written, no block is mined, and the directory is not
// bound to this run's block delay.
func TestPortTakenLeavesNoDataDir(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := fmt.Sprint(taken.Addr().(*net.TCPAddr).Port)

	for _, tc := range []struct{ name, flag, other, want string }{
		{"service", "--service-port", "--p2p-port", "service API"},
		{"peer", "--p2p-port", "--service-port", "peer API"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			var stderr bytes.Buffer
			code := run([]string{"--data-dir", dir, "--service-interface", "127.0.0.1", "--p2p-interface", "127.0.0.1",
				tc.flag, port, tc.other, "0", "--block-delay", "2s"}, io.Discard, &stderr)
			msg := stderr.String()
			if code != 1 || !strings.Contains(msg, tc.want) || !strings.Contains(msg, ":"+port) ||
				!strings.Contains(msg, tc.flag) || !strings.Contains(msg, "address already in use") {
				t.Fatalf("exit %d, stderr %q: want exit 1 naming the %s port %s and %s", code, msg, tc.want, port, tc.flag)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("the data directory was created (stat: %v)", err)
			}
		})
	}
}
