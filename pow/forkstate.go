package pow

import "github.com/ledgernode/ledger-node/ledger"

// Fork state (header field 0 since the final upstream release, "Forks done right"; §4.6 and
// upstream ForkState.hs). The low 32 bits are the fork number, the high 32 bits the fork votes.
// Each fork epoch of 14,400 heights has 14,280 vote blocks, in which a block may add one vote
// step, followed by 120 count blocks that average the votes of the parent and adjacent parents,
// so that the whole braid agrees on a count. At the next epoch start the fork number rises iff
// the count reached two thirds of the vote blocks.
const (
	ForkEpochLength = 120 * 120 // heights per fork epoch
	VoteCountLength = 120       // count blocks at the end of each fork epoch
	VoteStep        = 1000      // votes added by one "yes" block
)

// ForkState packs a fork number and a vote count into the header's feature-flags field.
func ForkState(number, votes uint32) uint64 { return uint64(votes)<<32 | uint64(number) }

// IsForkEpochStart reports whether height starts a fork epoch (votes reset, fork number decided).
func IsForkEpochStart(height uint64) bool { return height%ForkEpochLength == 0 }

// IsLastForkEpochBlock reports whether height is the last of its fork epoch.
func IsLastForkEpochBlock(height uint64) bool {
	return height%ForkEpochLength == ForkEpochLength-1
}

// IsForkVoteBlock reports whether a block at height may vote; the others are count blocks.
func IsForkVoteBlock(height uint64) bool {
	return height%ForkEpochLength < ForkEpochLength-VoteCountLength
}

// AddVote adds one vote step. Votes are a Word32 upstream and the addition wraps; this keeps
// byte-identical results for any input.
func AddVote(votes uint32) uint32 { return votes + VoteStep }

// CountVotes is one vote-counting step: the sum of the votes of the parent and the adjacent
// parents, quot their number. The sum wraps at 2^32 as upstream's Word32 sum does. An empty list
// counts 0.
func CountVotes(votes ...uint32) uint32 {
	if len(votes) == 0 {
		return 0
	}
	var sum uint32
	for _, v := range votes {
		sum += v
	}
	return sum / uint32(len(votes))
}

// DecideVotes reports whether a vote count at the end of a fork epoch raises the fork number:
// round(votes / 1000) * 3 >= 2 * (14,400 - 120), where round is Haskell's round (half to even).
func DecideVotes(votes uint32) bool {
	q, r := uint64(votes/VoteStep), votes%VoteStep
	if r > VoteStep/2 || (r == VoteStep/2 && q%2 == 1) {
		q++
	}
	return q*3 >= (ForkEpochLength-VoteCountLength)*2
}

// skipForkRules reports whether the fork-state rules are off at a header height: below
// SkipFeatureFlagValidation (mainnet 530,500) field 0 held arbitrary bytes.
func skipForkRules(v *ledger.Version, height uint64) bool {
	return guardActive(v.Forks.SkipFeatureFlagValidation, height)
}

// NextForkState returns the fork state of a new block on top of parent with the given adjacent
// parents (none may be nil). The block votes "yes" iff the parent's fork number is below
// targetFork (production versions target fork 0, so their blocks carry no votes and flags 0).
//
// Upstream newForkState classifies the new block by its parent's height, while validation
// classifies it by its own height. Both agree except for the first count block of an epoch,
// where creation would add a vote that validation rejects. This follows validation, so the
// blocks we create are valid; the difference only shows when someone votes.
func NextForkState(parent *ledger.Header, adjParents []*ledger.Header, targetFork uint32) uint64 {
	number, votes := parent.ForkNumber(), parent.ForkVotes()
	vote := number < targetFork
	h := childHeight(parent.Height)
	switch {
	case IsForkEpochStart(h):
		if DecideVotes(votes) {
			number++
		}
		votes = 0
		if vote {
			votes = AddVote(votes)
		}
	case IsForkVoteBlock(h):
		if vote {
			votes = AddVote(votes)
		}
	default:
		votes = countParentVotes(parent, adjParents)
	}
	return ForkState(number, votes)
}

// countParentVotes is CountVotes over the parent and the adjacent parents.
func countParentVotes(parent *ledger.Header, adjParents []*ledger.Header) uint32 {
	sum := parent.ForkVotes()
	n := uint32(1)
	for _, a := range adjParents {
		sum += a.ForkVotes()
		n++
	}
	return sum / n
}
