package actors

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

func chain5Headers(t *testing.T) []*ledger.Header {
	t.Helper()
	b, err := os.ReadFile("../testdata/vectors/mainnet01-chain5-headers.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Headers []struct {
			B64 string `json:"binary_b64url"`
		} `json:"headers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var hs []*ledger.Header
	for _, x := range f.Headers {
		h, err := ledger.DecodeHeaderB64(x.B64)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	return hs
}

// Real headers in reverse order: sorted by height, each but the first is checked against its
// parent (stored a moment before), and the chain's head ends on the last. A header changed
// after sealing is rejected and so is its child, whose parent the store never got; the
// grandchild, whose parent is missing for the same reason, is rejected too, not kept unchecked.
func TestImportHeaders(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hs := chain5Headers(t)
	in := append([]*ledger.Header{}, hs[:40]...)
	in[20] = in[20].Clone()
	in[20].Nonce++
	for i, j := 0, len(in)-1; i < j; i, j = i+1, j-1 {
		in[i], in[j] = in[j], in[i]
	}
	sum, err := ImportHeaders(db, ledger.Mainnet01, in, time.Now(), ImportProgress{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Read != 40 || sum.Stored != 20 || sum.Rejected != 20 || sum.ParentChecked != 19 || sum.WebChecked != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if !strings.Contains(sum.Rejections[0], "IncorrectHash") || !strings.Contains(sum.Rejections[1], "its parent was rejected") {
		t.Fatalf("rejections %q", sum.Rejections[:2])
	}
	heads, _ := db.Heads()
	if heads[5] != hs[19].Hash {
		t.Fatalf("head %s, want %s", heads[5], hs[19].Hash)
	}

	sum, err = ImportHeaders(db, ledger.Mainnet01, hs[:40], time.Now(), ImportProgress{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.AlreadyStored != 20 || sum.Stored != 20 || sum.Rejected != 0 || sum.ParentChecked != 20 {
		t.Fatalf("second import %+v", sum)
	}
	if heads, _ := db.Heads(); heads[5] != hs[39].Hash {
		t.Fatalf("head %s after the second import, want %s", heads[5], hs[39].Hash)
	}
}

// An import reports its progress at the interval asked, over every header: stored, present
// and rejected alike, so that a file the store already holds is reported too.
func TestImportReportsProgress(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hs := chain5Headers(t)[:40]
	var dones []int
	report := ImportProgress{Every: time.Nanosecond, Report: func(done, total int, elapsed time.Duration) {
		if total != len(hs) || elapsed <= 0 {
			t.Errorf("report %d/%d after %v", done, total, elapsed)
		}
		dones = append(dones, done)
	}}
	for pass := range 2 { // stored, then already present
		dones = nil
		if _, err := ImportHeaders(db, ledger.Mainnet01, hs, time.Now(), report); err != nil {
			t.Fatal(err)
		}
		if len(dones) != len(hs)-1 || dones[0] != 1 || dones[len(dones)-1] != len(hs)-1 {
			t.Fatalf("pass %d: reports at %v, want one after each header but the last", pass, dones)
		}
	}
	dones = nil
	if _, err := ImportHeaders(db, ledger.Mainnet01, hs, time.Now(), ImportProgress{Every: time.Hour, Report: report.Report}); err != nil {
		t.Fatal(err)
	}
	if len(dones) != 0 {
		t.Fatalf("reports %v within the first hour", dones)
	}
}
