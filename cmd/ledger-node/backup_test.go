package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/store/backup"
)

// Backups while the node runs (issue "Database backups while the node runs"): the backup API,
// its job rules, and restore.

func backupURL(base, op string) string { return base + "/chainweb/0.0/development/" + op }

// makeBackup posts make-backup (with ?backupPact if pact) and returns the id.
func makeBackup(t *testing.T, base string, pact bool) string {
	t.Helper()
	url := backupURL(base, "make-backup")
	if pact {
		url += "?backupPact"
	}
	resp, err := http.Post(url, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("make-backup: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if _, err := strconv.ParseUint(string(body), 10, 64); err != nil {
		t.Fatalf("make-backup returned %q, not a decimal id", body)
	}
	return string(body)
}

// checkBackup gets check-backup/{id} and returns the status code and body.
func checkBackup(t *testing.T, base, id string) (int, string) {
	t.Helper()
	resp, err := http.Get(backupURL(base, "check-backup/"+id))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// waitBackup polls check-backup until the job leaves backup-in-progress and returns its state.
func waitBackup(t *testing.T, base, id string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, state := checkBackup(t, base, id)
		if code != 200 {
			t.Fatalf("check-backup/%s: %d %q", id, code, state)
		}
		if state != backup.InProgress {
			return state
		}
		if time.Now().After(deadline) {
			t.Fatalf("backup %s still in progress after a minute", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// load sends transfers between four development accounts on chains 0–3 from a goroutine
// until stopped, and remembers what it sent.
type backupLoad struct {
	mu   sync.Mutex
	sent []loadTx
	errs []string
	quit chan struct{}
	done chan struct{}
}

type loadTx struct {
	cmd   *api.Command
	chain int
}

var backupAccounts = []string{"sender00", "sender01", "sender02", "sender03"}

func startBackupLoad(base string) *backupLoad {
	l := &backupLoad{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for i := 0; ; i++ {
			select {
			case <-l.quit:
				return
			case <-time.After(5 * time.Millisecond): // wallclock: the load's pace
			}
			c := i % 4
			from, to := backupAccounts[(i/4)%4], backupAccounts[(i/4+1)%4]
			cmd := devtx.Transfer(from, to, fmt.Sprintf("%d.%d", 1+i%7, i%10), strconv.Itoa(c)).Build()
			body := (&api.SubmitBatch{Cmds: []*api.Command{cmd}}).AppendJSON(nil)
			resp, err := http.Post(pactURL(base, c, "send"), "application/json", bytes.NewReader(body))
			l.mu.Lock()
			if err != nil {
				l.errs = append(l.errs, err.Error())
			} else {
				if resp.StatusCode == 200 {
					l.sent = append(l.sent, loadTx{cmd, c})
				} else {
					b, _ := io.ReadAll(resp.Body)
					l.errs = append(l.errs, fmt.Sprintf("send: %d %s", resp.StatusCode, b))
				}
				resp.Body.Close()
			}
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *backupLoad) stop(t *testing.T) {
	t.Helper()
	close(l.quit)
	<-l.done
	if len(l.errs) > 0 {
		t.Fatalf("%d sends failed, first: %s", len(l.errs), l.errs[0])
	}
}

func (l *backupLoad) snapshot() []loadTx {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]loadTx(nil), l.sent...)
}

// pollAll returns the results the node at base returns now for txs, by request key.
func pollAll(t *testing.T, base string, txs []loadTx) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, tx := range txs {
		if r, ok := pollOne(t, base, tx.chain, tx.cmd); ok {
			out[tx.cmd.Hash.String()] = r
		}
	}
	return out
}

// backupBalance reads an account's balance on chain c through local, rewindDepth blocks back.
func backupBalance(t *testing.T, base string, c int, account string, rewindDepth uint64) eval.Decimal {
	t.Helper()
	cmd := devtx.Cmd{Chain: strconv.Itoa(c), Code: `(format "{}" [(coin.get-balance "` + account + `")])`}.Build()
	url := pactURL(base, c, "local")
	if rewindDepth > 0 {
		url += fmt.Sprintf("?rewindDepth=%d", rewindDepth)
	}
	status, body := post(t, url, cmd.JSON())
	if status != 200 {
		t.Fatalf("local: %d %s", status, body)
	}
	r := decodeResult(t, body)
	var text string
	if err := json.Unmarshal(r.Result.Data, &text); err != nil || r.Result.Status != "success" {
		t.Fatalf("get-balance %s on chain %d: %s", account, c, body)
	}
	if !strings.Contains(text, ".") {
		text += ".0"
	}
	return mustDecimal(t, text)
}

// TestBackupUnderLoadRestores takes two backups of a node that is mining and receiving
// transfers, one with the Pact state and one without, restores each, starts a node on each and
// checks that it resumes from a cut the source had, with the source's Pact state at those
// heights and the source's results for every transaction mined before the backup.
func TestBackupUnderLoadRestores(t *testing.T) {
	dir, bdir := t.TempDir(), t.TempDir()
	src := startMiningNodeArgs(t, "--data-dir", dir, "--miner-key", devMinerKey,
		"--enable-backup-api", "--backup-directory", bdir)
	waitCut(t, src.url, 2)
	l := startBackupLoad(src.url)
	defer func() {
		select {
		case <-l.done:
		default:
			l.stop(t)
		}
	}()

	// Let transfers get mined, then note what poll returns for them: all of it is before the
	// backup point.
	var before map[string][]byte
	deadline := time.Now().Add(60 * time.Second)
	for len(before) < 12 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d transfers mined after a minute", len(before))
		}
		time.Sleep(50 * time.Millisecond)
		before = pollAll(t, src.url, l.snapshot())
	}
	withPact := makeBackup(t, src.url, true)
	if state := waitBackup(t, src.url, withPact); state != backup.Done {
		t.Fatalf("backup with Pact state: %s", state)
	}
	sentBefore := len(l.snapshot())
	time.Sleep(200 * time.Millisecond) // more blocks and transfers between the two backups
	beforeNoPact := pollAll(t, src.url, l.snapshot())
	noPact := makeBackup(t, src.url, false)
	if noPact == withPact {
		t.Fatal("two backups got one id")
	}
	if state := waitBackup(t, src.url, noPact); state != backup.Done {
		t.Fatalf("backup without Pact state: %s", state)
	}
	time.Sleep(100 * time.Millisecond)
	l.stop(t)
	if len(l.snapshot()) <= sentBefore {
		t.Fatal("the load stopped during the backups")
	}
	src.stop()

	// The source, at rest: its data directory as mining left it.
	src = startNodeOpts(t, nodeOptions{genesisTarget: testTarget(t)}, "--data-dir", dir, "--mining", "off")
	srcCut := fetchCut(t, src.url)

	for _, c := range []struct {
		id     string
		pact   bool
		before map[string][]byte
	}{{withPact, true, before}, {noPact, false, beforeNoPact}} {
		t.Run(fmt.Sprint("pact=", c.pact), func(t *testing.T) {
			from, to := filepath.Join(bdir, c.id), filepath.Join(t.TempDir(), "restored")
			var out, errOut bytes.Buffer
			if code := run([]string{"restore", "--from", from, "--data-dir", to}, &out, &errOut); code != 0 {
				t.Fatalf("restore: exit %d: %s", code, errOut.String())
			}
			t.Log(strings.TrimSpace(out.String()))
			m, err := backup.ReadManifest(from)
			if err != nil || m.Pact != c.pact || (m.PactRows > 0) != c.pact || len(m.Heads) != 20 || m.Network != "development" {
				t.Fatalf("manifest %+v, %v", m, err)
			}
			t0 := time.Now()
			r := startNodeOpts(t, nodeOptions{genesisTarget: testTarget(t)}, "--data-dir", to, "--mining", "off")
			t.Logf("restored node open in %v", time.Since(t0))
			cut := fetchCut(t, r.url)
			checkCutServed(t, r.url, cut)
			checkSourceHad(t, src, srcCut, cut, m)
			low, high := cutRange(cut)
			srcLow, srcHigh := cutRange(srcCut)
			t.Logf("backup of %d rows (%d Pact), %d header-log bytes; restored cut at heights %d–%d, source at %d–%d; %d results to compare",
				m.Rows, m.PactRows, m.HeaderLogBytes, low, high, srcLow, srcHigh, len(c.before))

			// The Pact state at the restored cut is the source's at the same heights.
			for _, e := range cut.Entries {
				if e.Chain > 3 {
					continue
				}
				depth := srcCut.Entries[e.Chain].Height - e.Height
				for _, acct := range append(backupAccounts, "k:"+devMinerKey) {
					got := backupBalance(t, r.url, int(e.Chain), acct, 0)
					want := backupBalance(t, src.url, int(e.Chain), acct, depth)
					if !got.Equal(want) {
						t.Errorf("chain %d at height %d, %s: restored %s, source %s", e.Chain, e.Height, acct, got, want)
					}
				}
			}
			// Every result the source returned before the backup is returned, byte for byte.
			var txs []loadTx
			for _, tx := range l.snapshot() {
				if c.before[tx.cmd.Hash.String()] != nil {
					txs = append(txs, tx)
				}
			}
			after := pollAll(t, r.url, txs)
			for k, want := range c.before {
				if got := after[k]; !bytes.Equal(got, want) {
					t.Errorf("%s: restored node returns\n%s\nthe source returned\n%s", k, got, want)
				}
			}
			if n := r.node.svc.InternalErrors(); n != 0 {
				t.Errorf("%d internal errors", n)
			}
			r.stop()

			if !c.pact {
				return
			}
			// The restored directory resumes mining, and takes transactions.
			r = startMiningNodeArgs(t, "--data-dir", to, "--miner-key", devMinerKey)
			waitCut(t, r.url, low+2)
			cmd := devtx.Transfer("sender04", "sender05", "1.0", "0").Build()
			send(t, r.url, 0, cmd)
			status, body := post(t, pactURL(r.url, 0, "listen"), []byte(`{"listen":"`+cmd.Hash.String()+`"}`))
			if res := decodeResult(t, body); status != 200 || res.Result.Status != "success" {
				t.Fatalf("listen on the restored node: %d %s", status, body)
			}
		})
	}
}

// startMiningNodeArgs is startMiningNode with more flags.
func startMiningNodeArgs(t *testing.T, args ...string) scopedNode {
	t.Helper()
	return startNodeOpts(t, nodeOptions{genesisTarget: testTarget(t), workers: 1}, args...)
}

// checkSourceHad checks that a restored cut is one the source had: every head is a block the
// source stores, on the source's branch (an ancestor of the source's head on its chain), at or
// above the heads the backup recorded.
func checkSourceHad(t *testing.T, src scopedNode, srcCut, cut *ledger.Cut, m *backup.Manifest) {
	t.Helper()
	if len(cut.Entries) != 20 {
		t.Fatalf("restored cut has %d chains", len(cut.Entries))
	}
	for _, hd := range m.Heads {
		if e := cut.Entries[hd.Chain]; e.Height < hd.Height {
			t.Errorf("chain %d resumed at %d, below the backup's head at %d", hd.Chain, e.Height, hd.Height)
		}
	}
	for _, e := range cut.Entries {
		h, err := src.node.db.Header(srcCut.Entries[e.Chain].Hash)
		for err == nil && h.Height > e.Height {
			h, err = src.node.db.Header(h.Parent)
		}
		if err != nil {
			t.Fatalf("chain %d: %v", e.Chain, err)
		}
		if h.Hash != e.Hash {
			t.Fatalf("chain %d: the restored head %s at %d is not on the source's branch (%s there)", e.Chain, e.Hash, e.Height, h.Hash)
		}
	}
}

// TestBackupOneJobAndUnknownIDs: a request while a job runs gets 409 naming that job and starts
// nothing; unknown and malformed ids are 404; the job's status survives a restart.
func TestBackupOneJobAndUnknownIDs(t *testing.T) {
	dir, bdir := t.TempDir(), t.TempDir()
	hold := make(chan string, 1)
	release := make(chan struct{})
	var once sync.Once
	opts := nodeOptions{backupProgress: func(id string, _ store.BackupStats) {
		once.Do(func() { hold <- id; <-release })
	}}
	n := startNodeOpts(t, opts, "--data-dir", dir, "--mining", "off", "--enable-backup-api", "--backup-directory", bdir)
	first := makeBackup(t, n.url, true)
	if running := <-hold; running != first {
		t.Fatalf("running job %s, make-backup said %s", running, first)
	}
	for range 3 {
		resp, err := http.Post(backupURL(n.url, "make-backup"), "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "a backup is running: "+first) {
			t.Fatalf("make-backup while %s runs: %d %q, want 409 naming it", first, resp.StatusCode, body)
		}
	}
	if code, state := checkBackup(t, n.url, first); code != 200 || state != backup.InProgress {
		t.Fatalf("running job: %d %q", code, state)
	}
	if entries, _ := os.ReadDir(bdir); len(entries) != 1 {
		t.Fatalf("%d job directories while one job ran", len(entries))
	}
	for _, id := range []string{"1", "12345", first + "1", "0" + first, "abc", "-5", "..", "%2e%2e", first + "%2fdata"} {
		if code, body := checkBackup(t, n.url, id); code != 404 {
			t.Errorf("check-backup/%s: %d %q, want 404", id, code, body)
		}
	}
	close(release)
	if state := waitBackup(t, n.url, first); state != backup.Done {
		t.Fatalf("job: %s", state)
	}
	second := makeBackup(t, n.url, false)
	if a, b := mustUint(t, first), mustUint(t, second); b <= a {
		t.Fatalf("second id %s not above %s", second, first)
	}
	waitBackup(t, n.url, second)
	n.stop()

	// After a restart the jobs are still known.
	n = startNodeOpts(t, nodeOptions{}, "--data-dir", dir, "--mining", "off", "--enable-backup-api", "--backup-directory", bdir)
	for _, id := range []string{first, second} {
		if code, state := checkBackup(t, n.url, id); code != 200 || state != backup.Done {
			t.Errorf("after a restart, %s: %d %q", id, code, state)
		}
	}
	if code, _ := checkBackup(t, n.url, "12345"); code != 404 {
		t.Errorf("unknown id after a restart: %d", code)
	}
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBackupFailingJob: the backup directory becomes unusable while the node runs (here it is
// replaced by a file); a backup then fails, reports backup-failed, and the log says why.
func TestBackupFailingJob(t *testing.T) {
	dir, bdir := t.TempDir(), filepath.Join(t.TempDir(), "backups")
	var log syncbuf.Buffer
	n := startLoggedNode(t, nodeOptions{}, &log, "--data-dir", dir, "--mining", "off",
		"--enable-backup-api", "--backup-directory", bdir)
	if fi, err := os.Stat(bdir); err != nil || !fi.IsDir() {
		t.Fatalf("the backup directory was not created: %v", err)
	}
	if err := os.Remove(bdir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bdir, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := makeBackup(t, n.url, true)
	if state := waitBackup(t, n.url, id); state != backup.Failed {
		t.Fatalf("backup into a file: %s", state)
	}
	if s := log.String(); !strings.Contains(s, "backup failed") || !strings.Contains(s, "id="+id) ||
		!strings.Contains(s, "not a directory") {
		t.Fatalf("the log does not say why the backup failed:\n%s", s)
	}
	// The node goes on serving, and a later job gets a new id.
	fetchCut(t, n.url)
	if again := makeBackup(t, n.url, false); again == id {
		t.Fatal("a failed job's id was reused")
	}
	if n := n.node.svc.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}

// TestBackupAPIDisabled: without --enable-backup-api the endpoints do not exist; the YAML keys
// turn them on like the flags.
func TestBackupAPIDisabled(t *testing.T) {
	n := startNodeScoped(t, t.TempDir())
	for _, r := range []struct{ method, op string }{
		{"POST", "make-backup"}, {"POST", "make-backup?backupPact"}, {"GET", "check-backup/1700000000000000"},
	} {
		req, _ := http.NewRequest(r.method, backupURL(n.url, r.op), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s %s with the backup API off: %d", r.method, r.op, resp.StatusCode)
		}
	}
	if strings.Contains(n.out.String(), "backup") {
		t.Errorf("a node without the backup API mentions backups: %s", n.out.String())
	}
	n.stop()

	bdir := filepath.Join(t.TempDir(), "b")
	file := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(file, []byte("backup:\n  api:\n    enabled: true\n  directory: "+bdir+"\n"), 0o600)
	n = startNodeArgs(t, "--config-file", file, "--data-dir", t.TempDir(), "--mining", "off")
	id := makeBackup(t, n.url, false)
	if state := waitBackup(t, n.url, id); state != backup.Done {
		t.Fatalf("backup: %s", state)
	}
	if _, err := os.Stat(filepath.Join(bdir, id, "backup.json")); err != nil {
		t.Fatalf("backup.directory not honoured: %v", err)
	}
}

// TestBackupDirectoryChecked: an unusable backup directory stops the node at start, saying so.
func TestBackupDirectoryChecked(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	cfg, _, err := loadConfig([]string{"--data-dir", t.TempDir(), "--mining", "off", "--service-port", "0", "--p2p-port", "0",
		"--enable-backup-api", "--backup-directory", filepath.Join(file, "backups")}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	n, err := openNodeWith(cfg, slog.New(slog.DiscardHandler), nodeOptions{})
	if err == nil {
		n.close()
		t.Fatal("a node started with its backup directory under a file")
	}
	if !strings.Contains(err.Error(), "backup directory") {
		t.Fatalf("error does not name the backup directory: %v", err)
	}
	// The data directory was released: a node can open it now.
	cfg.Backup = BackupConfig{}
	n, err = openNodeWith(cfg, slog.New(slog.DiscardHandler), nodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.close()
}

func TestRestoreCommandErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"restore"}, 2, "needs --from"},
		{[]string{"restore", "--from", t.TempDir()}, 2, "needs --from"},
		{[]string{"restore", "--from", "a", "--data-dir", "b", "extra"}, 2, "unexpected argument"},
		{[]string{"restore", "--bogus"}, 2, "bogus"},
		{[]string{"restore", "--from", t.TempDir(), "--data-dir", filepath.Join(t.TempDir(), "n")}, 1, "not a backup"},
	} {
		var stderr bytes.Buffer
		if code := run(c.args, io.Discard, &stderr); code != c.code || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr.String(), c.code, c.msg)
		}
	}
	if code := run([]string{"restore", "--help"}, io.Discard, io.Discard); code != 0 {
		t.Errorf("restore --help: exit %d", code)
	}
}
