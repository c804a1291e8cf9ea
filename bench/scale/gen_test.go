package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/actors/headerimport"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// A generated history passes every rule import-headers applies (all but PoW, which the
// version skips) on a store holding the node's development genesis, with the parent and web
// rules applied to every header, across several difficulty epochs; and the same options give
// the same bytes.
func TestGeneratedHeadersPassValidation(t *testing.T) {
	v := devVersion(30 * time.Second)
	g, err := devGenesis(v)
	if err != nil {
		t.Fatal(err)
	}
	const levels = 300 // more than two epochs of the development network's window
	var buf bytes.Buffer
	n, err := generate(&buf, v, g.Headers, genOptions{Levels: levels, Jitter: 10 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n != levels*20 {
		t.Fatalf("wrote %d headers, want %d", n, levels*20)
	}
	var again bytes.Buffer
	if _, err := generate(&again, v, g.Headers, genOptions{Levels: levels, Jitter: 10 * time.Second, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Fatal("two workers and one wrote different histories")
	}
	var hs []*ledger.Header
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		h, err := ledger.DecodeHeaderB64(line)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	last := hs[len(hs)-1]
	if d := time.Duration(last.CreationTime-v.GenesisTime) * time.Microsecond; d < levels*30*time.Second-10*time.Second || d > levels*30*time.Second+10*time.Second {
		t.Fatalf("last header created %v after genesis, want about %v", d, levels*30*time.Second)
	}
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := actors.InitGenesis(db, g, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	sum, err := headerimport.ImportHeaders(db, v, hs, time.Now(), headerimport.ImportProgress{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rejected != 0 || sum.Stored != len(hs) || sum.WebChecked != len(hs) {
		t.Fatalf("stored %d, rejected %d, web-checked %d of %d: %v", sum.Stored, sum.Rejected, sum.WebChecked, len(hs), sum.Rejections[:min(3, len(sum.Rejections))])
	}
}

// A mainnet01 history above made-up roots passes every rule, PoW included, on an empty store:
// the roots are kept after the rules that need no parent, every header above them gets all.
func TestMainnetHistoryPassesValidation(t *testing.T) {
	v, base, writeBase, err := genBase("mainnet01", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	const levels = 250 // crosses two difficulty adjustments
	if _, err := generate(&buf, v, base, genOptions{Levels: levels, Jitter: 10 * time.Second, WriteBase: writeBase, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	var hs []*ledger.Header
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		h, err := ledger.DecodeHeaderB64(line)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if len(hs) != (levels+1)*20 {
		t.Fatalf("%d headers, want %d", len(hs), (levels+1)*20)
	}
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sum, err := headerimport.ImportHeaders(db, v, hs, time.Now(), headerimport.ImportProgress{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rejected != 0 || sum.Stored != len(hs) || sum.WebChecked != len(hs)-20 {
		t.Fatalf("stored %d, rejected %d, web-checked %d of %d: %v", sum.Stored, sum.Rejected, sum.WebChecked, len(hs), sum.Rejections[:min(3, len(sum.Rejections))])
	}
}
