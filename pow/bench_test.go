package pow

import (
	"math/big"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// The header-check benchmarks run over the 360 real chain-5 headers. BenchmarkMerkleHash is the
// baseline: the block hash alone, which any header check must compute. BenchmarkDecodeHashPow
// is the whole check of a header received as bytes: decode, block hash, compare with the stored
// hash, PoW hash of the received work bytes, target comparison. DESIGN.md asks for the second
// to reach 0.8 of the first's headers/s; bench/headercheck prints the ratio from one process.

func reportHeaders(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "headers/s")
}

func BenchmarkMerkleHash(b *testing.B) {
	c := loadChain5(b)
	var sink ledger.Hash
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink = c.hs[i%len(c.hs)].ComputeHash()
	}
	reportHeaders(b)
	_ = sink
}

func BenchmarkDecodeHashPow(b *testing.B) {
	c := loadChain5(b)
	var h ledger.Header // reused, as a receiving loop would
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		raw := c.raw[i%len(c.raw)]
		if err := h.UnmarshalBinary(raw); err != nil {
			b.Fatal(err)
		}
		if h.ComputeHash() != h.Hash {
			b.Fatal("hash mismatch")
		}
		if !CheckTarget(h.Target, PowHashWork(raw[:len(raw)-ledger.HashSize])) {
			b.Fatal("pow fails")
		}
	}
	reportHeaders(b)
}

func BenchmarkPowHash(b *testing.B) {
	c := loadChain5(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = PowHash(c.hs[i%len(c.hs)])
	}
}

func BenchmarkPowHashWork(b *testing.B) {
	c := loadChain5(b)
	b.ReportAllocs()
	b.SetBytes(ledger.WorkSize)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		raw := c.raw[i%len(c.raw)]
		_ = PowHashWork(raw[:ledger.WorkSize])
	}
}

// Difficulty runs for every validated header (weight check), so its word-level division is
// compared with the math/big route it replaces.
func BenchmarkDifficulty(b *testing.B) {
	c := loadChain5(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = Difficulty(c.hs[i%len(c.hs)].Target)
	}
}

func BenchmarkDifficultyBig(b *testing.B) {
	c := loadChain5(b)
	maxT := ledger.MaxU256.Big()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := new(big.Int).Quo(maxT, c.hs[i%len(c.hs)].Target.Big())
		_, _ = ledger.U256FromBig(q)
	}
}

// BenchmarkValidate is the full rule set for one real header with its parents (an epoch
// boundary, so it includes the current difficulty adjustment) and for one inside an epoch.
func BenchmarkValidate(b *testing.B) {
	ts := loadTriples(b)
	for _, height := range []uint64{6321600, 6326123} {
		tr := tripleAt(b, ts, height)
		name := "within-epoch"
		if IsLastInEpoch(ledger.Mainnet01, tr.p.Height) {
			name = "epoch-boundary"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := Validate(ledger.Mainnet01, tr.h, tr.p, tr.adj, farFuture); err != nil {
					b.Fatal(err)
				}
			}
			reportHeaders(b)
		})
	}
}
