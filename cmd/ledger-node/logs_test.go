package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// parseLogfmt parses one logfmt line (key=value pairs separated by spaces; a value is bare or
// double-quoted with Go's backslash escapes) strictly: every key is a bare word of printable
// characters without = or ", and every key has a value.
func parseLogfmt(line string) (map[string]string, error) {
	rec := map[string]string{}
	i := 0
	for i < len(line) {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i == len(line) {
			break
		}
		start := i
		for i < len(line) && line[i] > ' ' && line[i] != '=' && line[i] != '"' {
			i++
		}
		key := line[start:i]
		if key == "" {
			return nil, fmt.Errorf("column %d: a key must be a bare word", start)
		}
		if i == len(line) || line[i] != '=' {
			return nil, fmt.Errorf("column %d: key %q without =value", i, key)
		}
		i++
		var val string
		if i < len(line) && line[i] == '"' {
			end := i + 1
			for end < len(line) && line[end] != '"' {
				if line[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(line) {
				return nil, fmt.Errorf("column %d: unterminated quoted value of %q", i, key)
			}
			v, err := unquoteLogfmt(line[i : end+1])
			if err != nil {
				return nil, fmt.Errorf("column %d: value of %q: %v", i, key, err)
			}
			val, i = v, end+1
			if i < len(line) && line[i] != ' ' {
				return nil, fmt.Errorf("column %d: text right after the quoted value of %q", i, key)
			}
		} else {
			start := i
			for i < len(line) && line[i] > ' ' {
				if line[i] == '"' || line[i] == '=' {
					return nil, fmt.Errorf("column %d: %q in the bare value of %q", i, line[i], key)
				}
				i++
			}
			val = line[start:i]
		}
		if _, dup := rec[key]; dup {
			return nil, fmt.Errorf("key %q twice", key)
		}
		rec[key] = val
	}
	if len(rec) == 0 {
		return nil, errors.New("empty line")
	}
	return rec, nil
}

// unquoteLogfmt reads a quoted logfmt value: Go's escapes, as slog writes them.
func unquoteLogfmt(q string) (string, error) {
	var b strings.Builder
	for i := 1; i < len(q)-1; i++ {
		c := q[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		switch q[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '"':
			b.WriteByte(q[i])
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[q[i]]
			if i+n >= len(q) {
				return "", errors.New("short escape")
			}
			var r rune
			if _, err := fmt.Sscanf(q[i+1:i+1+n], "%x", &r); err != nil {
				return "", fmt.Errorf("escape \\%c%s", q[i], q[i+1:i+1+n])
			}
			b.WriteRune(r)
			i += n
		default:
			return "", fmt.Errorf("unknown escape \\%c", q[i])
		}
	}
	return b.String(), nil
}

func TestParseLogfmtRefuses(t *testing.T) {
	for _, bad := range []string{
		`"proof of work"=true`, `msg="a b" x`, `a=1 a=2`, `k="open`, `k=a"b`, ``, `k="x"y`,
	} {
		if _, err := parseLogfmt(bad); err == nil {
			t.Errorf("parsed %q", bad)
		}
	}
	rec, err := parseLogfmt(`time=2026-01-01T00:00:00Z level=INFO msg="a \"b\"\nc" n=1`)
	if err != nil || rec["msg"] != "a \"b\"\nc" || rec["n"] != "1" || rec["level"] != "INFO" {
		t.Fatalf("%v %q", err, rec)
	}
}

// Keys that are not words become camelCase words in both formats; words stay.
func TestLogKey(t *testing.T) {
	for in, want := range map[string]string{
		"proof of work": "proofOfWork", "blocks/s": "blocks/s", "cutHeight": "cutHeight", "rows_per_s": "rows_per_s",
		"next probe in": "nextProbeIn", "a=b": "aB", `"q"`: "q", "": "key", "  ": "key", "héllo wörld": "hLloWRld",
	} {
		if got := logKey(in); got != want {
			t.Errorf("logKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// The JSON lines are chainweb-node's: level, scope (the logger's labels: network, cluster,
// component, chain), time, message, then the record's attributes with words as keys, nested
// values as objects and errors and durations as text.
func TestJSONLogLine(t *testing.T) {
	var buf bytes.Buffer
	cfg := DefaultConfig()
	cfg.LogFormat, cfg.ClusterID, cfg.LogLevel = "json", "c1", "debug"
	log := newLogger(cfg, &buf).With("component", "miner", "chain", 3)
	log.Info("mined", "proof of work", true, "miner", json.RawMessage(`{"account":"k:ab","predicate":"keys-all","public-keys":["ab"]}`),
		"bad", json.RawMessage(`{not json`), "err", errors.New("disk full"), "took", 1500*time.Millisecond,
		"message", "collides", slog.Group("g", "x", 1), "n", uint64(7), "f", 0.5)
	log.WithGroup("req").Debug("grouped", "path", "/cut")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	if !strings.HasPrefix(lines[0], `{"level":"info","scope":{"chainwebVersion":"development","cluster":"c1","component":"miner","chain":"3"},"time":"`) {
		t.Errorf("line does not start as chainweb-node's: %s", lines[0])
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("%v: %s", err, lines[0])
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", rec["time"].(string)); err != nil {
		t.Errorf("time: %v", err)
	}
	miner, ok := rec["miner"].(map[string]any)
	if !ok || miner["account"] != "k:ab" {
		t.Errorf("miner is not an object: %#v", rec["miner"])
	}
	if rec["message"] != "mined" || rec["message_"] != "collides" || rec["proofOfWork"] != true || rec["bad"] != "{not json" ||
		rec["err"] != "disk full" || rec["took"] != "1.5s" || rec["n"] != 7.0 || rec["f"] != 0.5 ||
		fmt.Sprint(rec["g"]) != "map[x:1]" {
		t.Errorf("record: %s", lines[0])
	}
	if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil || fmt.Sprint(rec["req"]) != "map[path:/cut]" ||
		rec["level"] != "debug" {
		t.Errorf("grouped record: %v %s", err, lines[1])
	}
}

// The text format is logfmt whatever the keys and values are.
func TestTextLogIsLogfmt(t *testing.T) {
	var buf bytes.Buffer
	cfg := DefaultConfig()
	cfg.ClusterID = "my cluster"
	log := newLogger(cfg, &buf).With("component", "x y")
	log.Info("a \"quoted\"\nmessage", "proof of work", true, "miner", json.RawMessage(`{"account":"k:ab"}`),
		"err", errors.New("a=b"), "k=v", "x")
	line := strings.TrimSpace(buf.String())
	rec, err := parseLogfmt(line)
	if err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	if rec["proofOfWork"] != "true" || rec["miner"] != `{"account":"k:ab"}` || rec["err"] != "a=b" || rec["kV"] != "x" ||
		rec["cluster"] != "my cluster" || rec["msg"] != "a \"quoted\"\nmessage" {
		t.Errorf("%q", rec)
	}
}

// processOutput runs the binary with args until ready holds of its stdout, then sends it sig; it
// returns the exit code and both outputs.
func processOutput(t *testing.T, bin, what string, ready func(stdout string) bool, sig syscall.Signal, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	out, errs := new(syncbuf.Buffer), new(syncbuf.Buffer)
	cmd.Stdout, cmd.Stderr = out, errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	hangguard.Until(t, what, func() bool {
		select {
		case <-exited:
			t.Fatalf("node exited before serving: %s\n%s", out.String(), errs.String())
		default:
		}
		return ready(out.String())
	})
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-hangguard.After():
		t.Fatalf("hang guard: node did not exit after %v\n%s", sig, errs.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errs.String()
}

// jsonLines parses every line of s as a JSON object with chainweb-node's keys.
func jsonLines(t *testing.T, what, s string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s: a line is not JSON (%v): %q", what, err, line)
		}
		scope := scopeOf(rec)
		if scope == nil || rec["level"] == nil || rec["time"] == nil || rec["message"] == nil || scope["chainwebVersion"] != "development" {
			t.Fatalf("%s: a line lacks level, scope, time or message: %q", what, line)
		}
		for k := range rec {
			if strings.ContainsAny(k, " \"=") {
				t.Errorf("%s: key %q is not a word: %q", what, k, line)
			}
		}
		recs = append(recs, rec)
	}
	return recs
}

// scopeOf is a JSON log line's scope (nil when it has none).
func scopeOf(rec map[string]any) map[string]any {
	m, _ := rec["scope"].(map[string]any)
	return m
}

func messages(recs []map[string]any) []string {
	var ms []string
	for _, r := range recs {
		ms = append(ms, fmt.Sprint(r["message"]))
	}
	return ms
}

func find(recs []map[string]any, re string) map[string]any {
	for _, r := range recs {
		if regexp.MustCompile(re).MatchString(fmt.Sprint(r["message"])) {
			return r
		}
	}
	return nil
}

// A node started with --log-format json writes nothing but JSON lines, on stdout (the start-up
// lines) and stderr (the log), from the first byte: its start, the cut it resumes, the mining
// line with the miner as an object, the signal that stopped it (SIGHUP, as chainweb-node stops
// on), the heads written and last "shutdown complete"; it exits 0. Started again, it resumes
// at the cut height whose heads it wrote. With text logs, every line of both is logfmt.
func TestNodeOutputIsJSONThenLogfmt(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	args := []string{"--data-dir", filepath.Join(dir, "data"), "--service-port", "0", "--p2p-port", "0",
		"--log-format", "json", "--mining", "on-demand", "--disable-pow", "--on-demand-start-blocks", "1",
		"--miner-key", devMinerKey, "--config-file", writeFile(t, dir, "cw.yaml", "chainweb:\n  chainwebVersion: development\n  p2p:\n    maxSessionCount: 3\n")}
	code, stdout, stderr := processOutput(t, bin, "a cut of height 20 or more", func(stdout string) bool {
		m := serviceLine.FindStringSubmatch(stdout)
		if m == nil {
			return false
		}
		resp, err := http.Get(m[1] + "/chainweb/0.0/development/cut")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var cut struct{ Height uint64 }
		return json.NewDecoder(resp.Body).Decode(&cut) == nil && cut.Height >= 20
	}, syscall.SIGHUP, args...)
	if code != 0 {
		t.Fatalf("exit %d after SIGHUP\n%s", code, stderr)
	}
	out, log := jsonLines(t, "stdout", stdout), jsonLines(t, "stderr", stderr)
	if r := find(out, `^service API on http://`); r == nil || r["address"] == nil {
		t.Errorf("no service API record with its address on stdout: %q", messages(out))
	}
	ms := messages(log)
	if !strings.Contains(ms[0], "has no meaning for ledger-node") || !strings.Contains(ms[1], "ledger-node starting") {
		t.Errorf("the log does not begin with the configuration's warning, then the start: %q", ms)
	}
	if last := log[len(log)-1]; last["message"] != "shutdown complete" || last["exitCode"] != 0.0 {
		t.Errorf("last line: %v", last)
	}
	if r := find(log, `^signal received: shutting down$`); r == nil || r["signal"] != "SIGHUP" {
		t.Errorf("the SIGHUP is not logged: %q", ms)
	}
	if r := find(log, `^resuming at cut height 0$`); r == nil || r["cutHeight"] != 0.0 {
		t.Errorf("no resuming line at 0: %q", ms)
	}
	mining := find(log, `^mining$`)
	miner, _ := mining["miner"].(map[string]any)
	if miner == nil || miner["account"] != "k:"+devMinerKey || mining["proofOfWork"] != false || scopeOf(mining)["component"] != "miner" {
		t.Errorf("mining line: %v", mining)
	}
	written := find(log, `^heads written$`)
	if written == nil || written["cutHeight"].(float64) < 20 {
		t.Fatalf("no heads written at a cut height of 20 or more: %v\n%s", written, stderr)
	}

	// Again, not mining, in text: it resumes where it stopped, and every line is logfmt, the
	// store's notes on a torn header-log tail among them (parts that log through slog's default).
	f, err := os.OpenFile(filepath.Join(dir, "data", "headers.log"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Repeat([]byte{0xab}, 100))
	f.Close()
	args = []string{"--data-dir", filepath.Join(dir, "data"), "--service-port", "0", "--p2p-port", "0", "--mining", "off",
		"--cluster-id", "a b"}
	code, stdout, stderr = processOutput(t, bin, "the service address", serviceLine.MatchString, syscall.SIGTERM, args...)
	if code != 0 {
		t.Fatalf("exit %d after SIGTERM\n%s", code, stderr)
	}
	var last map[string]string
	resumed, torn := "", false
	for _, line := range strings.Split(strings.TrimSuffix(stdout+stderr, "\n"), "\n") {
		rec, err := parseLogfmt(line)
		if err != nil || rec["level"] == "" || rec["msg"] == "" || rec["cluster"] != "a b" {
			t.Fatalf("not a logfmt record (%v): %q", err, line)
		}
		torn = torn || strings.HasPrefix(rec["msg"], "store: header log ends in a torn or damaged record")
		if strings.HasPrefix(rec["msg"], "resuming at cut height ") {
			resumed = rec["cutHeight"]
		}
		last = rec
	}
	if !torn {
		t.Errorf("no record of the torn header-log tail:\n%s", stderr)
	}
	if want := fmt.Sprint(written["cutHeight"]); resumed != want {
		t.Errorf("resumed at cut height %q, wrote heads at %s", resumed, want)
	}
	if last["msg"] != "shutdown complete" || last["exitCode"] != "0" {
		t.Errorf("the log does not end with shutdown complete: %q", last)
	}
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A node that cannot start says why in the log's format, and the last line says it stopped.
func TestStartFailureIsLogged(t *testing.T) {
	dir := t.TempDir()
	notDir := writeFile(t, dir, "file", "x")
	var stderr bytes.Buffer
	code := run([]string{"--data-dir", filepath.Join(notDir, "data"), "--service-port", "0", "--p2p-port", "0",
		"--log-format", "json", "--mining", "off"}, io.Discard, &stderr)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	recs := jsonLines(t, "stderr", stderr.String())
	if r := find(recs, "not a directory"); r == nil || r["level"] != "error" {
		t.Errorf("no error record naming the cause: %s", stderr.String())
	}
	if last := recs[len(recs)-1]; last["message"] != "shutdown complete" || last["exitCode"] != 1.0 {
		t.Errorf("last line: %v", last)
	}

	// A configuration refused while JSON was asked for is refused in JSON, with exit code 2.
	stderr.Reset()
	if code := run([]string{"--log-format", "JSON", "--service-port", "lots"}, io.Discard, &stderr); code != 2 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	recs = jsonLines(t, "stderr", stderr.String())
	if len(recs) != 1 || recs[0]["level"] != "error" || !strings.Contains(fmt.Sprint(recs[0]["message"]), "lots") {
		t.Errorf("refusal: %s", stderr.String())
	}
}

// A node started with SIGHUP ignored (nohup) keeps ignoring it: a hangup does not stop it, and
// SIGTERM then does.
func TestNohupKeepsSIGHUPIgnored(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" "$@"`, bin, "--data-dir", filepath.Join(t.TempDir(), "data"),
		"--service-port", "0", "--p2p-port", "0", "--mining", "off")
	out, errs := new(syncbuf.Buffer), new(syncbuf.Buffer)
	cmd.Stdout, cmd.Stderr = out, errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	hangguard.Until(t, "the service address", func() bool { return serviceLine.MatchString(out.String()) })
	// Signals pending together are delivered lowest number first: a SIGHUP the node handled
	// would be the first signal it logs.
	cmd.Process.Signal(syscall.SIGHUP)
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-hangguard.After():
		t.Fatalf("hang guard: node did not exit after SIGTERM\n%s", errs.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 || strings.Contains(errs.String(), "signal=SIGHUP") ||
		!strings.Contains(errs.String(), `msg="signal received: shutting down" signal=SIGTERM`) {
		t.Fatalf("exit %d:\n%s", code, errs.String())
	}
}
