package transport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// Damaged stored data is not a bug of the node's: a read that meets it answers 503 with a body
// saying what to do, never "Something went wrong", and never reaches the internal-error count
// (the fixture's cleanup checks that it stays at zero).
func TestDamagedStoreAnswers503(t *testing.T) {
	raw, err := os.ReadFile("../testdata/vectors/mainnet01-chain5-headers.json")
	if err != nil {
		t.Fatal(err)
	}
	var vec struct {
		Headers []struct {
			Binary string `json:"binary_b64url"`
		} `json:"headers"`
	}
	if err := json.Unmarshal(raw, &vec); err != nil {
		t.Fatal(err)
	}
	var hs []*ledger.Header
	for _, v := range vec.Headers[:50] {
		b, err := ledger.DecodeB64(v.Binary)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ledger.DecodeHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{HeaderCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PutHeaders(hs...); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t}
	f.start(ServiceConfig{Version: ledger.Mainnet01, Store: db, PackageVersion: "test"})
	f.get("chain/5/header?limit=50").expect(t, 200)

	// Damage the 20th record's bytes on disk: the store reads the log through a shared
	// mapping, so it sees the damage at once, as after a bad sector.
	lf, err := os.OpenFile(filepath.Join(dir, "headers.log"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	off := int64(32 + 20*(6+hs[0].Size()) + 100)
	if _, err := lf.WriteAt([]byte("damage"), off); err != nil {
		t.Fatal(err)
	}
	lf.Close()

	for _, path := range []string{"chain/5/header?limit=50", "chain/5/hash?limit=50", "chain/5/header/" + hs[20].Hash.String()} {
		r := f.get(path).expect(t, 503)
		if body := string(r.body); !strings.Contains(body, "damaged") || !strings.Contains(body, "ledger-node repair") {
			t.Errorf("%s: body %q", path, body)
		}
	}
	// What the damage does not touch is still served.
	f.get("chain/5/header/"+hs[19].Hash.String()).expect(t, 200)
	if !db.Damaged() {
		t.Error("the store was not marked for repair")
	}
}
