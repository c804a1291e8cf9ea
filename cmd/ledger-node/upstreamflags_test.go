package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// A chainweb-node configuration that names no chainwebVersion is one for mainnet01, as
// chainweb-node's default; ours alone, or one that names the network anywhere, keep theirs.
func TestChainwebConfigDefaultsToMainnet(t *testing.T) {
	dir := t.TempDir()
	cw := writeFile(t, dir, "cw.yaml", "chainweb:\n  serviceApi:\n    port: 1900\n")
	ours := writeFile(t, dir, "ours.yaml", "serviceApi:\n  port: 1900\n")
	named := writeFile(t, dir, "named.yaml", "network: testnet04\n")
	logging := writeFile(t, dir, "logging.yaml", "logging:\n  clusterId: x\n")
	dbdir := writeFile(t, dir, "db.yaml", "databaseDirectory: /tmp/x\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config-file", cw}, "mainnet01"},
		{[]string{"--config-file", logging}, "mainnet01"},
		{[]string{"--config-file", dbdir}, "mainnet01"},
		{[]string{"--database-directory", "/tmp/x"}, "mainnet01"},
		{[]string{"--known-peer-info", "127.0.0.1:1789"}, "mainnet01"},
		{[]string{"-c", "auto"}, "mainnet01"},
		{[]string{"--config-file", ours}, "development"},
		{[]string{"--service-port", "0", "--log-level", "debug"}, "development"},
		{[]string{"--config-file", cw, "--config-file", named}, "testnet04"},
		{[]string{"--config-file", named, "--config-file", cw}, "testnet04"},
		{[]string{"--config-file", cw, "--network", "development"}, "development"},
		{[]string{"--config-file", cw, "--chainweb-version", "testnet04"}, "testnet04"},
		{[]string{"--config-file", writeFile(t, dir, "v.yaml", "chainweb:\n  chainwebVersion: development\n")}, "development"},
	} {
		var out, errs bytes.Buffer
		if code := run(append(c.args, "--print-config"), &out, &errs); code != 0 {
			t.Fatalf("%q: exit %d: %s", c.args, code, errs.String())
		}
		got := yamlMap(t, out.Bytes())
		if lookup(got, "network") != c.want {
			t.Errorf("%q: network %s, want %s", c.args, lookup(got, "network"), c.want)
		}
		if c.want == "mainnet01" && (lookup(got, "mining.mode") != "off" || !strings.HasSuffix(lookup(got, "dataDir"), "mainnet01") &&
			lookup(got, "dataDir") != "/tmp/x") {
			t.Errorf("%q: a mainnet01 node mines (%s) or keeps its data under another network (%s)", c.args,
				lookup(got, "mining.mode"), lookup(got, "dataDir"))
		}
	}
}

// --config-file takes an http(s) URL as chainweb-node does; an answer that is not 200, a body
// over the bound, a server that does not answer in time, and a host that does not exist are
// clear errors with exit code 2.
func TestConfigFileURL(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/node.yaml":
			io.WriteString(w, "chainweb:\n  chainwebVersion: testnet04\n  serviceApi:\n    port: 1901\n")
		case "/big.yaml":
			w.Write(bytes.Repeat([]byte("# padding\n"), maxConfigBytes/10+1))
		case "/slow.yaml":
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var out, errs bytes.Buffer
	if code := run([]string{"--config-file", srv.URL + "/node.yaml", "--print-config"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if got := yamlMap(t, out.Bytes()); lookup(got, "network") != "testnet04" || lookup(got, "serviceApi.port") != "1901" {
		t.Errorf("config from a URL:\n%s", out.String())
	}
	old := configFetchTimeout
	defer func() { configFetchTimeout = old }()
	for _, c := range []struct{ path, want string }{
		{"/missing.yaml", "404 Not Found"},
		{"/big.yaml", "larger than 4 MiB"},
		{"/slow.yaml", "no whole answer within"},
	} {
		path, want := c.path, c.want
		if path == "/slow.yaml" {
			// wallclock: a logical time handed to the code: the server never answers, so the fetch ends by this timeout however slow the machine.
			configFetchTimeout = 100 * time.Millisecond
		}
		errs.Reset()
		if code := run([]string{"--config-file", srv.URL + path, "--print-config"}, &out, &errs); code != 2 ||
			!strings.Contains(errs.String(), want) || !strings.Contains(errs.String(), srv.URL+path) {
			t.Errorf("%s: exit %d, want 2 saying %q: %s", path, code, want, errs.String())
		}
	}
	errs.Reset()
	if code := run([]string{"--config-file", "http://nonexistent.invalid/x.yaml"}, &out, &errs); code != 2 ||
		!strings.Contains(errs.String(), "config file http://nonexistent.invalid/x.yaml") {
		t.Errorf("unknown host: exit %d: %s", code, errs.String())
	}
}

// configuration-tools' flags, which chainweb-node has: -v and --version print the version,
// --info (-i) a line of program info, --long-info that and the dependencies, --license the
// license; each exits 0 without starting a node, wherever it is among the flags.
func TestInfoFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-v"}, "ledger-node " + packageVersion + " (commit "},
		{[]string{"--version"}, "ledger-node " + packageVersion + " (commit "},
		{[]string{"--service-port", "0", "-version"}, "ledger-node " + packageVersion + " (commit "},
		{[]string{"--info"}, "ledger-node-" + packageVersion + " (package github.com/ledgernode/ledger-node"},
		{[]string{"-i"}, "ledger-node-" + packageVersion + " (package "},
		{[]string{"--long-info"}, "\nDependencies:\n"},
		{[]string{"--license"}, "no license is declared"},
	} {
		var out, errs bytes.Buffer
		dir := filepath.Join(t.TempDir(), "data")
		if code := run(append(c.args, "--data-dir", dir), &out, &errs); code != 0 || !strings.Contains(out.String(), c.want) {
			t.Errorf("%q: exit %d, printed %q (want %q) %s", c.args, code, out.String(), c.want, errs.String())
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"--long-info"}, &out, &errs); code != 0 || !strings.Contains(out.String(), "gopkg.in/yaml.v3 ") {
		t.Errorf("--long-info lists no dependency: %s", out.String())
	}
	// -c is chainweb-node's --color: taken with a warning, not refused.
	errs.Reset()
	if code := run([]string{"-c", "auto", "--print-config"}, &out, &errs); code != 0 ||
		!strings.Contains(errs.String(), "flag -c (--color) has no meaning for ledger-node") {
		t.Errorf("-c auto: exit %d: %s", code, errs.String())
	}
}

// onlySyncPact (--only-sync-pact, chainweb.onlySyncPact) brings the Pact state up to the stored
// cut and exits 0 without serving: a chain whose Pact state was lost is replayed up to its
// head, and the ports, taken by another node, are not even tried.
func TestOnlySyncPact(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// A data directory with blocks, whose chain 0 then loses its Pact state.
	odir := filepath.Join(t.TempDir(), "data")
	n := startNodeArgs(t, "--data-dir", odir, "--mining", "on-demand", "--disable-pow", "--on-demand-start-blocks", "3")
	hangguard.Until(t, "3 blocks on every chain", func() bool { low, _ := cutRange(n.node.rt.Cut()); return low >= 3 })
	n.stop()
	db, err := store.Open(odir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	heads, err := db.Heads()
	if err != nil || heads[0] == (ledger.Hash{}) {
		db.Close()
		t.Fatalf("heads: %v", err)
	}
	head, err := db.Header(heads[0])
	if err == nil {
		err = db.ResetPactState(0)
	}
	db.Close()
	if err != nil || head.Height < 3 {
		t.Fatalf("head of chain 0: %v (height %d)", err, head.Height)
	}

	cfgFile := writeFile(t, t.TempDir(), "cw.yaml", "chainweb:\n  chainwebVersion: development\n  onlySyncPact: true\n")
	var stderr bytes.Buffer
	code := run([]string{"--config-file", cfgFile, "--data-dir", odir, "--service-interface", "127.0.0.1",
		"--service-port", strings.Split(busy.Addr().String(), ":")[1],
		"--log-format", "json"}, io.Discard, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	recs := jsonLines(t, "stderr", stderr.String())
	if r := find(recs, `^onlySyncPact: the Pact state is at the stored cut, height \d+; exiting$`); r == nil {
		t.Errorf("no line saying the Pact state is synchronized: %q", messages(recs))
	}
	if last := recs[len(recs)-1]; last["message"] != "shutdown complete" || last["exitCode"] != 0.0 {
		t.Errorf("last line: %v", last)
	}
	db, err = store.Open(odir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := state.Open(db.PactSpace(0))
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := st.Height(); !ok || h != head.Height {
		t.Fatalf("Pact state of chain 0 at %d (%v), want the head's height %d", h, ok, head.Height)
	}

	// --no-only-sync-pact undoes the file's key; --only-sync-pact is ours too.
	cfg, _, err := loadConfig([]string{"--config-file", cfgFile, "--no-only-sync-pact"}, io.Discard)
	if err != nil || cfg.OnlySyncPact {
		t.Errorf("--no-only-sync-pact: %v %v", err, cfg.OnlySyncPact)
	}
}
