package actors

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// Header import (ledger-node import-headers) stores headers read from a file, so that real
// header chains can be served and queried. It runs while no node runs on the data directory
// (goleveldb's lock keeps one out), so it is the directory's only writer, as the chain actors are
// while a node runs. It validates a header as a chain actor does, with pow.ValidateHeader over
// the parents parentsOf finds, and writes headers through the store in batches of importBatch
// (store.PutHeaders: a header log record and its height-index entry each, as store.PutBlock
// writes for a header without a payload), so that a file of millions of headers does not pay a
// synced write per header. It does not go
// through the chain actors themselves because a chain actor accepts only complete blocks whose
// parents it has, and an import file starts mid-chain and carries no payloads: a header whose
// parent or an adjacent parent is neither stored nor earlier in the file is kept after the rules
// that need neither (pow.MissingParent and pow.MissingAdjacentParent end its validation without
// rejecting it), and the summary counts the checks each header got.

// importBatch is how many accepted headers an import writes at once.
const importBatch = 1000

// ImportSummary counts what an import did and which checks it could apply.
type ImportSummary struct {
	Read, Stored, AlreadyStored, Rejected int
	// ParentChecked counts the headers that passed the rules of their parent link (height,
	// weight, fork number); WebChecked those that passed every rule, adjacent parents included.
	ParentChecked, WebChecked int
	// Rejections says, for each rejected header, which and why.
	Rejections []string
	Elapsed    time.Duration
}

// ImportProgress is how an import reports how far it is: Report, when set, hears the headers
// done (stored, present or rejected) every Every (DefaultImportProgressEvery if zero).
type ImportProgress struct {
	Every  time.Duration
	Report func(done, total int, elapsed time.Duration)
}

// DefaultImportProgressEvery is how often an import reports by default.
const DefaultImportProgressEvery = 2 * time.Second

// ImportHeaders validates headers in height order and stores each one that passes, then moves
// each chain's head to the heaviest header imported. A header whose parent was rejected is
// rejected too. progress hears how far the import is.
func ImportHeaders(db *store.DB, v *ledger.Version, headers []*ledger.Header, now time.Time,
	progress ImportProgress) (*ImportSummary, error) {
	if progress.Every <= 0 {
		progress.Every = DefaultImportProgressEvery
	}
	start := time.Now()
	sum := &ImportSummary{Read: len(headers)}
	slices.SortStableFunc(headers, func(a, b *ledger.Header) int { return cmp.Compare(a.Height, b.Height) })
	imported := map[ledger.Hash]*ledger.Header{}
	rejected := map[ledger.Hash]bool{}
	// pending are the accepted headers not yet written: parentsOf finds them there first.
	pending := map[ledger.Hash]*ledger.Header{}
	batch := make([]*ledger.Header, 0, importBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := db.PutHeaders(batch...)
		batch = batch[:0]
		clear(pending)
		return err
	}
	lookup := func(x ledger.Hash) (*ledger.Header, error) {
		if h, ok := pending[x]; ok {
			return h, nil
		}
		return stored(db, x)
	}
	lastReport := time.Now()
	nowMicros := now.UnixMicro()
	for i, h := range headers {
		// Every header counts, also one present or rejected: a file the node has already
		// is a long import too.
		if progress.Report != nil && i > 0 && time.Since(lastReport) >= progress.Every {
			lastReport = time.Now()
			progress.Report(i, len(headers), time.Since(start))
		}
		if _, ok := pending[h.Hash]; ok {
			sum.AlreadyStored++ // listed twice in the file
			continue
		}
		if ok, err := db.HasHeader(h.Hash); err != nil {
			return nil, err
		} else if ok && h.ComputeHash() == h.Hash {
			sum.AlreadyStored++
			imported[h.Hash] = h
			continue
		}
		passed, reason, err := validateImported(lookup, v, h, nowMicros, rejected[h.Parent])
		if err != nil {
			return nil, err
		}
		if passed >= pow.PassedChainStep {
			sum.ParentChecked++
		}
		if reason != "" {
			sum.Rejected++
			rejected[h.Hash] = true
			sum.Rejections = append(sum.Rejections, fmt.Sprintf("chain %d height %d %s: %s", h.ChainID, h.Height, h.Hash, reason))
			continue
		}
		if passed == pow.PassedAll {
			sum.WebChecked++
		}
		pending[h.Hash] = h
		if batch = append(batch, h); len(batch) == importBatch {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		imported[h.Hash] = h
		sum.Stored++
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if err := advanceHeads(db, imported); err != nil {
		return nil, err
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// validateImported validates h as a chain actor would, against the parents lookup finds (none when
// the parent was rejected in this import), except that a missing parent or adjacent parent ends
// the validation without rejecting h. reason is why h is rejected, "" when it is kept; passed
// says which groups of rules it passed.
func validateImported(lookup func(ledger.Hash) (*ledger.Header, error), v *ledger.Version, h *ledger.Header, nowMicros int64,
	parentRejected bool) (passed pow.Passed, reason string, err error) {
	if h.Version != v.Code {
		return pow.PassedNone, fmt.Sprintf("belongs to network code %#x, not %s", h.Version, v.Name), nil
	}
	parent, adj, err := parentsOf(h, lookup)
	if err != nil {
		return pow.PassedNone, "", err
	}
	if parentRejected {
		parent = nil
	}
	passed, verr := pow.ValidateHeader(v, h, parent, adj, nowMicros)
	switch {
	case verr == nil:
	case pow.RuleOf(verr) == pow.MissingParent && parentRejected:
		return passed, "its parent was rejected", nil
	case pow.RuleOf(verr) == pow.MissingParent, pow.RuleOf(verr) == pow.MissingAdjacentParent:
	default:
		return passed, verr.Error(), nil
	}
	return passed, "", nil
}

// advanceHeads moves each chain's head to the heaviest stored header among the imported ones.
func advanceHeads(db *store.DB, imported map[ledger.Hash]*ledger.Header) error {
	heads, err := db.Heads()
	if err != nil {
		return err
	}
	changed := false
	for _, h := range imported {
		cur, ok := heads[h.ChainID]
		if ok {
			if ch, err := db.Header(cur); err == nil && ch.Weight.Cmp(h.Weight) >= 0 {
				continue
			}
		}
		heads[h.ChainID] = h.Hash
		changed = true
	}
	if !changed {
		return nil
	}
	return db.SetHeads(heads)
}
