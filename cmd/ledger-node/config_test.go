package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// flagValues gives each option a value different from its default.
var flagValues = map[string]string{
	"network": "mainnet01", "data-dir": "/tmp/x", "log-level": "debug", "service-interface": "0.0.0.0",
	"service-port": "1999", "service-payload-batch-limit": "7", "header-cache-size": "11",
	"block-cache-mib": "13", "node-service-date": "2027-01-01T00:00:00Z",
	"enable-backup-api": "true", "backup-directory": "/tmp/backups",
	"header-stream": "false", "metrics-path": "/debug/metrics", "mining": "off", "block-delay": "2s", "miner-account": "alice",
	"miner-key":                           "368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca",
	"entity":                              "alice",
	"p2p-interface":                       "0.0.0.0",
	"p2p-port":                            "1790",
	"backup-keep":                         "9",
	"p2p-allow-private-peers":             "true",
	"service-max-connections":             "900",
	"service-max-connections-per-address": "30",
	"p2p-max-connections":                 "300",
	"p2p-max-connections-per-address":     "10",
	"peer":                                "127.0.0.1:1",
	"entity-secret":                       "0707070707070707070707070707070707070707070707070707070707070707",
	"block-gas-limit":                     "100000",
	"local-gas-limit":                     "5000",
	"max-result-bytes":                    "65536",
	"max-block-output-bytes":              "8388608",
	"eval-slots":                          "7",
	"eval-wait":                           "2s",
	"local-time-limit":                    "3s",
	"disable-pow":                         "true",
	"allowReadsInLocal":                   "true",
	"gc-percent":                          "250",
	"memory-limit-mib":                    "4096",
	"explorer":                            "false",
	"enable-mining-coordination":          "true",
	"mining-public-key":                   "368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca",
	"mining-request-limit":                "12",
	"mining-update-stream-limit":          "13",
	"mining-update-stream-timeout":        "14",
	"mining-payload-refresh-delay":        "15",
	"on-demand-start-blocks":              "3",
	"on-demand-confirmation-depth":        "4",
	"on-demand-idle-period":               "5s",
	"on-demand-interface":                 "0.0.0.0",
	"on-demand-port":                      "1790",
	"log-format":                          "json",
	"log-handle":                          "stdout",
	"cluster-id":                          "devnet-minimal",
	"enable-reset-chain-databases":        "true",
	"only-sync-pact":                      "true",
}

// listValues are how a list flag's value shows in the printed YAML and is written in a file.
var listValues = map[string]struct{ printed, file string }{
	"peer": {"- 127.0.0.1:1", "[127.0.0.1:1]"},
	"mining-public-key": {
		"- account: k:368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca\n  predicate: keys-all\n  public-keys:\n    - 368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca",
		"[{account: k:368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca, public-keys: [368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca], predicate: keys-all}]",
	},
}

// companions are the flags a flag is only valid with: the test passes them along, and does not
// count their keys as changed by the flag.
var (
	companions    = map[string][]string{"enable-backup-api": {"--backup-directory", "/tmp/backups"}}
	companionKeys = map[string]string{"enable-backup-api": "backup.directory"}
)

// networkDefaults are the keys whose defaults depend on the network: --network changes them too.
var networkDefaults = map[string]bool{"mining.mode": true, "mining.blockDelay": true,
	"serviceApi.interface": true, "p2p.interface": true}

// derivedKeys are keys whose default follows another flag's value.
var derivedKeys = map[string][]string{
	"block-gas-limit": {"execution.localGasLimit", "execution.localTimeLimit"},
	"local-gas-limit": {"execution.localTimeLimit"},
	// With the mining API on, the built-in miner is off unless a mode is named.
	"enable-mining-coordination": {"mining.mode"}}

// TestEveryFlagHasItsYAMLKey sets each flag alone and checks that --print-config shows exactly
// its YAML key changed, and that the same value in a config file has the same effect.
func TestEveryFlagHasItsYAMLKey(t *testing.T) {
	base := yamlMap(t, DefaultConfigPrinted(t))
	for _, o := range options {
		val, ok := flagValues[o.flag]
		if !ok {
			t.Fatalf("no test value for --%s", o.flag)
		}
		// --flag=value: boolean flags take no separate argument.
		cfg, _, err := loadConfig(append([]string{"--" + o.flag + "=" + val, "--data-dir", "/d"}, companions[o.flag]...), &bytes.Buffer{})
		if o.flag == "data-dir" {
			cfg, _, err = loadConfig([]string{"--" + o.flag + "=" + val}, &bytes.Buffer{})
		}
		if err != nil {
			t.Fatalf("--%s %s: %v", o.flag, val, err)
		}
		got := yamlMap(t, cfg.marshalYAML())
		want := val
		if l, ok := listValues[o.flag]; ok {
			want = l.printed
		}
		if lookup(got, o.yamlKey) != want {
			t.Errorf("--%s %s: YAML key %s is %q", o.flag, val, o.yamlKey, lookup(got, o.yamlKey))
		}
		for _, other := range options {
			if other.yamlKey == o.yamlKey || other.yamlKey == "dataDir" || o.flag == "network" && networkDefaults[other.yamlKey] ||
				other.yamlKey == companionKeys[o.flag] || slices.Contains(derivedKeys[o.flag], other.yamlKey) {
				continue
			}
			if lookup(got, other.yamlKey) != lookup(base, other.yamlKey) {
				t.Errorf("--%s also changed %s", o.flag, other.yamlKey)
			}
		}
		// The same setting through a config file.
		file := filepath.Join(t.TempDir(), "c.yaml")
		fileVal := val
		if l, ok := listValues[o.flag]; ok {
			fileVal = l.file
		}
		os.WriteFile(file, []byte(nestedYAML(o.yamlKey, fileVal)), 0o600)
		fromFile, _, err := loadConfig(append([]string{"--config-file", file, "--data-dir", "/d"}, companions[o.flag]...), &bytes.Buffer{})
		if err != nil {
			t.Fatalf("config file %q: %v", nestedYAML(o.yamlKey, val), err)
		}
		if o.flag != "data-dir" && lookup(yamlMap(t, fromFile.marshalYAML()), o.yamlKey) != want {
			t.Errorf("config key %s did not apply", o.yamlKey)
		}
	}
}

func DefaultConfigPrinted(t *testing.T) []byte {
	cfg, _, err := loadConfig([]string{"--data-dir", "/d"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.marshalYAML()
}

func TestFlagsOverrideConfigFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(file, []byte("serviceApi:\n  port: 2000\nlogLevel: warn\n"), 0o600)
	cfg, _, err := loadConfig([]string{"--service-port", "3000", "--config-file", file}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ServiceAPI.Port != 3000 || cfg.LogLevel != "warn" {
		t.Fatalf("port %d level %s", cfg.ServiceAPI.Port, cfg.LogLevel)
	}
	if !strings.HasSuffix(cfg.DataDir, filepath.Join("ledger-node", "development")) {
		t.Fatalf("default data dir %s", cfg.DataDir)
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	n := 0
	write := func(s string) string { // a file per case: the cases are built before any runs
		n++
		f := filepath.Join(dir, fmt.Sprintf("bad%d.yaml", n))
		os.WriteFile(f, []byte(s), 0o600)
		return f
	}
	cases := map[string][]string{
		"unknown key":          {"--config-file", write("servicePort: 1\n")},
		"wrong type":           {"--config-file", write("serviceApi:\n  port: lots\n")},
		"not yaml":             {"--config-file", write("{{{\n")},
		"missing file":         {"--config-file", filepath.Join(dir, "nope.yaml")},
		"unknown network":      {"--network", "moonnet"},
		"bad port":             {"--service-port", "70000"},
		"bad level":            {"--log-level", "loud"},
		"bad date":             {"--node-service-date", "next tuesday"},
		"unknown flag":         {"--frobnicate"},
		"stray argument":       {"extra"},
		"flag needs value":     {"--config-file"},
		"unknown mining":       {"--mining", "gpu"},
		"mining mainnet":       {"--network", "mainnet01", "--mining", "pow"},
		"on-demand mainnet":    {"--network", "mainnet01", "--mining", "on-demand"},
		"no pow mainnet":       {"--network", "mainnet01", "--disable-pow"},
		"coordination mainnet": {"--network", "mainnet01", "--enable-mining-coordination"},
		"bad miner key":        {"--mining-public-key", "abc"},
		"miner without keys":   {"--config-file", write("mining:\n  coordination:\n    miners: [{account: bob, predicate: keys-all}]\n")},
		"negative idle":        {"--on-demand-idle-period", "-1s"},
		"delay on mainnet":     {"--network", "mainnet01", "--block-delay", "2s"},
		"delay too short":      {"--block-delay", "1ms"},
		"delay not a time":     {"--block-delay", "soon"},
		"short miner key":      {"--miner-key", "abcd"},
		"miner key not hex":    {"--miner-key", strings.Repeat("x", 64)},
		"short entity key":     {"--entity-secret", "abcd"},
		"entity without key":   {"--config-file", write("private:\n  entities:\n    bob:\n      url: http://127.0.0.1:1\n")},
		"entity url": {"--config-file", write("private:\n  entities:\n    bob:\n      publicKey: " +
			strings.Repeat("ab", 32) + "\n      url: ftp://x\n")},
	}
	// Execution bounds.
	cases["block gas over the bound"] = []string{"--block-gas-limit", "180001"}
	cases["block gas zero"] = []string{"--block-gas-limit", "0"}
	cases["negative block gas"] = []string{"--block-gas-limit", "-1"}
	cases["tiny result cap"] = []string{"--max-result-bytes", "100"}
	cases["outputs under a result"] = []string{"--max-result-bytes", "1048576", "--max-block-output-bytes", "1048576"}
	cases["negative slots"] = []string{"--eval-slots", "-2"}
	cases["no wait"] = []string{"--eval-wait", "0s"}
	cases["slots not a number"] = []string{"--config-file", write("execution:\n  evalSlots: many\n")}
	// The backup API needs a directory.
	cases["backup api, no dir"] = []string{"--enable-backup-api"}
	cases["backup key, no dir"] = []string{"--config-file", write("backup:\n  api:\n    enabled: true\n")}
	cases["backup api not bool"] = []string{"--config-file", write("backup:\n  api: yes please\n")}
	for name, args := range cases {
		var stderr bytes.Buffer
		if code := run(args, &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("%s: exit %d, want 2 (stderr %q)", name, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	run([]string{"--config-file", write("serviceApi:\n  port: lots\n")}, &bytes.Buffer{}, &stderr)
	if !strings.Contains(stderr.String(), "line 2") {
		t.Errorf("type error does not name the line: %q", stderr.String())
	}
}

// The local gas cap follows the block gas limit unless it is set; the evaluation slots default
// to half the cores.
func TestExecutionDefaults(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		block, loc  uint64
		result, out int
	}{
		{nil, 150000, 150000, 1 << 20, 32 << 20},
		{[]string{"--block-gas-limit", "90000"}, 90000, 90000, 1 << 20, 32 << 20},
		{[]string{"--block-gas-limit", "90000", "--local-gas-limit", "1000000"}, 90000, 1000000, 1 << 20, 32 << 20},
		{[]string{"--max-result-bytes", "65536", "--max-block-output-bytes", "200000"}, 150000, 150000, 65536, 200000},
	} {
		cfg, _, err := loadConfig(append([]string{"--data-dir", "/d"}, tc.args...), &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		e := cfg.Execution
		if e.BlockGasLimit != tc.block || e.LocalGasLimit != tc.loc || e.MaxResultBytes != tc.result ||
			e.MaxBlockOutputBytes != tc.out || e.EvalSlots < 1 || e.EvalWait != 5*time.Second {
			t.Errorf("%v: %+v", tc.args, e)
		}
	}
}

func TestPrintConfigAndVersion(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"--print-config", "--service-port", "1234", "--data-dir", "/d"}, &out, &bytes.Buffer{}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	m := yamlMap(t, out.Bytes())
	if lookup(m, "serviceApi.port") != "1234" || lookup(m, "dataDir") != "/d" {
		t.Fatalf("printed %s", out.String())
	}
	// The printed configuration is itself a valid config file.
	file := filepath.Join(t.TempDir(), "printed.yaml")
	os.WriteFile(file, out.Bytes(), 0o600)
	if cfg, _, err := loadConfig([]string{"--config-file", file}, &bytes.Buffer{}); err != nil || cfg.ServiceAPI.Port != 1234 {
		t.Fatalf("printed config does not load back: %v", err)
	}
	out.Reset()
	if run([]string{"version"}, &out, &bytes.Buffer{}) != 0 || !strings.Contains(out.String(), packageVersion) {
		t.Fatalf("version: %q", out.String())
	}
	if run([]string{"--help"}, &out, &bytes.Buffer{}) != 0 {
		t.Fatal("--help is not a failure")
	}
}

func yamlMap(t *testing.T, b []byte) map[string]any {
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// lookup returns the value at a dotted key path as text.
func lookup(m map[string]any, key string) string {
	var cur any = m
	for _, k := range strings.Split(key, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[k]
	}
	if cur == nil {
		return ""
	}
	b, _ := yaml.Marshal(cur)
	return strings.Trim(strings.TrimSpace(string(b)), `"'`)
}

// nestedYAML renders "a.b: v" as nested YAML, quoting the value as a string when it is not a number.
func nestedYAML(key, val string) string {
	parts := strings.Split(key, ".")
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(strings.Repeat("  ", i) + p + ":")
		if i < len(parts)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString(" " + val + "\n")
	return b.String()
}

// With the mining API on and no mode named, external miners mine alone (chainweb-node's
// nodeMining is off by default); a named mode still applies.
func TestMiningAPIKeepsBuiltInMinerOffByDefault(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--enable-mining-coordination"}, "off"},
		{[]string{"--enable-mining-coordination", "--mining", "pow"}, "pow"},
		{[]string{"--enable-mining-coordination", "--mining", "on-demand"}, "on-demand"},
		{nil, "pow"},
	} {
		cfg, _, err := loadConfig(append([]string{"--data-dir", "/d"}, c.args...), &bytes.Buffer{})
		if err != nil || cfg.Mining.Mode != c.want {
			t.Errorf("%v: mode %q (%v), want %q", c.args, cfg.Mining.Mode, err, c.want)
		}
	}
}

// p2p.throttling.loopback (ours) is off by default and a config file turns it on; the printed
// config shows it, so a printed config read back keeps it.
func TestThrottlingLoopbackKey(t *testing.T) {
	cfg, _, err := loadConfig([]string{"--data-dir", "/d"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.P2P.Throttling.Loopback {
		t.Fatal("loopback clients are throttled by default")
	}
	file := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(file, []byte("p2p:\n  throttling:\n    loopback: true\n"), 0o600)
	cfg, _, err = loadConfig([]string{"--config-file", file, "--data-dir", "/d"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.P2P.Throttling.Loopback || cfg.P2P.Throttling.Global != 50 {
		t.Fatalf("throttling %+v, want loopback on and the default rates", cfg.P2P.Throttling)
	}
	if got := lookup(yamlMap(t, cfg.marshalYAML()), "p2p.throttling.loopback"); got != "true" {
		t.Fatalf("printed p2p.throttling.loopback %q", got)
	}
}

// Every printed configuration shows the entity secret as <redacted>, never the key; a printed
// configuration loaded back is refused with a message that says what to put there.
func TestPrintedConfigRedactsSecrets(t *testing.T) {
	const secret = "0707070707070707070707070707070707070707070707070707070707070707"
	for _, mode := range []string{"", "full", "minimal", "diff"} {
		args := []string{"--print-config", "--entity-secret", secret, "--data-dir", "/d"}
		if mode != "" {
			args = []string{"--print-config-as", mode, "--entity-secret", secret, "--data-dir", "/d"}
		}
		var out bytes.Buffer
		if code := run(args, &out, &bytes.Buffer{}); code != 0 {
			t.Fatalf("%q: exit %d", mode, code)
		}
		if strings.Contains(out.String(), secret) || !strings.Contains(out.String(), redactedSecret) {
			t.Fatalf("--print-config-as %q shows the secret or no redaction:\n%s", mode, out.String())
		}
		if mode != "" && mode != "full" {
			continue
		}
		file := filepath.Join(t.TempDir(), "printed.yaml")
		os.WriteFile(file, out.Bytes(), 0o600)
		_, _, err := loadConfig([]string{"--config-file", file}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "private.entitySecret") || !strings.Contains(err.Error(), "in place of the secret") {
			t.Fatalf("a printed config with the redacted secret loaded: %v", err)
		}
	}
	// Without a secret, nothing is redacted and the printed config loads back.
	var out bytes.Buffer
	run([]string{"--print-config", "--data-dir", "/d"}, &out, &bytes.Buffer{})
	if strings.Contains(out.String(), redactedSecret) {
		t.Fatalf("redacted with no secret set:\n%s", out.String())
	}
}
