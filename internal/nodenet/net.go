package nodenet

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Build compiles ./cmd/ledger-node of the module at moduleDir into dir and returns the binary's
// path. It is an ordinary build (not race-instrumented): the network's nodes mine, and a
// race-instrumented miner would find a fraction of the blocks.
func Build(moduleDir, dir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command to build ledger-node with: %w", err)
	}
	bin := filepath.Join(dir, "ledger-node")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/ledger-node")
	cmd.Dir = moduleDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/ledger-node: %v\n%s", err, out)
	}
	return bin, nil
}

// Net is a network of nodes on loopback, all on the development network with one block delay.
type Net struct {
	Bin        string
	Dir        string        // each node's data directory and log go under it
	BlockDelay time.Duration // --block-delay of every node
	Extra      []string      // more flags for every node

	mu    sync.Mutex
	nodes []*Node
	rec   *recorder
	since map[int]uint64 // MarkStart's heights
}

// Node is one node of a Net.
type Node struct {
	Name   string
	Mining bool
	Peers  []*Node // the nodes it is started with --peer to

	net     *Net
	dataDir string
	// Service is the service API's base URL (http://127.0.0.1:port); P2P the peer API's
	// address (127.0.0.1:port). Both are kept over restarts.
	Service, P2P string
	svcPort      int
	p2pPort      int

	mu        sync.Mutex
	cmd       *exec.Cmd
	exited    chan error
	logFile   *os.File
	starts    int
	stoppedAt time.Time
	counters  Counters // summed over the runs that ended (Stop)
}

// Account is the miner account of the node's blocks.
func (n *Node) Account() string { return "miner-" + n.Name }

// Add adds a node that will be started with --peer to each of peers.
func (nt *Net) Add(name string, mining bool, peers ...*Node) *Node {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	n := &Node{Name: name, Mining: mining, Peers: peers, net: nt, dataDir: filepath.Join(nt.Dir, name)}
	nt.nodes = append(nt.nodes, n)
	return n
}

// Nodes returns the nodes in the order they were added.
func (nt *Net) Nodes() []*Node {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	return append([]*Node(nil), nt.nodes...)
}

// The lines of the node's standard output that name its addresses.
var (
	serviceLine = regexp.MustCompile(`service API on http://127\.0\.0\.1:(\d+)/`)
	peerLine    = regexp.MustCompile(`peer API on https?://127\.0\.0\.1:(\d+)/`) // HTTPS since issue 36
)

// startTimeout bounds a node's start, up to printing its addresses: a hang guard.
const startTimeout = 5 * time.Minute

// Start starts n (again, on the same data directory and ports, after Stop) and returns once it
// serves its peer API. Its peers must have been started.
func (n *Node) Start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		return fmt.Errorf("node %s is running", n.Name)
	}
	args := []string{"--network", "development", "--data-dir", n.dataDir,
		"--service-port", strconv.Itoa(n.svcPort), "--p2p-port", strconv.Itoa(n.p2pPort),
		"--block-delay", n.net.BlockDelay.String(), "--miner-account", n.Account()}
	if !n.Mining {
		args = append(args, "--mining", "off")
	}
	for _, p := range n.Peers {
		if p.P2P == "" {
			return fmt.Errorf("node %s: peer %s has not started", n.Name, p.Name)
		}
		args = append(args, "--peer", p.P2P)
	}
	args = append(args, n.net.Extra...)
	if err := os.MkdirAll(n.net.Dir, 0o755); err != nil {
		return err
	}
	logFile, err := os.OpenFile(filepath.Join(n.net.Dir, n.Name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logFile, "=== start %d: %s %s\n", n.starts+1, n.net.Bin, strings.Join(args, " "))
	cmd := exec.Command(n.net.Bin, args...)
	cmd.Stderr = logFile
	out, err := cmd.StdoutPipe()
	if err != nil {
		logFile.Close()
		return err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return err
	}
	exited := make(chan error, 1)
	ports := make(chan [2]int, 1)
	go func() {
		var svc, p2p int
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if m := serviceLine.FindStringSubmatch(line); m != nil {
				svc, _ = strconv.Atoi(m[1])
			}
			if m := peerLine.FindStringSubmatch(line); m != nil {
				p2p, _ = strconv.Atoi(m[1])
			}
			// The node prints its peer API's address after the service API's, and listens on
			// both then: requests wait in the listeners until it serves (after mining its
			// first blocks, on a fresh development node).
			if svc != 0 && p2p != 0 {
				select {
				case ports <- [2]int{svc, p2p}:
				default:
				}
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() { exited <- cmd.Wait() }()
	var got [2]int
	select {
	case got = <-ports:
	case err := <-exited:
		logFile.Close()
		return fmt.Errorf("node %s exited before serving: %v (log: %s)", n.Name, err, logFile.Name())
	case <-time.After(startTimeout):
		cmd.Process.Kill()
		<-exited
		logFile.Close()
		return fmt.Errorf("node %s did not serve within %v (log: %s)", n.Name, startTimeout, logFile.Name())
	}
	n.svcPort, n.p2pPort = got[0], got[1]
	n.Service = fmt.Sprintf("http://127.0.0.1:%d", n.svcPort)
	n.P2P = fmt.Sprintf("127.0.0.1:%d", n.p2pPort)
	n.cmd, n.exited, n.logFile = cmd, exited, logFile
	if r := n.net.recorder(); r != nil {
		if n.starts > 0 {
			r.markDown(n.Name, n.stoppedAt, time.Now())
		}
		r.watch(n)
	}
	n.starts++
	return nil
}

// ErrStopTimeout is Stop's error when the node did not exit within the time it was given after
// SIGTERM (it was then killed).
var ErrStopTimeout = errors.New("node did not exit after SIGTERM")

// Stop sends the node SIGTERM and waits for it to exit, killing it after timeout; it returns how
// long the node took. Its counters are read first, and kept for Report.
func (n *Node) Stop(timeout time.Duration) (time.Duration, error) {
	if c, err := n.Counters(); err == nil {
		n.mu.Lock()
		n.counters.add(c)
		n.mu.Unlock()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return 0, nil
	}
	start := time.Now()
	n.cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case <-n.exited:
	case <-time.After(timeout):
		n.cmd.Process.Kill()
		<-n.exited
		err = fmt.Errorf("%w: node %s, %v (killed)", ErrStopTimeout, n.Name, timeout)
	}
	took := time.Since(start)
	n.stoppedAt = start
	fmt.Fprintf(n.logFile, "=== stopped after %v\n", took.Round(time.Millisecond))
	n.logFile.Close()
	n.cmd = nil
	return took, err
}

// Running reports whether the node's process runs.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmd != nil
}

// Close kills every node still running.
func (nt *Net) Close() {
	for _, n := range nt.Nodes() {
		n.mu.Lock()
		if n.cmd != nil {
			n.cmd.Process.Kill()
			<-n.exited
			n.logFile.Close()
			n.cmd = nil
		}
		n.mu.Unlock()
	}
	if r := nt.recorder(); r != nil {
		r.close()
	}
}

// LogTail returns the last lines of the node's log, for a failure message.
func (n *Node) LogTail(lines int) string {
	b, err := os.ReadFile(filepath.Join(n.net.Dir, n.Name+".log"))
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}
