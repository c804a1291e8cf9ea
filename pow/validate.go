package pow

import (
	"errors"
	"fmt"

	"github.com/ledgernode/ledger-node/ledger"
)

// Rule names a validation rule. The values are the upstream failure names
// (ValidationFailureType in BlockHeader/Validation.hs), so logs and peers' reports line up.
type Rule string

// The validation rules (§4.7). Not every rule is checked here: payload rules belong to the payload
// validator, and braiding is checked when a header joins a cut.
const (
	MissingParent               Rule = "MissingParent"
	MissingAdjacentParent       Rule = "MissingAdjacentParent"
	CreatedBeforeParent         Rule = "CreatedBeforeParent"
	VersionMismatch             Rule = "VersionMismatch"
	ChainMismatch               Rule = "ChainMismatch"
	AdjacentChainMismatch       Rule = "AdjacentChainMismatch"
	AdjacentParentChainMismatch Rule = "AdjacentParentChainMismatch"
	IncorrectHash               Rule = "IncorrectHash"
	IncorrectPow                Rule = "IncorrectPow"
	IncorrectHeight             Rule = "IncorrectHeight"
	IncorrectWeight             Rule = "IncorrectWeight"
	IncorrectTarget             Rule = "IncorrectTarget"
	IncorrectEpoch              Rule = "IncorrectEpoch"
	IncorrectGenesisParent      Rule = "IncorrectGenesisParent"
	IncorrectGenesisTarget      Rule = "IncorrectGenesisTarget"
	BlockInTheFuture            Rule = "BlockInTheFuture"
	IncorrectPayloadHash        Rule = "IncorrectPayloadHash"
	MissingPayload              Rule = "MissingPayload"
	InvalidFeatureFlags         Rule = "InvalidFeatureFlags"
	InvalidBraiding             Rule = "InvalidBraiding"
	InvalidAdjacentVersion      Rule = "InvalidAdjacentVersion"
	IncorrectForkNumber         Rule = "IncorrectForkNumber"
	InvalidForkVotes            Rule = "InvalidForkVotes"
	// InvalidPayload: the payload does not execute, on the parent's Pact state, to the
	// outputs it records (upstream throws a block validation failure from the Pact service).
	InvalidPayload Rule = "InvalidPayload"

	// InvalidValidationParameters is not a verdict on the header: the caller passed a nil
	// header or version, a version without graphs, or a parent that is not the header's parent
	// (upstream throws InvalidValidationParameters for the last). It is neither ephemeral nor
	// definite.
	InvalidValidationParameters Rule = "InvalidValidationParameters"
)

// Ephemeral reports whether a failure may go away later (a missing parent or payload arrives,
// the clock passes the creation time), so the header should be kept or retried rather than
// rejected (upstream ephemeralValidationFailures).
func (r Rule) Ephemeral() bool {
	switch r {
	case MissingParent, MissingAdjacentParent, MissingPayload, BlockInTheFuture:
		return true
	}
	return false
}

// Definite reports whether a failure proves the header invalid, so that its sender misbehaved
// (upstream definiteValidationFailures). The adjacency rules (AdjacentChainMismatch,
// AdjacentParentChainMismatch, InvalidAdjacentVersion), InvalidFeatureFlags and InvalidBraiding
// are neither definite nor ephemeral upstream: the header is rejected, but upstream does not count
// it against the peer. This classification is kept.
func (r Rule) Definite() bool {
	switch r {
	case CreatedBeforeParent, VersionMismatch, ChainMismatch, IncorrectHash, IncorrectPow,
		IncorrectHeight, IncorrectWeight, IncorrectTarget, IncorrectEpoch, IncorrectGenesisParent,
		IncorrectGenesisTarget, IncorrectPayloadHash, IncorrectForkNumber, InvalidForkVotes, InvalidPayload:
		return true
	}
	return false
}

// ValidationError is a failed validation rule. Ephemeral is Rule.Ephemeral(), stored so that
// callers that only see the struct (logs, JSON) keep the distinction.
type ValidationError struct {
	Rule      Rule
	Ephemeral bool
	Detail    string // which header, and the values that disagree
}

func (e *ValidationError) Error() string {
	if e.Detail == "" {
		return "invalid header: " + string(e.Rule)
	}
	return "invalid header: " + string(e.Rule) + ": " + e.Detail
}

// IsEphemeral reports whether err is (or wraps) a ValidationError that may succeed later.
func IsEphemeral(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve) && ve.Ephemeral
}

// IsDefinite reports whether err is (or wraps) a ValidationError that proves the header invalid.
func IsDefinite(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve) && ve.Rule.Definite()
}

// RuleOf returns the rule of a ValidationError in err's chain, or "" if there is none.
func RuleOf(err error) Rule {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve.Rule
	}
	return ""
}

// fail builds a ValidationError. Formatting only happens on failure, so the success path of a
// validation allocates nothing here.
func fail(rule Rule, h *ledger.Header, format string, args ...any) *ValidationError {
	detail := fmt.Sprintf(format, args...)
	if h != nil {
		detail = fmt.Sprintf("chain %d height %d: %s", h.ChainID, h.Height, detail)
	}
	return &ValidationError{Rule: rule, Ephemeral: rule.Ephemeral(), Detail: detail}
}

// asError turns a nil *ValidationError into a nil error (not a non-nil interface holding nil).
func asError(e *ValidationError) error {
	if e == nil {
		return nil
	}
	return e
}

// ValidateIntrinsic checks what the header alone and the clock decide (§4.7 rules 1–7): block
// hash, PoW, genesis parent and target, creation time not after nowMicros (ephemeral), the
// adjacent chain ids against the chain graph, and the fork-vote reset. v must be the header's
// own version.
func ValidateIntrinsic(v *ledger.Version, h *ledger.Header, nowMicros int64) error {
	if e := checkParams(v, h); e != nil {
		return e
	}
	return asError(intrinsic(v, h, nowMicros))
}

// ValidateChainStep checks h against its parent on the same chain (§4.7 rules 8–13): height,
// version, weight, chain id and the fork vote and fork number steps. A genesis header is its own
// parent; parent is then ignored and may be nil. For any other header a nil parent is
// MissingParent (ephemeral).
func ValidateChainStep(v *ledger.Version, h, parent *ledger.Header) error {
	if e := checkParams(v, h); e != nil {
		return e
	}
	p, genesis, e := resolveParent(v, h, parent)
	if e != nil {
		return e
	}
	return asError(chainStep(v, h, p, genesis))
}

// ValidateWebStep checks h against its parent and adjacent parents (§4.7 rules 14–19): epoch
// start, target, creation time, that each adjacent hash names a block on that chain, the
// adjacent parents' version and the fork vote count.
//
// adjParents are the headers the caller found for h's adjacent hashes, in any order; entries
// h does not reference are ignored. An adjacent hash with no matching header is
// MissingAdjacentParent (ephemeral); one that names a block of another chain is
// AdjacentParentChainMismatch. A genesis header's adjacents must be the genesis parent hashes
// of its neighbours; adjParents are then not read (no genesis height of a known version needs
// its neighbours for the target or the vote count).
func ValidateWebStep(v *ledger.Version, h, parent *ledger.Header, adjParents []*ledger.Header) error {
	if e := checkParams(v, h); e != nil {
		return e
	}
	p, genesis, e := resolveParent(v, h, parent)
	if e != nil {
		return e
	}
	var buf [ledger.MaxAdjacents]*ledger.Header
	adj, e := resolveAdjacents(v, h, genesis, adjParents, buf[:0])
	if e != nil {
		return e
	}
	return asError(webStep(v, h, p, adj, genesis))
}

// Validate runs every rule: intrinsic, then chain step, then web step, and returns the first
// failure. Intrinsic rules go first so that a header that can never be valid is rejected before
// its missing parents make it look worth keeping. For a genesis header parent and adjParents
// are ignored (see ValidateChainStep and ValidateWebStep).
func Validate(v *ledger.Version, h, parent *ledger.Header, adjParents []*ledger.Header, nowMicros int64) error {
	_, e := validate(v, h, parent, adjParents, nowMicros)
	return asError(e)
}

// Passed says which groups of rules a header passed, in the order Validate applies them.
type Passed uint8

const (
	PassedNone      Passed = iota
	PassedIntrinsic        // the header alone and the clock (ValidateIntrinsic)
	PassedChainStep        // and its parent (ValidateChainStep)
	PassedAll              // and its adjacent parents (ValidateWebStep): every rule
)

// ValidateHeader is Validate that also says how far the header got: the groups of rules it
// passed before the first failure, PassedAll when it returns nil. The chain actors reject a
// header on any failure; header import, whose files start mid-chain, keeps a header whose only
// failure is a MissingParent (it passed the intrinsic rules) or a MissingAdjacentParent (and the
// chain step), and counts the checks it could apply.
func ValidateHeader(v *ledger.Version, h, parent *ledger.Header, adjParents []*ledger.Header, nowMicros int64) (Passed, error) {
	passed, e := validate(v, h, parent, adjParents, nowMicros)
	return passed, asError(e)
}

func validate(v *ledger.Version, h, parent *ledger.Header, adjParents []*ledger.Header, nowMicros int64) (Passed, *ValidationError) {
	if e := checkParams(v, h); e != nil {
		return PassedNone, e
	}
	if e := intrinsic(v, h, nowMicros); e != nil {
		return PassedNone, e
	}
	p, genesis, e := resolveParent(v, h, parent)
	if e != nil {
		return PassedIntrinsic, e
	}
	if e := chainStep(v, h, p, genesis); e != nil {
		return PassedIntrinsic, e
	}
	var buf [ledger.MaxAdjacents]*ledger.Header
	adj, e := resolveAdjacents(v, h, genesis, adjParents, buf[:0])
	if e != nil {
		return PassedChainStep, e
	}
	if e := webStep(v, h, p, adj, genesis); e != nil {
		return PassedChainStep, e
	}
	return PassedAll, nil
}

// checkParams rejects calls no rule can be evaluated for, and headers of another version: every
// rule depends on the version's parameters, so the caller must pick the header's own.
func checkParams(v *ledger.Version, h *ledger.Header) *ValidationError {
	switch {
	case h == nil:
		return fail(InvalidValidationParameters, nil, "nil header")
	case v == nil:
		return fail(InvalidValidationParameters, h, "nil version")
	case len(v.Graphs) == 0:
		return fail(InvalidValidationParameters, h, "version %s has no chain graph", v.Name)
	case h.Version != v.Code:
		return fail(VersionMismatch, h, "header version code %#x, validated as %s (%#x)", h.Version, v.Name, v.Code)
	}
	return nil
}

func intrinsic(v *ledger.Version, h *ledger.Header, now int64) *ValidationError {
	genesis := v.IsGenesisHeight(h.ChainID, h.Height)
	if got := h.ComputeHash(); got != h.Hash {
		return fail(IncorrectHash, h, "stored hash %s, computed %s", h.Hash, got)
	}
	if !genesis && !v.DisablePow {
		if p := PowHash(h); !CheckTarget(h.Target, p) {
			return fail(IncorrectPow, h, "pow hash %s is above target %s", p.BEHex(), h.Target.BEHex())
		}
	}
	if gp := genesisParentHash(v, h.ChainID); (h.Parent == gp) != genesis {
		if genesis {
			return fail(IncorrectGenesisParent, h, "genesis header's parent %s is not the genesis parent hash %s", h.Parent, gp)
		}
		return fail(IncorrectGenesisParent, h, "parent is the genesis parent hash %s, but the chain's genesis is not at this height", gp)
	}
	if genesis {
		if gt := v.GenesisTarget(h.ChainID); h.Target != gt {
			return fail(IncorrectGenesisTarget, h, "target %s, the genesis target is %s", h.Target.BEHex(), gt.BEHex())
		}
	}
	if h.CreationTime > now {
		return fail(BlockInTheFuture, h, "creation time %d µs is after now (%d µs)", h.CreationTime, now)
	}
	if e := checkAdjacentChains(v, h); e != nil {
		return e
	}
	if !skipForkRules(v, h.Height) && IsForkEpochStart(h.Height) {
		if votes := h.ForkVotes(); votes != 0 && votes != VoteStep {
			return fail(InvalidForkVotes, h, "%d votes at a fork epoch start (must be 0 or %d)", votes, VoteStep)
		}
	}
	return nil
}

// checkAdjacentChains checks that the chain is in the graph a header at this height is checked
// against and that the adjacent chain ids are exactly its neighbours. The comparison is on the
// ascending lists: a header whose adjacents are out of order has no canonical encoding.
func checkAdjacentChains(v *ledger.Version, h *ledger.Header) *ValidationError {
	g := v.HeaderGraph(h.ChainID, h.Height)
	if !g.Has(h.ChainID) {
		return fail(AdjacentChainMismatch, h, "chain %d is not in the %s graph that applies at this height", h.ChainID, g.Name)
	}
	want := g.Neighbors(h.ChainID)
	ok := len(want) == len(h.Adjacents)
	for i := 0; ok && i < len(want); i++ {
		ok = h.Adjacents[i].Chain == want[i]
	}
	if !ok {
		got := make([]ledger.ChainID, len(h.Adjacents))
		for i, a := range h.Adjacents {
			got[i] = a.Chain
		}
		return fail(AdjacentChainMismatch, h, "adjacent chains %v, the %s graph has %v", got, g.Name, want)
	}
	return nil
}

// resolveParent returns the parent to check h against: h itself for a genesis header (upstream
// validateBlockParentExists), else parent, which must be the block h names.
func resolveParent(v *ledger.Version, h, parent *ledger.Header) (*ledger.Header, bool, *ValidationError) {
	if v.IsGenesisHeight(h.ChainID, h.Height) {
		return h, true, nil
	}
	if parent == nil {
		return nil, false, fail(MissingParent, h, "parent %s is not available", h.Parent)
	}
	if parent.Hash != h.Parent {
		return nil, false, fail(InvalidValidationParameters, h, "supplied parent %s is not the header's parent %s", parent.Hash, h.Parent)
	}
	return parent, false, nil
}

// resolveAdjacents pairs each adjacent hash of h with the header the caller supplied for it,
// appending them to dst in h's adjacent order.
func resolveAdjacents(v *ledger.Version, h *ledger.Header, genesis bool, adjParents, dst []*ledger.Header) ([]*ledger.Header, *ValidationError) {
	for _, x := range adjParents {
		if x == nil {
			return nil, fail(InvalidValidationParameters, h, "nil adjacent parent")
		}
	}
	if genesis {
		for _, a := range h.Adjacents {
			if gp := genesisParentHash(v, a.Chain); a.Hash != gp {
				return nil, fail(AdjacentParentChainMismatch, h, "genesis header's adjacent on chain %d is %s, not that chain's genesis parent hash %s", a.Chain, a.Hash, gp)
			}
		}
		return dst, nil
	}
	for _, a := range h.Adjacents {
		var found *ledger.Header
		for _, x := range adjParents {
			if x.Hash == a.Hash {
				found = x
				break
			}
		}
		switch {
		case found != nil && found.ChainID != a.Chain:
			return nil, fail(AdjacentParentChainMismatch, h, "adjacent hash %s for chain %d names a block on chain %d", a.Hash, a.Chain, found.ChainID)
		case found != nil:
			dst = append(dst, found)
		case a.Hash == genesisParentHash(v, a.Chain):
			// Upstream resolves a genesis parent hash to that chain's genesis header, whose own
			// hash then fails to match: a definite mismatch, not something to wait for.
			return nil, fail(AdjacentParentChainMismatch, h, "adjacent on chain %d is that chain's genesis parent hash", a.Chain)
		default:
			return nil, fail(MissingAdjacentParent, h, "adjacent parent %s on chain %d is not available", a.Hash, a.Chain)
		}
	}
	return dst, nil
}

func chainStep(v *ledger.Version, h, p *ledger.Header, genesis bool) *ValidationError {
	if genesis {
		if h.Height != p.Height {
			return fail(IncorrectHeight, h, "genesis height differs from its parent's %d", p.Height)
		}
	} else if p.Height == ^uint64(0) || h.Height != p.Height+1 {
		return fail(IncorrectHeight, h, "parent height is %d", p.Height)
	}
	if h.Version != p.Version {
		return fail(VersionMismatch, h, "version %#x, parent version %#x", h.Version, p.Version)
	}
	if genesis {
		if h.Weight != p.Weight {
			return fail(IncorrectWeight, h, "genesis weight %s differs from its parent's %s", h.Weight, p.Weight)
		}
	} else {
		want, err := Weight(p.Weight, h.Target)
		if err != nil {
			return fail(IncorrectWeight, h, "%v", err)
		}
		if h.Weight != want {
			d, _ := Difficulty(h.Target)
			return fail(IncorrectWeight, h, "weight %s, expected parent weight %s + difficulty %s = %s", h.Weight, p.Weight, d, want)
		}
	}
	if h.ChainID != p.ChainID {
		return fail(ChainMismatch, h, "parent is on chain %d", p.ChainID)
	}
	if !skipForkRules(v, h.Height) {
		votes, pvotes := h.ForkVotes(), p.ForkVotes()
		switch {
		case IsForkEpochStart(h.Height):
			if votes != 0 && votes != VoteStep {
				return fail(InvalidForkVotes, h, "%d votes at a fork epoch start (must be 0 or %d)", votes, VoteStep)
			}
		case IsForkVoteBlock(h.Height):
			if votes != pvotes && votes != AddVote(pvotes) {
				return fail(InvalidForkVotes, h, "%d votes, parent has %d (may add at most one vote of %d)", votes, pvotes, VoteStep)
			}
		}
		want := p.ForkNumber()
		if IsForkEpochStart(h.Height) && DecideVotes(pvotes) {
			want++
		}
		if got := h.ForkNumber(); got != want {
			return fail(IncorrectForkNumber, h, "fork number %d, expected %d (parent %d with %d votes)", got, want, p.ForkNumber(), pvotes)
		}
	}
	return nil
}

func webStep(v *ledger.Version, h, p *ledger.Header, adj []*ledger.Header, genesis bool) *ValidationError {
	if h.EpochStart > h.CreationTime {
		return fail(IncorrectEpoch, h, "epoch start %d is after the creation time %d", h.EpochStart, h.CreationTime)
	}
	if guardActive(v.Forks.OldDAGuard, h.Height) && h.EpochStart < p.EpochStart {
		return fail(IncorrectEpoch, h, "epoch start %d is before the parent's %d", h.EpochStart, p.EpochStart)
	}
	if want := NextEpochStart(v, p, h.CreationTime); h.EpochStart != want {
		return fail(IncorrectEpoch, h, "epoch start %d, expected %d", h.EpochStart, want)
	}

	want, err := NextTarget(v, p, adj, h.CreationTime)
	if err != nil {
		return fail(IncorrectTarget, h, "no target can be derived from the parents: %v", err)
	}
	if h.Target != want {
		return fail(IncorrectTarget, h, "target %s, expected %s", h.Target.BEHex(), want.BEHex())
	}

	if genesis {
		if h.CreationTime != p.CreationTime {
			return fail(CreatedBeforeParent, h, "genesis creation time %d differs from its parent's %d", h.CreationTime, p.CreationTime)
		}
	} else {
		if h.CreationTime <= p.CreationTime {
			return fail(CreatedBeforeParent, h, "creation time %d is not after the parent's %d", h.CreationTime, p.CreationTime)
		}
		// Since OldDAGuard a block must also be younger than every adjacent parent, because the
		// current adjustment measures their epochs too.
		if !guardActive(v.Forks.OldDAGuard, h.Height) {
			for _, x := range adj {
				if h.CreationTime <= x.CreationTime {
					return fail(CreatedBeforeParent, h, "creation time %d is not after adjacent parent %s's %d on chain %d", h.CreationTime, x.Hash, x.CreationTime, x.ChainID)
				}
			}
		}
	}

	for _, x := range adj {
		if x.Version != h.Version {
			return fail(InvalidAdjacentVersion, h, "adjacent parent %s on chain %d has version %#x", x.Hash, x.ChainID, x.Version)
		}
	}

	// Count blocks: the votes are the average of the parent's and the adjacent parents'. The
	// other two cases of upstream's rule repeat the intrinsic and chain-step vote checks.
	if !skipForkRules(v, h.Height) && !IsForkEpochStart(h.Height) && !IsForkVoteBlock(h.Height) {
		if want := countParentVotes(p, adj); h.ForkVotes() != want {
			return fail(InvalidForkVotes, h, "%d votes in a count block, expected the parents' average %d", h.ForkVotes(), want)
		}
	}
	return nil
}
