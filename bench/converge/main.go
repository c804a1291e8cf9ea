// Command converge runs a small mining network of ledger-node processes on loopback for a while
// and reports whether it stayed one network (issue 38): the block every node holds 20 heights
// below each chain's lowest tip, each miner's share of its own cut, the orphan rate, how many
// blocks were executed again per block validated, the deepest reorg, propagation latency, and
// how long each node took to stop after SIGTERM. It exits 1 when a bound of the issue fails:
// nodes that disagree, a miner whose own blocks are more than 60% of its cut, a node that took
// more than 15 s to stop.
//
// Usage (from the repository root):
//
//	go run ./bench/converge [-nodes 4] [-topology line|mesh] [-miners N] [-block-delay 2s]
//	    [-duration 10m] [-restart-after D [-restart-down 30s]] [-bin PATH] [-dir DIR]
//
// A line is a ← b ← c ← d (each node started with --peer to the one before); a mesh has each
// node peer with every node before it. Miners are the first -miners nodes (default: all but
// the last in a line, all in a mesh). With -restart-after, the second miner is stopped after
// that long and started again -restart-down later, on the same data directory.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ledgernode/ledger-node/internal/nodenet"
)

func main() {
	nodes := flag.Int("nodes", 4, "number of nodes")
	topology := flag.String("topology", "line", "line (each node peers with the one before) or mesh (with every node before)")
	miners := flag.Int("miners", -1, "how many of the nodes mine, the first ones (default: all but the last in a line, all in a mesh)")
	delay := flag.Duration("block-delay", 2*time.Second, "--block-delay of every node")
	duration := flag.Duration("duration", 10*time.Minute, "how long the network runs")
	restartAfter := flag.Duration("restart-after", 0, "stop the second miner after this long (0: never)")
	restartDown := flag.Duration("restart-down", 30*time.Second, "how long the restarted miner stays down")
	depth := flag.Uint64("depth", 20, "compare the nodes this many heights below each chain's lowest tip")
	bin := flag.String("bin", "", "ledger-node binary (default: built from this repository)")
	dir := flag.String("dir", "", "where the data directories and logs go (default: a new temporary directory, kept)")
	flag.Parse()
	if *nodes < 2 || *nodes > 26 {
		fail("-nodes must be 2 to 26")
	}
	if *miners < 0 {
		*miners = *nodes
		if *topology == "line" {
			*miners = *nodes - 1
		}
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "converge-")
		if err != nil {
			fail(err.Error())
		}
		*dir = d
	}
	if *bin == "" {
		fmt.Println("building ledger-node ...")
		wd, _ := os.Getwd()
		b, err := nodenet.Build(wd, *dir)
		if err != nil {
			fail(err.Error())
		}
		*bin = b
	}
	net := &nodenet.Net{Bin: *bin, Dir: *dir, BlockDelay: *delay}
	defer net.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)

	var all []*nodenet.Node
	for i := range *nodes {
		var peers []*nodenet.Node
		switch {
		case i == 0:
		case *topology == "line":
			peers = all[i-1 : i]
		case *topology == "mesh":
			peers = all[:i]
		default:
			fail("unknown topology " + *topology)
		}
		all = append(all, net.Add(string(rune('a'+i)), i < *miners, peers...))
	}
	fmt.Printf("%d nodes (%s, %d mining), block delay %v, %v, on %d cores; data and logs in %s\n",
		*nodes, *topology, *miners, *delay, *duration, runtime.NumCPU(), *dir)
	net.Record()
	for _, n := range all {
		if err := n.Start(); err != nil {
			fail(err.Error())
		}
	}
	// Each miner's share is counted above the heights of this moment: the first node mined
	// alone while the others started.
	if err := net.MarkStart(); err != nil {
		fail(err.Error())
	}
	start := time.Now()
	var restarted *nodenet.Node
	if *restartAfter > 0 && *miners >= 2 {
		restarted = all[1]
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var downAt time.Time // when the restarted node was stopped
	lastStatus := start
wait:
	for time.Since(start) < *duration {
		select {
		case <-stop:
			fmt.Println("interrupted: reporting on what ran")
			break wait
		case <-tick.C:
		}
		if restarted != nil && downAt.IsZero() && time.Since(start) >= *restartAfter {
			took, err := restarted.Stop(time.Minute)
			fmt.Printf("%v: stopped %s (SIGTERM, %v): %v\n", since(start), restarted.Name, took.Round(time.Millisecond), errText(err))
			downAt = time.Now()
		}
		if restarted != nil && !downAt.IsZero() && !restarted.Running() && time.Since(downAt) >= *restartDown {
			if err := restarted.Start(); err != nil {
				fail(err.Error())
			}
			fmt.Printf("%v: started %s again\n", since(start), restarted.Name)
		}
		if time.Since(lastStatus) < 30*time.Second {
			continue
		}
		lastStatus = time.Now()
		var line []string
		for _, n := range all {
			if !n.Running() {
				line = append(line, n.Name+"=down")
				continue
			}
			if c, err := n.Cut(); err == nil {
				var h uint64
				for _, e := range c {
					h += e.Height
				}
				line = append(line, fmt.Sprintf("%s=%d", n.Name, h))
			}
		}
		fmt.Printf("%v: cut heights %s\n", since(start), strings.Join(line, " "))
	}
	if restarted != nil && !restarted.Running() {
		if err := restarted.Start(); err != nil {
			fail(err.Error())
		}
	}

	rep, err := net.Report(*depth)
	if err != nil {
		fail("report: " + err.Error())
	}
	fmt.Print(rep)
	// Every node gets SIGTERM at once, as an operator stopping the network would send it.
	stops := make([]time.Duration, len(all))
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, n := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stops[i], errs[i] = n.Stop(time.Minute)
		}()
	}
	wg.Wait()
	var slowest time.Duration
	var stopLine []string
	for i, n := range all {
		slowest = max(slowest, stops[i])
		stopLine = append(stopLine, fmt.Sprintf("%s %v", n.Name, stops[i].Round(time.Millisecond)))
		if errs[i] != nil {
			stopLine[i] += " (" + errs[i].Error() + ")"
		}
	}
	fmt.Printf("stop after SIGTERM: %s\n", strings.Join(stopLine, ", "))

	ok := len(rep.Disagree) == 0
	for _, n := range rep.Nodes {
		if n.Mining && n.Share() > 0.6 {
			fmt.Printf("FAIL: %s mined %.1f%% of its own cut (bound 60%%)\n", n.Name, 100*n.Share())
			ok = false
		}
	}
	if slowest > 15*time.Second {
		fmt.Printf("FAIL: a node took %v to stop (bound 15 s)\n", slowest.Round(time.Millisecond))
		ok = false
	}
	if !ok || len(rep.Disagree) > 0 {
		fmt.Println("FAIL")
		os.Exit(1)
	}
	fmt.Println("PASS: one network, every miner under 60% of its cut, every node stopped within 15 s")
	fmt.Println("logs:", filepath.Join(*dir, "*.log"))
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Second) }

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "converge:", msg)
	os.Exit(2)
}
