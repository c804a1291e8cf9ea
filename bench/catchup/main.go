// Command catchup measures how fast a development node (cmd/ledger-node) catches up from a peer
// that holds at least -blocks blocks, validating every header and re-executing every payload, as
// a ratio to the local validation rate of the same blocks measured in the same run (the machines
// are shared and noisy; only the ratios are meaningful):
//
//   - source: the ledger-node binary mines on a data directory (-source, kept between runs when
//     given) until its cut height (the sum of the 20 chains' heights) reaches -blocks, while
//     signed coin transfers are sent to it (-tx-rate) so that the payloads carry transactions.
//     It is then stopped (SIGTERM) and restarted with --mining off: a quiet peer whose cut does
//     not move during the measurements. With -peers N (default 2), N-1 copies of its store serve
//     beside it, as a node's other peers would. The peers run with p2p.throttling.loopback on,
//     so that they throttle the catching-up node as they would a remote one (a node does not
//     throttle loopback clients by default). Each peer throttles a client on its own (50
//     requests/s, 20 headers a branch page: upstream's limits), so from one peer alone a
//     catch-up of light blocks cannot pass about 940 blocks/s; -peers 1 measures that case.
//   - catch-up: a second node on an empty data directory, --mining off --peer <each source's
//     peer API>; it fetches windows of blocks from all of them (actors/peersync/syncwindows.go). The figure is the source's cut height divided by the time from the moment the node
//     prints its addresses (its sync has started by then) to the first GET cut whose id is the
//     source's. The node runs at --log-level info; its own "catching up" and "caught up" lines
//     split that time into the header phase (branch queries) and the payload phase.
//   - local: the baseline. The same blocks, read once from the source's store while the source
//     is stopped, inserted in this process into a fresh runtime (actors.Start with execution, no
//     mining, no peers) on a new store holding the source's genesis blocks, one rt.Insert at a
//     time in (height, chain) order, as the syncer inserts them: every pow rule, every payload
//     re-executed and its outputs compared. The figure is blocks per second of wall time.
//
// The two measurements alternate (catch-up first in odd rounds, local first in even ones) and
// each ratio is catch-up over its own round's local rate. Every catch-up and local run starts on
// a fresh data directory and must end on the source's cut. The table's columns: catchup/s (the
// figure), payload/s (the node's "caught up" rate), hdr s (from the node's start to its
// "catching up" line: before the pipelined syncer, the header phase; now the fetch of the first
// window's headers is not logged apart, so it is near 0), total s, node and peer (CPU cores
// the catch-up node and the sources together used meanwhile), local/s and cores (this process's CPU over
// the local run), ratio. Before the rounds, the harness counts the peer API requests the syncer
// must make for these blocks and the time the peers' 50 requests/s throttles alone impose on them.
//
// Usage (from the repository root):
//
//	go run ./bench/catchup [-blocks 20000] [-rounds 3] [-delay 5ms] [-tx-rate 200] [-peers 2]
//	    [-source DIR] [-bin PATH] [-node-log FILE] [-timeout 10m] [-trace FILE]
//
// With -source DIR the mined directory is kept and later runs skip the mining (its transactions
// are those of the run that mined it: -tx-rate applies to mining only). At the defaults the
// three rounds take about two and a half minutes; mining the source first adds about half a
// minute (minutes at a high -tx-rate, whose blocks also validate slower).
package main

import (
	"github.com/ledgernode/ledger-node/bench/internal/proc"

	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/bench/internal/stats"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/txexec"
)

const (
	chains  = 20
	senders = 10
	// minerKey is the published development miner key (pact/contracts "devnet-miner").
	minerKey = "f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f"
	// gasLimit: a transfer uses about 190 gas.
	gasLimit = 400
	// txBatch is the transfers of one /send (all on one chain).
	txBatch = 10
	// The peer API's limits the syncer works within (transport/peer.go, actors/peersync/sync.go):
	// requests per second per client address, the bucket's burst (4× the rate), headers per
	// branch page and payloads per batch request.
	peerRate     = 50
	peerBurst    = 4 * peerRate
	branchPage   = 20
	payloadBatch = 100
	// syncWindow is actors/peersync/sync.go's: the blocks whose payloads the syncer fetches before it
	// inserts them.
	syncWindow = 4000
)

func main() {
	blocks := flag.Uint64("blocks", 20000, "cut height (blocks over all chains) the source must reach")
	rounds := flag.Int("rounds", 3, "alternating measurement rounds")
	delay := flag.Duration("delay", 5*time.Millisecond, "block delay of every node (the genesis blocks follow it)")
	txRate := flag.Int("tx-rate", 200, "signed transfers per second sent to the source while it mines (0: none)")
	source := flag.String("source", "", "source data directory, kept: mined up to -blocks only if it has fewer (default: a temporary one)")
	bin := flag.String("bin", "", "ledger-node binary (default: built from ./cmd/ledger-node)")
	nodeLog := flag.String("node-log", "", "append every node's log to this file")
	timeout := flag.Duration("timeout", 10*time.Minute, "longest a catch-up may take before it counts as never converging")
	peers := flag.Int("peers", 2, "quiet peers serving the source's blocks (copies of its store); the node catches up from all of them")
	traceFile := flag.String("trace", "", "write a runtime trace of round 1's local run to this file (go tool trace -pprof=sync|syscall)")
	loopback := flag.Bool("throttle-loopback", true, "start the peers with p2p.throttling.loopback on (false for a binary older than the key, whose peers always throttle loopback)")
	flag.Parse()
	if *peers < 1 || *peers > 3 {
		fmt.Fprintln(os.Stderr, "catchup: -peers must be 1, 2 or 3 (the syncer fetches from its origin and up to two helpers)")
		os.Exit(2)
	}
	cfg := config{peers: *peers, blocks: *blocks, rounds: *rounds, delay: *delay, txRate: *txRate, source: *source, bin: *bin,
		nodeLog: *nodeLog, timeout: *timeout, trace: *traceFile, throttleLoopback: *loopback}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "catchup:", err)
		os.Exit(1)
	}
}

type config struct {
	peers   int
	blocks  uint64
	rounds  int
	delay   time.Duration
	txRate  int
	source  string
	bin     string
	nodeLog string
	timeout time.Duration
	trace   string
	// throttleLoopback starts the peers with p2p.throttling.loopback on.
	throttleLoopback bool
}

func run(cfg config) error {
	tmp, err := os.MkdirTemp("", "catchup")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if cfg.source == "" {
		cfg.source = filepath.Join(tmp, "source")
	}
	if cfg.bin == "" {
		cfg.bin = filepath.Join(tmp, "ledger-node")
		if out, err := exec.Command("go", "build", "-o", cfg.bin, "./cmd/ledger-node").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	// The peers throttle the catching-up node although it is on loopback, as a remote peer
	// would be throttled.
	var peerArgs []string
	if cfg.throttleLoopback {
		file := filepath.Join(tmp, "throttle-loopback.yaml")
		if err := os.WriteFile(file, []byte("p2p:\n  throttling:\n    loopback: true\n"), 0o644); err != nil {
			return err
		}
		peerArgs = []string{"--config-file", file}
	}
	l := &launcher{bin: cfg.bin, delay: cfg.delay}
	if cfg.nodeLog != "" {
		f, err := os.OpenFile(cfg.nodeLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		l.log = f
	}
	fmt.Printf("catchup: %s/%s, %d CPUs, GOMAXPROCS=%d, %s, load average %s\n", runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), proc.LoadAverage())

	// The source: mined (or extended) only when the directory holds fewer blocks than asked.
	have, err := storedHeight(cfg.source)
	if err != nil {
		return err
	}
	if have >= cfg.blocks {
		fmt.Printf("catchup: source %s already holds cut height %d (>= %d): not mined again\n", cfg.source, have, cfg.blocks)
	} else if err := mineSource(l, cfg, have); err != nil {
		return err
	}

	// Read the blocks for the local baseline while no node holds the store.
	t0 := time.Now()
	src, err := loadSource(cfg.source, cfg.delay)
	if err != nil {
		return err
	}
	fmt.Printf("catchup: read %d blocks (%d transactions in %d payloads) and the 20 genesis blocks from the source store in %v\n",
		len(src.blocks), src.txs, src.withTxs, time.Since(t0).Round(time.Millisecond))
	hdrReqs, payReqs, distinct := src.requests()
	fmt.Printf("catchup: the syncer needs >= %d branch pages (%d headers each) and %d payload requests "+
		"(%d distinct payloads, fetched per chain for windows of %d blocks, up to %d a request: %.1f per request)\n",
		hdrReqs, branchPage, payReqs, distinct, syncWindow, payloadBatch, float64(distinct)/float64(max(payReqs, 1)))
	// The syncer's own gossip shares the budget: it reads the peer's cut and peer list every
	// 2 s (1 request/s); it announces nothing while it catches up. Header pages and payload
	// batches share the rest: the syncer fetches a window of blocks while it validates the one
	// before, so the requests bound the whole catch-up, starting with a full bucket.
	// Each peer throttles the node on its own, so p peers give it p times the budget.
	p := float64(cfg.peers)
	reqT := max(0, float64(hdrReqs+payReqs)-p*peerBurst) / (p * (peerRate - 1))
	fmt.Printf("catchup: at %d requests/s (burst %d) from each of %d peers, with the syncer's polling (1/s), the requests alone take ~%.1f s "+
		"(%d header pages and %d payload batches: %.0f blocks/s if nothing else took time); windows validate while the next ones are fetched\n",
		peerRate, peerBurst, cfg.peers, reqT, hdrReqs, payReqs, float64(len(src.blocks))/max(reqT, 1e-3))

	// The quiet peer.
	// The quiet peers: the source, and copies of its store beside it.
	var peers []*node
	for i := range cfg.peers {
		dir := cfg.source
		if i > 0 {
			dir = filepath.Join(tmp, fmt.Sprintf("source%d", i+1))
			if err := os.CopyFS(dir, os.DirFS(cfg.source)); err != nil {
				return fmt.Errorf("copying the source store: %w", err)
			}
		}
		peer, err := l.start("source", append([]string{"--data-dir", dir, "--mining", "off", "--log-level", "warn"}, peerArgs...), nil)
		if err != nil {
			return err
		}
		defer peer.stop()
		peers = append(peers, peer)
	}
	cut, err := peers[0].cut()
	if err != nil {
		return err
	}
	if err := src.sameCut(cut); err != nil {
		return err
	}
	for _, peer := range peers {
		if c, err := peer.cut(); err != nil || c.ID != cut.ID {
			return fmt.Errorf("the copy of the source at %s does not serve its cut (%v)", peer.p2p, err)
		}
		fmt.Printf("catchup: source serving at %s (peer API %s), cut height %d, id %s\n", peer.base, peer.p2p, cut.Height, cut.ID)
	}

	fmt.Printf("%-6s %-9s %10s %10s %8s %8s %6s %6s | %10s %6s | %6s\n", "round", "first",
		"catchup/s", "payload/s", "hdr s", "total s", "node", "peer", "local/s", "cores", "ratio")
	var ratios, catchRates, localRates []float64
	var anomalies []string
	for r := 1; r <= cfg.rounds; r++ {
		var c catchResult
		var lr localResult
		doCatch := func() error {
			var err error
			c, err = catchUp(l, cfg, peers, cut, filepath.Join(tmp, fmt.Sprintf("catch%d", r)))
			return err
		}
		doLocal := func() error {
			var err error
			tr := ""
			if r == 1 {
				tr = cfg.trace
			}
			lr, err = localRun(src, filepath.Join(tmp, fmt.Sprintf("local%d", r)), tr)
			return err
		}
		order, first := []func() error{doCatch, doLocal}, "catch-up"
		if r%2 == 0 {
			order, first = []func() error{doLocal, doCatch}, "local"
		}
		for _, f := range order {
			runtime.GC()
			if err := f(); err != nil {
				return fmt.Errorf("round %d: %w", r, err)
			}
		}
		ratio := c.rate / lr.rate
		ratios, catchRates, localRates = append(ratios, ratio), append(catchRates, c.rate), append(localRates, lr.rate)
		fmt.Printf("%-6d %-9s %10.0f %10s %8.1f %8.1f %6.2f %6.2f | %10.0f %6.2f | %6.3f\n", r, first,
			c.rate, c.nodeRate, c.headers.Seconds(), c.elapsed.Seconds(), c.nodeCores, c.peerCores, lr.rate, lr.cores, ratio)
		for _, a := range c.anomalies {
			fmt.Printf("  catch-up node: %s\n", a)
		}
		anomalies = append(anomalies, c.anomalies...)
	}
	fmt.Printf("median %-9s %10.0f %10s %8s %8s %6s %6s | %10.0f %6s | %6.3f\n", "", stats.Median(catchRates), "", "", "", "", "",
		stats.Median(localRates), "", stats.Median(ratios))
	fmt.Printf("catchup: %d blocks, %d transactions; load average %s\n", len(src.blocks), src.txs, proc.LoadAverage())
	for _, peer := range peers {
		if s := peer.stderr.String(); s != "" {
			fmt.Printf("catchup: the source at %s logged (warn and above):\n%s", peer.p2p, s)
		}
	}
	if len(anomalies) > 0 {
		fmt.Printf("catchup: %d warnings or sync errors in the catch-up nodes' logs (listed under their rounds)\n", len(anomalies))
	}
	return nil
}

// mineSource mines on cfg.source until its cut height reaches cfg.blocks, sending transfers
// meanwhile, and stops the node.
func mineSource(l *launcher, cfg config, have uint64) error {
	fmt.Printf("catchup: mining the source in %s from cut height %d to %d (block delay %v, %d transfers/s)\n",
		cfg.source, have, cfg.blocks, cfg.delay, cfg.txRate)
	t0 := time.Now()
	nd, err := l.start("source-mining", []string{"--data-dir", cfg.source, "--miner-key", minerKey, "--log-level", "warn"}, nil)
	if err != nil {
		return err
	}
	quit := make(chan struct{})
	var sent atomic.Int64
	var sendErr error
	var wg sync.WaitGroup
	startSending := func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sendErr = sendTransfers(nd, cfg.txRate, quit, &sent)
		}()
	}
	sending := false
	lastPrint := time.Now()
	var h uint64
	for {
		cut, err := nd.cut()
		if err != nil {
			close(quit)
			wg.Wait()
			nd.stop()
			return err
		}
		h = cut.Height
		// Transfers only once the node has mined a few blocks of its own here: a transfer is
		// refused when its creation time is more than 95 s past its chain's latest block, which
		// on a fresh (or old cached) directory is long ago.
		if !sending && cfg.txRate > 0 && h >= have+10*chains {
			sending = true
			startSending()
		}
		if h >= cfg.blocks {
			break
		}
		if time.Since(lastPrint) > 15*time.Second {
			lastPrint = time.Now()
			fmt.Printf("catchup: source at cut height %d after %v, %d transfers accepted\n", h, time.Since(t0).Round(time.Second), sent.Load())
		}
		select {
		case <-nd.exited:
			close(quit)
			wg.Wait()
			return fmt.Errorf("the mining source exited: %v\n%s", nd.waitErr, nd.stderr.String())
		case <-time.After(250 * time.Millisecond):
		}
	}
	close(quit)
	wg.Wait()
	if err := nd.stop(); err != nil {
		return err
	}
	fmt.Printf("catchup: source mined to cut height %d in %v, %d transfers accepted\n", h, time.Since(t0).Round(time.Second), sent.Load())
	if sendErr != nil {
		return fmt.Errorf("sending transfers to the source: %w", sendErr)
	}
	return nil
}

// sendTransfers sends rate transfers per second (batches of txBatch, one chain per batch, the
// chains in turn) until quit. Any answer but 200 with the batch's request keys is an error:
// every transfer is valid.
func sendTransfers(nd *node, rate int, quit chan struct{}, sent *atomic.Int64) error {
	every := time.Second * txBatch / time.Duration(rate)
	t := time.NewTicker(every)
	defer t.Stop()
	prefix := "catchup-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	for i := 0; ; i++ {
		select {
		case <-quit:
			return nil
		case <-t.C:
		}
		chain := i % chains
		created := time.Now().Add(-5 * time.Second).Unix()
		cmds := make([]*api.Command, txBatch)
		want := []byte(`{"requestKeys":[`)
		for j := range cmds {
			k := i*txBatch + j
			from, to := k%senders, (k+1)%senders
			c := devtx.Transfer(fmt.Sprintf("sender%02d", from), fmt.Sprintf("sender%02d", to), "0.1", strconv.Itoa(chain))
			c.GasLimit, c.CreationTime, c.TTL, c.Nonce = gasLimit, created, 3600, prefix+strconv.Itoa(k)
			cmds[j] = c.Build()
			if j > 0 {
				want = append(want, ',')
			}
			want = strconv.AppendQuote(want, cmds[j].Hash.String())
		}
		want = append(want, "]}"...)
		req.Reset()
		req.SetRequestURI(nd.base + "/chainweb/0.0/development/chain/" + strconv.Itoa(chain) + "/pact/api/v1/send")
		req.Header.SetMethod(fasthttp.MethodPost)
		req.Header.SetContentType("application/json")
		req.SetBodyRaw((&api.SubmitBatch{Cmds: cmds}).AppendJSON(nil))
		if err := nd.hc.DoTimeout(req, resp, 30*time.Second); err != nil {
			return fmt.Errorf("chain %d send: %w", chain, err)
		}
		if resp.StatusCode() != fasthttp.StatusOK || !bytes.Equal(resp.Body(), want) {
			return fmt.Errorf("chain %d send: status %d: %s", chain, resp.StatusCode(), resp.Body())
		}
		sent.Add(txBatch)
	}
}

// storedHeight is the cut height of the heads stored in dir (0 for a new directory). It opens
// the store, so no node may be running on dir.
func storedHeight(dir string) (uint64, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	heads, err := db.Heads()
	if err != nil {
		return 0, err
	}
	var sum uint64
	for _, hash := range heads {
		h, err := db.Header(hash)
		if err != nil {
			return 0, err
		}
		sum += h.Height
	}
	return sum, nil
}

// block is one block of the source's best cut.
type block struct {
	h *ledger.Header
	p *ledger.PayloadWithOutputs
}

// sourceBlocks is what the source holds: its version, genesis blocks and the blocks of its best
// cut in the syncer's insertion order.
type sourceBlocks struct {
	v        *ledger.Version
	genesis  []*ledger.Header // by chain id
	gpayload []*ledger.PayloadWithOutputs
	heads    map[ledger.ChainID]ledger.Hash
	blocks   []block
	txs      int // transactions in the payloads
	withTxs  int // payloads with at least one
}

// loadSource reads every block of the stored heads' ancestry, with its payload, from the
// source's store. The version is the development network with the source's block delay and the
// genesis target its genesis headers carry; the genesis headers must be the ones the node would
// make for it (GenesisHeader over the stored genesis payload).
func loadSource(dir string, delay time.Duration) (*sourceBlocks, error) {
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	heads, err := db.Heads()
	if err != nil {
		return nil, err
	}
	s := &sourceBlocks{heads: heads}
	var size int
	for _, c := range ledger.Development.Chains() {
		size = max(size, int(c)+1)
	}
	s.genesis, s.gpayload = make([]*ledger.Header, size), make([]*ledger.PayloadWithOutputs, size)
	for _, c := range ledger.Development.Chains() {
		hash, ok := heads[c]
		if !ok {
			return nil, fmt.Errorf("source store: no head for chain %d", c)
		}
		gh, _ := ledger.Development.GenesisHeight(c)
		h, err := db.Header(hash)
		if err != nil {
			return nil, fmt.Errorf("source store: head of chain %d: %w", c, err)
		}
		for h.Height > gh {
			p, err := db.PayloadWithOutputs(h.PayloadHash)
			if err != nil {
				return nil, fmt.Errorf("source store: payload of block %d of chain %d: %w", h.Height, c, err)
			}
			s.blocks = append(s.blocks, block{h, p})
			s.txs += len(p.Transactions)
			if len(p.Transactions) > 0 {
				s.withTxs++
			}
			if h, err = db.Header(h.Parent); err != nil {
				return nil, fmt.Errorf("source store: parent of a block of chain %d: %w", c, err)
			}
		}
		p, err := db.PayloadWithOutputs(h.PayloadHash)
		if err != nil {
			return nil, fmt.Errorf("source store: genesis payload of chain %d: %w", c, err)
		}
		s.genesis[c], s.gpayload[c] = h, p
	}
	s.v = ledger.Development.WithBlockDelay(delay.Microseconds()).WithGenesisTarget(s.genesis[0].Target)
	for _, c := range s.v.Chains() {
		if g := ledger.GenesisHeader(s.v, c, s.gpayload[c].PayloadHash); g.Hash != s.genesis[c].Hash {
			return nil, fmt.Errorf("source store: genesis of chain %d is not the development genesis of block delay %v", c, delay)
		}
	}
	// The syncer's order (actors/peersync/sync.go): by height, then chain.
	slices.SortFunc(s.blocks, func(a, b block) int {
		return cmp.Or(cmp.Compare(a.h.Height, b.h.Height), cmp.Compare(a.h.ChainID, b.h.ChainID))
	})
	return s, nil
}

// requests counts the peer API requests a catch-up from genesis needs at least, as the syncer
// (actors/peersync/sync.go) makes them: one branch page per 20 headers of each chain; then, for each
// window of syncWindow blocks in insertion order, the window's distinct payloads of each chain
// in requests of up to 100.
func (s *sourceBlocks) requests() (branch, payload, distinct int) {
	perChain := map[ledger.ChainID]int{}
	for _, b := range s.blocks {
		perChain[b.h.ChainID]++
	}
	for _, n := range perChain {
		branch += (n + branchPage - 1) / branchPage
	}
	for i := 0; i < len(s.blocks); i += syncWindow {
		seen := map[ledger.Hash]bool{}
		byChain := map[ledger.ChainID]int{}
		for _, b := range s.blocks[i:min(i+syncWindow, len(s.blocks))] {
			if !seen[b.h.PayloadHash] {
				seen[b.h.PayloadHash] = true
				byChain[b.h.ChainID]++
			}
		}
		for _, n := range byChain {
			payload += (n + payloadBatch - 1) / payloadBatch
			distinct += n
		}
	}
	return branch, payload, distinct
}

// sameCut checks that the running source serves the cut of the heads read from its store: the
// blocks of the baseline are then exactly the ones a catch-up fetches.
func (s *sourceBlocks) sameCut(c *cutInfo) error {
	for ch, hash := range s.heads {
		if c.Hashes[ch] != hash.String() {
			return fmt.Errorf("the source serves a cut whose chain %d head is %s, its store's heads name %s", ch, c.Hashes[ch], hash)
		}
	}
	if c.Height != uint64(len(s.blocks)) {
		return fmt.Errorf("the source's cut height is %d, its heads' ancestry has %d blocks", c.Height, len(s.blocks))
	}
	return nil
}

// localResult is one local validation run.
type localResult struct {
	rate    float64
	elapsed time.Duration
	cores   float64
}

// localRun inserts the source's blocks into a fresh runtime on a new store in dir, as a node
// with execution and without mining or peers would, and times the inserts.
func localRun(s *sourceBlocks, dir, traceFile string) (localResult, error) {
	defer os.RemoveAll(dir)
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return localResult{}, err
	}
	defer db.Close()
	// The genesis blocks, as cmd/ledger-node writes them in a new data directory.
	if err := db.CheckVersion(s.v.Name); err != nil {
		return localResult{}, err
	}
	heads := map[ledger.ChainID]ledger.Hash{}
	var gs []*ledger.Header
	for _, c := range s.v.Chains() {
		if err := db.PutPayload(s.gpayload[c]); err != nil {
			return localResult{}, err
		}
		gs = append(gs, s.genesis[c])
		heads[c] = s.genesis[c].Hash
	}
	if err := db.PutHeaders(gs...); err != nil {
		return localResult{}, err
	}
	if err := db.SetHeads(heads); err != nil {
		return localResult{}, err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rt, err := actors.Start(actors.Config{
		Version: s.v, Store: db, Genesis: s.genesis, Logger: log,
		Execution: &actors.ExecutionConfig{Runner: txexec.New(txexec.Config{}), MinerData: ledger.NoMinerData,
			Mempool: actors.MempoolConfig{Logger: log}},
	})
	if err != nil {
		return localResult{}, err
	}
	defer rt.Stop()
	runtime.GC()
	if traceFile != "" {
		f, err := os.Create(traceFile)
		if err != nil {
			return localResult{}, err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return localResult{}, err
		}
	}
	c0, t0 := proc.Self(), time.Now()
	for _, b := range s.blocks {
		if err := rt.Insert(b.h, b.p); err != nil {
			trace.Stop()
			return localResult{}, fmt.Errorf("local: block %d of chain %d: %w", b.h.Height, b.h.ChainID, err)
		}
	}
	el, cpu := time.Since(t0), proc.Self()-c0
	trace.Stop() // a no-op when not tracing
	if got := rt.Cut(); got.Height != uint64(len(s.blocks)) {
		return localResult{}, fmt.Errorf("local: cut height %d after inserting %d blocks", got.Height, len(s.blocks))
	}
	for c, hash := range s.heads {
		if got := rt.View().Heads[c]; got == nil || got.Hash != hash {
			return localResult{}, fmt.Errorf("local: chain %d's head is not the source's", c)
		}
	}
	return localResult{rate: float64(len(s.blocks)) / el.Seconds(), elapsed: el, cores: cpu.Seconds() / el.Seconds()}, nil
}

// catchResult is one catch-up.
type catchResult struct {
	rate      float64       // source cut height / (caught up − serving)
	elapsed   time.Duration // serving → caught up
	headers   time.Duration // serving → the node's "catching up from peer" line
	nodeRate  string        // blocks/s of the node's "caught up" line (its payload phase)
	nodeCores float64       // the catch-up node's CPU over elapsed
	peerCores float64       // the source's CPU over elapsed
	anomalies []string
}

// kvRE matches one key=value of a slog text line; keys and values with spaces are quoted
// ("peer cut height"=20000).
var kvRE = regexp.MustCompile(`(?:^|\s)("(?:[^"\\]|\\.)*"|[^\s="]+)=("(?:[^"\\]|\\.)*"|\S*)`)

// logFields splits a slog text line into its keys and values (quotes removed).
func logFields(line string) map[string]string {
	out := map[string]string{}
	unq := func(s string) string {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return s
	}
	for _, m := range kvRE.FindAllStringSubmatch(line, -1) {
		out[unq(m[1])] = unq(m[2])
	}
	return out
}

// catchUp starts a node on an empty data directory with the source as its peer and waits
// until its cut is the source's.
func catchUp(l *launcher, cfg config, peers []*node, want *cutInfo, dir string) (catchResult, error) {
	defer os.RemoveAll(dir)
	var mu sync.Mutex
	var res catchResult
	var catching, caught time.Time
	caughtBlocks := ""
	onLine := func(line string) {
		f := logFields(line)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case f["msg"] == "catching up from peer":
			catching = time.Now()
			if f["blocks"] != strconv.FormatUint(want.Height, 10) {
				res.anomalies = append(res.anomalies, fmt.Sprintf("catching up %s blocks, the source's cut has %d: %s", f["blocks"], want.Height, line))
			}
			if f["helpers"] != strconv.Itoa(len(peers)-1) {
				res.anomalies = append(res.anomalies, fmt.Sprintf("catching up with %s helpers, not %d: %s", f["helpers"], len(peers)-1, line))
			}
		case f["msg"] == "caught up":
			caught = time.Now()
			res.nodeRate, caughtBlocks = f["blocksPerSecond"], f["blocks"]
		case f["level"] == "WARN" || f["level"] == "ERROR" || f["msg"] == "sync from peer stopped" ||
			strings.HasPrefix(f["msg"], "catch-up helper dropped"):
			res.anomalies = append(res.anomalies, line)
		}
	}
	args := []string{"--data-dir", dir, "--mining", "off", "--log-level", "info"}
	for _, peer := range peers {
		args = append(args, "--peer", peer.p2p)
	}
	nd, err := l.start("catch-up", args, onLine)
	if err != nil {
		return res, err
	}
	ready := nd.ready
	peersCPU := func() (d time.Duration) {
		for _, peer := range peers {
			d += proc.CPU(peer.cmd.Process.Pid)
		}
		return d
	}
	nc0, pc0 := proc.CPU(nd.cmd.Process.Pid), peersCPU()
	deadline := ready.Add(cfg.timeout)
	var last *cutInfo
	for {
		c, err := nd.cut()
		if err != nil {
			nd.stop()
			return res, err
		}
		last = c
		if c.ID == want.ID {
			break
		}
		if time.Now().After(deadline) {
			nd.stop()
			return res, fmt.Errorf("catch-up did not converge in %v: cut height %d of %d\nnode log tail:\n%s",
				cfg.timeout, last.Height, want.Height, nd.stderr.String())
		}
		select {
		case <-nd.exited:
			return res, fmt.Errorf("the catch-up node exited: %v\n%s", nd.waitErr, nd.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	end := time.Now()
	nc, pc := proc.CPU(nd.cmd.Process.Pid)-nc0, peersCPU()-pc0
	if err := nd.stop(); err != nil {
		return res, err
	}
	mu.Lock()
	defer mu.Unlock()
	res.elapsed = end.Sub(ready)
	res.rate = float64(want.Height) / res.elapsed.Seconds()
	res.nodeCores, res.peerCores = nc.Seconds()/res.elapsed.Seconds(), pc.Seconds()/res.elapsed.Seconds()
	if !catching.IsZero() {
		res.headers = catching.Sub(ready)
	}
	if caught.IsZero() {
		res.nodeRate = "-"
		res.anomalies = append(res.anomalies, "no \"caught up\" line although the cut is the source's")
	} else if caughtBlocks != strconv.FormatUint(want.Height, 10) {
		res.anomalies = append(res.anomalies, fmt.Sprintf("caught up %s blocks, the source's cut has %d", caughtBlocks, want.Height))
	}
	return res, nil
}

// cutInfo is the part of GET …/cut the harness reads.
type cutInfo struct {
	Height uint64
	ID     string
	Hashes map[ledger.ChainID]string
}

// node is a ledger-node process.
type node struct {
	name   string
	cmd    *exec.Cmd
	base   string // http://HOST:PORT of the service API
	p2p    string // HOST:PORT of the peer API
	ready  time.Time
	hc     *fasthttp.HostClient
	stderr *tailBuffer
	// exited is closed when the process has ended, with waitErr set.
	exited  chan struct{}
	waitErr error
}

var (
	serviceLine = regexp.MustCompile(`service API on http://([^/]+)/`)
	peerLine    = regexp.MustCompile(`peer API on https?://([^/]+)/`) // HTTPS since issue 36
)

// launcher starts nodes: always the same binary and block delay (the genesis blocks follow the
// delay, and the nodes must share them).
type launcher struct {
	bin   string
	delay time.Duration
	log   io.Writer // gets every node's log when set
}

// start runs the node with args and waits until it prints its service and peer addresses.
// onLine, when set, sees every line the node logs.
func (l *launcher) start(name string, args []string, onLine func(string)) (*node, error) {
	args = append([]string{"--service-port", "0", "--p2p-port", "0", "--block-delay", l.delay.String()}, args...)
	nd := &node{name: name, cmd: exec.Command(l.bin, args...), stderr: &tailBuffer{max: 64 << 10}, exited: make(chan struct{})}
	errPipe, err := nd.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	out, err := nd.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if l.log != nil {
		fmt.Fprintf(l.log, "=== %s %s: %s\n", time.Now().Format(time.RFC3339Nano), name, strings.Join(args, " "))
	}
	if err := nd.cmd.Start(); err != nil {
		return nil, err
	}
	var pipes sync.WaitGroup
	pipes.Add(2)
	go func() {
		defer pipes.Done()
		sc := bufio.NewScanner(errPipe)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			nd.stderr.Write([]byte(line + "\n"))
			if l.log != nil {
				fmt.Fprintf(l.log, "%s: %s\n", name, line)
			}
			if onLine != nil {
				onLine(line)
			}
		}
		io.Copy(io.Discard, errPipe)
	}()
	type addrs struct{ service, p2p string }
	got := make(chan addrs, 1)
	go func() {
		defer pipes.Done()
		sc := bufio.NewScanner(out)
		var a addrs
		for sc.Scan() {
			if m := serviceLine.FindStringSubmatch(sc.Text()); m != nil {
				a.service = m[1]
			}
			if m := peerLine.FindStringSubmatch(sc.Text()); m != nil {
				a.p2p = m[1]
				got <- a // printed after the service line
			}
		}
		io.Copy(io.Discard, out) // the node's status lines must not fill the pipe
	}()
	go func() {
		pipes.Wait() // Wait closes the pipes: read them to the end first
		nd.waitErr = nd.cmd.Wait()
		close(nd.exited)
	}()
	select {
	case a := <-got:
		nd.ready = time.Now()
		nd.base, nd.p2p = "http://"+a.service, a.p2p
		nd.hc = &fasthttp.HostClient{Addr: a.service, ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second,
			MaxResponseBodySize: 64 << 20}
		return nd, nil
	case <-nd.exited:
		return nil, fmt.Errorf("%s node exited before serving: %v\n%s", name, nd.waitErr, nd.stderr.String())
	case <-time.After(120 * time.Second):
		nd.cmd.Process.Kill()
		<-nd.exited
		return nil, fmt.Errorf("%s node did not print its addresses\n%s", name, nd.stderr.String())
	}
}

// stop sends SIGTERM and waits for a clean exit (an exit already reported is not again).
func (nd *node) stop() error {
	select {
	case <-nd.exited:
		return nil
	default:
	}
	nd.cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case <-nd.exited:
		err = nd.waitErr
	case <-time.After(60 * time.Second):
		nd.cmd.Process.Kill()
		<-nd.exited
		err = errors.New("did not exit within 60 s of SIGTERM")
	}
	if err != nil {
		return fmt.Errorf("%s node: %w\n%s", nd.name, err, nd.stderr.String())
	}
	return nil
}

// cut reads the node's cut from its service API.
func (nd *node) cut() (*cutInfo, error) {
	status, body, err := nd.hc.GetTimeout(nil, nd.base+"/chainweb/0.0/development/cut", 30*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%s: GET cut: %w", nd.name, err)
	}
	if status != fasthttp.StatusOK {
		return nil, fmt.Errorf("%s: GET cut: status %d: %s", nd.name, status, body)
	}
	var raw struct {
		Hashes map[string]struct {
			Hash string `json:"hash"`
		} `json:"hashes"`
		Height uint64 `json:"height"`
		ID     string `json:"id"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("%s: GET cut: %v: %s", nd.name, err, body)
	}
	c := &cutInfo{Height: raw.Height, ID: raw.ID, Hashes: map[ledger.ChainID]string{}}
	for k, e := range raw.Hashes {
		n, err := strconv.ParseUint(k, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: GET cut: chain %q", nd.name, k)
		}
		c.Hashes[ledger.ChainID(n)] = e.Hash
	}
	return c, nil
}

// tailBuffer keeps the last max bytes written to it; it takes a node's log.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
