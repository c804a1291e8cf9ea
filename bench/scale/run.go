package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/bench/internal/proc"
	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/ledger"
)

// runConfig is what `scale run` was asked.
type runConfig struct {
	n                    int
	bin, work, in        string
	keep                 bool
	merkleSample         int
	warmup, conns        int
	getDuration          time.Duration
	rounds               int
	branchPages          int
	skipCold, skipImport bool
	skipCheck            bool
}

func runMain(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	var c runConfig
	fs.IntVar(&c.n, "n", 1_000_000, "headers (mainnet01 shape: 20 chains above made-up roots at height 1,000,000)")
	fs.StringVar(&c.bin, "bin", "", "ledger-node binary (default: go build ./cmd/ledger-node into -work)")
	fs.StringVar(&c.work, "work", "/tmp/scale", "work directory (input file, data directory, logs)")
	fs.StringVar(&c.in, "in", "", "header file (default: -work/mainnet01-N.b64, generated when missing)")
	fs.BoolVar(&c.keep, "keep", false, "keep the data directory and the generated file")
	fs.IntVar(&c.merkleSample, "merkle-sample", 2_000_000, "headers of the file the bare merkle rate is measured over (before and after the import)")
	fs.IntVar(&c.warmup, "warmup", 100_000, "random GET header/{hash} requests before RSS and latencies are read")
	fs.IntVar(&c.conns, "conns", 16, "concurrent connections of the GET load")
	fs.DurationVar(&c.getDuration, "get-duration", 5*time.Second, "duration of each GET measurement")
	fs.IntVar(&c.rounds, "rounds", 3, "alternating rounds of constant body / GET header")
	fs.IntVar(&c.branchPages, "branch-pages", 30, "pages of each branch query timed (360 headers a page)")
	fs.BoolVar(&c.skipCold, "skip-cold", false, "do not drop the page cache")
	fs.BoolVar(&c.skipImport, "skip-import", false, "reuse the data directory of an earlier -keep run")
	fs.BoolVar(&c.skipCheck, "skip-check", false, "do not run check")
	fs.Parse(args)
	return run(c)
}

// result is the JSON line: every figure of the run. Latency ratios are the constant body's
// latency over GET header's (1 = as fast as the constant body; lower is slower), in the same
// sense as bench/headerserve's throughput ratio.
type result struct {
	Headers        int     `json:"headers"`
	Commit         string  `json:"commit"`
	Bin            string  `json:"bin"`
	ImportRatio    float64 `json:"import_ratio"`
	ImportHPS      float64 `json:"import_hps"`
	ImportWallS    float64 `json:"import_wall_s"`
	ImportRSSMiB   float64 `json:"import_peak_rss_mib"`
	MerkleHPS      float64 `json:"merkle_hps"`
	BytesPerHeader float64 `json:"bytes_per_header"`
	// BytesPerHeaderApparent counts file lengths, preallocation included.
	BytesPerHeaderApparent float64  `json:"bytes_per_header_apparent"`
	OpenS                  float64  `json:"open_s"`
	OpenColdS              *float64 `json:"open_cold_s"`
	NodeRSSMiB             float64  `json:"node_rss_mib"`
	NodeRSSAnonMiB         float64  `json:"node_rss_anon_mib"`
	NodeRSSFileMiB         float64  `json:"node_rss_file_mib"`
	GetP50Ratio            float64  `json:"get_header_p50_ratio"`
	GetP99Ratio            float64  `json:"get_header_p99_ratio"`
	GetRPSRatio            float64  `json:"get_header_rps_ratio"`
	GetP50Ms               float64  `json:"get_header_p50_ms"`
	GetP99Ms               float64  `json:"get_header_p99_ms"`
	ColdP50Ratio           *float64 `json:"get_header_cold_p50_ratio"`
	ColdP99Ratio           *float64 `json:"get_header_cold_p99_ratio"`
	ColdP50Ms              *float64 `json:"get_header_cold_p50_ms"`
	ColdP99Ms              *float64 `json:"get_header_cold_p99_ms"`
	DropCaches             bool     `json:"drop_caches"`
	BranchFirst1k          *float64 `json:"branch_first_page_ms_1k"`
	BranchPage1k           *float64 `json:"branch_page_ms_1k"`
	BranchFirst10k         *float64 `json:"branch_first_page_ms_10k"`
	BranchPage10k          *float64 `json:"branch_page_ms_10k"`
	BranchFirst100k        *float64 `json:"branch_first_page_ms_100k"`
	BranchPage100k         *float64 `json:"branch_page_ms_100k"`
	CheckS                 float64  `json:"check_s"`
	CheckRSSMiB            float64  `json:"check_peak_rss_mib"`
	CheckExit              int      `json:"check_exit"`
	CatchupHPS             *float64 `json:"catchup_hps"`
	LoadAverageStart       string   `json:"load_average_start"`
}

const network = "mainnet01"

func run(c runConfig) error {
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return err
	}
	res := result{Headers: c.n, LoadAverageStart: proc.LoadAverage(), Commit: gitCommit()}
	fmt.Printf("scale: N=%d, %s/%s, %d CPUs, load average %s, tree at commit %s, binary %s\n", c.n, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		res.LoadAverageStart, res.Commit, c.bin)
	if c.bin == "" {
		c.bin = filepath.Join(c.work, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", c.bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	res.Bin = c.bin
	generated := false
	if c.in == "" {
		c.in = filepath.Join(c.work, fmt.Sprintf("%s-%d.b64", network, c.n))
		if _, err := os.Stat(c.in); err != nil {
			if _, err := genFile(c.in, c.n, network, 30*time.Second); err != nil {
				return err
			}
			generated = true
		}
	}
	if generated && !c.keep {
		defer os.Remove(c.in)
	}
	dataDir := filepath.Join(c.work, fmt.Sprintf("data-%d", c.n))
	if !c.keep {
		defer os.RemoveAll(dataDir)
	}

	// 1. Import, between two measurements of the bare merkle rate over the file's headers.
	paths, err := samplePaths(c.in, 1_000_000)
	if err != nil {
		return err
	}
	if !c.skipImport {
		m1, err := merkleRate(c.in, c.merkleSample)
		if err != nil {
			return err
		}
		if err := os.RemoveAll(dataDir); err != nil {
			return err
		}
		wall, rss, out, err := timed(c.bin, "import-headers", "--network", network, "--data-dir", dataDir, c.in)
		if err != nil {
			return fmt.Errorf("import-headers: %v\n%s", err, tail(out, 2000))
		}
		if !regexp.MustCompile(`: \d+ stored, \d+ already present, 0 rejected`).Match(out) {
			return fmt.Errorf("import-headers rejected headers:\n%s", tail(out, 2000))
		}
		m2, err := merkleRate(c.in, c.merkleSample)
		if err != nil {
			return err
		}
		res.MerkleHPS = (m1 + m2) / 2
		res.ImportWallS = wall.Seconds()
		res.ImportHPS = float64(c.n) / wall.Seconds()
		res.ImportRatio = res.ImportHPS / res.MerkleHPS
		res.ImportRSSMiB = float64(rss) / (1 << 20)
		fmt.Printf("import-headers: %d headers in %.1f s wall (%.0f headers/s, peak RSS %.0f MiB); bare merkle %.0f and %.0f headers/s before and after: ratio %.3f\n",
			c.n, wall.Seconds(), res.ImportHPS, res.ImportRSSMiB, m1, m2, res.ImportRatio)
		fmt.Printf("  its summary: %s\n", firstMatch(out, `read \d+ headers in [^:]+`))
	}
	size, apparent, err := dirSize(dataDir)
	if err != nil {
		return err
	}
	res.BytesPerHeader = float64(size) / float64(c.n)
	res.BytesPerHeaderApparent = float64(apparent) / float64(c.n)
	fmt.Printf("store: %.1f MiB on disk, %.0f bytes per header (file lengths: %.1f MiB, %.0f bytes per header)\n",
		float64(size)/(1<<20), res.BytesPerHeader, float64(apparent)/(1<<20), res.BytesPerHeaderApparent)

	// 2. Start-up: cold (page cache dropped), then warm; the warm node stays up.
	if !c.skipCold {
		res.DropCaches = dropCaches()
		if !res.DropCaches {
			fmt.Println("dropping the page cache was not permitted: no cold figures")
		}
	}
	if res.DropCaches {
		nd, err := startNode(c.bin, dataDir, filepath.Join(c.work, "node-cold.log"))
		if err != nil {
			return err
		}
		cold := nd.open.Seconds()
		res.OpenColdS = &cold
		if err := nd.stop(); err != nil {
			return fmt.Errorf("stop: %v", err)
		}
		fmt.Printf("start-up, page cache dropped: %.2f s to a 200 /health-check\n", cold)
	}
	nd, err := startNode(c.bin, dataDir, filepath.Join(c.work, "node.log"))
	if err != nil {
		return err
	}
	defer nd.stop()
	res.OpenS = nd.open.Seconds()
	fmt.Printf("start-up, warm: %.2f s to a 200 /health-check\n", res.OpenS)

	// 3. Serving: the constant body in its own process; both servers on CPU 0, the load on CPU 1.
	bodySize, err := nd.headerBodySize(paths[0])
	if err != nil {
		return err
	}
	cst, err := startConst(bodySize)
	if err != nil {
		return err
	}
	defer cst.stop()
	pin(nd.cmd.Process.Pid, "0")
	pin(cst.cmd.Process.Pid, "0")
	pin(os.Getpid(), "1")
	w := load(nd.addr, paths, c.conns, 10*time.Minute, c.warmup, bodySize)
	if w.Errors > 0 {
		return fmt.Errorf("warm-up: %d failed requests", w.Errors)
	}
	pid := nd.cmd.Process.Pid
	res.NodeRSSMiB = float64(procStatus(pid, "VmRSS")) / (1 << 20)
	res.NodeRSSAnonMiB = float64(procStatus(pid, "RssAnon")) / (1 << 20)
	res.NodeRSSFileMiB = float64(procStatus(pid, "RssFile")) / (1 << 20)
	fmt.Printf("warm-up: %d random GET header/{hash} (%.0f/s); node RSS %.0f MiB (anonymous %.0f, file-backed %.0f: the store's mapped files, which the kernel can drop)\n",
		w.Requests, w.RPS, res.NodeRSSMiB, res.NodeRSSAnonMiB, res.NodeRSSFileMiB)
	// Warm means the page cache holds the store: a node that reads nothing at start (a clean
	// start) would otherwise serve the "warm" rounds partly from disk, which random GETs alone
	// take long to cure on a store of gigabytes.
	t0 := time.Now()
	if err := readAll(dataDir); err != nil {
		return err
	}
	fmt.Printf("read the store's files once into the page cache in %.1f s\n", time.Since(t0).Seconds())
	var np50, np99, cp50, cp99, nrps, crps []float64
	for r := range c.rounds {
		cr := load(cst.addr, paths, c.conns, c.getDuration, 0, bodySize)
		nr := load(nd.addr, paths, c.conns, c.getDuration, 0, bodySize)
		if nr.Errors+cr.Errors > 0 {
			return fmt.Errorf("GET round %d: %d + %d failed requests", r+1, nr.Errors, cr.Errors)
		}
		fmt.Printf("round %d: constant p50 %v p99 %v %.0f/s; GET header p50 %v p99 %v %.0f/s\n", r+1,
			cr.P50, cr.P99, cr.RPS, nr.P50, nr.P99, nr.RPS)
		np50, np99, nrps = append(np50, ms(nr.P50)), append(np99, ms(nr.P99)), append(nrps, nr.RPS)
		cp50, cp99, crps = append(cp50, ms(cr.P50)), append(cp99, ms(cr.P99)), append(crps, cr.RPS)
	}
	res.GetP50Ms, res.GetP99Ms = stats.Median(np50), stats.Median(np99)
	res.GetP50Ratio = stats.Median(cp50) / res.GetP50Ms
	res.GetP99Ratio = stats.Median(cp99) / res.GetP99Ms
	res.GetRPSRatio = stats.Median(nrps) / stats.Median(crps)
	fmt.Printf("GET header warm (medians of %d rounds, %d connections): p50 %.3f ms, p99 %.3f ms; constant/GET latency p50 %.2f, p99 %.2f; GET/constant req/s %.2f\n",
		c.rounds, c.conns, res.GetP50Ms, res.GetP99Ms, res.GetP50Ratio, res.GetP99Ratio, res.GetRPSRatio)
	if res.DropCaches && dropCaches() {
		nr := load(nd.addr, paths, c.conns, c.getDuration, 0, bodySize)
		cr := load(cst.addr, paths, c.conns, c.getDuration, 0, bodySize)
		p50, p99 := ms(nr.P50), ms(nr.P99)
		r50, r99 := ms(cr.P50)/p50, ms(cr.P99)/p99
		res.ColdP50Ms, res.ColdP99Ms, res.ColdP50Ratio, res.ColdP99Ratio = &p50, &p99, &r50, &r99
		fmt.Printf("GET header after dropping the page cache (first %v): p50 %.3f ms, p99 %.3f ms (%.0f/s); constant/GET latency p50 %.2f, p99 %.2f\n",
			c.getDuration, p50, p99, nr.RPS, r50, r99)
	}

	// 4. Branch queries on chain 0 from its tip down to depth d, warm again (the cold GETs
	// above emptied the page cache of all but the pages the node maps).
	if err := readAll(dataDir); err != nil {
		return err
	}
	for _, d := range []struct {
		depth         uint64
		first, perPag **float64
	}{{1000, &res.BranchFirst1k, &res.BranchPage1k}, {10_000, &res.BranchFirst10k, &res.BranchPage10k},
		{100_000, &res.BranchFirst100k, &res.BranchPage100k}} {
		first, per, pages, err := nd.branch(0, d.depth, c.branchPages)
		if err != nil {
			return fmt.Errorf("branch at depth %d: %v", d.depth, err)
		}
		if pages == 0 {
			fmt.Printf("branch at depth %d: the chain is not that long\n", d.depth)
			continue
		}
		*d.first, *d.perPag = &first, &per
		fmt.Printf("branch at depth %d: first page %.2f ms, %.2f ms a page over %d pages of 360\n", d.depth, first, per, pages)
	}
	pin(os.Getpid(), "0-"+strconv.Itoa(runtime.NumCPU()-1))
	if err := nd.stop(); err != nil {
		return fmt.Errorf("stop: %v", err)
	}

	// 5. check, with its peak memory.
	if !c.skipCheck {
		wall, rss, out, err := timed(c.bin, "check", "--data-dir", dataDir)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			res.CheckExit = ee.ExitCode()
		} else if err != nil {
			return fmt.Errorf("check: %v", err)
		}
		res.CheckS, res.CheckRSSMiB = wall.Seconds(), float64(rss)/(1<<20)
		fmt.Printf("check: %.1f s, peak RSS %.0f MiB, exit %d (%s)\n", res.CheckS, res.CheckRSSMiB, res.CheckExit,
			strings.Join(checkVerdicts(out), "; "))
	}

	// 6. Catch-up is left out: see catchupNote.
	fmt.Println("catch-up:", catchupNote)

	b, _ := json.Marshal(res)
	fmt.Println(string(b))
	return nil
}

// catchupNote says why catch-up is not measured here.
const catchupNote = "not measured: a fresh node syncs from its network's genesis, and the history hangs from made-up " +
	"mainnet01 roots whose parents no peer has; a development history (whose genesis the node makes) cannot be served, " +
	"since a development node replays every block's payload into the Pact state and the generated headers have none"

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// merkleRate is the bare merkle rate: (*ledger.Header).ComputeHash on one goroutine over the
// first limit headers of the file (decoded beforehand, in batches, outside the timing), as
// bench/headercheck defines it.
func merkleRate(path string, limit int) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	batch := make([]*ledger.Header, 0, 8192)
	var spent time.Duration
	n := 0
	var sink byte
	measure := func() {
		t0 := time.Now()
		for _, h := range batch {
			x := h.ComputeHash()
			sink ^= x[0]
		}
		spent += time.Since(t0)
		n += len(batch)
		batch = batch[:0]
	}
	for sc.Scan() && n+len(batch) < limit {
		h, err := ledger.DecodeHeaderB64(sc.Text())
		if err != nil {
			return 0, err
		}
		if batch = append(batch, h); len(batch) == cap(batch) {
			measure()
		}
	}
	measure()
	_ = sink
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return float64(n) / spent.Seconds(), nil
}

// samplePaths returns GET header/{hash} paths of up to about limit headers spread evenly over the file.
func samplePaths(path string, limit int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	lines := int(st.Size() / 425) // a degree-3 header is 424 base64 characters and a newline
	every := max(1, lines/limit)
	var paths []string
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		if i%every != 0 {
			continue
		}
		h, err := ledger.DecodeHeaderB64(sc.Text())
		if err != nil {
			return nil, err
		}
		paths = append(paths, fmt.Sprintf("/chainweb/0.0/%s/chain/%d/header/%s", network, h.ChainID, h.Hash))
	}
	return paths, sc.Err()
}

// timed runs bin with args and returns its wall time, peak RSS (bytes) and output.
func timed(bin string, args ...string) (time.Duration, int64, []byte, error) {
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	var rss int64
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss * 1024 // KiB on Linux
		}
	}
	return wall, rss, out.Bytes(), err
}

// dirSize is the bytes the regular files under dir take on disk (allocated blocks: the header
// log is preallocated ahead of its end, so its length overstates it) and their lengths.
func dirSize(dir string) (allocated, apparent int64, err error) {
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			apparent += info.Size()
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				allocated += st.Blocks * 512
			}
		}
		return nil
	})
	return allocated, apparent, err
}

// readAll reads every regular file under dir once (into the page cache).
func readAll(dir string) error {
	buf := make([]byte, 1<<20)
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		for {
			if _, err := f.Read(buf); err != nil {
				return nil
			}
		}
	})
}

// dropCaches writes back dirty pages and drops the page cache; false when not permitted.
func dropCaches() bool {
	syscall.Sync()
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0o200) == nil
}

// pin sets the CPU affinity of every thread of pid (taskset -a); a failure is only reported,
// since the figures are ratios measured under the same pinning either way.
func pin(pid int, cpus string) {
	if out, err := exec.Command("taskset", "-a", "-p", "-c", cpus, strconv.Itoa(pid)).CombinedOutput(); err != nil {
		fmt.Printf("taskset %s %d: %v %s\n", cpus, pid, err, out)
	}
}

// procStatus is a kB field of /proc/PID/status (VmRSS, RssAnon, RssFile) in bytes.
func procStatus(pid int, field string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb * 1024
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

func firstMatch(b []byte, re string) string {
	return string(regexp.MustCompile(re).Find(b))
}

// checkVerdicts are check's lines that are not "ok".
func checkVerdicts(out []byte) []string {
	var v []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && !strings.HasPrefix(l, "ok ") {
			if len(l) > 160 {
				l = l[:160] + "…"
			}
			v = append(v, l)
		}
	}
	return v
}

// freePort is a TCP port free on 127.0.0.1 a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// server is a process serving HTTP on addr.
type server struct {
	cmd    *exec.Cmd
	addr   string
	open   time.Duration // from the start to the first 200 /health-check (the node)
	exited chan struct{}
}

// startNode runs the node on dataDir (no mining, no peers, log to logPath) and waits for a 200
// /health-check.
func startNode(bin, dataDir, logPath string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--network", network, "--data-dir", dataDir, "--service-interface", "127.0.0.1",
		"--service-port", strconv.Itoa(port), "--p2p-port", "0", "--log-level", "info")
	cmd.Stdout, cmd.Stderr = logf, logf
	s := &server{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port), exited: make(chan struct{})}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); logf.Close(); close(s.exited) }()
	hc := &fasthttp.HostClient{Addr: s.addr}
	for {
		status, _, err := hc.GetTimeout(nil, "http://"+s.addr+"/health-check", time.Second)
		if err == nil && status == 200 {
			s.open = time.Since(t0)
			return s, nil
		}
		select {
		case <-s.exited:
			b, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("node exited before serving:\n%s", tail(b, 2000))
		case <-time.After(5 * time.Millisecond):
		}
		if time.Since(t0) > 10*time.Minute {
			cmd.Process.Kill()
			return nil, errors.New("node did not answer /health-check in 10 minutes")
		}
	}
}

// startConst runs `scale const` (this binary) with a body of size bytes.
func startConst(size int) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "const", "-port", strconv.Itoa(port), "-size", strconv.Itoa(size))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	s := &server{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(s.exited) }()
	hc := &fasthttp.HostClient{Addr: s.addr}
	for t0 := time.Now(); time.Since(t0) < 10*time.Second; time.Sleep(5 * time.Millisecond) {
		if status, _, err := hc.Get(nil, "http://"+s.addr+"/"); err == nil && status == 200 {
			return s, nil
		}
	}
	s.stop()
	return nil, errors.New("constant server did not answer")
}

// stop sends SIGTERM and waits, killing after 60 s.
func (s *server) stop() error {
	select {
	case <-s.exited:
		return nil
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return nil
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
		return errors.New("did not exit within 60 s of SIGTERM")
	}
}

// headerBodySize is the size of the node's answer to GET path (which must be 200).
func (s *server) headerBodySize(path string) (int, error) {
	status, body, err := fasthttp.Get(nil, "http://"+s.addr+path)
	if err != nil || status != 200 {
		return 0, fmt.Errorf("GET %s: status %d, %v: %.200s", path, status, err, body)
	}
	return len(body), nil
}

// branch times POST chain/{c}/header/branch with upper = the chain's head in the cut and lower =
// its header depth blocks below: the first page (median of 5), then up to pages pages following
// next (mean per page). pages is 0 when the chain is not depth blocks long.
func (s *server) branch(c ledger.ChainID, depth uint64, maxPages int) (firstMs, perPageMs float64, pages int, err error) {
	base := "http://" + s.addr + "/chainweb/0.0/" + network
	status, body, err := fasthttp.Get(nil, base+"/cut")
	if err != nil || status != 200 {
		return 0, 0, 0, fmt.Errorf("GET cut: %d %v", status, err)
	}
	var cut struct {
		Hashes map[string]struct {
			Height uint64 `json:"height"`
			Hash   string `json:"hash"`
		} `json:"hashes"`
	}
	if err := json.Unmarshal(body, &cut); err != nil {
		return 0, 0, 0, err
	}
	tip := cut.Hashes[strconv.Itoa(int(c))]
	if tip.Height < mainnetRootHeight+depth {
		return 0, 0, 0, nil
	}
	lowH := tip.Height - depth
	status, body, err = fasthttp.Get(nil, fmt.Sprintf("%s/chain/%d/hash?minheight=%d&maxheight=%d", base, c, lowH, lowH))
	var hs struct {
		Items []string `json:"items"`
	}
	if err != nil || status != 200 || json.Unmarshal(body, &hs) != nil || len(hs.Items) != 1 {
		return 0, 0, 0, fmt.Errorf("GET hash at height %d: %d %v %.200s", lowH, status, err, body)
	}
	reqBody := fmt.Sprintf(`{"lower":[%q],"upper":[%q]}`, hs.Items[0], tip.Hash)
	page := func(next string) (string, int, time.Duration, error) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		uri := fmt.Sprintf("%s/chain/%d/header/branch", base, c)
		if next != "" {
			uri += "?next=" + next
		}
		req.SetRequestURI(uri)
		req.Header.SetMethod("POST")
		req.Header.SetContentType("application/json")
		req.SetBodyString(reqBody)
		t0 := time.Now()
		err := fasthttp.Do(req, resp)
		el := time.Since(t0)
		if err != nil || resp.StatusCode() != 200 {
			return "", 0, 0, fmt.Errorf("POST branch: %d %v %.200s", resp.StatusCode(), err, resp.Body())
		}
		var p struct {
			Items []json.RawMessage `json:"items"`
			Next  *string           `json:"next"`
		}
		if err := json.Unmarshal(resp.Body(), &p); err != nil {
			return "", 0, 0, err
		}
		n := ""
		if p.Next != nil {
			n = *p.Next
		}
		return n, len(p.Items), el, nil
	}
	var firsts []float64
	for range 5 {
		_, _, el, err := page("")
		if err != nil {
			return 0, 0, 0, err
		}
		firsts = append(firsts, ms(el))
	}
	next, total := "", time.Duration(0)
	for pages < maxPages {
		n, items, el, err := page(next)
		if err != nil {
			return 0, 0, 0, err
		}
		if items == 0 {
			break
		}
		pages++
		total += el
		if next = n; next == "" {
			break
		}
	}
	return stats.Median(firsts), ms(total) / math.Max(1, float64(pages)), pages, nil
}
