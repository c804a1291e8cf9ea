package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// runImport is `ledger-node import-headers [flags] FILE`: it reads the headers of FILE, has
// actors.ImportHeaders validate and store those that pass, and prints what it did.
func runImport(args []string, stdout, stderr io.Writer) int {
	cfg, _, rest, err := loadConfigArgs(args, stderr, true)
	if errors.Is(err, errHelp) {
		return 0
	}
	if err == nil && len(rest) != 1 {
		err = errors.New("import-headers takes exactly one FILE (base64url headers one per line, or JSON)")
	}
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node import-headers: %v\n", err)
		return 2
	}
	headers, err := readHeaderFile(rest[0])
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node import-headers: %v\n", err)
		return 1
	}
	log := newLogger(cfg, stderr)
	db, v, err := openInitializedStore(cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node import-headers: %v\n", err)
		return 1
	}
	defer db.Close()
	fmt.Fprintf(stdout, "importing %d headers from %s into %s (network %s)\n", len(headers), rest[0], cfg.DataDir, v.Name)
	sum, err := actors.ImportHeaders(db, v, headers, time.Now(), actors.ImportProgress{Every: importProgressEvery, Report: importProgress(stdout)})
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node import-headers: %v\n", err)
		return 1
	}
	printImportSummary(stdout, sum)
	if sum.Rejected > 0 {
		return 1
	}
	return 0
}

// printImportSummary prints what an import did and which checks it could apply.
func printImportSummary(w io.Writer, s *actors.ImportSummary) {
	fmt.Fprintf(w, "read %d headers in %s: %d stored, %d already present, %d rejected\n",
		s.Read, s.Elapsed.Round(time.Millisecond), s.Stored, s.AlreadyStored, s.Rejected)
	fmt.Fprintf(w, "checks: hash, PoW, chain graph and time on all %d; parent link, height and weight on %d; "+
		"epoch, difficulty adjustment and adjacent parents on %d (the rest lack a known parent or adjacent parent)\n",
		s.Read, s.ParentChecked, s.WebChecked)
	for _, r := range s.Rejections {
		fmt.Fprintf(w, "rejected: %s\n", r)
	}
}

// importProgressEvery is how often import-headers prints its progress (tests shorten it).
var importProgressEvery = 2 * time.Second

// importProgress prints how far an import is, and how long the rest should take.
func importProgress(w io.Writer) func(done, total int, elapsed time.Duration) {
	return func(done, total int, elapsed time.Duration) {
		rate := float64(done) / elapsed.Seconds()
		fmt.Fprintf(w, "  %d/%d headers (%.0f/s, about %s left)\n", done, total, rate,
			(time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second))
	}
}

// readHeaderFile reads headers as base64url lines, or JSON: an array of base64url strings or
// object-encoded headers, or an object whose "headers" array holds such entries or records with
// a "binary_b64url" field (the shared vector files).
func readHeaderFile(path string) ([]*ledger.Header, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseHeaderFile(path, b)
}

// parseHeaderFile decodes the contents b of the file called path (the name is for messages).
func parseHeaderFile(path string, b []byte) ([]*ledger.Header, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return parseHeaderJSON(trimmed)
	}
	var out []*ledger.Header
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		h, err := ledger.DecodeHeaderB64(strings.Trim(s, `"`))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, h)
	}
	return out, sc.Err()
}

func parseHeaderJSON(b []byte) ([]*ledger.Header, error) {
	var items []json.RawMessage
	if b[0] == '{' {
		var wrapper struct {
			Headers []json.RawMessage `json:"headers"`
		}
		if err := json.Unmarshal(b, &wrapper); err != nil {
			return nil, fmt.Errorf("JSON: %w", err)
		}
		if wrapper.Headers == nil {
			return nil, errors.New(`JSON object has no "headers" array`)
		}
		items = wrapper.Headers
	} else if err := json.Unmarshal(b, &items); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	out := make([]*ledger.Header, 0, len(items))
	for i, it := range items {
		h, err := parseHeaderItem(it)
		if err != nil {
			return nil, fmt.Errorf("header %d: %w", i, err)
		}
		out = append(out, h)
	}
	return out, nil
}

func parseHeaderItem(it json.RawMessage) (*ledger.Header, error) {
	var s string
	if json.Unmarshal(it, &s) == nil {
		return ledger.DecodeHeaderB64(s)
	}
	var rec struct {
		Binary string `json:"binary_b64url"`
	}
	if json.Unmarshal(it, &rec) == nil && rec.Binary != "" {
		return ledger.DecodeHeaderB64(rec.Binary)
	}
	return ledger.DecodeHeaderObject(it)
}

// openInitializedStore opens the data directory for cfg's network and makes sure its genesis
// blocks and heads exist, exactly as the node does when it starts (with the same development
// block delay, so that imported blocks meet the node's genesis).
func openInitializedStore(cfg Config, log *slog.Logger) (*store.DB, *ledger.Version, error) {
	n, err := initStore(cfg, nodeVersion(cfg, nil), log, 0)
	if err != nil {
		return nil, nil, err
	}
	return n.db, n.version, nil
}
