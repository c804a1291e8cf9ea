// Command blockdelay runs a development node that mines with a short block delay long enough for
// the difficulty adjustment (DA) to act, then measures, from the stored headers, the mean block
// interval of every chain over its last complete epoch against the block delay (goal: within
// 20%; bench/RESULTS.md).
//
// Epochs are 12 blocks while the parent height is at most 120 and 120 blocks after that
// (pow.EffectiveWindow), so a chain's first full 120-block epoch covers heights 120..239 and
// ends after about 240 block delays; at -delay 2s that is 8 minutes. The run goes on until every
// chain has completed one, or -duration passes (then the last complete epoch of any length is
// used and the report says so).
//
// Usage (from the repository root):
//
//	go run ./bench/blockdelay [-delay 2s] [-duration 12m] [-data DIR] [-bin PATH]
//	go run ./bench/blockdelay -analyze DIR -delay 2s   # report on an existing data directory
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

const (
	goal      = 0.20 // |mean interval / delay − 1|
	fullEpoch = 120
)

func main() {
	delay := flag.Duration("delay", 2*time.Second, "block delay the node mines with")
	duration := flag.Duration("duration", 12*time.Minute, "longest mining run")
	data := flag.String("data", "", "data directory (default: a new temporary one)")
	bin := flag.String("bin", "", "ledger-node binary (default: built from ./cmd/ledger-node)")
	analyze := flag.String("analyze", "", "only report on this existing data directory")
	flag.Parse()
	dir := *analyze
	if dir == "" {
		var err error
		if dir, err = mine(*bin, *data, *delay, *duration); err != nil {
			fmt.Fprintln(os.Stderr, "blockdelay:", err)
			os.Exit(1)
		}
	}
	if err := report(dir, *delay); err != nil {
		fmt.Fprintln(os.Stderr, "blockdelay:", err)
		os.Exit(1)
	}
}

// mine runs the node until every chain has finished a full epoch (checked through its cut) or
// the duration passes, then stops it with SIGINT and returns its data directory.
func mine(bin, dir string, delay, duration time.Duration) (string, error) {
	tmp, err := os.MkdirTemp("", "blockdelay")
	if err != nil {
		return "", err
	}
	if dir == "" {
		dir = filepath.Join(tmp, "data")
	}
	if bin == "" {
		bin = filepath.Join(tmp, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	cmd := exec.Command(bin, "--data-dir", dir, "--block-delay", delay.String(), "--service-port", "0", "--p2p-port", "0", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	fmt.Printf("blockdelay: mining with --block-delay %v into %s for up to %v (%s/%s, %d CPUs, %s)\n",
		delay, dir, duration, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return "", err
	}
	// The node's status line says the lowest chain height; stop once it is past a full epoch.
	low := regexp.MustCompile(`chains at (\d+)–`)
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Println("  node:", sc.Text())
			if m := low.FindStringSubmatch(sc.Text()); m != nil {
				if h, _ := strconv.ParseUint(m[1], 10, 64); h >= 2*fullEpoch {
					select {
					case <-done:
					default:
						close(done)
					}
				}
			}
		}
		io.Copy(io.Discard, out)
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	select {
	case <-done:
	case <-time.After(duration):
	case <-ctx.Done():
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("node: %w", err)
	}
	fmt.Printf("blockdelay: mined for %v\n", time.Since(start).Round(time.Second))
	return dir, nil
}

// report walks each chain of the stored best cut down from its head and prints the mean interval
// of its last complete epoch.
func report(dir string, delay time.Duration) error {
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	heads, err := db.Heads()
	if err != nil {
		return err
	}
	v := ledger.Development.WithBlockDelay(delay.Microseconds())
	fmt.Printf("%-5s %7s %15s %8s %12s %7s %12s\n", "chain", "head", "epoch heights", "blocks", "mean", "ratio", "difficulty")
	var ratios []float64
	short := false
	for _, c := range v.Chains() {
		hash, ok := heads[c]
		if !ok {
			return fmt.Errorf("no head for chain %d", c)
		}
		chain, err := canonical(db, hash)
		if err != nil {
			return fmt.Errorf("chain %d: %w", c, err)
		}
		first, last, ok := lastEpoch(v, chain)
		if !ok {
			return fmt.Errorf("chain %d has no complete epoch yet (head at %d)", c, len(chain)-1)
		}
		short = short || last-first+1 < fullEpoch
		n := last - first + 1
		mean := time.Duration(chain[last].CreationTime-chain[first-1].CreationTime) * time.Microsecond / time.Duration(n)
		r := float64(mean) / float64(delay)
		ratios = append(ratios, r)
		d, _ := pow.Difficulty(chain[last].Target)
		fmt.Printf("%-5d %7d %7d–%-7d %8d %12v %7.3f %12s\n", c, len(chain)-1, first, last, n, mean.Round(time.Millisecond), r, d)
	}
	within := 0
	for _, r := range ratios {
		if math.Abs(r-1) <= goal {
			within++
		}
	}
	verdict := "met"
	if within < len(ratios) {
		verdict = "NOT met"
	}
	note := ""
	if short {
		note = " (some chains had no full 120-block epoch: their last 12-block epoch is used)"
	}
	fmt.Printf("mean interval / delay: min %.3f, median %.3f, max %.3f; %d of %d chains within ±%.0f%%: %s%s\n",
		slices.Min(ratios), stats.Median(ratios), slices.Max(ratios), within, len(ratios), goal*100, verdict, note)
	return nil
}

// canonical returns the chain ending in head, indexed by height (genesis at 0).
func canonical(db *store.DB, head ledger.Hash) ([]*ledger.Header, error) {
	h, err := db.Header(head)
	if err != nil {
		return nil, err
	}
	chain := make([]*ledger.Header, h.Height+1)
	for {
		chain[h.Height] = h
		if h.Height == 0 {
			return chain, nil
		}
		if h, err = db.Header(h.Parent); err != nil {
			return nil, err
		}
	}
}

// lastEpoch returns the first and last height of the chain's last complete epoch: the blocks from
// one that starts an epoch (its parent was the last of the previous one) up to the last of that
// epoch.
func lastEpoch(v *ledger.Version, chain []*ledger.Header) (first, last int, ok bool) {
	for end := len(chain) - 1; end >= 1; end-- {
		if !pow.IsLastInEpoch(v, uint64(end)) {
			continue
		}
		for start := end; start >= 1; start-- {
			if pow.IsLastInEpoch(v, uint64(start-1)) {
				return start, end, true
			}
		}
	}
	return 0, 0, false
}
