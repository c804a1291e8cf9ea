package pow

import (
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

func TestForkEpochClasses(t *testing.T) {
	// §4.6: 14,400 heights per fork epoch, the last 120 of them count blocks.
	for _, c := range []struct {
		h                 uint64
		start, vote, last bool
	}{
		{0, true, true, false},
		{1, false, true, false},
		{14279, false, true, false},
		{14280, false, false, false},
		{14399, false, false, true},
		{14400, true, true, false},
		{6321600, true, true, false},
		{6321599, false, false, true},
		{6326122, false, true, false},
	} {
		if IsForkEpochStart(c.h) != c.start || IsForkVoteBlock(c.h) != c.vote || IsLastForkEpochBlock(c.h) != c.last {
			t.Errorf("height %d: start %v vote %v last %v", c.h, IsForkEpochStart(c.h), IsForkVoteBlock(c.h), IsLastForkEpochBlock(c.h))
		}
	}
}

func TestDecideVotes(t *testing.T) {
	// round(votes/1000) * 3 >= 28,560, i.e. round(votes/1000) >= 9,520, with half-to-even rounding.
	for _, c := range []struct {
		votes uint32
		want  bool
	}{
		{0, false},
		{9_519_499, false}, // 9519.499 rounds to 9519
		{9_519_500, true},  // 9519.5 rounds to the even 9520
		{9_518_500, false}, // 9518.5 rounds to the even 9518
		{9_520_000, true},
		{9_520_500, true}, // 9520.5 rounds to 9520
		{^uint32(0), true},
	} {
		if got := DecideVotes(c.votes); got != c.want {
			t.Errorf("DecideVotes(%d) = %v, want %v", c.votes, got, c.want)
		}
	}
}

func TestCountVotes(t *testing.T) {
	for _, c := range []struct {
		votes []uint32
		want  uint32
	}{
		{[]uint32{3000, 1000, 2000, 6000}, 3000},
		{[]uint32{1, 2}, 1},          // quot rounds toward zero
		{[]uint32{^uint32(0), 1}, 0}, // the Word32 sum wraps to 0
		{nil, 0},
	} {
		if got := CountVotes(c.votes...); got != c.want {
			t.Errorf("CountVotes(%v) = %d, want %d", c.votes, got, c.want)
		}
	}
	if AddVote(^uint32(0)-999) != 0 {
		t.Error("AddVote must wrap like a Word32")
	}
	if f := ForkState(7, 3000); uint32(f) != 7 || uint32(f>>32) != 3000 {
		t.Errorf("ForkState packs %#x", f)
	}
}

// forkFixture is a parent on development chain 0 with its three adjacent parents at the given
// height, carrying the given votes; hashes are arbitrary but distinct, since the step
// validators only match them.
func forkFixture(height uint64, number uint32, votes [4]uint32) (*ledger.Header, []*ledger.Header) {
	const es int64 = 1_600_000_000_000_000
	mk := func(i int, c ledger.ChainID) *ledger.Header {
		h := &ledger.Header{
			FeatureFlags: ForkState(number, votes[i]),
			CreationTime: es + 10_000_000 + int64(i),
			ChainID:      c,
			Height:       height,
			Version:      ledger.Development.Code,
			EpochStart:   es,
			Target:       ledger.MaxU256,
			Weight:       ledger.U256{uint64(height)},
		}
		h.Hash[0], h.Hash[1] = byte(i+1), byte(c)
		return h
	}
	return mk(0, 0), []*ledger.Header{mk(1, 5), mk(2, 10), mk(3, 15)}
}

// Count blocks average the parents' votes; NewHeader produces that value and validation
// insists on it.
func TestForkVoteCountBlock(t *testing.T) {
	v := ledger.Development
	p, adj := forkFixture(14300, 0, [4]uint32{3000, 1000, 2000, 6000})
	h, err := NewHeader(v, p, adj, ledger.Hash{}, p.CreationTime+30_000_000, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if h.ForkVotes() != 3000 || h.ForkNumber() != 0 {
		t.Fatalf("count block flags %#x, want 3000 votes", h.FeatureFlags)
	}
	wantRule(t, ValidateChainStep(v, h, p), "")
	wantRule(t, ValidateWebStep(v, h, p, adj), "")
	h.FeatureFlags = ForkState(0, 4000)
	wantRule(t, ValidateChainStep(v, h, p), "") // count blocks are a web-step rule
	wantRule(t, ValidateWebStep(v, h, p, adj), InvalidForkVotes)
}

// The first count block: upstream's newForkState would still add a vote (it looks at the
// parent's height), which validation rejects. NextForkState counts instead.
func TestForkStateFirstCountBlock(t *testing.T) {
	v := ledger.Development
	p, adj := forkFixture(14279, 0, [4]uint32{5000, 5000, 5000, 1000})
	h, err := NewHeader(v, p, adj, ledger.Hash{}, p.CreationTime+30_000_000, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if h.ForkVotes() != 4000 {
		t.Fatalf("first count block has %d votes, want the average 4000", h.ForkVotes())
	}
	wantRule(t, ValidateWebStep(v, h, p, adj), "")
	h.FeatureFlags = ForkState(0, AddVote(p.ForkVotes())) // what upstream's creation rule yields
	wantRule(t, ValidateWebStep(v, h, p, adj), InvalidForkVotes)
}

// At a fork epoch start the fork number rises iff the parent's count reached two thirds.
func TestForkNumberDecision(t *testing.T) {
	v := ledger.Development
	for _, c := range []struct {
		votes      uint32
		wantNumber uint32
	}{{9_519_500, 3}, {9_519_499, 2}} {
		p, adj := forkFixture(2*14400-1, 2, [4]uint32{c.votes, c.votes, c.votes, c.votes})
		h, err := NewHeader(v, p, adj, ledger.Hash{}, p.CreationTime+30_000_000, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.ForkNumber() != c.wantNumber || h.ForkVotes() != 0 {
			t.Fatalf("votes %d: fork state %#x, want number %d and votes reset", c.votes, h.FeatureFlags, c.wantNumber)
		}
		wantRule(t, ValidateChainStep(v, h, p), "")
		wantRule(t, ValidateWebStep(v, h, p, adj), "")
		h.FeatureFlags = ForkState(5-c.wantNumber, 0) // the other outcome
		wantRule(t, ValidateChainStep(v, h, p), IncorrectForkNumber)
	}
}

// A whole fork epoch on a single chain: every block votes for fork 1 until it is reached, and
// every block validates.
func TestForkEpochSingleton(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 14,402 headers")
	}
	v := noPow(ledger.TestSingleton)
	g := ledger.GenesisHeader(v, 0, ledger.Hash{})
	p := g
	for height := uint64(1); height <= ForkEpochLength+2; height++ {
		h, err := NewHeader(v, p, nil, ledger.Hash{}, v.GenesisTime+int64(height)*v.BlockDelay, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(v, h, p, nil, farFuture); err != nil {
			t.Fatalf("height %d: %v", height, err)
		}
		switch height {
		case ForkEpochLength - VoteCountLength - 1, ForkEpochLength - 1:
			// Every vote block from 1 to 14,279 voted; the count blocks keep that count.
			if h.ForkVotes() != (ForkEpochLength-VoteCountLength-1)*VoteStep {
				t.Fatalf("height %d: %d votes", height, h.ForkVotes())
			}
		case ForkEpochLength:
			if h.ForkNumber() != 1 || h.ForkVotes() != VoteStep {
				t.Fatalf("fork epoch start: number %d votes %d, want 1 and one vote", h.ForkNumber(), h.ForkVotes())
			}
		case ForkEpochLength + 2:
			if h.ForkNumber() != 1 || h.ForkVotes() != VoteStep {
				t.Fatalf("after reaching the target fork: number %d votes %d", h.ForkNumber(), h.ForkVotes())
			}
		}
		p = h
	}
}
