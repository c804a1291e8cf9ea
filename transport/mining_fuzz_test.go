package transport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// The mining API's decoders take a miner's bytes as they come: none may panic, and what they
// accept must round-trip.

// sampleHeader is a degree-3 header with every field set.
func sampleHeader() *ledger.Header {
	h := &ledger.Header{FeatureFlags: 7, CreationTime: 1_700_000_000_000_000, Parent: ledger.Hash{1},
		Adjacents: []ledger.Adjacent{{Chain: 5, Hash: ledger.Hash{5}}, {Chain: 10, Hash: ledger.Hash{10}}, {Chain: 15, Hash: ledger.Hash{15}}},
		Target:    ledger.U256{1, 2, 3, 4}, PayloadHash: ledger.Hash{9}, ChainID: 0, Weight: ledger.U256{5}, Height: 42,
		Version: 2, EpochStart: 1_600_000_000_000_000, Nonce: 99}
	h.Seal()
	return h
}

func FuzzDecodeSolved(f *testing.F) {
	work := sampleHeader().WorkBytes()
	f.Add(work)
	f.Add(append(bytes.Clone(work), 0))
	f.Add(work[:285])
	f.Add([]byte{})
	f.Add(make([]byte, 50))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeSolved(b)
		if err != nil {
			return
		}
		if back := h.WorkBytes(); !bytes.Equal(back, b) {
			t.Fatalf("solved work %x re-encodes as %x", b, back)
		}
	})
}

func TestDecodeSolved(t *testing.T) {
	h := sampleHeader()
	got, err := DecodeSolved(h.WorkBytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.Seal(); got.Hash != h.Hash {
		t.Fatal("decoded and sealed header has another hash")
	}
	for _, b := range [][]byte{append(h.WorkBytes(), 0), h.WorkBytes()[:285], h.Bytes(), nil} {
		if _, err := DecodeSolved(b); err == nil {
			t.Fatalf("%d bytes decoded", len(b))
		}
	}
	w := AppendWork(nil, h)
	if len(w) != 322 || binary.LittleEndian.Uint32(w) != 0 || !bytes.Equal(w[4:36], w[194:226]) || !bytes.Equal(w[36:], h.WorkBytes()) {
		t.Fatalf("work bytes %x", w)
	}
}

func FuzzDecodeMiner(f *testing.F) {
	for _, s := range []string{
		`{"account":"k:ab","public-keys":["ab"],"predicate":"keys-all"}`,
		`{"public-keys":[],"predicate":"keys-any","account":"bob"}`,
		`{"account":"x"}`, `{"account":null,"public-keys":[],"predicate":"p"}`, `null`, `[]`, `{`, ``,
		`{"account":1,"public-keys":["a"],"predicate":"p"}`, `{"account":"a","public-keys":"a","predicate":"p"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMiner(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := DecodeMiner(again)
		if err != nil || !m2.Same(m) {
			t.Fatalf("miner %q re-encodes as %s, which decodes to %+v (%v)", b, again, m2, err)
		}
	})
}

func TestDecodeMiner(t *testing.T) {
	m, err := DecodeMiner([]byte(`{"predicate":"keys-all","public-keys":["b","a","b"],"account":"k:a"}`))
	if err != nil || m.Account != "k:a" || m.Predicate != "keys-all" || len(m.PublicKeys) != 3 {
		t.Fatalf("%+v %v", m, err)
	}
	for _, s := range []string{`{"account":"x","public-keys":[]}`, `{"account":"x","predicate":"p"}`, `null`, `{"account":null,"public-keys":[],"predicate":"p"}`} {
		if _, err := DecodeMiner([]byte(s)); err == nil {
			t.Fatalf("%s decoded", s)
		}
	}
}

func FuzzDecodeChainBytes(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0})
	f.Add([]byte{1, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeChainBytes(b)
		if err != nil {
			if len(b) == 4 {
				t.Fatalf("4 bytes refused: %v", err)
			}
			return
		}
		if !bytes.Equal(binary.LittleEndian.AppendUint32(nil, uint32(c)), b) {
			t.Fatalf("chain %d from %x", c, b)
		}
	})
}
