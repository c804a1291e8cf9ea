package actors

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/metrics/hist"
	"github.com/ledgernode/ledger-node/pow"
)

// What the node's metrics read (package metrics), at scrape time and without asking any actor:
// counters the actors keep as atomics on their own paths. Nothing here is built until someone
// reads it, so a node nobody scrapes pays an atomic add per block, transaction and failure.

// counts are the runtime's own counters.
type counts struct {
	inserted atomic.Uint64 // blocks the chain actors stored
	orphaned atomic.Uint64 // blocks that left the best cut when it switched to a heavier fork
	reorgs   reorgCounts
	failures ruleFailures
	exec     execTimes
	// chainEntered counts, by chain id, the blocks that entered the best cut.
	chainEntered []atomic.Uint64
}

// execTimes are how long the executors take to build a payload and to apply a block, all chains
// together.
type execTimes struct {
	build, apply hist.Histogram
}

// ruleFailures counts the blocks that failed each validation rule. Failures are rare (a bad
// peer, a block ahead of its parents), so a map under a lock does.
type ruleFailures struct {
	mu sync.Mutex
	m  map[pow.Rule]uint64
}

// note counts err's rule, if err is a validation failure.
func (f *ruleFailures) note(err error) {
	var ve *pow.ValidationError
	if !errors.As(err, &ve) {
		return
	}
	f.mu.Lock()
	if f.m == nil {
		f.m = map[pow.Rule]uint64{}
	}
	f.m[ve.Rule]++
	f.mu.Unlock()
}

// RuleCount is how many blocks failed one validation rule.
type RuleCount struct {
	Rule  pow.Rule
	Count uint64
}

// RuleFailures returns, for each rule some block failed since Start, how many did, by rule name.
func (r *Runtime) RuleFailures() []RuleCount {
	f := &r.counts.failures
	f.mu.Lock()
	out := make([]RuleCount, 0, len(f.m))
	for rule, n := range f.m {
		out = append(out, RuleCount{rule, n})
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(a, b RuleCount) int { return strings.Compare(string(a.Rule), string(b.Rule)) })
	return out
}

// Blocks returns how many blocks the chain actors stored since Start, and how many left the best
// cut on a switch to a heavier fork.
func (r *Runtime) Blocks() (inserted, orphaned uint64) {
	return r.counts.inserted.Load(), r.counts.orphaned.Load()
}

// Reorgs returns how many times the best cut switched to a heavier fork leaving blocks behind,
// and the most blocks one chain lost in one such switch.
func (r *Runtime) Reorgs() (count, deepest uint64) {
	return r.counts.reorgs.count.Load(), r.counts.reorgs.deepest.Load()
}

// Executions counts the executors' block executions since Start, all chains together:
// validated are blocks executed to validate them (once per block a peer or a fork brought, when
// nothing is executed twice), replayed are executions of blocks executed before (a branch whose
// writes were no longer kept, a replay after a restart), reapplied the blocks applied again
// from their kept writes without executing them (after a reorg).
func (r *Runtime) Executions() (validated, replayed, reapplied uint64) {
	for _, x := range r.execs {
		if x != nil {
			validated += x.counts.validated.Load()
			replayed += x.counts.replayed.Load()
			reapplied += x.counts.reapplied.Load()
		}
	}
	return
}

// ExecTimes returns the executors' histograms of building a payload (a build that hands back
// the last payload unchanged is not counted) and applying a block.
func (r *Runtime) ExecTimes() (build, apply hist.Snapshot) {
	return r.counts.exec.build.Snapshot(), r.counts.exec.apply.Snapshot()
}

// MempoolRejectReasons are the labels of ChainCounts.Rejected's entries: "decode" (the batch
// did not decode), then mempool.Check's steps ("gas_limit", ..., "pact").
var MempoolRejectReasons = func() (out [len(mempoolCounts{}.rejected)]string) {
	out[0] = "decode"
	for s := mempool.StepGasLimit; s <= mempool.StepPact; s++ {
		out[s] = s.Label()
	}
	return out
}()

// ChainCounts are one chain's transaction counters.
type ChainCounts struct {
	Chain ledger.ChainID
	// Transactions and Gas count the transactions of the blocks applied to the chain's Pact
	// state and the gas they used (a block replayed after a reorg counts again).
	Transactions, Gas uint64
	// Pending and Badlisted are the mempool's sizes now.
	Pending, Badlisted int
	// Admitted counts the transactions /send put in the mempool; Rejected those it refused, by
	// the reason of MempoolRejectReasons with the same index.
	Admitted uint64
	Rejected [len(MempoolRejectReasons)]uint64
	// Failed counts the transactions of Transactions whose result is a failure.
	Failed uint64
	// PendingBytes is the size of the pending transactions (cmd strings and signatures);
	// Oldest is when the one pending longest became pending (zero when none is).
	PendingBytes int64
	Oldest       time.Time
}

// ChainCounts returns the counters of every chain that executes Pact (none without Execution).
func (r *Runtime) ChainCounts() []ChainCounts {
	var out []ChainCounts
	for c, x := range r.execs {
		if x == nil {
			continue
		}
		cc := ChainCounts{Chain: ledger.ChainID(c), Transactions: x.txs.Load(), Gas: x.gas.Load(), Failed: x.failed.Load()}
		if m := x.pool; m != nil {
			cc.Pending, cc.Badlisted, cc.Admitted = m.Len(), m.Badlisted(), m.counts.admitted.Load()
			cc.PendingBytes = m.Bytes()
			cc.Oldest, _ = m.Oldest()
			for i := range cc.Rejected {
				cc.Rejected[i] = m.counts.rejected[i].Load()
			}
		}
		out = append(out, cc)
	}
	return out
}

// ChainBlocks returns, by chain id, how many blocks entered the best cut since Start (a block
// that enters again after a reorg away and back counts again).
func (r *Runtime) ChainBlocks() []uint64 {
	out := make([]uint64, len(r.counts.chainEntered))
	for c := range r.counts.chainEntered {
		out[c] = r.counts.chainEntered[c].Load()
	}
	return out
}
