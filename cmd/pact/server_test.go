package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/server"
)

// testServer is `pact -s` running in this process.
type testServer struct {
	t      *testing.T
	base   string
	stop   context.CancelFunc
	done   chan int
	stderr *syncbuf.Buffer
	stdout *syncbuf.Buffer
}

// startServer runs pact -s with the given configuration (port 0 is added
// when the configuration names none) and waits until it listens.
func startServer(t *testing.T, config string) *testServer {
	t.Helper()
	if !strings.Contains(config, "port:") {
		config = "port: 0\n" + config
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	oldCtx, oldListen := serverContext, serverListening
	serverContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	serverListening = func(a string) { addr <- a }
	s := &testServer{t: t, stop: cancel, done: make(chan int, 1), stderr: &syncbuf.Buffer{}, stdout: &syncbuf.Buffer{}}
	go func() { s.done <- run([]string{"-s", cfg}, strings.NewReader(""), s.stdout, s.stderr) }()
	select {
	case a := <-addr:
		s.base = "http://" + a
	case code := <-s.done:
		serverContext, serverListening = oldCtx, oldListen
		t.Fatalf("pact -s exited %d: %s", code, s.stderr.String())
	case <-hangguard.After():
		t.Fatal("pact -s did not start")
	}
	t.Cleanup(func() {
		s.shutdown()
		serverContext, serverListening = oldCtx, oldListen
	})
	return s
}

// shutdown stops the server as SIGTERM would and returns its exit code.
func (s *testServer) shutdown() int {
	if s.stop == nil {
		return 0
	}
	s.stop()
	s.stop = nil
	select {
	case code := <-s.done:
		return code
	case <-hangguard.After():
		s.t.Fatal("pact -s did not stop")
	}
	return -1
}

func (s *testServer) post(op, body string) (int, string) {
	s.t.Helper()
	resp, err := http.Post(s.base+"/api/v1/"+op, "application/json", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// send posts a /send body and returns its request keys.
func (s *testServer) send(body string) []string {
	s.t.Helper()
	code, out := s.post("send", body)
	var resp struct {
		RequestKeys []string `json:"requestKeys"`
	}
	if code != 200 || json.Unmarshal([]byte(out), &resp) != nil {
		s.t.Fatalf("send: %d %s", code, out)
	}
	return resp.RequestKeys
}

// poll returns the results of keys, decoded.
func (s *testServer) poll(keys ...string) map[string]map[string]any {
	s.t.Helper()
	b, _ := json.Marshal(map[string]any{"requestKeys": keys})
	code, out := s.post("poll", string(b))
	var resp map[string]map[string]any
	if code != 200 || json.Unmarshal([]byte(out), &resp) != nil {
		s.t.Fatalf("poll: %d %s", code, out)
	}
	return resp
}

func status(r map[string]any) string {
	res, _ := r["result"].(map[string]any)
	s, _ := res["status"].(string)
	return s
}

func data(r map[string]any) string {
	res, _ := r["result"].(map[string]any)
	b, _ := json.Marshal(res["data"])
	return string(b)
}

// requestYAML writes a request YAML signed by alice into dir.
func requestYAML(t *testing.T, dir, name, code, nonce string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	doc := "code: " + quoteYAML(code) + "\n" +
		"keyPairs:\n  - public: " + alicePub + "\n    secret: 246243bbb9e668a7f24666eaaca75ab0ad49df222de8379f03b2b4b76b03a757\n" +
		"publicMeta:\n  chainId: \"0\"\n  sender: alice\n  gasLimit: 1000\n  gasPrice: 0.00000001\n  ttl: 600\n  creationTime: 1700000000\n" +
		"networkId: development\nnonce: " + nonce + "\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func quoteYAML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// pactA runs pact -a (with -l for a bare command).
func pactA(t *testing.T, yaml string, local bool) string {
	t.Helper()
	args := []string{"-a", yaml}
	if local {
		args = append(args, "-l")
	}
	code, out, errOut := pact(t, "", args...)
	if code != 0 {
		t.Fatalf("pact -a: %d %s", code, errOut)
	}
	return strings.TrimSuffix(out, "\n")
}

const moduleCode = `(module m g (defcap g () true) (defschema s v:integer) (deftable t:{s})
  (defun put:string (k:string v:integer) (insert t k {'v: v}))
  (defun get:integer (k:string) (at 'v (read t k))))
(create-table t)`

// YAML → pact -a → /send → /poll, then local, listen and the 400s.
func TestServerRoundTrip(t *testing.T) {
	s := startServer(t, "verbose: false\npragmas: [\"journal_mode=WAL\"]\n")
	dir := t.TempDir()

	keys := s.send(pactA(t, requestYAML(t, dir, "mod.yaml", moduleCode, "mod"), false))
	res := s.poll(keys...)
	if len(res) != 1 || status(res[keys[0]]) != "success" {
		t.Fatalf("module: %v", res)
	}
	put := pactA(t, requestYAML(t, dir, "put.yaml", `(m.put "a" 7)`, "put"), false)
	pb, _ := api.DecodeSubmitBatch([]byte(put))
	keys = s.send(put)
	if keys[0] != pb.Cmds[0].Hash.String() {
		t.Errorf("request key %s, want the command's hash %s", keys[0], pb.Cmds[0].Hash)
	}
	if r := s.poll(keys...)[keys[0]]; status(r) != "success" || data(r) != `"Write succeeded"` || r["txId"] != 1.0 {
		t.Errorf("put: %v", r)
	}

	// A duplicate is a 400 with P5's text.
	code, out := s.post("send", put)
	if code != 400 || !strings.HasPrefix(out, "Request key: "+keys[0]+" has already been submitted.") {
		t.Errorf("duplicate: %d %s", code, out)
	}
	// listen finds it; an unknown key times out with 504 (listenTimeout
	// is set below for the second server).
	code, out = s.post("listen", `{"listen":"`+keys[0]+`"}`)
	if code != 200 || !strings.Contains(out, `"reqKey":"`+keys[0]+`"`) {
		t.Errorf("listen: %d %s", code, out)
	}

	// local rolls back: the row it writes is not there afterwards, and
	// its key is not stored.
	localPut := pactA(t, requestYAML(t, dir, "lput.yaml", `(m.put "b" 8)`, "lput"), true)
	code, out = s.post("local", localPut)
	if code != 200 || !strings.Contains(out, `"data":"Write succeeded"`) || !strings.Contains(out, `"txId":null`) {
		t.Errorf("local put: %d %s", code, out)
	}
	code, out = s.post("local", pactA(t, requestYAML(t, dir, "lget.yaml", `(m.get "b")`, "lget"), true))
	if code != 200 || !strings.Contains(out, `"status":"failure"`) {
		t.Errorf("local write survived: %d %s", code, out)
	}
	code, out = s.post("local", pactA(t, requestYAML(t, dir, "aget.yaml", `(m.get "a")`, "aget"), true))
	if code != 200 || !strings.Contains(out, `"data":{"int":7}`) {
		t.Errorf("sent write missing: %d %s", code, out)
	}
	lc, _ := api.DecodeCommand([]byte(localPut))
	if got := s.poll(lc.Hash.String()); len(got) != 0 {
		t.Errorf("local stored its result: %v", got)
	}

	// Commands that do not verify: a clear 400 each.
	good, _ := api.DecodeSubmitBatch([]byte(pactA(t, requestYAML(t, dir, "v.yaml", "(+ 1 2)", "v"), false)))
	c := good.Cmds[0]
	wrongSig := *c
	other, _ := api.KeyPairFromHex("a6da22516ae1d42e30b856953b68f731a736d3bc32925966d8046ce0a31d5db8")
	wrongSig.Sigs = []api.UserSig{other.SignHash(c.Hash)}
	tampered := *c
	tampered.Cmd = strings.Replace(c.Cmd, "(+ 1 2)", "(+ 1 9)", 1)
	missing := *c
	missing.Sigs = nil
	for _, tc := range []struct {
		name string
		cmd  *api.Command
		want string
	}{
		// The node's (chainweb's) texts, which pact -s shares.
		{"wrong signature", &wrongSig, "Invalid transaction sigs: The signature at position 0 is invalid: invalid ed25519 signature."},
		{"tampered cmd", &tampered, "Invalid transaction hash"},
		{"missing signer", &missing, "Invalid transaction sigs: The number of signers and signatures do not match. Number of signers: 1. Number of signatures: 0."},
	} {
		code, out := s.post("send", string((&api.SubmitBatch{Cmds: []*api.Command{tc.cmd}}).AppendJSON(nil)))
		if code != 400 || out != `One or more transactions were invalid: Transaction "`+c.Hash.String()+`" at index 0 failed with: `+tc.want {
			t.Errorf("%s: %d %s", tc.name, code, out)
		}
	}
	if got := s.poll(c.Hash.String()); len(got) != 0 {
		t.Errorf("a rejected command left a result: %v", got)
	}

	if code := s.shutdown(); code != 0 {
		t.Errorf("exit %d: %s", code, s.stderr.String())
	}
	log := s.stderr.String()
	if !strings.Contains(log, "pragmas are SQLite settings") || !strings.Contains(log, "pact server listening") {
		t.Errorf("log:\n%s", log)
	}
	if !strings.Contains(s.stdout.String(), `"POST /api/v1/send HTTP/1.1" 400 `) {
		t.Errorf("access log:\n%s", s.stdout.String())
	}
}

// -u → add-sig with each key → combine-sigs → /send accepted.
func TestServerOfflineSigning(t *testing.T) {
	logDir := filepath.Join(t.TempDir(), "logs")
	s := startServer(t, "logDir: "+logDir+"\nlistenTimeout: 0.05\n")
	dir := t.TempDir()
	_, unsigned, _ := pact(t, "", "-u", req+"unsigned.yaml")
	var files []string
	for _, who := range []string{"alice", "bob"} {
		code, out, errOut := pact(t, unsigned, "add-sig", req+who+".key.yaml")
		if code != 0 {
			t.Fatalf("add-sig %s: %s", who, errOut)
		}
		f := filepath.Join(dir, who+".sig.yaml")
		os.WriteFile(f, []byte(out), 0o644)
		files = append(files, f)
	}
	code, combined, errOut := pact(t, "", append([]string{"combine-sigs"}, files...)...)
	if code != 0 {
		t.Fatalf("combine-sigs: %s", errOut)
	}
	b, _ := api.DecodeSubmitBatch([]byte(combined))
	rk := b.Cmds[0].Hash.String()
	code2, out := s.post("listen", `{"listen":"`+rk+`"}`)
	if code2 != 504 || !strings.Contains(out, "Listen timed out after 50ms") {
		t.Errorf("listen before send: %d %s", code2, out)
	}
	keys := s.send(combined)
	if len(keys) != 1 || keys[0] != rk {
		t.Fatalf("keys %v, want %s", keys, rk)
	}
	// Accepted and executed: the transfer fails (there is no coin
	// contract on a bare pact server), which is a result, not a rejection.
	r := s.poll(rk)[rk]
	if status(r) != "failure" || !strings.Contains(data(r)+fmtAny(r), "coin") {
		t.Errorf("transfer: %v", r)
	}
	s.shutdown()
	access, err := os.ReadFile(filepath.Join(logDir, "pact-server.log"))
	if err != nil || !strings.Contains(string(access), `"POST /api/v1/send HTTP/1.1" 200 `) {
		t.Errorf("access log: %v\n%s", err, access)
	}
}

func fmtAny(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestServerConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ config, msg string }{
		{"", "port is required"},
		{"verbose: true\n", "port is required"},
		{"port: 8080\nfoo: 1\n", "line 2: unknown key foo"},
		{"port: eighty\n", `line 1: "eighty" is a string, but an integer is expected`},
		{"port: 70000\n", "not a TCP port"},
		{"port: 1\nverbose: maybe\n", `"maybe" is a string, but true or false is expected`},
		{"port: 1\nflags: [NoSuchFlag]\n", `unknown execution flag "NoSuchFlag"`},
		{"port: 1\npragmas: 3\n", `"3" is an integer, but a list is expected`},
		{"port: 1\ngasRate: -1\n", "gasRate -1 is negative"},
		{"port: 1\nentitySecret: xyz\n", "entitySecret: want 64 hex digits"},
		{"port: 1\nentities: {bob: {publicKey: 12}}\n", "entities.bob.publicKey"},
		{"port: 1\nentities: {bob: {publicKey: " + strings.Repeat("ab", 32) + ", url: ftp://x}}\n", "entities.bob.url"},
		{"port: 1\nlistenTimeout: 0\n", "listenTimeout"},
		{"port: 1\n---\nport: 2\n", "single YAML document"},
		{"port: 1\nevalBudget: 0\n", "evalBudget must be positive, got 0"},
		{"port: 1\nmaxElements: -5\n", "maxElements must be positive, got -5"},
		{"port: 1\nmaxResultSize: 0\n", "maxResultSize must be positive, got 0"},
		{"port: 1\nmaxResultSize: 4294967296\n", "maxResultSize 4294967296 is more than"},
		{"port: 1\nevalBudget: lots\n", `"lots" is a string, but an integer is expected`},
		{"port: 1\ntimeLimit: 0s\n", `timeLimit must be a positive duration such as 30s, got "0s"`},
		{"port: 1\ntimeLimit: soon\n", `timeLimit must be a positive duration such as 30s, got "soon"`},
		{"[1, 2]\n", "cannot unmarshal !!seq"},
	} {
		f := filepath.Join(dir, "c.yaml")
		os.WriteFile(f, []byte(tc.config), 0o644)
		code, out, errOut := pact(t, "", "--serve", f)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.msg) || !strings.Contains(errOut, "Config file (pact -s CONFIG) is YAML") {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.config, code, errOut, tc.msg)
		}
	}
	cfg, err := parseServerConfig([]byte("port: 8080\npersistDir: log\nlogDir: log\npragmas: []\nverbose: True\n" +
		"entity: alice\ngasLimit: 100\ngasRate: 1\nflags: [DisablePact51]\nexecConfig: [AllowReadInLocal]\n"))
	if err != nil || *cfg.Port != 8080 || cfg.PersistDir != "log" || !cfg.Verbose || cfg.Entity != "alice" ||
		cfg.GasRate != 1 || len(cfg.engineConfig(nil).Flags) != 2 {
		t.Errorf("P5's shipped config and the interface's keys: %+v %v", cfg, err)
	}
	// The bounds reach the engine; absent, the engine's defaults hold.
	cfg, err = parseServerConfig([]byte("port: 1\nevalBudget: 5000\nmaxElements: 70\nmaxResultSize: 900\ntimeLimit: 1m30s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ec := cfg.engineConfig(nil); ec.EvalBudget != 5000 || ec.MaxElements != 70 || ec.MaxResultSize != 900 || ec.TimeLimit != 90*time.Second {
		t.Errorf("bounds: %+v", ec)
	}
	cfg, _ = parseServerConfig([]byte("port: 1\n"))
	if ec := cfg.engineConfig(nil); ec.EvalBudget != 0 || ec.MaxElements != 0 || ec.MaxResultSize != 0 || ec.TimeLimit != 0 {
		t.Errorf("default bounds: %+v", ec)
	}
}

// timeLimit bounds a command's wall-clock time where the work budget does not (Pact 5
// prices some natives far below their cost): a command still running past it fails with the
// bound named.
func TestServerTimeLimit(t *testing.T) {
	s := startServer(t, "evalBudget: 1000000000\ntimeLimit: 1ms\n")
	if log := s.stderr.String(); !strings.Contains(log, "timeLimit=1ms") {
		t.Errorf("the start-up log does not show the time limit:\n%s", log)
	}
	dir := t.TempDir()
	// Seconds of work under the budget: the 1 ms bound passes long before it ends.
	long := strings.Repeat("(fold (+) 0 (enumerate 0 1999999))\n", 5)
	code, out := s.post("local", pactA(t, requestYAML(t, dir, "long.yaml", long, "long"), true))
	if code != 200 || !strings.Contains(out, "Execution interrupted: this server's time bound on a command (1ms, timeLimit) passed") {
		t.Fatalf("a command past timeLimit: %d %s", code, out)
	}
}

// The configured bounds hold on a running server: each fails a command
// that the defaults run, with its own text, and the YAML key is the one
// documented.
func TestServerBounds(t *testing.T) {
	// timeLimit: the bound a 6,000-gas budget implies (75 ms) is passed first on a loaded
	// machine, which would fail the budget case with the time bound's text.
	s := startServer(t, "evalBudget: 6000\nmaxElements: 10000\nmaxResultSize: 1400\ntimeLimit: 1h\n")
	if log := s.stderr.String(); !strings.Contains(log, "evalBudget=6000 maxElements=10000 maxResultSize=1400") {
		t.Errorf("the start-up log does not show the bounds:\n%s", log)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, code, want string }{
		{"budget", strings.Repeat("(fold (+) 0 (enumerate 0 9999))\n", 3),
			"Evaluation budget exceeded: the work of this command passed 6000 gas"},
		{"elements", "(length (enumerate 0 10000))", "Evaluation budget exceeded: more than 10000 list elements"},
		{"result", `(make-list 100 "abcdefghijk")`, "Result too large: the command's value, events and continuation encode to more than 1400 bytes"},
	} {
		code, out := s.post("local", pactA(t, requestYAML(t, dir, tc.name+".yaml", tc.code, tc.name), true))
		var r map[string]any
		if code != 200 || json.Unmarshal([]byte(out), &r) != nil || status(r) != "failure" || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %d %s; want a failure %q", tc.name, code, out, tc.want)
		}
	}
	// Within the bounds: two units of work of 10,000 elements each, 1,400
	// bytes.
	code, out := s.post("local", pactA(t, requestYAML(t, dir, "ok.yaml",
		"(fold (+) 0 (enumerate 0 9999))\n(fold (+) 0 (enumerate 1 10000))\n(make-list 100 \"abcdefghij\")", "ok"), true))
	var r map[string]any
	if code != 200 || json.Unmarshal([]byte(out), &r) != nil || status(r) != "success" {
		t.Errorf("within the bounds: %d %s", code, out)
	}
}

func FuzzServerConfig(f *testing.F) {
	f.Add([]byte("port: 8080\npersistDir: log\nlogDir: log\npragmas: []\nverbose: True\n"))
	f.Add([]byte("port: 0\nentities: {bob: {publicKey: " + strings.Repeat("ab", 32) + ", url: http://127.0.0.1:1}}\n"))
	f.Add([]byte("port: 1\nflags: [DisablePact51]\nlistenTimeout: 1.5\ngasRate: 3\n"))
	f.Add([]byte("{port: [1]}"))
	f.Add([]byte("port: 1\nevalBudget: 1\nmaxElements: 2\nmaxResultSize: 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseServerConfig(data)
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error message")
			}
			return
		}
		if cfg.Port == nil || *cfg.Port < 0 || *cfg.Port > 65535 || cfg.GasRate < 0 {
			t.Errorf("accepted a bad configuration: %+v", cfg)
		}
		for _, b := range []*int64{cfg.EvalBudget, cfg.MaxElements, cfg.MaxResultSize} {
			if b != nil && *b <= 0 {
				t.Errorf("accepted a bound that is not positive: %+v", cfg)
			}
		}
		cfg.engineConfig(nil)
	})
}

// pact -s with persistDir, stopped and started again: results and state
// survive.
func TestServerRestart(t *testing.T) {
	persist := filepath.Join(t.TempDir(), "state")
	dir := t.TempDir()
	config := "persistDir: " + persist + "\n"
	s := startServer(t, config)
	keys := s.send(pactA(t, requestYAML(t, dir, "mod.yaml", moduleCode, "mod"), false))
	keys = append(keys, s.send(pactA(t, requestYAML(t, dir, "put.yaml", `(m.put "k" 42)`, "put"), false))...)
	before := s.poll(keys...)
	if code := s.shutdown(); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr.String())
	}

	s = startServer(t, config)
	after := s.poll(keys...)
	if len(after) != 2 || fmtAny(after) != fmtAny(before) {
		t.Errorf("results after restart:\n%v\nbefore:\n%v", after, before)
	}
	code, out := s.post("local", pactA(t, requestYAML(t, dir, "get.yaml", `(m.get "k")`, "get"), true))
	if code != 200 || !strings.Contains(out, `"data":{"int":42}`) {
		t.Errorf("state after restart: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(persist, "entity.key")); err != nil {
		t.Errorf("entity key not kept: %v", err)
	}
}

// The README's transfer on pact -s: without preloadDevContracts the error
// says how to get coin; with it the transfer succeeds.
func TestServerDevContracts(t *testing.T) {
	if !strings.Contains(serverConfigHelp, server.DevContractsKey+":") {
		t.Fatalf("the help does not name %s", server.DevContractsKey)
	}
	cmd := pactA(t, req+"readme-transfer.yaml", true)
	for _, tc := range []struct{ config, want string }{
		{"", `"message":"Cannot resolve module coin (this server starts without the development contracts; set preloadDevContracts: true in its configuration`},
		{"preloadDevContracts: true\n", `"result":{"status":"success","data":"Write succeeded"}`},
	} {
		s := startServer(t, tc.config)
		code, out := s.post("local", cmd)
		if code != 200 || !strings.Contains(out, tc.want) {
			t.Errorf("config %q: %d %s, want %s", tc.config, code, out, tc.want)
		}
		s.shutdown()
	}
}

// maxConnections bounds the server's open connections; by default the descriptors left once the
// store and the logs have theirs (a persistDir's goleveldb keeps up to a quarter of them).
func TestServerConnLimits(t *testing.T) {
	if _, err := parseServerConfig([]byte("port: 1\nmaxConnections: 0\n")); err == nil || !strings.Contains(err.Error(), "maxConnections") {
		t.Fatalf("maxConnections 0: %v", err)
	}
	cfg, err := parseServerConfig([]byte("port: 1\nmaxConnections: 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l := serverConnLimits(cfg, 512); l.Max != 7 {
		t.Fatalf("maxConnections 7: %+v", l)
	}
	cfg, _ = parseServerConfig([]byte("port: 1\n"))
	if l := serverConnLimits(cfg, 512); l.Max != 512-64 {
		t.Fatalf("in memory at 512 descriptors: %+v", l)
	}
	cfg.PersistDir = "/tmp/x"
	if l := serverConnLimits(cfg, 512); l.Max != 512-64-128 {
		t.Fatalf("with a persistDir at 512 descriptors: %+v", l)
	}
}

// A request that meets damaged data in persistDir is a 503 with what to do, not a 500; any
// other failure is left to the contract API's 500.
func TestDamagedPersistenceIsUnavailable(t *testing.T) {
	unavailable := damagedPersistence("/srv/pact-state")
	r, ok := unavailable(fmt.Errorf("read row: %w", kv.ErrCorrupt))
	if !ok || r.RetryAfter != "3600" || !strings.Contains(r.Text, "/srv/pact-state") {
		t.Errorf("damaged data: %+v, %v", r, ok)
	}
	if r, ok := unavailable(errors.New("disk full")); ok {
		t.Errorf("another failure: %+v", r)
	}
}
