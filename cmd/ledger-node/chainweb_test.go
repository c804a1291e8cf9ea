package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// devnetDir holds Kadena devnet's chainweb-node configuration (see its README.md).
var devnetDir = filepath.Join("..", "..", "testdata", "config")

const devnetMinerKey = "f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f"

// devnetArgs are the flags devnet's docker flavour starts chainweb-node with (fact sheet §3.7),
// GHC runtime options first, loading its two layered files.
func devnetArgs(dbDir string) []string {
	return []string{"+RTS", "-T", "-H400M", "-A64M", "-RTS",
		"--config-file", filepath.Join(devnetDir, "chainweb-node.docker.common.yaml"),
		"--config-file=" + filepath.Join(devnetDir, "chainweb-node.logging.yaml"),
		"--p2p-hostname", "bootstrap-node", "--bootstrap-reachability=1", "--cluster-id", "devnet-minimal",
		"--p2p-max-session-count", "3", "--mempool-p2p-max-session-count=10", "--p2p-port", "1789",
		"--known-peer-info", "x5X1ldQfpFpTYC6Lq4u5ks5YWELLqs0wMpGngVWvXUo@bootstrap-node:1789",
		"--log-level", "info", "--enable-mining-coordination", "--mining-public-key", devnetMinerKey,
		"--header-stream", "--disable-pow", "--database-directory", dbDir, "--service-port", "1848",
	}
}

// TestDevnetChainwebConfig loads devnet's chainweb-node configuration (two layered files, its
// flags) and checks the effective configuration through --print-config-as full, minimal and
// diff, the warnings (one per key or flag with no meaning here), and that lists add up.
func TestDevnetChainwebConfig(t *testing.T) {
	printed := func(mode string, args []string) (map[string]any, string, string) {
		t.Helper()
		var out, errs bytes.Buffer
		if code := run(append(args, "--print-config-as", mode), &out, &errs); code != 0 {
			t.Fatalf("--print-config-as %s: exit %d\n%s", mode, code, errs.String())
		}
		return yamlMap(t, out.Bytes()), out.String(), errs.String()
	}
	args := devnetArgs("/var/lib/devnet/db")
	full, _, warnings := printed("full", args)
	for key, want := range map[string]string{
		"network": "development", "dataDir": "/var/lib/devnet/db", "logLevel": "info", "logFormat": "json",
		"clusterId": "devnet-minimal", "serviceApi.interface": "0.0.0.0", "serviceApi.port": "1848",
		"serviceApi.headerStream": "true", "p2p.port": "1789", "mining.disablePow": "true",
		// Coordination on and no nodeMining: external miners mine alone, as on chainweb-node.
		"mining.coordination.enabled": "true", "mining.mode": "off",
		// Lists add up: the file's peer, then the flag's (with the peer id it must prove).
		"p2p.peers": "- peer-a:1789\n- x5X1ldQfpFpTYC6Lq4u5ks5YWELLqs0wMpGngVWvXUo@bootstrap-node:1789",
		// What the node announces to its peers.
		"p2p.hostname": "bootstrap-node",
	} {
		if got := lookup(full, key); got != want {
			t.Errorf("full: %s is %q, want %q", key, got, want)
		}
	}
	// One warning per key or flag with no meaning here, naming it (and the file and line).
	wantWarnings := []string{
		"chainweb-node.docker.common.yaml line 16: chainweb.p2p.ignoreBootstrapNodes has no meaning",
		"chainweb-node.docker.common.yaml line 17: chainweb.p2p.maxSessionCount has no meaning",
		"chainweb-node.docker.common.yaml line 25: chainweb.mempoolP2p.configuration.maxSessionCount has no meaning",
		"chainweb-node.logging.yaml line 10: logging.telemetryBackend.configuration.format has no meaning",
		"flag --bootstrap-reachability has no meaning",
		"flag --p2p-max-session-count has no meaning", "flag --mempool-p2p-max-session-count has no meaning",
	}
	lines := strings.Split(strings.TrimSpace(warnings), "\n")
	if len(lines) != len(wantWarnings) {
		t.Errorf("%d warnings, want %d:\n%s", len(lines), len(wantWarnings), warnings)
	}
	for _, w := range wantWarnings {
		if strings.Count(warnings, w) != 1 {
			t.Errorf("warning %q given %d times:\n%s", w, strings.Count(warnings, w), warnings)
		}
	}

	// The nix flavour's file on top: its keys override (interface '*' again, headerStream),
	// its unknown keys warn as such, and nothing earlier is lost.
	nix := append(args, "--config-file", filepath.Join(devnetDir, "chainweb-node.common.yaml"), "--allowReadsInLocal")
	nixFull, _, warnings := printed("full", nix)
	// The nix file's throttling (10000 requests/s) overrides the docker file's (upstream's 50).
	if g := lookup(nixFull, "p2p.throttling.global"); g != "10000" {
		t.Errorf("throttling.global: %q, want the nix file's 10000", g)
	}
	if g := lookup(full, "p2p.throttling.global"); g != "50" {
		t.Errorf("throttling.global from the docker file: %q, want 50", g)
	}
	if lookup(nixFull, "execution.allowReadsInLocal") != "true" {
		t.Errorf("devnet's allowReadsInLocal (file and flag) did not apply: %q", lookup(nixFull, "execution.allowReadsInLocal"))
	}
	for _, w := range []string{
		"chainweb-node.common.yaml line 6: chainweb.throttling.local is not a chainweb-node 2.32 setting",
		"chainweb-node.common.yaml line 7: chainweb.throttling.mining is not a chainweb-node 2.32 setting",
		"chainweb-node.common.yaml line 24: logging.backend.color has no meaning",
	} {
		if strings.Count(warnings, w) != 1 {
			t.Errorf("warning %q given %d times:\n%s", w, strings.Count(warnings, w), warnings)
		}
	}

	// minimal: exactly what differs from the defaults, itself a config file that loads.
	minimal, minimalText, _ := printed("MINIMAL", args)
	wantKeys := []string{"dataDir", "logFormat", "clusterId", "serviceApi", "mining", "p2p"}
	if len(minimal) != len(wantKeys) {
		t.Errorf("minimal has keys %v, want %v", keysOf(minimal), wantKeys)
	}
	for _, k := range wantKeys {
		if _, ok := minimal[k]; !ok {
			t.Errorf("minimal lacks %s:\n%s", k, minimalText)
		}
	}
	if lookup(minimal, "serviceApi.port") != "" || lookup(minimal, "serviceApi.interface") != "0.0.0.0" ||
		!strings.Contains(lookup(minimal, "mining.coordination.miners"), "k:"+devnetMinerKey) {
		t.Errorf("minimal:\n%s", minimalText)
	}
	file := filepath.Join(t.TempDir(), "minimal.yaml")
	os.WriteFile(file, []byte(minimalText), 0o600)
	again, _, _ := printed("full", []string{"--config-file", file})
	for _, k := range []string{"dataDir", "logFormat", "serviceApi", "mining", "p2p"} {
		if lookup(again, k) != lookup(full, k) {
			t.Errorf("minimal loaded back: %s is %q, was %q", k, lookup(again, k), lookup(full, k))
		}
	}

	// diff: $both where equal, $left/$right where they differ or one side has nothing.
	diff, diffText, _ := printed("Diff", args)
	for key, want := range map[string]string{
		"network.$both": "development", "logFormat.$left": "text", "logFormat.$right": "json",
		"serviceApi.port.$both": "1848", "p2p.port.$both": "1789",
	} {
		if got := lookup(diff, key); got != want {
			t.Errorf("diff: %s is %q, want %q\n%s", key, got, want, diffText)
		}
	}
	if got := lookup(diff, "p2p.peers"); got != "- $right: peer-a:1789\n- $right: x5X1ldQfpFpTYC6Lq4u5ks5YWELLqs0wMpGngVWvXUo@bootstrap-node:1789" {
		t.Errorf("diff of the peers: %q", got)
	}

	var errs bytes.Buffer
	if code := run([]string{"--print-config-as", "everything"}, &bytes.Buffer{}, &errs); code != 2 ||
		!strings.Contains(errs.String(), "unknow print configuration mode") {
		t.Errorf("unknown mode: exit %d, %q", code, errs.String())
	}
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// Our own sections keep refusing unknown keys (with the line), chainweb's keys map as
// documented, and a file may mix both; flags come last.
func TestChainwebKeysMap(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mixed.yaml")
	os.WriteFile(file, []byte(`network: development
execution:
  evalSlots: 3
chainweb:
  gasLimitOfBlock: 90000
  headerStream: false
  p2p:
    peer:
      interface: '*6'
    peers:
      - id: null
        address: {hostname: 10.0.0.1, port: 1789}
  mining:
    nodeMining:
      enabled: false
      miner: {account: alice, public-keys: [`+testMinerKey+`], predicate: keys-all}
    coordination:
      miners: [{account: bob, public-keys: [`+testMinerKey+`], predicate: keys-any}]
  backup: {api: {enabled: true, configuration: {}}, directory: /tmp/b}
  cuts: {pruneChainDatabase: none}
logging:
  logger: {log_level: Warn}
  backend: {format: Json, handle: stdout}
  clusterId: c1
databaseDirectory: /tmp/db
`), 0o600)
	var errs bytes.Buffer
	cfg, _, err := loadConfig([]string{"--config-file", file, "--mining-public-key", testMinerKey, "--no-header-stream=false"}, &errs)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Execution.BlockGasLimit != 90000 || cfg.Execution.EvalSlots != 3 || cfg.P2P.Interface != "::" ||
		!cfg.ServiceAPI.HeaderStream || cfg.Mining.Mode != "off" || cfg.Mining.Account != "alice" ||
		cfg.Mining.PublicKey != testMinerKey || !cfg.Backup.API.Enabled || cfg.Backup.Directory != "/tmp/b" ||
		cfg.LogLevel != "warn" || cfg.LogFormat != "json" || cfg.LogHandle != "stdout" || cfg.ClusterID != "c1" ||
		cfg.DataDir != "/tmp/db" || len(cfg.P2P.Peers) != 1 || cfg.P2P.Peers[0] != "10.0.0.1:1789" ||
		len(cfg.Mining.Coordination.Miners) != 2 {
		t.Fatalf("%+v", cfg)
	}
	if w := errs.String(); strings.Count(w, "warning") != 1 || !strings.Contains(w, "line 20: chainweb.cuts.pruneChainDatabase") {
		t.Fatalf("warnings: %q", w)
	}
	for name, body := range map[string]string{
		"typo in our section": "serviceApi:\n  prot: 1\n",
		"wrong type":          "chainweb:\n  serviceApi:\n    port: lots\n",
		"two miner keys":      "chainweb:\n  mining:\n    nodeMining:\n      miner: {account: a, public-keys: [" + testMinerKey + ", " + testMinerKey + "]}\n",
		"unknown version":     "chainweb:\n  chainwebVersion: moonnet\n",
		"elasticsearch":       "logging:\n  backend:\n    handle: es::http://x\n",
	} {
		f := filepath.Join(dir, "bad.yaml")
		os.WriteFile(f, []byte(body), 0o600)
		if code := run([]string{"--config-file", f}, &bytes.Buffer{}, &errs); code != 2 {
			t.Errorf("%s: exit %d", name, code)
		}
	}
	errs.Reset()
	os.WriteFile(file, []byte("serviceApi:\n  port: 1\n  prot: 2\n"), 0o600)
	run([]string{"--config-file", file}, &bytes.Buffer{}, &errs)
	if !strings.Contains(errs.String(), "line 3") || !strings.Contains(errs.String(), "unknown key prot") {
		t.Errorf("a typo in our keys: %q", errs.String())
	}
	// chainweb's --block-delay is in microseconds.
	if cfg, _, err := loadConfig([]string{"--block-delay", "2000000"}, &errs); err != nil || cfg.Mining.BlockDelay != 2*time.Second {
		t.Errorf("--block-delay 2000000: %v %v", cfg.Mining.BlockDelay, err)
	}
}

// version and --version print the version, the commit (unknown under go test, which records
// none) and the Go version.
func TestVersionLine(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"--service-port", "0", "--version"}} {
		var out bytes.Buffer
		if code := run(args, &out, &bytes.Buffer{}); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		if s := out.String(); !strings.Contains(s, packageVersion) || !strings.Contains(s, runtime.Version()) ||
			!regexp.MustCompile(`commit (unknown|[0-9a-f]{40}(\+modified)?)`).MatchString(s) {
			t.Errorf("%v: %q", args, s)
		}
	}
}

// A node started with devnet's configuration logs JSON lines (level, time, message), its
// status line among them, serves GET /config on the peer API with upstream's redactions and no
// secret, and a node that does not mine reports no hash rate; at level warn, no status line.
func TestDevnetNodeLogsAndConfig(t *testing.T) {
	const secret = "0707070707070707070707070707070707070707070707070707070707070707"
	args := append(devnetArgs(t.TempDir()), "--entity-secret", secret, "--known-peer-info", "127.0.0.1:9",
		"--service-port", "0", "--p2p-port", "0")
	opts := nodeOptions{genesisTarget: testTarget(t), workers: 1, statusEvery: 50 * time.Millisecond}
	n := startLoggedNode(t, opts, &bytes.Buffer{}, args...)
	body := get(t, "https://"+n.p2p+"/config", "")
	time.Sleep(150 * time.Millisecond)
	n.stop()

	if bytes.Contains(body, []byte(secret)) || bytes.Contains(body, []byte("entitySecret")) ||
		bytes.Contains(body, []byte(devnetMinerKey)) {
		t.Fatalf("/config shows a secret or a miner: %s", body)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"chainwebVersion": "development", "serviceApi.port": "0", "serviceApi.interface": "invalid",
		"mining.coordination.miners": "[]", "mining.coordination.enabled": "true", "headerStream": "true",
		"mining.nodeMining.miner.account": "", "mining.nodeMining.miner.predicate": "keys-all",
		"mining.nodeMining.miner.public-keys": "[]", "p2p.peer.certificateChain": "", "p2p.peer.keyFile": "",
		"backup.api.enabled": "false", "backup.directory": "", "gasLimitOfBlock": "150000",
	} {
		if got := lookup(doc, key); got != want {
			t.Errorf("/config %s is %q, want %q\n%s", key, got, want, body)
		}
	}
	if _, ok := doc["logging"]; ok {
		t.Error("/config has the logging section; upstream serves the chainweb section only")
	}

	statusLines := 0
	for _, line := range strings.Split(strings.TrimSpace(n.log.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		ts, _ := rec["time"].(string)
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", ts); err != nil || rec["level"] == nil || rec["message"] == nil ||
			scopeOf(rec)["cluster"] != "devnet-minimal" {
			t.Fatalf("log line lacks level, time (ISO 8601 ms), message or cluster: %q", line)
		}
		if rec["message"] == "status" {
			statusLines++
			// Devnet's node mines nothing itself (its miners come through the mining API).
			if rec["level"] != "info" || rec["megaHashesPerSecond"] != nil || rec["cutHeight"] == nil {
				t.Errorf("status line: %q", line)
			}
		}
	}
	if statusLines == 0 {
		t.Fatalf("no status line in the log:\n%s", n.log.String())
	}

	// Not mining: no hash rate. At level warn: no status line at all.
	idle := startLoggedNode(t, opts, &bytes.Buffer{}, "--data-dir", t.TempDir(), "--mining", "off")
	time.Sleep(150 * time.Millisecond)
	idle.stop()
	if s := idle.log.String(); !strings.Contains(s, "msg=status") || strings.Contains(s, "megaHashesPerSecond") ||
		strings.Contains(s, "mined=") {
		t.Errorf("status of a node that does not mine:\n%s", s)
	}
	quiet := startLoggedNode(t, opts, &bytes.Buffer{}, "--data-dir", t.TempDir(), "--mining", "off", "--log-level", "WARN")
	time.Sleep(150 * time.Millisecond)
	quiet.stop()
	if s := quiet.log.String(); strings.Contains(s, "status") {
		t.Errorf("status lines at level warn:\n%s", s)
	}
}

// The body of GET /config redacts what upstream redacts, whatever the configuration holds.
func TestChainwebConfigJSONRedacts(t *testing.T) {
	const secret = "0707070707070707070707070707070707070707070707070707070707070707"
	cfg, _, err := loadConfig([]string{"--service-port", "1848", "--service-interface", "10.1.2.3",
		"--enable-backup-api", "--backup-directory", "/secret/backups", "--mining-public-key", devnetMinerKey,
		"--miner-key", testMinerKey, "--miner-account", "alice", "--entity-secret", secret, "--peer", "10.0.0.1:1789"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	body := chainwebConfigJSON(cfg, "10.9.9.9:1789")
	for _, hidden := range []string{secret, devnetMinerKey, testMinerKey, "alice", "/secret/backups", "10.1.2.3", "1848"} {
		if bytes.Contains(body, []byte(hidden)) {
			t.Errorf("/config shows %s: %s", hidden, body)
		}
	}
	var doc map[string]any
	json.Unmarshal(body, &doc)
	for key, want := range map[string]string{
		"serviceApi.port": "0", "serviceApi.interface": "invalid", "backup.api.enabled": "false",
		"p2p.peer.hostaddress.hostname": "10.9.9.9", "p2p.peer.hostaddress.port": "1789",
		"p2p.peers": "- address:\n    hostname: 10.0.0.1\n    port: 1789\n  id: null",
	} {
		if got := lookup(doc, key); got != want {
			t.Errorf("%s is %q, want %q", key, got, want)
		}
	}
	p2p := doc["p2p"].(map[string]any)["peer"].(map[string]any)
	for _, k := range []string{"certificateChain", "certificateChainFile", "key", "keyFile"} {
		if v, ok := p2p[k]; !ok || v != nil {
			t.Errorf("p2p.peer.%s: %v (present %v), want null", k, v, ok)
		}
	}
}

// resetChainDatabases deletes a data directory of ours, and refuses anything else.
func TestResetDataDir(t *testing.T) {
	base := t.TempDir()
	if err := resetDataDir(filepath.Join(base, "missing")); err != nil {
		t.Errorf("missing directory: %v", err)
	}
	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o755)
	ours := filepath.Join(base, "ours")
	os.MkdirAll(filepath.Join(ours, "private"), 0o755)
	os.WriteFile(filepath.Join(ours, "headers.log"), []byte("x"), 0o644)
	for _, dir := range []string{empty, ours} {
		if err := resetDataDir(dir); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s not deleted", dir)
		}
	}
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(home, "thesis.tex"), []byte("years of work"), 0o644)
	if err := resetDataDir(home); err == nil || !strings.Contains(err.Error(), "does not look like a ledger-node data directory") {
		t.Errorf("a directory that is not ours: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "thesis.tex")); err != nil {
		t.Errorf("a file of a directory that is not ours is gone: %v", err)
	}
}
