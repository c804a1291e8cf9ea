package pow

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// workWithNonce returns a copy of work with the nonce field set.
func workWithNonce(work []byte, nonce uint64) []byte {
	b := append([]byte(nil), work...)
	binary.LittleEndian.PutUint64(b[len(b)-nonceSize:], nonce)
	return b
}

// The midstate hash equals the plain PoW hash for the work size of every header degree (for
// degree 4 the nonce straddles two BLAKE2s blocks) and for sizes around the block boundaries.
func TestWorkPowHashMatchesPowHashWork(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sizes := []int{nonceSize, 9, 63, 64, 65, 71, 72, 73, 127, 128, 129, 135, 136}
	for k := 0; k <= ledger.MaxAdjacents; k++ {
		sizes = append(sizes, ledger.SizeForDegree(k)-ledger.HashSize)
	}
	for _, n := range sizes {
		work := make([]byte, n)
		for i := range work {
			work[i] = byte(r.Uint32())
		}
		w, err := NewWork(work, ledger.MaxU256)
		if err != nil {
			t.Fatal(err)
		}
		for _, nonce := range []uint64{0, 1, 0xff, 1 << 40, ^uint64(0), r.Uint64()} {
			if got, want := w.PowHash(nonce), PowHashWork(workWithNonce(work, nonce)); got != want {
				t.Fatalf("%d work bytes, nonce %#x: midstate %s, plain %s", n, nonce, got.BEHex(), want.BEHex())
			}
		}
	}
	if _, err := NewWork(make([]byte, nonceSize-1), ledger.MaxU256); err == nil {
		t.Fatal("NewWork accepted work without room for a nonce")
	}
}

// Search returns the first nonce of the range that meets the target, and nothing when none does.
func TestWorkSearch(t *testing.T) {
	work := make([]byte, ledger.WorkSize)
	for i := range work {
		work[i] = byte(i * 7)
	}
	target, _ := TargetFromDifficulty(ledger.U256{1000})
	w, _ := NewWork(work, target)
	const start = 1 << 33
	nonce, ok := w.Search(start, 100_000)
	if !ok {
		t.Fatal("no nonce in 100000 tries at difficulty 1000")
	}
	if !CheckTarget(target, PowHashWork(workWithNonce(work, nonce))) {
		t.Fatalf("nonce %d does not meet the target", nonce)
	}
	for n := uint64(start); n < nonce; n++ {
		if CheckTarget(target, PowHashWork(workWithNonce(work, n))) {
			t.Fatalf("nonce %d meets the target but Search returned the later %d", n, nonce)
		}
	}
	if _, ok := w.Search(start, nonce-start); ok {
		t.Fatal("Search found a nonce in a range that has none")
	}
}

// A hash equal to the target is accepted and one above it is not, also when the top 32 bits
// tie (the fast path must fall back to the full comparison).
func TestWorkTargetBoundary(t *testing.T) {
	work := make([]byte, ledger.WorkSize)
	w, _ := NewWork(work, ledger.MaxU256)
	p := w.PowHash(42)
	for _, c := range []struct {
		target ledger.U256
		want   bool
	}{
		{p, true},
		{ledger.U256{p[0] - 1, p[1], p[2], p[3]}, false}, // same top word, one less below it
		{ledger.U256{p[0], p[1], p[2], p[3] + 1}, true},
		{ledger.U256{p[0], p[1], p[2], p[3] - 1<<32}, false},
	} {
		w.Reset(work, c.target)
		if _, got := w.Search(42, 1); got != c.want {
			t.Errorf("hash %s, target %s: found %v, want %v", p.BEHex(), c.target.BEHex(), got, c.want)
		}
	}
}

// The search loop allocates nothing.
func TestWorkSearchDoesNotAllocate(t *testing.T) {
	w, _ := NewWork(make([]byte, ledger.WorkSize), ledger.U256{}) // target 0: every nonce is tried
	allocs := testing.AllocsPerRun(20, func() {
		w.Search(7, 1000)
		_ = w.PowHash(9)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per search", allocs)
	}
}

// A header built by NewHeader and mined with MineHeader passes every validation rule.
func TestMineHeaderValidates(t *testing.T) {
	v := ledger.TestSingleton.WithGenesisTarget(mustTarget(t, 500))
	g, ok := ledger.UpstreamGenesisHeader(v, 0)
	if !ok {
		g = ledger.GenesisHeader(v, 0, ledger.Hash{1})
	}
	p := g
	for i := 0; i < 5; i++ {
		h, err := NewHeader(v, p, nil, ledger.Hash{2}, p.CreationTime+1_000_000, uint64(i)<<32, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !MineHeader(h, 1<<20) {
			t.Fatal("no nonce found at difficulty 500")
		}
		if err := Validate(v, h, p, nil, farFuture); err != nil {
			t.Fatalf("mined header: %v", err)
		}
		p = h
	}
}

func mustTarget(t testing.TB, difficulty uint64) ledger.U256 {
	tg, err := TargetFromDifficulty(ledger.U256{difficulty})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// BenchmarkWorkSearch is the miner's inner loop: nonces per second on one core with the
// midstate. Compare with BenchmarkBlake2s286, the plain hash of the same 286 bytes; the
// bench/hashrate harness prints the ratio from one process.
func BenchmarkWorkSearch(b *testing.B) {
	w, _ := NewWork(make([]byte, ledger.WorkSize), ledger.U256{})
	b.ReportAllocs()
	b.SetBytes(ledger.WorkSize) // bytes of work covered per nonce, comparable with Blake2s286
	b.ResetTimer()
	w.Search(0, uint64(b.N))
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hashes/s")
}
