// Command devstart measures how soon a fresh development node can take a transaction: the time
// from its start to the first /health-check 200, and to every chain at height 2 or more (a
// transfer is refused while its chain's latest block is far older than the transfer's creation
// time, and the genesis blocks are from 2019). Each binary is started -runs times on a fresh
// data directory with the default block delay, alternating, so that a baseline build measured
// in the same run shares the machine's load with the build under test.
//
// Usage (from the repository root):
//
//	go run ./bench/devstart [-bin PATH] [-baseline PATH] [-runs 3] [-timeout 5m]
//
// Without -bin the node is built from ./cmd/ledger-node; a baseline is built from an older
// commit with `git worktree add /tmp/base REV && go build -o /tmp/base-node ./cmd/ledger-node`
// (run in /tmp/base).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	bin := flag.String("bin", "", "ledger-node binary under test (default: built from ./cmd/ledger-node)")
	baseline := flag.String("baseline", "", "ledger-node binary to compare with (optional)")
	runs := flag.Int("runs", 3, "starts per binary")
	timeout := flag.Duration("timeout", 5*time.Minute, "longest wait for every chain at height 2")
	flag.Parse()
	if *bin == "" {
		dir, err := os.MkdirTemp("", "devstart-bin")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			fail(fmt.Errorf("go build: %v\n%s", err, out))
		}
	}
	bins := []string{*bin}
	if *baseline != "" {
		bins = append(bins, *baseline)
	}
	results := make([][]sample, len(bins))
	for r := 0; r < *runs; r++ {
		for i, b := range bins {
			s, err := start(b, *timeout)
			if err != nil {
				fail(fmt.Errorf("%s: %w", b, err))
			}
			fmt.Printf("run %d %-40s health-check %6.2fs  every chain at height 2 %7.2fs\n", r+1, b, s.health.Seconds(), s.ready.Seconds())
			results[i] = append(results[i], s)
		}
	}
	fmt.Println()
	fmt.Printf("%-40s %14s %22s\n", "binary", "health (median)", "all chains ≥ 2 (median)")
	for i, b := range bins {
		h, a := medians(results[i])
		fmt.Printf("%-40s %13.2fs %21.2fs\n", b, h.Seconds(), a.Seconds())
	}
	if len(bins) == 2 {
		_, a0 := medians(results[0])
		_, a1 := medians(results[1])
		fmt.Printf("\nevery chain at height 2: the baseline takes %.1f× as long as the build under test\n", a1.Seconds()/a0.Seconds())
	}
}

type sample struct{ health, ready time.Duration }

func medians(ss []sample) (health, ready time.Duration) {
	hs := make([]time.Duration, len(ss))
	rs := make([]time.Duration, len(ss))
	for i, s := range ss {
		hs[i], rs[i] = s.health, s.ready
	}
	slices.Sort(hs)
	slices.Sort(rs)
	return median(hs), median(rs)
}

// median of sorted ds: the middle one, or the mean of the middle two.
func median(ds []time.Duration) time.Duration {
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}

// start runs one node on a fresh data directory and measures it, then stops it.
func start(bin string, timeout time.Duration) (sample, error) {
	dir, err := os.MkdirTemp("", "devstart-data")
	if err != nil {
		return sample{}, err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return sample{}, err
	}
	p2p, err := freePort()
	if err != nil {
		return sample{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.Command(bin, "--network", "development", "--data-dir", filepath.Join(dir, "data"),
		"--service-port", fmt.Sprint(port), "--p2p-port", fmt.Sprint(p2p), "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	client := &http.Client{Timeout: 10 * time.Second}
	var s sample
	for s.health == 0 {
		if ctx.Err() != nil {
			return s, fmt.Errorf("no /health-check 200 within %v", timeout)
		}
		if resp, err := client.Get(base + "/health-check"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				s.health = time.Since(t0)
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		if low, err := lowestHeight(client, base+"/chainweb/0.0/development/cut"); err == nil && low >= 2 {
			s.ready = time.Since(t0)
			return s, nil
		}
		if ctx.Err() != nil {
			return s, fmt.Errorf("chains not all at height 2 within %v", timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lowestHeight reads a cut and returns its lowest chain height.
func lowestHeight(c *http.Client, url string) (uint64, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var cut struct {
		Hashes map[string]struct {
			Height uint64 `json:"height"`
		} `json:"hashes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&cut); err != nil {
		return 0, err
	}
	if len(cut.Hashes) == 0 {
		return 0, fmt.Errorf("empty cut")
	}
	low := ^uint64(0)
	for _, h := range cut.Hashes {
		low = min(low, h.Height)
	}
	return low, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "devstart:", err)
	os.Exit(1)
}
