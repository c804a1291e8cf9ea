package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/exhaust"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
)

// TestResourceExhaustion is issue 14's acceptance test: the resource-exhaustion programs
// (internal/exhaust) are sent to a development node and to `pact -s`, each a process of its own
// so that its memory can be read. Every program must get a failure result (out of gas, an
// evaluation budget, a result size cap: bounds counted in gas and steps, which hold on any
// machine), the process's peak RSS must stay under 1 GiB, and while heavy requests keep coming,
// light ones (/health-check, header reads, a trivial /local) must be answered before the heavy
// ones stop, and the node must go on mining. How long the answers take is logged, not bounded
// (issue 31): the CPU a program's gas buys is measured in bench/nativecpu.
//
// The binaries are built without the race detector even under `go test -race`: the bounds are
// properties of the product, and the detector multiplies memory by 5 to 10 and time by 2 to 20.
// A guard kills a child whose RSS passes 1 GiB, so that a missing bound fails the test instead
// of taking the machine's memory; a killed or stuck child is started again so that the verdict
// on each program is its own.
func TestResourceExhaustion(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the children's memory from /proc")
	}
	if testing.Short() {
		t.Skip("builds and runs two binaries")
	}
	t0 := time.Now()
	bins := exhBuild(t)
	t.Logf("built in %v", time.Since(t0).Round(time.Millisecond))

	pactCfg := filepath.Join(t.TempDir(), "pact.yaml")
	// The default configuration: no gasLimit, no gasRate (free gas), default bounds.
	if err := os.WriteFile(pactCfg, []byte("port: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dataDirs := t.TempDir()
	starts := 0
	node := &exhChild{name: "ledger-node", bin: bins["ledger-node"], addr: exhNodeAddr, ready: exhWaitMined, args: func() []string {
		starts++
		return []string{"--network", "development", "--data-dir", filepath.Join(dataDirs, strconv.Itoa(starts)),
			"--service-port", "0", "--p2p-port", "0", "--log-level", "warn",
			"--block-delay", exhBlockDelay.String(), "--miner-key", contracts.Key("devnet-miner"),
			// The programs' verdicts must be the counted bounds (gas, budgets, size caps), which
			// hold on any machine; the wall-clock bound of a command (1.875 s at the gas cap)
			// answered first on a loaded machine. TestSlowTransactionBounded tests it.
			"--local-time-limit", "10m"}
	}}
	pactS := &exhChild{name: "pact -s", bin: bins["pact"], addr: exhPactAddr,
		args: func() []string { return []string{"-s", pactCfg} }}

	t.Run("pact-s", func(t *testing.T) {
		pactS.start(t)
		defer pactS.stop()
		exhRun(t, &exhTarget{child: pactS, local: pactS.pactLocal, send: pactS.pactSend, probes: []exhProbeFn{pactS.trivialPactLocal}})
	})
	t.Run("node", func(t *testing.T) {
		node.start(t)
		defer node.stop()
		exhRun(t, &exhTarget{child: node, local: node.nodeLocal, sendAll: node.nodeSendAll, cmdGas: exhNodeLocalGas,
			probes: []exhProbeFn{node.healthCheck, node.headerRead, node.trivialNodeLocal}, height: node.cutHeight})
	})
	t.Logf("total %v", time.Since(t0).Round(time.Millisecond))
}

const (
	// exhHeavy is how many heavy requests run at once in the starvation check: as one ends,
	// another is sent.
	exhHeavy = 2
	// exhHeavyMax is how many heavy requests the starvation check sends at most: a light
	// request still unanswered, or a cut that has not grown, when they are all done is starved.
	// pact -s runs commands one at a time, and the node's /local waits for an evaluation slot,
	// so a light request waits for the heavy ones queued before it (exhHeavy at most), never
	// for those sent after it: exhRounds rounds of light requests take exhRounds heavy
	// requests' time or less. More would only load the collector: the node's heap may grow to
	// five times its live data (runtime.gcPercent 400), and after eight heavy evaluations in a
	// row its RSS neared the 1 GiB of one request's bound (its soft limit is 2 GiB).
	exhHeavyMax = 3 * exhHeavy
	// exhRounds is how many times each light request is sent while the heavy ones run.
	exhRounds = 1
	// exhBlockDelay paces the node's mining: /send results come within a block or two.
	exhBlockDelay = time.Second
	// exhNodeLocalGas is the gas limit of the node's /local commands: far above the block gas
	// limit (150,000), which the node must cap /local at whatever the command asks.
	exhNodeLocalGas = 100_000_000
	// exhNodeSendGas is the gas limit of /send commands: the block gas limit, the most a
	// transaction may ask for.
	exhNodeSendGas = 150_000
)

var (
	exhNodeAddr = regexp.MustCompile(`service API on (http://[^/\s]+)/`)
	exhPactAddr = regexp.MustCompile(`pact server listening" addr=(\S+)`)
)

// exhBuild builds ledger-node and pact into a temporary directory, without the race detector
// (see TestResourceExhaustion).
func exhBuild(t *testing.T) map[string]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binaries with")
	}
	dir := t.TempDir()
	build := exec.Command(goBin, "build", "-o", dir+string(os.PathSeparator), "./cmd/ledger-node", "./cmd/pact")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return map[string]string{"ledger-node": filepath.Join(dir, "ledger-node"), "pact": filepath.Join(dir, "pact")}
}

// exhChild is a binary running as a child process, watched by an RSS guard.
type exhChild struct {
	name string
	bin  string
	args func() []string
	addr *regexp.Regexp // finds the base URL in its output
	// ready, if set, waits until a started child can be judged (the node: until it mines).
	ready func(t *testing.T, c *exhChild)

	mu     sync.Mutex
	cmd    *exec.Cmd
	base   string
	exited chan struct{}
	guard  *exhaust.Guard
	log    exhTail
}

// exhTail keeps the last lines a child wrote, for failure messages.
type exhTail struct {
	mu    sync.Mutex
	lines []string
}

func (l *exhTail) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if len(l.lines) > 40 {
		l.lines = l.lines[len(l.lines)-40:]
	}
}

func (l *exhTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func (c *exhChild) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command(c.bin, c.args()...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	urls := make(chan string, 2)
	var readers sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(r)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				line := sc.Text()
				c.log.add(line)
				if m := c.addr.FindStringSubmatch(line); m != nil {
					select {
					case urls <- m[1]:
					default:
					}
				}
			}
			io.Copy(io.Discard, r) // keep draining: a child blocked on a full pipe would look stuck
		}()
	}
	go func() {
		readers.Wait()
		cmd.Wait()
		close(exited)
	}()
	c.mu.Lock()
	c.cmd, c.exited = cmd, exited
	c.mu.Unlock()
	select {
	case u := <-urls:
		if !strings.HasPrefix(u, "http://") {
			u = "http://" + u
		}
		c.mu.Lock()
		c.base = u
		c.mu.Unlock()
	case <-exited:
		t.Fatalf("%s exited before serving\n%s", c.name, c.log.String())
	case <-hangguard.After():
		c.stop()
		t.Fatalf("%s did not print its address\n%s", c.name, c.log.String())
	}
	g := exhaust.Watch(cmd.Process.Pid, exhaust.GiB, 20*time.Millisecond, func() { cmd.Process.Kill() })
	c.mu.Lock()
	c.guard = g
	c.mu.Unlock()
	if c.ready != nil {
		c.ready(t, c)
	}
}

func (c *exhChild) stop() {
	c.mu.Lock()
	cmd, exited, guard := c.cmd, c.exited, c.guard
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Kill()
	<-exited
	if guard != nil {
		guard.Stop()
	}
}

func (c *exhChild) pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cmd.Process.Pid
}

func (c *exhChild) url() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base
}

// alive reports whether the child still runs; if the guard killed it, why. A child whose
// connection just broke may be dying: alive waits up to grace for it to be reaped.
func (c *exhChild) alive(grace ...time.Duration) (bool, string) {
	c.mu.Lock()
	exited, guard := c.exited, c.guard
	c.mu.Unlock()
	var timeout <-chan time.Time // nil: do not wait
	if len(grace) > 0 && grace[0] > 0 {
		timeout = time.After(grace[0])
	}
	select {
	case <-exited:
		if killed, peak := guard.Killed(); killed {
			return false, fmt.Sprintf("killed by the guard at %d MiB of RSS (bound: 1 GiB)", peak>>20)
		}
		return false, "exited by itself:\n" + c.log.String()
	case <-timeout:
		return true, ""
	default:
		if timeout == nil {
			return true, ""
		}
	}
	select {
	case <-exited:
		return c.alive()
	case <-timeout:
		return true, ""
	}
}

// restart replaces a child that died or is stuck, so that the next program is judged alone.
func (c *exhChild) restart(t *testing.T) {
	t.Helper()
	c.stop()
	c.start(t)
}

// exhClient has no timeout of its own: every request carries a context with its deadline.
var exhClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}

// exhDo sends a request and reads the answer, giving up at the deadline.
func exhDo(ctx context.Context, method, url, ctype string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := exhClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	// A result is small or it is refused; 64 MiB means the server sent what it must not.
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, b, err
}

// exhResult is the part of a CommandResult the test judges.
type exhResult struct {
	Gas    int64 `json:"gas"`
	Result struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"result"`
	size int // bytes of the CommandResult
}

func (r *exhResult) String() string {
	if r.Result.Error != nil {
		return fmt.Sprintf("failure, gas %d: %s", r.Gas, r.Result.Error.Message)
	}
	return fmt.Sprintf("success, gas %d, %d bytes", r.Gas, r.size)
}

func exhDecode(status int, body []byte, err error) (*exhResult, error) {
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.300s", status, body)
	}
	r := &exhResult{size: len(body)}
	if err := json.Unmarshal(body, r); err != nil {
		return nil, fmt.Errorf("%v: %.300s", err, body)
	}
	return r, nil
}

var exhNonce atomic.Int64

func exhNextNonce(what string) string {
	return fmt.Sprintf("exhaust-%s-%d-%d", what, time.Now().UnixNano(), exhNonce.Add(1))
}

// pactLocal sends code to pact -s's /local.
func (c *exhChild) pactLocal(ctx context.Context, code string) (*exhResult, error) {
	cmd := devtx.Cmd{Code: code, Nonce: exhNextNonce("local")}.Build()
	return exhDecode(exhDo(ctx, http.MethodPost, c.url()+"/api/v1/local", "application/json", cmd.JSON()))
}

// pactSend sends code to pact -s's /send (which executes it before answering) and polls its
// result.
func (c *exhChild) pactSend(ctx context.Context, code string) (*exhResult, error) {
	cmd := devtx.Cmd{Code: code, Nonce: exhNextNonce("send")}.Build()
	status, body, err := exhDo(ctx, http.MethodPost, c.url()+"/api/v1/send", "application/json",
		(&api.SubmitBatch{Cmds: []*api.Command{cmd}}).AppendJSON(nil))
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("send: HTTP %d: %.300s", status, body)
	}
	return c.poll(ctx, c.url()+"/api/v1/poll", cmd.Hash, false)
}

// poll asks for one request key's result; with wait it asks again until the result exists.
func (c *exhChild) poll(ctx context.Context, url string, key api.Hash, wait bool) (*exhResult, error) {
	body := []byte(`{"requestKeys":["` + key.String() + `"]}`)
	for {
		status, b, err := exhDo(ctx, http.MethodPost, url, "application/json", body)
		if err != nil {
			return nil, err
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("poll: HTTP %d: %.300s", status, b)
		}
		var results map[string]json.RawMessage
		if err := json.Unmarshal(b, &results); err != nil {
			return nil, fmt.Errorf("poll: %v: %.300s", err, b)
		}
		if raw, ok := results[key.String()]; ok {
			return exhDecode(http.StatusOK, raw, nil)
		}
		if !wait {
			return nil, fmt.Errorf("poll: no result for %s", key)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond): // wallclock: a poll interval
		}
	}
}

func exhNodeURL(base string, chain int, op string) string {
	return fmt.Sprintf("%s/chainweb/0.0/development/chain/%d/pact/api/v1/%s", base, chain, op)
}

// exhNodeCmd is a command of sender00, who signs for gas.
func exhNodeCmd(code string, chain int, gasLimit uint64, what string) *api.Command {
	return devtx.Cmd{Code: code, Chain: strconv.Itoa(chain), GasLimit: gasLimit, Nonce: exhNextNonce(what),
		Sender: "sender00", Signers: []*api.KeyPair{devtx.Key("sender00")},
		Caps: [][]api.SigCapability{{{Name: "coin.GAS"}}}}.Build()
}

// nodeLocal sends code to the node's /local on chain 0 with a gas limit far above the block's.
func (c *exhChild) nodeLocal(ctx context.Context, code string) (*exhResult, error) {
	cmd := exhNodeCmd(code, 0, exhNodeLocalGas, "local")
	return exhDecode(exhDo(ctx, http.MethodPost, exhNodeURL(c.url(), 0, "local"), "application/json", cmd.JSON()))
}

// nodeSendAll sends every program at once through /send, program i on chain i (a transaction
// asking for the block gas limit fills a block, so one chain would take a block per program),
// and polls each until its block is mined or ctx ends.
func (c *exhChild) nodeSendAll(ctx context.Context, codes []string) ([]*exhResult, []error) {
	results, errs := make([]*exhResult, len(codes)), make([]error, len(codes))
	var wg sync.WaitGroup
	for i, code := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			chain := i % 20
			cmd := exhNodeCmd(code, chain, exhNodeSendGas, "send")
			status, body, err := exhDo(ctx, http.MethodPost, exhNodeURL(c.url(), chain, "send"), "application/json",
				(&api.SubmitBatch{Cmds: []*api.Command{cmd}}).AppendJSON(nil))
			if err == nil && status != http.StatusOK {
				err = fmt.Errorf("send: HTTP %d: %.300s", status, body)
			}
			if err != nil {
				errs[i] = err
				return
			}
			results[i], errs[i] = c.poll(ctx, exhNodeURL(c.url(), chain, "poll"), cmd.Hash, true)
		}()
	}
	wg.Wait()
	return results, errs
}

// exhProbeFn is a light request that must be answered while heavy ones run.
type exhProbeFn func(ctx context.Context) (string, error)

func (c *exhChild) trivialPactLocal(ctx context.Context) (string, error) {
	return exhTrivial(c.pactLocal(ctx, exhaust.Trivial))
}

func (c *exhChild) trivialNodeLocal(ctx context.Context) (string, error) {
	return exhTrivial(c.nodeLocal(ctx, exhaust.Trivial))
}

func exhTrivial(r *exhResult, err error) (string, error) {
	if err != nil {
		return "trivial local", err
	}
	if d := string(r.Result.Data); r.Result.Status != "success" || d != "3" && d != `{"int":3}` {
		return "trivial local", fmt.Errorf("(+ 1 2): %s", r)
	}
	return "trivial local", nil
}

func (c *exhChild) healthCheck(ctx context.Context) (string, error) {
	status, body, err := exhDo(ctx, http.MethodGet, c.url()+"/health-check", "", nil)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d: %.200s", status, body)
	}
	return "/health-check", err
}

// headerRead reads the cut, then the header at the head of chain 0: a store read and the cut
// the node serves.
func (c *exhChild) headerRead(ctx context.Context) (string, error) {
	cut, err := exhCut(ctx, c.url())
	if err != nil {
		return "header read", err
	}
	status, body, err := exhDo(ctx, http.MethodGet, c.url()+"/chainweb/0.0/development/chain/0/header/"+cut.Hashes["0"].Hash, "", nil)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d: %.200s", status, body)
	}
	return "header read", err
}

// cutHeight is the sum of the chains' heights in the node's cut.
func (c *exhChild) cutHeight(ctx context.Context) (uint64, error) {
	cut, err := exhCut(ctx, c.url())
	if err != nil {
		return 0, err
	}
	var height uint64
	for _, h := range cut.Hashes {
		height += h.Height
	}
	return height, nil
}

type exhCutDoc struct {
	Hashes map[string]struct {
		Hash   string `json:"hash"`
		Height uint64 `json:"height"`
	} `json:"hashes"`
}

func exhCut(ctx context.Context, base string) (*exhCutDoc, error) {
	status, body, err := exhDo(ctx, http.MethodGet, base+"/chainweb/0.0/development/cut", "", nil)
	if err != nil {
		return nil, err
	}
	var cut exhCutDoc
	if status != http.StatusOK || json.Unmarshal(body, &cut) != nil || len(cut.Hashes) != 20 {
		return nil, fmt.Errorf("cut: HTTP %d: %.200s", status, body)
	}
	return &cut, nil
}

// exhWaitMined waits until every chain has mined a block past genesis, so that transactions
// are executed on every chain.
func exhWaitMined(t *testing.T, c *exhChild) {
	t.Helper()
	ctx := hangguard.Context(t)
	for {
		cut, err := exhCut(ctx, c.url())
		if err == nil {
			low := ^uint64(0)
			for _, h := range cut.Hashes {
				low = min(low, h.Height)
			}
			if low >= 1 {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v\n%s", hangguard.Failure("a block on every chain"), err, c.log.String())
		case <-time.After(50 * time.Millisecond): // wallclock: a poll interval
		}
	}
}

// exhTarget is a server under test: how to send it a program, and its light requests.
type exhTarget struct {
	child *exhChild
	local func(ctx context.Context, code string) (*exhResult, error)
	// send runs one program through /send and poll; sendAll runs them all at once (the node,
	// where a result waits for its block).
	send    func(ctx context.Context, code string) (*exhResult, error)
	sendAll func(ctx context.Context, codes []string) ([]*exhResult, []error)
	// cmdGas is the gas limit /local commands ask for (0: none that matters).
	cmdGas int64
	probes []exhProbeFn
	// height, when set, reads the cut's height: mining must go on while heavy requests run.
	height func(ctx context.Context) (uint64, error)
}

// exhRun sends every program to the target, then checks light requests against heavy ones.
func exhRun(t *testing.T, tg *exhTarget) {
	for _, p := range exhaust.Programs {
		t.Run("local/"+p.Name, func(t *testing.T) {
			exhOne(t, tg, p, "local", tg.local)
		})
		if tg.send != nil {
			t.Run("send/"+p.Name, func(t *testing.T) {
				exhOne(t, tg, p, "send", tg.send)
			})
		}
	}
	if tg.sendAll != nil {
		t.Run("send", func(t *testing.T) { exhSendAll(t, tg) })
	}
	t.Run("starvation", func(t *testing.T) { exhStarvation(t, tg) })
}

// exhOne sends one program and judges the answer, the time it took and the child's peak RSS.
func exhOne(t *testing.T, tg *exhTarget, p exhaust.Program, mode string,
	do func(ctx context.Context, code string) (*exhResult, error)) {
	c := tg.child
	if ok, _ := c.alive(); !ok {
		c.restart(t)
	}
	pid := c.pid()
	resetOK := exhaust.ResetPeakRSS(pid) == nil
	// Past the hang guard the child is judged stuck.
	ctx := hangguard.Context(t)
	start := time.Now()
	r, err := do(ctx, p.Code)
	took := time.Since(start)
	peak, perr := exhaust.PeakRSS(pid)
	grace := time.Duration(0)
	if err != nil {
		grace = time.Second // wallclock: how long a dying child may take to be reaped
	}
	alive, why := c.alive(grace)
	switch {
	case !alive:
		t.Errorf("%s %s (%s): the %s process died after %v: %s", mode, p.Name, p.Why, c.name, took.Round(time.Millisecond), why)
		return
	case err != nil:
		t.Errorf("%s %s (%s): no answer after %v: %v", mode, p.Name, p.Why, took.Round(time.Millisecond), err)
		c.restart(t)
		return
	}
	span := "since start"
	if resetOK {
		span = "during the request"
	}
	if perr != nil {
		t.Errorf("peak RSS: %v", perr)
	}
	t.Logf("%s %s: %v, peak RSS %d MiB (%s): %s", mode, p.Name, took.Round(time.Millisecond), peak>>20, span, r)
	if peak >= exhaust.GiB {
		t.Errorf("%s %s (%s): peak RSS %d MiB, bound 1 GiB", mode, p.Name, p.Why, peak>>20)
	}
	switch {
	case p.Want == exhaust.Fails && r.Result.Status != "failure":
		t.Errorf("%s %s (%s): %s; want a failure (out of gas, a budget, a result size cap)", mode, p.Name, p.Why, r)
	case p.Want == exhaust.Bounded && r.Result.Status == "success" && tg.cmdGas > 0 && r.Gas < p.TableGas:
		t.Errorf("%s %s (%s): succeeded for %d gas, less than the table model's %d", mode, p.Name, p.Why, r.Gas, p.TableGas)
	}
}

// exhSendAll sends every program through the node's /send at once and judges each result: a
// failure, in a block.
func exhSendAll(t *testing.T, tg *exhTarget) {
	c := tg.child
	if ok, _ := c.alive(); !ok {
		c.restart(t)
	}
	pid := c.pid()
	exhaust.ResetPeakRSS(pid)
	codes := make([]string, len(exhaust.Programs))
	for i, p := range exhaust.Programs {
		codes[i] = p.Code
	}
	ctx := hangguard.Context(t)
	start := time.Now()
	results, errs := tg.sendAll(ctx, codes)
	took := time.Since(start)
	peak, perr := exhaust.PeakRSS(pid)
	if alive, why := c.alive(time.Second); !alive {
		t.Fatalf("send: the %s process died after %v: %s", c.name, took.Round(time.Millisecond), why)
	}
	if perr != nil {
		t.Errorf("peak RSS: %v", perr)
	}
	t.Logf("send: all %d programs answered in %v, peak RSS %d MiB", len(codes), took.Round(time.Millisecond), peak>>20)
	if peak >= exhaust.GiB {
		t.Errorf("send: peak RSS %d MiB, bound 1 GiB", peak>>20)
	}
	for i, p := range exhaust.Programs {
		switch r, err := results[i], errs[i]; {
		case err != nil:
			t.Errorf("send %s (%s): %v", p.Name, p.Why, err)
		case p.Want == exhaust.Fails && r.Result.Status != "failure":
			t.Errorf("send %s (%s): %s; want a failure", p.Name, p.Why, r)
		case p.Want == exhaust.Bounded && r.Result.Status == "success" && r.Gas < p.TableGas:
			t.Errorf("send %s (%s): succeeded for %d gas, less than the table model's %d", p.Name, p.Why, r.Gas, p.TableGas)
		default:
			t.Logf("send %s: %s", p.Name, r)
		}
	}
}

// exhStarvation keeps exhHeavy copies of the program running (as one ends another is
// sent, exhHeavyMax in all) and meanwhile sends each light request in turn, exhRounds times or
// until the cut has grown:
// every one must be answered while heavy ones still run, that is before the heavy requests sent
// after it are done, and on the node the cut must grow meanwhile. The check is one of order, not
// of time: a slow machine slows both sides alike.
func exhStarvation(t *testing.T, tg *exhTarget) {
	c := tg.child
	if ok, _ := c.alive(); !ok {
		c.restart(t)
	}
	heavy := exhaust.Named("map-enumerate-10000")
	ctx := hangguard.Context(t)
	pid := c.pid()
	exhaust.ResetPeakRSS(pid)
	var (
		stop     atomic.Bool  // the light requests are done: send no more heavy ones
		sent     atomic.Int32 // heavy requests sent
		inFlight atomic.Int32
		wg       sync.WaitGroup
		errMu    sync.Mutex
		heavyErr []error
	)
	var feed func()
	feed = func() { // one heavy request; as it ends, the next
		defer wg.Done()
		defer inFlight.Add(-1)
		if _, err := tg.local(ctx, heavy.Code); err != nil {
			errMu.Lock()
			heavyErr = append(heavyErr, err)
			errMu.Unlock()
		}
		if !stop.Load() && sent.Add(1) <= exhHeavyMax {
			wg.Add(1)
			inFlight.Add(1)
			go feed()
		}
	}
	start := time.Now()
	for range exhHeavy {
		sent.Add(1)
		wg.Add(1)
		inFlight.Add(1)
		go feed()
	}
	startHeight, grew := uint64(0), tg.height == nil
	if !grew {
		h, err := tg.height(ctx)
		if err != nil {
			t.Fatalf("cut: %v", err)
		}
		startHeight = h
	}
	probes, starved := 0, 0
	for round := 0; round < exhRounds || !grew; round++ {
		if inFlight.Load() == 0 {
			break // every heavy request is done: what is not answered by now was starved
		}
		for _, probe := range tg.probes {
			what, err := probe(ctx)
			probes++
			if err != nil {
				t.Errorf("%s while heavy requests ran: %v; the %s log ends:\n%s", what, err, c.name, lastLines(c.log.String(), 20))
			}
			if inFlight.Load() == 0 {
				starved++
				t.Errorf("%s was answered only after all %d heavy requests were done", what, sent.Load())
			}
		}
		if !grew {
			h, err := tg.height(ctx)
			if err != nil {
				t.Errorf("cut: %v", err)
			}
			grew = err == nil && h > startHeight && inFlight.Load() > 0
		}
	}
	stop.Store(true)
	wg.Wait()
	peak, _ := exhaust.PeakRSS(pid)
	t.Logf("%d heavy requests in %v; %d light requests answered while they ran, %d after; peak RSS %d MiB",
		min(sent.Load(), exhHeavyMax), time.Since(start).Round(time.Millisecond), probes-starved, starved, peak>>20)
	for _, err := range heavyErr {
		t.Errorf("heavy request: %v", err)
	}
	if len(heavyErr) > 0 {
		t.Logf("the %s log ends:\n%s", c.name, lastLines(c.log.String(), 30))
	}
	if probes == 0 {
		t.Errorf("the heavy requests were done before any light one was sent: the check proves nothing")
	}
	if !grew {
		t.Errorf("the cut did not grow while %d heavy requests ran: mining stopped", exhHeavyMax)
	}
	if alive, why := c.alive(); !alive {
		t.Errorf("the %s process died: %s", c.name, why)
	}
}
