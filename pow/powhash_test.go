package pow

import (
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

func TestMaxHeaderSizeMatchesLedger(t *testing.T) {
	if maxHeaderSize != ledger.SizeForDegree(ledger.MaxAdjacents) {
		t.Fatalf("maxHeaderSize %d, ledger says %d", maxHeaderSize, ledger.SizeForDegree(ledger.MaxAdjacents))
	}
}

// Every real chain-5 header: the PoW hash, computed from the decoded header and from the wire
// bytes, equals the recorded one and meets the target.
func TestPowHashChain5(t *testing.T) {
	c := loadChain5(t)
	for i, h := range c.hs {
		r := c.recs[i]
		want := powU256(t, r.PowHash)
		if got := PowHash(h); got != want {
			t.Fatalf("header %d (height %d): PowHash %s, want %s", i, r.Height, got.BEHex(), want.BEHex())
		}
		work := c.raw[i][:len(c.raw[i])-ledger.HashSize]
		if len(work) != ledger.WorkSize {
			t.Fatalf("work bytes are %d long, want %d", len(work), ledger.WorkSize)
		}
		if got := PowHashWork(work); got != want {
			t.Fatalf("header %d: PowHashWork %s, want %s", i, got.BEHex(), want.BEHex())
		}
		if h.Target != beHexU256(t, r.TargetBEHex) {
			t.Fatalf("header %d: target %s, record says %s", i, h.Target.BEHex(), r.TargetBEHex)
		}
		if !CheckPow(h) {
			t.Fatalf("header %d (height %d): CheckPow false for a mined mainnet header", i, r.Height)
		}
	}
}

// Genesis and triple headers carry their PoW hash too (genesis ones need not meet the target).
func TestPowHashOtherVectors(t *testing.T) {
	n := 0
	for _, name := range genesisFiles {
		var f genesisFile
		loadJSON(t, name, &f)
		for _, r := range f.Headers {
			h, _ := r.decode(t)
			if got, want := PowHash(h), powU256(t, r.PowHash); got != want {
				t.Fatalf("%s chain %d: PowHash %s, want %s", name, r.ChainID, got.BEHex(), want.BEHex())
			}
			if r.PowValid == nil || CheckPow(h) != *r.PowValid {
				t.Fatalf("%s chain %d: CheckPow %v, record says %v", name, r.ChainID, CheckPow(h), r.PowValid)
			}
			n++
		}
	}
	for _, tr := range loadTriples(t) {
		recs := append([]vecHeader{tr.vec.Header, tr.vec.Parent}, tr.vec.AdjacentParents...)
		hs := append([]*ledger.Header{tr.h, tr.p}, tr.adj...)
		for i, h := range hs {
			if got, want := PowHash(h), powU256(t, recs[i].PowHash); got != want {
				t.Fatalf("triple height %d record %d: PowHash %s, want %s", tr.h.Height, i, got.BEHex(), want.BEHex())
			}
			if !CheckPow(h) {
				t.Fatalf("triple height %d record %d: real mined header fails CheckPow", tr.h.Height, i)
			}
			n++
		}
	}
	if n < 80+7*5 {
		t.Fatalf("checked only %d headers", n)
	}
}

// PowHash must not allocate: it runs for every header received and in the miner's loop.
func TestPowHashDoesNotAllocate(t *testing.T) {
	h := loadChain5(t).hs[0]
	var sink ledger.U256
	if n := testing.AllocsPerRun(200, func() { sink = PowHash(h) }); n != 0 {
		t.Fatalf("PowHash allocates %.1f times per call", n)
	}
	if n := testing.AllocsPerRun(200, func() { _ = CheckPow(h) }); n != 0 {
		t.Fatalf("CheckPow allocates %.1f times per call", n)
	}
	_ = sink
}

// A header with more adjacents than the degree-3 buffer holds takes the large-buffer path and
// must hash the same bytes as its encoding.
func TestPowHashLargeHeader(t *testing.T) {
	h := loadChain5(t).hs[0].Clone()
	for c := ledger.ChainID(100); len(h.Adjacents) < ledger.MaxAdjacents; c++ {
		h.Adjacents = append(h.Adjacents, ledger.Adjacent{Chain: c, Hash: ledger.Hash{byte(c)}})
	}
	if h.Size() <= ledger.HeaderSize {
		t.Fatalf("test header is only %d bytes", h.Size())
	}
	if got, want := PowHash(h), PowHashWork(h.WorkBytes()); got != want {
		t.Fatalf("large header: PowHash %s, PowHashWork %s", got.BEHex(), want.BEHex())
	}
	if n := testing.AllocsPerRun(50, func() { _ = PowHash(h) }); n != 0 {
		t.Fatalf("PowHash of a %d-byte header allocates %.1f times", h.Size(), n)
	}
}

// The PoW check accepts a hash equal to the target (upstream checkTarget uses <=) and rejects
// one unit above. Real PoW hashes from the vectors serve as targets.
func TestCheckTargetBoundary(t *testing.T) {
	c := loadChain5(t)
	for i := 0; i < len(c.recs); i += 37 {
		p := powU256(t, c.recs[i].PowHash)
		if !CheckTarget(p, p) {
			t.Fatalf("pow %s rejected at target equal to it", p.BEHex())
		}
		below := p
		borrow := uint64(1)
		for j := 0; j < 4 && borrow != 0; j++ {
			below[j], borrow = below[j]-borrow, boolToU64(below[j] < borrow)
		}
		if CheckTarget(below, p) {
			t.Fatalf("pow %s accepted at target %s", p.BEHex(), below.BEHex())
		}
		if !CheckTarget(ledger.MaxU256, p) {
			t.Fatalf("pow %s rejected at the maximum target", p.BEHex())
		}
	}
	if CheckTarget(ledger.U256{}, ledger.U256{1}) || !CheckTarget(ledger.U256{}, ledger.U256{}) {
		t.Fatal("target 0 must accept only the zero hash")
	}
}

func boolToU64(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
