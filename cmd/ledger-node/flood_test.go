package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// floodLimit is the descriptor limit the flooded processes run under (issue 30: 512).
const floodLimit = 512

// TestConnectionFlood is issue 30's: a node and `pact -s`, each run with `ulimit -n 512`, are
// sent far more connections than they have descriptors for (1,200 to the node's service port and
// 800 to its peer port at once; 1,200 to pact -s), which they hold open. Neither may exit (before,
// accept failed with "too many open files" and the process exited 1); each keeps at most its
// limit open and closes the rest at once; and once the flood goes, each answers at once.
func TestConnectionFlood(t *testing.T) {
	t.Parallel() // mostly waits on other processes and peers: it overlaps with the other slow ones
	if runtime.GOOS != "linux" {
		t.Skip("sets the children's descriptor limit with the shell's ulimit")
	}
	if testing.Short() {
		t.Skip("builds and runs two binaries")
	}
	bins := exhBuild(t)
	dir := t.TempDir()

	t.Run("node", func(t *testing.T) {
		p := startLimited(t, bins["ledger-node"], "--network", "development", "--data-dir", filepath.Join(dir, "node"),
			"--service-port", "0", "--p2p-port", "0", "--mining", "off")
		svc, peer := p.addr("service"), p.addr("peer")
		floods := []*flood{openFlood(t, svc, 1200), openFlood(t, peer, 800)}
		p.alive(t)
		if held := floods[0].heldFewer(t, 1200); held == 0 {
			t.Errorf("the service port held %d of 1,200 connections: want some, and fewer than it has descriptors", held)
		}
		if held := floods[1].heldFewer(t, 800); held == 0 {
			t.Errorf("the peer port held %d of 800 connections", held)
		}
		for _, f := range floods {
			f.close()
		}
		if body := getText(t, "http://"+svc+"/health-check"); !strings.Contains(body, "Health check OK") {
			t.Errorf("health check after the flood: %q", body)
		}
		// A request with bare-LF line ends gets its 400 and the reason, with the API's headers,
		// instead of waiting for the read timeout.
		if a := rawRequest(t, svc, "GET /health-check HTTP/1.1\nHost: x\n\n"); !strings.HasPrefix(a, "HTTP/1.1 400 ") ||
			!strings.Contains(a, "bare LF") || !strings.Contains(a, "X-Chainweb-Node-Version: ") {
			t.Errorf("a bare-LF request: %q", a)
		}
		metrics := getText(t, "http://"+svc+"/metrics")
		for _, api := range []string{"service", "peer"} {
			if !regexp.MustCompile(`ledger_node_connections_refused_total\{api="` + api + `"\} [1-9]`).MatchString(metrics) {
				t.Errorf("no refused %s connections counted:\n%s", api, grepLines(metrics, "connections"))
			}
		}
		p.alive(t)
	})
	t.Run("pact-s", func(t *testing.T) {
		cfg := filepath.Join(dir, "pact.yaml")
		if err := os.WriteFile(cfg, []byte("port: 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := startLimited(t, bins["pact"], "-s", cfg)
		addr := p.addr("pact")
		f := openFlood(t, addr, 1200)
		p.alive(t)
		if held := f.heldFewer(t, 1200); held == 0 {
			t.Errorf("pact -s held %d of 1,200 connections", held)
		}
		f.close()
		if body := getText(t, "http://"+addr+"/version"); !strings.Contains(body, "pact version") {
			t.Errorf("/version after the flood: %q", body)
		}
		p.alive(t)
	})
}

// limitedProcess is a binary run under `ulimit -n floodLimit`.
type limitedProcess struct {
	cmd    *exec.Cmd
	out    *syncbuf.Buffer // stdout and stderr
	exited chan error
}

func startLimited(t *testing.T, bin string, args ...string) *limitedProcess {
	t.Helper()
	sh := fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, floodLimit)
	p := &limitedProcess{cmd: exec.Command("sh", append([]string{"-c", sh, bin}, args...)...), out: new(syncbuf.Buffer),
		exited: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// The lines that name the processes' addresses.
var floodAddrs = map[string]*regexp.Regexp{
	"service": regexp.MustCompile(`service API on http://([^/\s]+)/`),
	"peer":    regexp.MustCompile(`peer API on https://([^/\s]+)/`),
	"pact":    regexp.MustCompile(`pact server listening" addr=(\S+)`),
}

// addr waits for the process to print the address of what (a hang guard of a minute).
func (p *limitedProcess) addr(what string) string {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if m := floodAddrs[what].FindStringSubmatch(p.out.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-p.exited:
			p.exited <- err
			panic(fmt.Sprintf("exited before printing its %s address: %v\n%s", what, err, p.out.String()))
		case <-time.After(20 * time.Millisecond): // wallclock: a poll interval
		}
	}
	panic(fmt.Sprintf("no %s address printed in a minute\n%s", what, p.out.String()))
}

// alive fails the test if the process exited.
func (p *limitedProcess) alive(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.exited:
		p.exited <- err
		t.Fatalf("the process exited under the flood: %v\n%s", err, lastLines(p.out.String(), 20))
	default:
	}
}

// flood is many connections to one address, held open.
type flood struct {
	conns []net.Conn
}

func openFlood(t *testing.T, addr string, n int) *flood {
	t.Helper()
	f := &flood{}
	for range n {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			continue // the listen backlog was full for a moment: that connection is refused too
		}
		f.conns = append(f.conns, c)
	}
	if len(f.conns) == 0 {
		t.Fatalf("no connection to %s at all", addr)
	}
	return f
}

// heldFewer counts the connections the server holds open until they are fewer than n: a
// server busy on a loaded machine closes the ones it refuses late, and one that never does
// holds them all, which the hang guard reports.
func (f *flood) heldFewer(t *testing.T, n int) int {
	t.Helper()
	held := n
	hangguard.Until(t, fmt.Sprintf("fewer than %d connections held", n), func() bool {
		held = f.held()
		return held < n
	})
	return held
}

// held counts the connections the server holds open: a read of each, side by side, waits
// a second and times out, where the server closed a refused one (the read ends at once).
func (f *flood) held() int {
	results := make(chan bool, len(f.conns))
	for _, c := range f.conns {
		go func() {
			c.SetReadDeadline(time.Now().Add(time.Second)) // wallclock: a sampling window; heldFewer samples again
			var b [1]byte
			_, err := c.Read(b[:])
			ne, ok := err.(net.Error)
			results <- ok && ne.Timeout()
		}()
	}
	n := 0
	for range f.conns {
		if <-results {
			n++
		}
	}
	return n
}

func (f *flood) close() {
	for _, c := range f.conns {
		c.Close()
	}
}

func getText(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grepLines(s, substr string) string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.Contains(sc.Text(), substr) {
			out = append(out, sc.Text())
		}
	}
	return strings.Join(out, "\n")
}

// rawRequest sends req on a new connection to addr and returns all the server answers before
// it closes the connection (a hang guard of two minutes).
func rawRequest(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}
