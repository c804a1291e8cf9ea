package store

import (
	"errors"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// Damaged stored bytes must come back as ErrCorrupt, never as a panic or a wrong value. The
// tests write bad rows straight into goleveldb, as disk damage or a buggy older build would.

func TestCorruptHeader(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, _ := openTest(t, Options{HeaderCacheSize: -1})
	k := hashKey(tagHeader, hs[0].Hash)
	rows := map[string][]byte{
		"truncated":    hs[0].Bytes()[:200],
		"empty":        {},
		"wrong header": hs[1].Bytes(), // decodes, but its hash is not the key
	}
	for name, v := range rows {
		if err := db.ldb.Put(k[:], v, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Header(hs[0].Hash); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Header: got %v, want ErrCorrupt", name, err)
		}
		if _, err := db.HeaderBinary(nil, hs[0].Hash); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: HeaderBinary: got %v, want ErrCorrupt", name, err)
		}
	}
}

func TestCorruptHeightIndex(t *testing.T) {
	hs, _ := chain5Headers(t)
	t.Run("dangling entry", func(t *testing.T) {
		db, _ := openTest(t, Options{})
		k := heightKey(5, 7, ledger.Hash{1})
		if err := db.ldb.Put(k[:], nil, nil); err != nil {
			t.Fatal(err)
		}
		err := db.ScanChain(5, Position{}, func(*ledger.Header) bool { return true })
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("got %v, want ErrCorrupt", err)
		}
	})
	t.Run("malformed key", func(t *testing.T) {
		db, _ := openTest(t, Options{})
		if err := db.PutHeaders(hs[0]); err != nil {
			t.Fatal(err)
		}
		p := chainPrefix(5)
		short := append(p[:], 0xff, 0xff) // inside chain 5's range, after every real key
		if err := db.ldb.Put(short, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := db.ScanChain(5, Position{}, func(*ledger.Header) bool { return true }); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("ScanChain: got %v, want ErrCorrupt", err)
		}
		if _, _, err := db.MaxHeight(5); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("MaxHeight: got %v, want ErrCorrupt", err)
		}
	})
}

// hugeArray is a msgp map whose "tx" field claims 2^32-1 elements: a decoder that trusted it
// would try to allocate ~100 GB.
var hugeArray = []byte{0x81, 0xa2, 't', 'x', 0xdd, 0xff, 0xff, 0xff, 0xff}

func TestCorruptPayload(t *testing.T) {
	v := loadPayloadVectors(t)[1]
	good := v.payload()
	db, _ := openTest(t, Options{})
	if err := db.PutPayload(good); err != nil {
		t.Fatal(err)
	}
	pk := hashKey(tagPayload, v.PHash)
	ok := hashKey(tagOutputs, v.PHash)
	goodPayload, _ := db.ldb.Get(pk[:], nil)
	goodOutputs, _ := db.ldb.Get(ok[:], nil)

	var fewer outputsRecord
	if _, err := fewer.UnmarshalMsg(goodOutputs); err != nil {
		t.Fatal(err)
	}
	fewer.Outputs = fewer.Outputs[1:]
	fewerOutputs, _ := fewer.MarshalMsg(nil)
	var moved payloadRecord
	if _, err := moved.UnmarshalMsg(goodPayload); err != nil {
		t.Fatal(err)
	}
	moved.OutputsHash[0] ^= 1
	movedPayload, _ := moved.MarshalMsg(nil)

	cases := []struct {
		name             string
		payload, outputs []byte
		dataToo          bool // Payload (without outputs) must fail as well
	}{
		{"garbage payload", []byte("not msgpack"), goodOutputs, true},
		{"truncated payload", goodPayload[:len(goodPayload)/2], goodOutputs, true},
		{"trailing bytes", append(goodPayload[:len(goodPayload):len(goodPayload)], 0xc0), goodOutputs, true},
		{"huge array", hugeArray, goodOutputs, true},
		{"hashes not matching key", movedPayload, goodOutputs, true},
		{"huge outputs array", goodPayload, []byte{0x81, 0xa3, 'o', 'u', 't', 0xdd, 0xff, 0xff, 0xff, 0xff}, false},
		{"output count mismatch", goodPayload, fewerOutputs, false},
		{"wrong type", []byte{0x93, 1, 2, 3}, goodOutputs, true},
	}
	for _, tc := range cases {
		if err := db.ldb.Put(pk[:], tc.payload, nil); err != nil {
			t.Fatal(err)
		}
		if err := db.ldb.Put(ok[:], tc.outputs, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.PayloadWithOutputs(v.PHash); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: PayloadWithOutputs: got %v, want ErrCorrupt", tc.name, err)
		}
		_, err := db.Payload(v.PHash)
		if tc.dataToo && !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Payload: got %v, want ErrCorrupt", tc.name, err)
		}
		if !tc.dataToo && err != nil {
			t.Errorf("%s: Payload: %v (its record is intact)", tc.name, err)
		}
	}

	// Outputs missing altogether read as not found, not as damage.
	db.ldb.Put(pk[:], goodPayload, nil)
	db.ldb.Delete(ok[:], nil)
	if _, err := db.PayloadWithOutputs(v.PHash); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing outputs: got %v, want ErrNotFound", err)
	}
}

func TestCorruptHeads(t *testing.T) {
	db, _ := openTest(t, Options{})
	dup, _ := (&headsRecord{Heads: []headEntry{{Chain: 1}, {Chain: 1}}}).MarshalMsg(nil)
	shortHash := []byte{0x81, 0xa1, 'h', 0x91, 0x92, 0x01, 0xc4, 0x02, 0xaa, 0xbb}
	for name, v := range map[string][]byte{"garbage": {0xc1}, "duplicate chain": dup, "short hash": shortHash, "huge": hugeArray} {
		if err := db.ldb.Put(metaKey(metaHeads), v, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Heads(); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
}

func TestCorruptNetworkRecord(t *testing.T) {
	db, _ := openTest(t, Options{})
	if err := db.ldb.Put(metaKey(metaNetwork), []byte{0xa5, 'x'}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckVersion("mainnet01"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, want ErrCorrupt", err)
	}
}
