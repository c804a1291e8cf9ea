package store

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store/internal/records"
)

// Damaged stored bytes must come back as kv.ErrCorrupt, never as a panic or a wrong value. The
// tests damage rows straight in goleveldb, or bytes straight in the header log's file, as disk
// damage or a buggy older build would.

func TestCorruptHeader(t *testing.T) {
	hs, _ := chain5Headers(t)
	size := uint64(hs[0].Size())
	cases := []struct {
		name string
		at   uint64 // offset within the record
		b    []byte
	}{
		{"flipped header byte", 100, []byte{0x5a}},
		{"flipped hash byte", recHeaderSize + size - 1, []byte{0x01}},
		{"flipped hash prefix byte", recHeaderSize + size - 32, []byte{0x01}},
		{"flipped checksum", 2, []byte{0xff, 0xff}},
		{"length zero", 0, []byte{0, 0}},
		{"length too long", 0, []byte{0xff, 0xff}},
		{"length of another degree", 0, le16(uint16(ledger.SizeForDegree(2)))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, dir := openTest(t, Options{HeaderCacheSize: -1})
			if err := db.PutHeaders(hs[:3]...); err != nil {
				t.Fatal(err)
			}
			off := recordOffset(t, db, hs[1].Hash)
			writeLogAt(t, dir, off+tc.at, tc.b)
			if _, err := db.Header(hs[1].Hash); !errors.Is(err, kv.ErrCorrupt) || !IsCorrupt(err) {
				t.Errorf("Header: got %v, want kv.ErrCorrupt as the store's (IsCorrupt)", err)
			}
			dst := []byte("keep")
			if got, err := db.HeaderBinary(dst, hs[1].Hash); !errors.Is(err, kv.ErrCorrupt) || string(got) != "keep" {
				t.Errorf("HeaderBinary: got %q %v, want dst unchanged and kv.ErrCorrupt", got, err)
			}
			if err := db.ScanChain(5, Position{}, func(*ledger.Header) bool { return true }); !errors.Is(err, kv.ErrCorrupt) {
				t.Errorf("ScanChain: got %v, want kv.ErrCorrupt", err)
			}
			// The neighbours are intact.
			for _, h := range []*ledger.Header{hs[0], hs[2]} {
				if _, err := db.Header(h.Hash); err != nil {
					t.Errorf("intact neighbour %s: %v", h.Hash, err)
				}
			}
		})
	}
}

// A slot naming an offset where no record starts, or one past the log, is damage too.
func TestCorruptIndexSlot(t *testing.T) {
	hs, _ := chain5Headers(t)
	for name, bad := range map[string]uint64{
		"past the log":    1 << 40,
		"inside a record": logHeaderSize + 7,
		"in the header":   3,
		"zero":            0,
	} {
		t.Run(name, func(t *testing.T) {
			db, _ := openTest(t, Options{HeaderCacheSize: -1})
			if err := db.PutHeaders(hs[:3]...); err != nil {
				t.Fatal(err)
			}
			i := slotOf(t, db.hl.view.Load(), hs[1].Hash)
			// Through the writer's mapping: the readers' one is read-only.
			atomic.StoreUint64(&words(db.hl.idxMap[idxHeaderSize:])[2*i+1], bad)
			if _, err := db.Header(hs[1].Hash); !errors.Is(err, kv.ErrCorrupt) || !IsCorrupt(err) {
				t.Errorf("Header: got %v, want kv.ErrCorrupt as the store's (IsCorrupt)", err)
			}
			if _, err := db.HeaderBinary(nil, hs[1].Hash); !errors.Is(err, kv.ErrCorrupt) {
				t.Errorf("HeaderBinary: got %v, want kv.ErrCorrupt", err)
			}
			if _, err := db.HasHeader(hs[1].Hash); !errors.Is(err, kv.ErrCorrupt) {
				t.Errorf("HasHeader: got %v, want kv.ErrCorrupt", err)
			}
		})
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
		if !errors.Is(err, kv.ErrCorrupt) {
			t.Fatalf("got %v, want kv.ErrCorrupt", err)
		}
	})
	t.Run("entry pointing at another header", func(t *testing.T) {
		db, _ := openTest(t, Options{HeaderCacheSize: -1})
		if err := db.PutHeaders(hs[0], hs[1]); err != nil {
			t.Fatal(err)
		}
		k := heightKey(5, hs[0].Height, hs[0].Hash)
		if err := db.ldb.Put(k[:], be64(recordOffset(t, db, hs[1].Hash)), nil); err != nil {
			t.Fatal(err)
		}
		err := db.ScanChain(5, Position{}, func(*ledger.Header) bool { return true })
		if !errors.Is(err, kv.ErrCorrupt) {
			t.Fatalf("got %v, want kv.ErrCorrupt", err)
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
		if err := db.ScanChain(5, Position{}, func(*ledger.Header) bool { return true }); !errors.Is(err, kv.ErrCorrupt) {
			t.Fatalf("ScanChain: got %v, want kv.ErrCorrupt", err)
		}
		if _, _, err := db.MaxHeight(5); !errors.Is(err, kv.ErrCorrupt) {
			t.Fatalf("MaxHeight: got %v, want kv.ErrCorrupt", err)
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

	var fewer records.Outputs
	if _, err := fewer.UnmarshalMsg(goodOutputs); err != nil {
		t.Fatal(err)
	}
	fewer.Outputs = fewer.Outputs[1:]
	fewerOutputs, _ := fewer.MarshalMsg(nil)
	var moved records.Payload
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
		if _, err := db.PayloadWithOutputs(v.PHash); !errors.Is(err, kv.ErrCorrupt) {
			t.Errorf("%s: PayloadWithOutputs: got %v, want kv.ErrCorrupt", tc.name, err)
		}
		_, err := db.Payload(v.PHash)
		if tc.dataToo && !errors.Is(err, kv.ErrCorrupt) {
			t.Errorf("%s: Payload: got %v, want kv.ErrCorrupt", tc.name, err)
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
	dup, _ := (&records.Heads{Heads: []records.HeadEntry{{Chain: 1}, {Chain: 1}}}).MarshalMsg(nil)
	shortHash := []byte{0x81, 0xa1, 'h', 0x91, 0x92, 0x01, 0xc4, 0x02, 0xaa, 0xbb}
	for name, v := range map[string][]byte{"garbage": {0xc1}, "duplicate chain": dup, "short hash": shortHash, "huge": hugeArray} {
		if err := db.ldb.Put(metaKey(metaHeads), v, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Heads(); !errors.Is(err, kv.ErrCorrupt) {
			t.Errorf("%s: got %v, want kv.ErrCorrupt", name, err)
		}
	}
}

func TestCorruptNetworkRecord(t *testing.T) {
	db, _ := openTest(t, Options{})
	if err := db.ldb.Put(metaKey(metaNetwork), []byte{0xa5, 'x'}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckVersion("mainnet01"); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("got %v, want kv.ErrCorrupt", err)
	}
}
