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
	sum, err := ImportHeaders(db, ledger.Mainnet01, in, time.Now(), nil)
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

	sum, err = ImportHeaders(db, ledger.Mainnet01, hs[:40], time.Now(), nil)
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
