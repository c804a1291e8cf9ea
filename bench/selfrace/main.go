// Command selfrace measures how often a lone mining node races itself: it runs a development
// node that mines every chain, alone (no peers), for -duration, then reads its /metrics. Every
// block it inserted should enter its cut; a block inserted that never did is a sibling of one
// that did, mined on the same parent by another of its own search workers (issue 36: 2%,
// 20,544 inserted, 20,134 entered). The goal is a difference under 0.1% of the blocks inserted.
//
// Usage (from the repository root):
//
//	go run ./bench/selfrace [-duration 10m] [-delay 1s] [-bin PATH]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/bench/internal/nodeproc"
	"github.com/ledgernode/ledger-node/bench/internal/proc"
)

const goal = 0.001

func main() {
	duration := flag.Duration("duration", 10*time.Minute, "how long the node mines")
	delay := flag.Duration("delay", time.Second, "the node's --block-delay")
	bin := flag.String("bin", "", "ledger-node binary (default: built from ./cmd/ledger-node)")
	flag.Parse()
	if err := run(*bin, *duration, *delay); err != nil {
		fmt.Fprintln(os.Stderr, "selfrace:", err)
		os.Exit(1)
	}
}

func run(bin string, duration, delay time.Duration) error {
	tmp, err := os.MkdirTemp("", "selfrace")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	fmt.Printf("selfrace: %s/%s, %d CPUs, %s, load average %s; %s, block delay %v, %v\n", runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), runtime.Version(), proc.LoadAverage(), bin, delay, duration)
	nd, err := nodeproc.Start(bin, []string{"--data-dir", filepath.Join(tmp, "data"), "--service-port", "0", "--p2p-port", "0",
		"--block-delay", delay.String(), "--log-level", "warn"}, nil)
	if err != nil {
		return err
	}
	hc := &fasthttp.HostClient{Addr: nd.Addr, ReadTimeout: 30 * time.Second, MaxResponseBodySize: 64 << 20}
	start, err := read(hc, nd.Base)
	if err != nil {
		nd.Stop()
		return err
	}
	time.Sleep(duration)
	end, err := read(hc, nd.Base)
	if serr := nd.Stop(); err == nil && serr != nil {
		err = fmt.Errorf("node: %v\n%s", serr, nd.Stderr())
	}
	if err != nil {
		return err
	}
	ins := end["ledger_node_blocks_inserted_total"] - start["ledger_node_blocks_inserted_total"]
	ent := end["ledger_node_blocks_entered_cut_total"] - start["ledger_node_blocks_entered_cut_total"]
	mined := end["ledger_node_mined_blocks_total"] - start["ledger_node_mined_blocks_total"]
	orph := end["ledger_node_blocks_orphaned_total"] - start["ledger_node_blocks_orphaned_total"]
	share := 0.0
	if ins > 0 {
		share = (ins - ent) / ins
	}
	verdict := "meets"
	if share >= goal {
		verdict = "misses"
	}
	fmt.Printf("over %v after start-up: mined %.0f, inserted %.0f, entered the cut %.0f, orphaned %.0f; "+
		"inserted but never in the cut %.0f = %.3f%% (%s the goal < %.1f%%); cut height %.0f\n",
		duration, mined, ins, ent, orph, ins-ent, 100*share, verdict, 100*goal, end["ledger_node_cut_height"])
	return nil
}

// read scrapes /metrics and returns the unlabelled samples.
func read(hc *fasthttp.HostClient, base string) (map[string]float64, error) {
	status, body, err := hc.Get(nil, base+"/metrics")
	if err != nil || status != 200 {
		return nil, fmt.Errorf("GET /metrics: %d %v", status, err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out, nil
}
