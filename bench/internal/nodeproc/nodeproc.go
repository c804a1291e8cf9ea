// Package nodeproc runs a ledger-node binary as a separate process for the benchmark harnesses:
// started with its arguments, ready once it prints its service API address, stopped with
// SIGTERM. The harnesses measure the node as operators run it, so that only the requests they
// send use its CPU.
package nodeproc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Node is a running ledger-node process.
type Node struct {
	Cmd *exec.Cmd
	// Addr is the service API's HOST:PORT; Base is http://Addr.
	Addr, Base string

	exited chan error
	mu     sync.Mutex
	stderr strings.Builder // what it logged, when Start was given no stderr
}

// serviceLine is the line of the node's output that names the service API's address.
var serviceLine = regexp.MustCompile(`service API on http://([^/]+)/`)

// startTimeout bounds how long a node may take to serve: a fresh development node mines its
// first blocks before it does.
const startTimeout = 120 * time.Second

// Start runs bin with args and waits until it prints its service address. The node's log goes
// to stderr, or is kept (Stderr) when stderr is nil.
func Start(bin string, args []string, stderr io.Writer) (*Node, error) {
	n := &Node{Cmd: exec.Command(bin, args...), exited: make(chan error, 1)}
	n.Cmd.Stderr = stderr
	if stderr == nil {
		n.Cmd.Stderr = lockedWriter{n}
	}
	out, err := n.Cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := n.Cmd.Start(); err != nil {
		return nil, err
	}
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := serviceLine.FindStringSubmatch(sc.Text()); m != nil {
				addrs <- m[1]
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() { n.exited <- n.Cmd.Wait() }()
	select {
	case n.Addr = <-addrs:
		n.Base = "http://" + n.Addr
		return n, nil
	case err := <-n.exited:
		return nil, fmt.Errorf("node exited before serving: %v\n%s", err, n.Stderr())
	case <-time.After(startTimeout):
		n.Cmd.Process.Kill()
		<-n.exited
		return nil, fmt.Errorf("node did not print its service address in %v\n%s", startTimeout, n.Stderr())
	}
}

// Stop sends SIGTERM and waits for the node to exit, killing it after 30 s.
func (n *Node) Stop() error {
	n.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-n.exited:
		return err
	case <-time.After(30 * time.Second):
		n.Cmd.Process.Kill()
		<-n.exited
		return errors.New("did not exit within 30 s of SIGTERM")
	}
}

// Stderr is what the node logged, when Start kept it.
func (n *Node) Stderr() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stderr.String()
}

type lockedWriter struct{ n *Node }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.n.mu.Lock()
	defer w.n.mu.Unlock()
	return w.n.stderr.Write(p)
}

// Getter is the GET of an HTTP client (fasthttp.HostClient's), which the harnesses read the node
// with.
type Getter interface {
	Get(dst []byte, url string) (status int, body []byte, err error)
}

// Heights returns the height of chains 0 to chains−1 in the development node's cut, read with hc.
func (n *Node) Heights(hc Getter, chains int) ([]uint64, error) {
	status, body, err := hc.Get(nil, n.Base+"/chainweb/0.0/development/cut")
	if err != nil {
		return nil, fmt.Errorf("GET cut: %w", err)
	}
	if status != 200 {
		return nil, fmt.Errorf("GET cut: status %d: %.200s", status, body)
	}
	return CutHeights(body, chains)
}

// WaitHeights reads the node's cut (Heights) until each of the chains is at least at height h,
// or fails after timeout.
func (n *Node) WaitHeights(hc Getter, chains int, h uint64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		hs, err := n.Heights(hc, chains)
		if err != nil {
			return err
		}
		if slices.Min(hs) >= h {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("chains not all at height %d after %v: %v", h, timeout, hs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// CutHeights reads every chain's height, chains 0 to chains−1, from a GET …/cut body.
func CutHeights(body []byte, chains int) ([]uint64, error) {
	var cut struct {
		Hashes map[string]struct {
			Height uint64 `json:"height"`
		} `json:"hashes"`
	}
	if err := json.Unmarshal(body, &cut); err != nil {
		return nil, fmt.Errorf("GET cut: %v: %.200s", err, body)
	}
	hs := make([]uint64, chains)
	for c := range chains {
		e, ok := cut.Hashes[strconv.Itoa(c)]
		if !ok {
			return nil, fmt.Errorf("GET cut: no chain %d: %.200s", c, body)
		}
		hs[c] = e.Height
	}
	return hs, nil
}
