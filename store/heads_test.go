package store

import (
	"errors"
	"maps"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

func TestHeadsNeverSet(t *testing.T) {
	db, _ := openTest(t, Options{})
	heads, err := db.Heads()
	if err != nil || heads == nil || len(heads) != 0 {
		t.Fatalf("got %v %v, want an empty map", heads, err)
	}
}

func TestHeadsPersistAcrossReopen(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, dir := openTest(t, Options{})
	others := []*ledger.Header{onChain(hs[10], 0), onChain(hs[20], 19)}
	if err := db.PutHeaders(append(others, hs...)...); err != nil {
		t.Fatal(err)
	}
	first := map[ledger.ChainID]ledger.Hash{5: hs[100].Hash, 0: others[0].Hash}
	if err := db.SetHeads(first); err != nil {
		t.Fatal(err)
	}
	// A later set replaces the whole record: chain 0 is gone, chain 19 appears.
	want := map[ledger.ChainID]ledger.Hash{5: hs[359].Hash, 19: others[1].Hash}
	if err := db.SetHeads(want); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2 := reopen(t, dir, Options{})
	got, err := db2.Heads()
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Fatalf("after reopen: got %v, want %v", got, want)
	}
	// The resumed heads are readable: the invariant the node restarts from.
	for c, h := range got {
		if hdr, err := db2.Header(h); err != nil || hdr.ChainID != c {
			t.Fatalf("head of chain %d: %v", c, err)
		}
	}
}

func TestSetHeadsRefusesUnknownHeader(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, _ := openTest(t, Options{})
	if err := db.PutHeaders(hs[0]); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[0].Hash}); err != nil {
		t.Fatal(err)
	}
	err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[1].Hash})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	if got, _ := db.Heads(); got[5] != hs[0].Hash {
		t.Fatal("a refused SetHeads changed the heads")
	}
}

func TestPutBlock(t *testing.T) {
	hs, _ := chain5Headers(t)
	v := loadPayloadVectors(t)[0]
	db, dir := openTest(t, Options{})
	if err := db.PutHeaders(hs[0]); err != nil {
		t.Fatal(err)
	}

	// Header, payload and heads together; one head is the new header itself.
	blk := hs[1].Clone()
	blk.PayloadHash = v.PHash
	heads := map[ledger.ChainID]ledger.Hash{5: blk.Hash, 6: hs[0].Hash}
	if err := db.PutBlock(blk, v.payload(), heads); err != nil {
		t.Fatal(err)
	}
	// Header only, heads unchanged.
	if err := db.PutBlock(hs[2], nil, nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, _ := db.Heads(); !maps.Equal(got, heads) {
		t.Fatalf("heads: got %v, want %v", got, heads)
	}
	for _, h := range []ledger.Hash{blk.Hash, hs[2].Hash} {
		if ok, _ := db.HasHeader(h); !ok {
			t.Fatalf("header %s missing", h)
		}
	}
	if p, err := db.PayloadWithOutputs(v.PHash); err != nil || p.Verify() != nil {
		t.Fatalf("payload: %v", err)
	}
	if n := len(scanAll(t, db, 5, Position{})); n != 3 {
		t.Fatalf("index has %d entries, want 3", n)
	}

	// Refusals write nothing.
	if err := db.PutBlock(hs[3], v.payload(), nil); err == nil {
		t.Fatal("payload not matching the header accepted")
	}
	if err := db.PutBlock(hs[4], nil, map[ledger.ChainID]ledger.Hash{5: hs[5].Hash}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("head naming an unknown header: %v", err)
	}
	for _, h := range hs[3:5] {
		if ok, _ := db.HasHeader(h.Hash); ok {
			t.Fatal("a refused PutBlock wrote its header")
		}
	}
}
