package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

const chain5Vector = "../../testdata/vectors/mainnet01-chain5-headers.json"

func importArgs(dir string, more ...string) []string {
	return append([]string{"import-headers", "--network", "mainnet01", "--data-dir", dir}, more...)
}

func TestImportRealChain(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := run(importArgs(dir, chain5Vector), &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	// 360 headers: the first has no known parent; the other 359 are checked against theirs.
	for _, want := range []string{"360 stored, 0 already present, 0 rejected", "parent link, height and weight on 359"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("summary lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run(importArgs(dir, chain5Vector), &out, &errOut); code != 0 {
		t.Fatalf("re-import exit %d: %s", code, out.String())
	}
	if !strings.Contains(out.String(), "0 stored, 360 already present") {
		t.Fatalf("re-import summary:\n%s", out.String())
	}
}

func TestImportRejectsTamperedHeaders(t *testing.T) {
	vector := chain5VectorB64(t)
	var lines []string
	for i, h := range vector[:20] {
		hdr, err := ledger.DecodeHeaderB64(h)
		if err != nil {
			t.Fatal(err)
		}
		switch i {
		case 5: // changed nonce, hash left as it was
			hdr.Nonce++
		case 9: // resealed after a change: the real target makes the PoW fail
			hdr.Weight[0]++
			hdr.Seal()
		}
		lines = append(lines, hdr.B64())
	}
	file := filepath.Join(t.TempDir(), "headers.txt")
	os.WriteFile(file, []byte("# chain 5\n"+strings.Join(lines, "\n")+"\n"), 0o600)
	var out bytes.Buffer
	code := run(importArgs(t.TempDir(), file), &out, &bytes.Buffer{})
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out.String())
	}
	text := out.String()
	for _, want := range []string{"IncorrectHash", "IncorrectPow", "its parent was rejected", "15 stored"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// mine varies the nonce until h meets its target (about 8000 tries at --block-delay 10ms).
func mine(t *testing.T, h *ledger.Header) {
	for !pow.CheckPow(h) {
		h.Nonce++
	}
	h.Seal()
}

// TestImportChecksParentLink mines development blocks on chain 0 whose PoW is valid but whose
// weight or height does not follow from the parent: only the parent check can catch them.
func TestImportChecksParentLink(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Mining.BlockDelay = 10 * time.Millisecond // an easy genesis target; the import uses the same
	v := nodeVersion(cfg, nil)
	genesis := devGenesis(t, v)
	parent := genesis[0]
	var adj []*ledger.Header
	for _, c := range v.GraphAt(0).Neighbors(0) {
		adj = append(adj, genesis[c])
	}
	payload := ledger.EmptyPayload(ledger.NoMinerData).PayloadHash
	good, err := pow.NewHeader(v, parent, adj, payload, parent.CreationTime+1_000_000, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine(t, good)
	heavy := good.Clone()
	heavy.Weight[0]++
	heavy.Nonce = 1 << 40
	mine(t, heavy)
	tall := good.Clone()
	tall.Height++
	tall.Nonce = 1 << 41
	mine(t, tall)
	file := filepath.Join(t.TempDir(), "dev.txt")
	os.WriteFile(file, []byte(good.B64()+"\n"+heavy.B64()+"\n"+tall.B64()+"\n"), 0o600)
	var out bytes.Buffer
	code := run([]string{"import-headers", "--network", "development", "--block-delay", "10ms", "--data-dir", t.TempDir(), file},
		&out, &bytes.Buffer{})
	if code != 1 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	for _, want := range []string{"1 stored", "2 rejected", "IncorrectWeight", "IncorrectHeight",
		"epoch, difficulty adjustment and adjacent parents on 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("not base64!\n"), 0o600)
	var errOut bytes.Buffer
	if code := run(importArgs(filepath.Join(dir, "db"), bad), &bytes.Buffer{}, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "bad.txt:1") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if code := run(importArgs(filepath.Join(dir, "db")), &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Fatalf("no file: exit %d", code)
	}
	// A directory created for one network refuses another.
	if code := run(importArgs(filepath.Join(dir, "db"), chain5Vector), &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatalf("import: exit %d", code)
	}
	errOut.Reset()
	code := run([]string{"import-headers", "--network", "testnet04", "--data-dir", filepath.Join(dir, "db"), chain5Vector},
		&bytes.Buffer{}, &errOut)
	if code != 1 || errOut.Len() == 0 {
		t.Fatalf("wrong network: exit %d: %s", code, errOut.String())
	}
}

// import-headers prints its progress as it goes: headers done of the total, the rate and the
// time left, at the interval (here every header).
func TestImportPrintsProgress(t *testing.T) {
	defer func(every time.Duration) { importProgressEvery = every }(importProgressEvery)
	importProgressEvery = time.Nanosecond
	var out, errOut bytes.Buffer
	if code := run(importArgs(t.TempDir(), chain5Vector), &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	line := regexp.MustCompile(`^  (\d+)/360 headers \((\d+)/s, about (\S+) left\)$`)
	n, last := 0, 0
	for _, l := range strings.Split(out.String(), "\n") {
		if !strings.Contains(l, "/360 headers") {
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("progress line %q lacks the count, rate or time left", l)
		}
		done, _ := strconv.Atoi(m[1])
		if _, err := time.ParseDuration(m[3]); err != nil || done <= last {
			t.Fatalf("progress line %q: time left not a duration (%v) or count not rising from %d", l, err, last)
		}
		n, last = n+1, done
	}
	if n != 359 {
		t.Fatalf("%d progress lines, want 359 (after each header but the last):\n%s", n, out.String())
	}
}

// An import that ends before its first progress line prints one at the end: the rate shows for
// a short import too.
func TestImportPrintsProgressAtTheEnd(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(importArgs(t.TempDir(), chain5Vector), &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	lines := regexp.MustCompile(`(?m)^  360/360 headers \(\d+/s, about 0s left\)$`).FindAllString(out.String(), -1)
	if len(lines) != 1 || strings.Count(out.String(), " headers (") != 1 {
		t.Fatalf("want one progress line, at the end:\n%s", out.String())
	}
}

// writeLines writes hs as an import file in the line format.
func writeLines(t *testing.T, path string, hs []*ledger.Header) {
	t.Helper()
	var b strings.Builder
	for _, h := range hs {
		b.WriteString(h.B64() + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A line-format file is streamed (read twice, validated in height order as it goes) and a JSON
// file is read whole and sorted: the same headers, out of height order, with a tampered header
// in the middle and a resealed one whose children lose their parent, give the same summary and
// the same rejections in the same order. The tampered header's line is the one a chain actor's
// validation gives.
func TestImportStreamedFileMatchesWholeFile(t *testing.T) {
	cfg := braidConfig()
	v := nodeVersion(cfg, nil)
	genesis := devGenesis(t, v)
	var hs []*ledger.Header
	byHash := map[ledger.Hash]*ledger.Header{}
	for _, g := range genesis {
		byHash[g.Hash] = g
	}
	braid(t, v, genesis, 130, func(h *ledger.Header) { hs = append(hs, h); byHash[h.Hash] = h }) // 2,600: three batches of writes
	bad := hs[1310].Clone()
	bad.Nonce++ // its hash left as it was
	hs[1310] = bad
	heavy := hs[2013].Clone() // another chain
	heavy.Weight[0]++
	heavy.Seal()
	hs[2013] = heavy
	for i := 0; i < len(hs); i += 45 { // children before their parents, in windows
		slices.Reverse(hs[i:min(i+45, len(hs))])
	}
	dir := t.TempDir()
	writeLines(t, filepath.Join(dir, "braid.txt"), hs)
	b64s := make([]string, len(hs))
	for i, h := range hs {
		b64s[i] = h.B64()
	}
	js, _ := json.Marshal(b64s)
	os.WriteFile(filepath.Join(dir, "braid.json"), js, 0o600)

	summary := func(file string) string {
		var out, errOut bytes.Buffer
		if code := run(braidArgs(filepath.Join(dir, file+".db"), filepath.Join(dir, file)), &out, &errOut); code != 1 {
			t.Fatalf("%s: exit %d, want 1\n%s\n%s", file, code, out.String(), errOut.String())
		}
		var keep []string
		for _, l := range strings.Split(out.String(), "\n") {
			if !strings.HasPrefix(l, "importing ") && !strings.HasPrefix(l, "  ") {
				keep = append(keep, regexp.MustCompile(` in [^:]*:`).ReplaceAllString(l, ":"))
			}
		}
		return strings.Join(keep, "\n")
	}
	streamed, whole := summary("braid.txt"), summary("braid.json")
	if streamed != whole {
		t.Fatalf("streamed:\n%s\nwhole:\n%s", streamed, whole)
	}
	parent := byHash[bad.Parent]
	var adj []*ledger.Header
	for _, a := range bad.Adjacents {
		adj = append(adj, byHash[a.Hash])
	}
	verr := pow.Validate(v, bad, parent, adj, time.Now().UnixMicro())
	want := fmt.Sprintf("rejected: chain %d height %d %s: %v", bad.ChainID, bad.Height, bad.Hash, verr)
	if verr == nil || !strings.Contains(streamed, want+"\n") || !strings.Contains(streamed, "2534 stored, 0 already present, 66 rejected") || !strings.Contains(streamed, "IncorrectWeight") {
		t.Fatalf("want %q among:\n%s", want, streamed)
	}
}

// A line that does not decode, in the middle of a file of thousands, fails the import with its
// line number before anything is stored: the data directory is not even created.
func TestImportBadLineInTheMiddle(t *testing.T) {
	cfg := braidConfig()
	v := nodeVersion(cfg, nil)
	var hs []*ledger.Header
	braid(t, v, devGenesis(t, v), 130, func(h *ledger.Header) { hs = append(hs, h) })
	dir := t.TempDir()
	file := filepath.Join(dir, "braid.txt")
	writeLines(t, file, hs)
	b, _ := os.ReadFile(file)
	lines := strings.Split(string(b), "\n")
	lines[1300] = lines[1300][:100] + "!" + lines[1300][101:]
	os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600)
	var out, errOut bytes.Buffer
	code := run(braidArgs(filepath.Join(dir, "db"), file), &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "braid.txt:1301: decode header: invalid base64url: illegal base64 data at input byte 100") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "db")); !os.IsNotExist(err) {
		t.Fatalf("data directory created (%v)", err)
	}
}

// A file that cannot be read twice (a pipe, as from `<(zcat headers.gz)`) is read whole, as
// every file was before import-headers streamed.
func TestImportFromAPipe(t *testing.T) {
	vector := chain5VectorB64(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		for _, h := range vector {
			w.WriteString(h + "\n")
		}
		w.Close()
	}()
	var out, errOut bytes.Buffer
	if code := run(importArgs(t.TempDir(), fmt.Sprintf("/dev/fd/%d", r.Fd())), &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "360 stored, 0 already present, 0 rejected") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
}

// chain5VectorB64 is the chain 5 mainnet vector's headers, base64url, in the file's order.
func chain5VectorB64(t *testing.T) []string {
	t.Helper()
	var f struct {
		Headers []struct {
			B64 string `json:"binary_b64url"`
		} `json:"headers"`
	}
	b, err := os.ReadFile(chain5Vector)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(f.Headers))
	for i, h := range f.Headers {
		out[i] = h.B64
	}
	return out
}
