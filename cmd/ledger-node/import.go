package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
	"unicode"

	"github.com/ledgernode/ledger-node/actors/headerimport"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// runImport is `ledger-node import-headers [flags] FILE`: it reads the headers of FILE, has
// headerimport.ImportStream validate and store those that pass, and prints what it did. A file in the
// line format is read twice, streaming: a first pass decodes every line (a bad one fails the
// import before anything is stored, as it always has) and notes each header's height, the
// second feeds the import pipeline. JSON files and files that cannot be read twice (a pipe) are
// read whole.
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
	in, err := openHeaderFile(rest[0])
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node import-headers: %v\n", err)
		return 1
	}
	defer in.Close()
	log := newLogger(cfg, stderr)
	db, v, err := openInitializedStore(cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node import-headers: %v\n", err)
		return 1
	}
	defer db.Close()
	fmt.Fprintf(stdout, "importing %d headers from %s into %s (network %s)\n", in.total, rest[0], cfg.DataDir, v.Name)
	progress := headerimport.ImportProgress{Every: importProgressEvery, First: min(importProgressFirst, importProgressEvery),
		AtEnd: true, Report: importProgress(stdout)}
	var sum *headerimport.ImportSummary
	if in.f == nil { // parsed whole
		sum, err = headerimport.ImportHeaders(db, v, in.headers, time.Now(), progress)
	} else {
		sum, err = headerimport.ImportStream(db, v, headerimport.ImportInput{Total: in.total, Order: in.order, Read: in.read}, time.Now(), progress)
	}
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
func printImportSummary(w io.Writer, s *headerimport.ImportSummary) {
	fmt.Fprintf(w, "read %d headers in %s: %d stored, %d already present, %d rejected\n",
		s.Read, s.Elapsed.Round(time.Millisecond), s.Stored, s.AlreadyStored, s.Rejected)
	fmt.Fprintf(w, "checks: hash, PoW, chain graph and time on all %d; parent link, height and weight on %d; "+
		"epoch, difficulty adjustment and adjacent parents on %d (the rest lack a known parent or adjacent parent)\n",
		s.Read, s.ParentChecked, s.WebChecked)
	for _, r := range s.Rejections {
		fmt.Fprintf(w, "rejected: %s\n", r)
	}
}

// importProgressEvery is how often import-headers prints its progress (tests shorten it), and
// importProgressFirst when it prints it first; an import that ends sooner prints it at the end.
var (
	importProgressEvery = 2 * time.Second
	importProgressFirst = time.Second
)

// importProgress prints how far an import is, and how long the rest should take.
func importProgress(w io.Writer) func(done, total int, elapsed time.Duration) {
	return func(done, total int, elapsed time.Duration) {
		rate := float64(done) / elapsed.Seconds()
		fmt.Fprintf(w, "  %d/%d headers (%.0f/s, about %s left)\n", done, total, rate,
			(time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second))
	}
}

// headerFile is an import file opened for reading: its headers parsed whole (JSON, or a file
// that cannot be read twice), or, in the line format, counted and their heights noted by a
// first pass, to be read again by read as the import goes.
type headerFile struct {
	path    string
	f       *os.File
	total   int
	order   *headerimport.ImportOrder
	headers []*ledger.Header // parsed whole (f nil)
}

func (hf *headerFile) Close() error {
	if hf.f == nil {
		return nil
	}
	return hf.f.Close()
}

// importReadBatch is how many headers the second pass hands the import at once.
const importReadBatch = 1024

// openHeaderFile opens a file of headers as base64url lines, or JSON: an array of base64url
// strings or object-encoded headers, or an object whose "headers" array holds such entries or
// records with a "binary_b64url" field (the shared vector files). A line-format file is read
// once here, to fail on a line that does not decode and to count the headers, holding none.
func openHeaderFile(path string) (*headerFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	whole := !fi.Mode().IsRegular() // a pipe, say: it cannot be read twice
	if !whole {
		whole = startsJSON(f)
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
	}
	if whole {
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		hs, err := parseHeaderFile(path, b)
		if err != nil {
			return nil, err
		}
		return &headerFile{path: path, total: len(hs), headers: hs}, nil
	}
	hf := &headerFile{path: path, f: f, order: &headerimport.ImportOrder{}}
	var dec lineDecoder
	err = scanHeaderLines(path, f, dec.reuse, func(h *ledger.Header) error {
		hf.order.Add(h.Height)
		return nil
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	hf.total = hf.order.Len()
	return hf, nil
}

// startsJSON reports whether the first character of r that is not white space opens JSON.
func startsJSON(r io.Reader) bool {
	br := bufio.NewReader(r)
	for {
		c, _, err := br.ReadRune()
		if err != nil {
			return false
		}
		if !unicode.IsSpace(c) {
			return c == '{' || c == '['
		}
	}
}

// read is the second pass over a line-format file: it sends the headers in file order.
func (hf *headerFile) read(send func([]*ledger.Header) bool) error {
	if _, err := hf.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var dec lineDecoder
	batch := make([]*ledger.Header, 0, importReadBatch)
	n := 0
	errStopped := errors.New("stopped")
	err := scanHeaderLines(hf.path, hf.f, dec.fresh, func(h *ledger.Header) error {
		n++
		if batch = append(batch, h); len(batch) == importReadBatch {
			if !send(batch) {
				return errStopped
			}
			batch = make([]*ledger.Header, 0, importReadBatch)
		}
		return nil
	})
	switch {
	case err == errStopped:
		return nil
	case err == nil && n != hf.total:
		err = fmt.Errorf("%d headers, %d at first", n, hf.total)
	}
	if err != nil {
		return fmt.Errorf("%s changed while importing: %w", hf.path, err)
	}
	if len(batch) > 0 {
		send(batch)
	}
	return nil
}

// parseHeaderFile decodes the contents b of the file called path (the name is for messages).
func parseHeaderFile(path string, b []byte) ([]*ledger.Header, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return parseHeaderJSON(trimmed)
	}
	var out []*ledger.Header
	var dec lineDecoder
	err := scanHeaderLines(path, bytes.NewReader(b), dec.fresh, func(h *ledger.Header) error {
		out = append(out, h)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanHeaderLines calls fn with each header of the line format read from r (base64url, one a
// line; blank lines and lines starting with # skipped), decoded by decode. A line that does not
// decode is an error naming path and the line.
func scanHeaderLines(path string, r io.Reader, decode func([]byte) (*ledger.Header, error), fn func(*ledger.Header) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		s := bytes.TrimSpace(sc.Bytes())
		if len(s) == 0 || s[0] == '#' {
			continue
		}
		h, err := decode(bytes.Trim(s, `"`))
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if err := fn(h); err != nil {
			return err
		}
	}
	return sc.Err()
}

// b64 is the encoding of ledger.DecodeHeaderB64 (unpadded base64url, strict).
var b64 = base64.RawURLEncoding.Strict()

// maxHeaderB64 is the longest header text ledger.DecodeHeaderB64 decodes.
var maxHeaderB64 = 4*ledger.SizeForDegree(ledger.MaxAdjacents)/3 + 4

// lineDecoder decodes header lines as ledger.DecodeHeaderB64 does, without its string and
// byte copies; a line it refuses goes through ledger.DecodeHeaderB64, for its exact message.
// The headers it makes come from slabs, two allocations for a few hundred headers.
type lineDecoder struct {
	buf     []byte
	h       ledger.Header
	headers []ledger.Header
	adj     []ledger.Adjacent
}

// reuse decodes s into the decoder's own header: valid until the next call.
func (d *lineDecoder) reuse(s []byte) (*ledger.Header, error) {
	if err := d.decode(&d.h, s); err != nil {
		return nil, err
	}
	return &d.h, nil
}

// fresh decodes s into a new header.
func (d *lineDecoder) fresh(s []byte) (*ledger.Header, error) {
	const degree = 3 // every production graph's; a header with more adjacents gets its own
	if len(d.headers) == 0 {
		d.headers = make([]ledger.Header, importReadBatch)
		d.adj = make([]ledger.Adjacent, degree*importReadBatch)
	}
	h := &d.headers[0]
	h.Adjacents = d.adj[:0:degree]
	if err := d.decode(h, s); err != nil {
		return nil, err
	}
	d.headers, d.adj = d.headers[1:], d.adj[degree:]
	return h, nil
}

func (d *lineDecoder) decode(h *ledger.Header, s []byte) error {
	if d.buf == nil {
		d.buf = make([]byte, b64.DecodedLen(maxHeaderB64))
	}
	if len(s) <= maxHeaderB64 {
		if n, err := b64.Decode(d.buf, s); err == nil && h.UnmarshalBinary(d.buf[:n]) == nil {
			return nil
		}
	}
	x, err := ledger.DecodeHeaderB64(string(s))
	if err != nil {
		return err
	}
	*h = *x
	return nil
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
// block delay, so that imported blocks meet the node's genesis). It has no header cache: the
// import finds the parents it reads among the headers it has just accepted, and caching each
// header it writes would cost a copy and a map entry per header.
func openInitializedStore(cfg Config, log *slog.Logger) (*store.DB, *ledger.Version, error) {
	cfg.Store.HeaderCacheSize = -1
	n, err := initStore(cfg, nodeVersion(cfg, nil), log, 0)
	if err != nil {
		return nil, nil, err
	}
	return n.db, n.version, nil
}
