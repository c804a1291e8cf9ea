package main

import (
	"bufio"
	"flag"
	"io"
	"os"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// Flags of TestWriteBraidFile, which writes an import file for measuring by hand:
//
//	go test ./cmd/ledger-node -run TestWriteBraidFile -args -braid.out /tmp/braid.txt -braid.headers 1000000
var (
	braidOut     = flag.String("braid.out", "", "TestWriteBraidFile: write a braided development history here")
	braidHeaders = flag.Int("braid.headers", 200_000, "TestWriteBraidFile: about this many headers (whole heights of 20 chains)")
)

// braidConfig is the configuration a braided history is made and imported with: development
// rules without PoW, so that making a header costs its hash only.
func braidConfig() Config {
	cfg := DefaultConfig()
	cfg.Network = "development"
	cfg.Mining.DisablePow = true
	return cfg
}

// braidArgs are the import-headers flags that match braidConfig.
func braidArgs(dir string, more ...string) []string {
	return append([]string{"import-headers", "--network", "development", "--disable-pow", "--data-dir", dir}, more...)
}

// braid makes heights whole heights of every chain of v on top of genesis, each header
// referencing its parent and the adjacent parents at the height below, created 20–40 s after the
// latest of them (so the difficulty adjusts), and hands them to emit height by height, chains in
// ascending order.
func braid(tb testing.TB, v *ledger.Version, genesis []*ledger.Header, heights int, emit func(*ledger.Header)) {
	tb.Helper()
	payload := ledger.EmptyPayload(ledger.NoMinerData).PayloadHash
	prev := make(map[ledger.ChainID]*ledger.Header, len(genesis))
	for _, g := range genesis {
		prev[g.ChainID] = g
	}
	next := make(map[ledger.ChainID]*ledger.Header, len(genesis))
	var adj []*ledger.Header
	seed := uint64(1)
	for range heights {
		for _, g := range genesis {
			p := prev[g.ChainID]
			adj = adj[:0]
			ct := p.CreationTime
			for _, c := range v.HeaderGraph(p.ChainID, p.Height+1).Neighbors(p.ChainID) {
				adj = append(adj, prev[c])
				ct = max(ct, prev[c].CreationTime)
			}
			seed = seed*6364136223846793005 + 1442695040888963407
			ct += int64(20_000_000 + (seed>>33)%20_000_000)
			h, err := pow.NewHeader(v, p, adj, payload, ct, 0, 0)
			if err != nil {
				tb.Fatal(err)
			}
			next[h.ChainID] = h
			emit(h)
		}
		prev, next = next, prev
	}
}

// TestWriteBraidFile writes a braided history for import-headers (see the flags above); without
// -braid.out it does nothing.
func TestWriteBraidFile(t *testing.T) {
	if *braidOut == "" {
		t.Skip("no -braid.out")
	}
	cfg := braidConfig()
	v := nodeVersion(cfg, nil)
	genesis := devGenesis(t, v)
	f, err := os.Create(*braidOut)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	start := time.Now()
	n := 0
	braid(t, v, genesis, (*braidHeaders+len(genesis)-1)/len(genesis), func(h *ledger.Header) {
		w.WriteString(h.B64())
		w.WriteByte('\n')
		n++
	})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d headers in %s (%s)", n, *braidOut, time.Since(start).Round(time.Millisecond))
}

var braidIn = flag.String("braid.in", "", "BenchmarkImportFile: the file to import")

// BenchmarkImportFile imports -braid.in into a fresh directory per iteration (for profiles:
// go test ./cmd/ledger-node -run '^$' -bench ImportFile -benchtime 1x -cpuprofile /tmp/cpu.out -args -braid.in FILE).
func BenchmarkImportFile(b *testing.B) {
	if *braidIn == "" {
		b.Skip("no -braid.in")
	}
	for range b.N {
		dir := b.TempDir()
		if code := run(braidArgs(dir, *braidIn), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
