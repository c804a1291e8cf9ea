// Command backup measures database backups of a development node (cmd/ledger-node) that is
// mining and receiving transfers meanwhile: rows/s and MB/s of the copy, against a baseline
// taken in the same run right after each backup (the machines are shared and noisy): a plain
// sequential write of the same number of bytes to a file beside the backups, fsynced at the
// end, as the backup's files are.
//
// The node runs as a child process with the backup API on. A load goroutine sends signed coin
// transfers between the ten development senders over all 20 chains at -tps for the whole run.
// After -warmup of mining and load, each round takes a backup without the Pact state and one
// with it (POST make-backup, then check-backup until done), reads the job's backup.json (rows,
// bytes, the copy's own seconds), times the baseline, and deletes the backup again (the
// documented way to prune). The cut heights and the transfers accepted during each backup show
// that mining and serving went on.
//
// Usage (from the repository root):
//
//	go run ./bench/backup [-warmup 60s] [-rounds 3] [-delay 10ms] [-tps 100] [-bin PATH] [-data DIR]
package main

import (
	"github.com/ledgernode/ledger-node/bench/internal/proc"
	"github.com/ledgernode/ledger-node/store/backup"

	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
)

const chains = 20

func main() {
	warmup := flag.Duration("warmup", 60*time.Second, "mining and load before the first backup")
	rounds := flag.Int("rounds", 3, "rounds of two backups (without and with the Pact state)")
	delay := flag.Duration("delay", 10*time.Millisecond, "block delay of the node (its genesis difficulty follows it)")
	tps := flag.Int("tps", 100, "transfers sent per second for the whole run")
	bin := flag.String("bin", "", "ledger-node binary (default: built from ./cmd/ledger-node)")
	data := flag.String("data", "", "directory for the node's data and backups (default: a new temporary one)")
	flag.Parse()
	if err := run(*warmup, *rounds, *delay, *tps, *bin, *data); err != nil {
		fmt.Fprintln(os.Stderr, "backup:", err)
		os.Exit(1)
	}
}

func run(warmup time.Duration, rounds int, delay time.Duration, tps int, bin, data string) error {
	tmp, err := os.MkdirTemp("", "bench-backup")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if data == "" {
		data = tmp
	}
	if bin == "" {
		bin = filepath.Join(tmp, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	dataDir, backupDir := filepath.Join(data, "node"), filepath.Join(data, "backups")
	nd, err := startNode(bin, "--data-dir", dataDir, "--service-port", "0", "--p2p-port", "0", "--block-delay", delay.String(),
		"--miner-key", contracts.Key("devnet-miner"), "--log-level", "warn",
		"--enable-backup-api", "--backup-directory", backupDir)
	if err != nil {
		return err
	}
	defer nd.stop()

	fmt.Printf("backup: %s/%s, GOMAXPROCS=%d, %s; node: block delay %v, load %d transfers/s over %d chains\n",
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version(), delay, tps, chains)
	ld := startLoad(nd.base, tps)
	defer ld.stop()
	time.Sleep(warmup)
	h, err := nd.cutHeight()
	if err != nil {
		return err
	}
	fmt.Printf("after %v warm-up: cut height %d, data directory %.1f MB, %d transfers accepted, %d refused, load average %s\n",
		warmup, h, float64(dirSize(dataDir))/1e6, ld.accepted.Load(), ld.refused.Load(), proc.LoadAverage())
	fmt.Printf("%-5s %-4s %9s %8s %7s %9s %7s | %9s %6s | %9s %8s\n", "round", "pact", "rows", "MB", "copy s",
		"rows/s", "MB/s", "base MB/s", "ratio", "blocks/s", "txs/s")

	var rowRates, mbRates, ratios [2][]float64
	for r := 1; r <= rounds; r++ {
		for i, pact := range []bool{false, true} {
			res, err := backupOnce(nd, ld, backupDir, pact)
			if err != nil {
				return err
			}
			base, err := baselineWrite(backupDir, res.m.Bytes())
			if err != nil {
				return err
			}
			rowRate, mbRate := float64(res.m.Rows)/res.m.Seconds, float64(res.m.Bytes())/1e6/res.m.Seconds
			rowRates[i], mbRates[i] = append(rowRates[i], rowRate), append(mbRates[i], mbRate)
			ratios[i] = append(ratios[i], mbRate/base)
			fmt.Printf("%-5d %-4s %9d %8.1f %7.2f %9.0f %7.1f | %9.1f %6.2f | %9.1f %8.1f\n", r, yesNo(pact), res.m.Rows,
				float64(res.m.Bytes())/1e6, res.m.Seconds, rowRate, mbRate, base, mbRate/base, res.blocksPerSec, res.txsPerSec)
		}
	}
	for i, pact := range []bool{false, true} {
		fmt.Printf("median %-4s rows/s %.0f, MB/s %.1f, ratio to sequential write %.2f\n", yesNo(pact),
			stats.Median(rowRates[i]), stats.Median(mbRates[i]), stats.Median(ratios[i]))
	}
	fmt.Printf("load average at the end: %s; transfers accepted %d, refused %d\n", proc.LoadAverage(), ld.accepted.Load(), ld.refused.Load())
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

type backupResult struct {
	m            *backup.Manifest
	blocksPerSec float64 // cut height gained per second while the backup ran
	txsPerSec    float64 // transfers the node accepted per second meanwhile
}

// backupOnce takes one backup and removes it again.
func backupOnce(nd *node, ld *load, backupDir string, pact bool) (*backupResult, error) {
	h0, err := nd.cutHeight()
	if err != nil {
		return nil, err
	}
	tx0, t0 := ld.accepted.Load(), time.Now()
	url := nd.base + "/chainweb/0.0/development/make-backup"
	if pact {
		url += "?backupPact"
	}
	resp, err := http.Post(url, "text/plain", nil)
	if err != nil {
		return nil, err
	}
	idb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("make-backup: %d %s", resp.StatusCode, idb)
	}
	id := string(idb)
	for {
		resp, err := http.Get(nd.base + "/chainweb/0.0/development/check-backup/" + id)
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		state := string(b)
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("check-backup/%s: %d %s", id, resp.StatusCode, b)
		}
		if state == backup.Done {
			break
		}
		if state != backup.InProgress {
			return nil, fmt.Errorf("backup %s: %s\n%s", id, state, nd.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	secs := time.Since(t0).Seconds()
	h1, err := nd.cutHeight()
	if err != nil {
		return nil, err
	}
	m, err := backup.ReadManifest(filepath.Join(backupDir, id))
	if err != nil {
		return nil, err
	}
	if m.Pact != pact || m.Seconds <= 0 {
		return nil, fmt.Errorf("backup %s: manifest %+v", id, m)
	}
	// No automatic retention: pruning is deleting the job's directory (README, "Backups").
	if err := os.RemoveAll(filepath.Join(backupDir, id)); err != nil {
		return nil, err
	}
	return &backupResult{m: m, blocksPerSec: float64(h1-h0) / secs, txsPerSec: float64(ld.accepted.Load()-tx0) / secs}, nil
}

// baselineWrite writes n bytes sequentially in 1 MiB writes to a new file in dir, fsyncs it and
// returns MB/s. The bytes are pseudo-random so that no layer below can compress them away.
func baselineWrite(dir string, n int64) (float64, error) {
	buf := make([]byte, 1<<20)
	x := uint64(88172645463325252)
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = byte(x)
	}
	path := filepath.Join(dir, "baseline.tmp")
	defer os.Remove(path)
	t0 := time.Now()
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	for left := n; left > 0; left -= int64(len(buf)) {
		if _, err := f.Write(buf[:min(left, int64(len(buf)))]); err != nil {
			f.Close()
			return 0, err
		}
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	return float64(n) / 1e6 / time.Since(t0).Seconds(), nil
}

// load sends transfers at a steady rate from one goroutine per chain.
type load struct {
	accepted, refused atomic.Int64
	quit              chan struct{}
	wg                sync.WaitGroup
}

func startLoad(base string, tps int) *load {
	l := &load{quit: make(chan struct{})}
	if tps <= 0 {
		return l
	}
	every := time.Duration(chains) * time.Second / time.Duration(tps)
	client := &http.Client{Timeout: 30 * time.Second}
	for c := range chains {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for i := 0; ; i++ {
				select {
				case <-l.quit:
					return
				case <-t.C:
				}
				from, to := fmt.Sprintf("sender%02d", i%10), fmt.Sprintf("sender%02d", (i+1)%10)
				cmd := devtx.Transfer(from, to, "0.1", strconv.Itoa(c)).Build()
				body := (&api.SubmitBatch{Cmds: []*api.Command{cmd}}).AppendJSON(nil)
				resp, err := client.Post(fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/pact/api/v1/send", base, c),
					"application/json", bytes.NewReader(body))
				if err != nil {
					l.refused.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					l.accepted.Add(1)
				} else {
					l.refused.Add(1)
				}
			}
		}()
	}
	return l
}

func (l *load) stop() {
	select {
	case <-l.quit:
	default:
		close(l.quit)
	}
	l.wg.Wait()
}

// node is the ledger-node child process.
type node struct {
	cmd    *exec.Cmd
	base   string
	stderr *tail
	exited chan error
}

var serviceLine = regexp.MustCompile(`service API on (http://[^/]+)/`)

func startNode(bin string, args ...string) (*node, error) {
	nd := &node{cmd: exec.Command(bin, args...), stderr: &tail{}, exited: make(chan error, 1)}
	nd.cmd.Stderr = nd.stderr
	out, err := nd.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := nd.cmd.Start(); err != nil {
		return nil, err
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := serviceLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		io.Copy(io.Discard, out) // the status lines must not fill the pipe
	}()
	go func() { nd.exited <- nd.cmd.Wait() }()
	select {
	case nd.base = <-urls:
		return nd, nil
	case err := <-nd.exited:
		return nil, fmt.Errorf("node exited before serving: %v\n%s", err, nd.stderr.String())
	case <-time.After(60 * time.Second):
		nd.cmd.Process.Kill()
		<-nd.exited
		return nil, errors.New("node did not print its service address")
	}
}

func (nd *node) stop() {
	nd.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-nd.exited:
	case <-time.After(30 * time.Second):
		nd.cmd.Process.Kill()
		<-nd.exited
	}
	if s := nd.stderr.String(); s != "" {
		fmt.Printf("node stderr:\n%s", s)
	}
}

// cutHeight reads the cut height (the sum of the chains' heights).
func (nd *node) cutHeight() (uint64, error) {
	resp, err := http.Get(nd.base + "/chainweb/0.0/development/cut")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var cut struct {
		Height uint64 `json:"height"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&cut); err != nil {
		return 0, fmt.Errorf("GET cut: %w", err)
	}
	return cut.Height, nil
}

// tail keeps the last 64 KiB written to it.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 64<<10 {
		t.b = t.b[len(t.b)-64<<10:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			// Allocated bytes: headers.log grows by doubling a sparse file, so its length overstates it.
			if fi, err := d.Info(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					n += st.Blocks * 512
				} else {
					n += fi.Size()
				}
			}
		}
		return nil
	})
	return n
}
