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
	"slices"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// runImport is `ledger-node import-headers [flags] FILE`: it validates the headers of FILE and
// stores those that pass, so that real header chains can be served and queried.
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
	log := newLogger(cfg.LogLevel, stderr)
	db, v, err := openInitializedStore(cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node import-headers: %v\n", err)
		return 1
	}
	defer db.Close()
	fmt.Fprintf(stdout, "importing %d headers from %s into %s (network %s)\n", len(headers), rest[0], cfg.DataDir, v.Name)
	sum, err := importHeaders(db, v, headers, time.Now(), stdout)
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node import-headers: %v\n", err)
		return 1
	}
	sum.print(stdout)
	if sum.rejected > 0 {
		return 1
	}
	return 0
}

// importSummary counts what an import did and which checks it could apply.
type importSummary struct {
	read, stored, alreadyStored, rejected int
	parentChecked, webChecked             int
	rejections                            []string
	elapsed                               time.Duration
}

func (s *importSummary) print(w io.Writer) {
	fmt.Fprintf(w, "read %d headers in %s: %d stored, %d already present, %d rejected\n",
		s.read, s.elapsed.Round(time.Millisecond), s.stored, s.alreadyStored, s.rejected)
	fmt.Fprintf(w, "checks: hash, PoW, chain graph and time on all %d; parent link, height and weight on %d; "+
		"epoch, difficulty adjustment and adjacent parents on %d (the rest lack a known parent or adjacent parent)\n",
		s.read, s.parentChecked, s.webChecked)
	for _, r := range s.rejections {
		fmt.Fprintf(w, "rejected: %s\n", r)
	}
}

// importHeaders validates headers in height order and stores each one that passes. Parents and
// adjacent parents are looked up among the headers already stored or accepted in this run; where
// they are unknown, the checks that need them are skipped (and counted). A header whose parent
// was rejected is rejected too.
func importHeaders(db *store.DB, v *ledger.Version, headers []*ledger.Header, now time.Time, progress io.Writer) (*importSummary, error) {
	start := time.Now()
	sum := &importSummary{read: len(headers)}
	slices.SortStableFunc(headers, func(a, b *ledger.Header) int {
		return cmpUint64(a.Height, b.Height)
	})
	accepted := map[ledger.Hash]*ledger.Header{}
	rejected := map[ledger.Hash]bool{}
	lookup := func(h ledger.Hash) *ledger.Header {
		if x, ok := accepted[h]; ok {
			return x
		}
		if x, err := db.Header(h); err == nil {
			return x
		}
		return nil
	}
	var batch []*ledger.Header
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := db.PutHeaders(batch...)
		batch = batch[:0]
		return err
	}
	lastReport := time.Now()
	nowMicros := now.UnixMicro()
	for i, h := range headers {
		if ok, err := db.HasHeader(h.Hash); err != nil {
			return nil, err
		} else if ok && h.ComputeHash() == h.Hash {
			sum.alreadyStored++
			accepted[h.Hash] = h
			continue
		}
		reject := func(reason string) {
			sum.rejected++
			rejected[h.Hash] = true
			sum.rejections = append(sum.rejections, fmt.Sprintf("chain %d height %d %s: %s", h.ChainID, h.Height, h.Hash, reason))
		}
		if h.Version != v.Code {
			reject(fmt.Sprintf("belongs to network code %#x, not %s", h.Version, v.Name))
			continue
		}
		if err := pow.ValidateIntrinsic(v, h, nowMicros); err != nil {
			reject(err.Error())
			continue
		}
		if rejected[h.Parent] {
			reject("its parent was rejected")
			continue
		}
		parent := lookup(h.Parent)
		if v.IsGenesisHeight(h.ChainID, h.Height) {
			parent = h
		}
		if parent != nil {
			if err := pow.ValidateChainStep(v, h, parent); err != nil {
				reject(err.Error())
				continue
			}
			sum.parentChecked++
			if adj, ok := adjacentParents(v, h, lookup); ok {
				if err := pow.ValidateWebStep(v, h, parent, adj); err != nil {
					reject(err.Error())
					continue
				}
				sum.webChecked++
			}
		}
		accepted[h.Hash] = h
		batch = append(batch, h)
		sum.stored++
		if len(batch) >= 1000 {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		if time.Since(lastReport) > 2*time.Second {
			lastReport = time.Now()
			rate := float64(i+1) / time.Since(start).Seconds()
			fmt.Fprintf(progress, "  %d/%d headers (%.0f/s, about %s left)\n", i+1, len(headers), rate,
				(time.Duration(float64(len(headers)-i-1)/rate) * time.Second).Round(time.Second))
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if err := advanceHeads(db, v, accepted); err != nil {
		return nil, err
	}
	sum.elapsed = time.Since(start)
	return sum, nil
}

// adjacentParents returns the adjacent parents of h when all of them are known. For a genesis
// header they are the genesis parents, which have no headers: the web step handles that itself.
func adjacentParents(v *ledger.Version, h *ledger.Header, lookup func(ledger.Hash) *ledger.Header) ([]*ledger.Header, bool) {
	if v.IsGenesisHeight(h.ChainID, h.Height) {
		return nil, true
	}
	var out []*ledger.Header
	for _, a := range h.Adjacents {
		x := lookup(a.Hash)
		if x == nil {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}

// advanceHeads moves each chain's head to the heaviest stored header among the imported ones.
func advanceHeads(db *store.DB, v *ledger.Version, imported map[ledger.Hash]*ledger.Header) error {
	heads, err := db.Heads()
	if err != nil {
		return err
	}
	changed := false
	for _, h := range imported {
		cur, ok := heads[h.ChainID]
		if ok {
			if ch, err := db.Header(cur); err == nil && ch.Weight.Cmp(h.Weight) >= 0 {
				continue
			}
		}
		heads[h.ChainID] = h.Hash
		changed = true
	}
	if !changed {
		return nil
	}
	return db.SetHeads(heads)
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
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
	n, err := initStore(cfg, nodeVersion(cfg, nil), log)
	if err != nil {
		return nil, nil, err
	}
	return n.db, n.version, nil
}
