package actors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/chain/txexec"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/result"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// The reads of a chain's executor, and ChainContract, the contract endpoints of a chain
// (contracthttp.API) over its mempool and executor. Nothing here goes through an actor
// but /send's insert: results, local and the gas payer check read views of the state.

// CanPay is the mempool's gas payer check (mempool.GasPayer): whether the command's sender can
// buy its gas as of the chain's head.
func (x *Executor) CanPay(pc *api.ParsedCommand) error {
	return x.withHead(0, func(view *state.View, blk *txexec.Block) error {
		err := x.run.CanPay(view, blk, pc)
		var be *txexec.BuyGasError
		if errors.As(err, &be) {
			if be.TooBig {
				return mempool.ErrTxTooBig
			}
			return errors.New(be.Reason())
		}
		return err
	})
}

// Contains reports whether a transaction with request key rk is in a block of the chain as of
// its head (mempool.TxIndex).
func (x *Executor) Contains(rk api.Hash) bool {
	head := x.head.Load()
	if head == nil {
		return false
	}
	_, ok, err := chain.LocateTx(x.state.View(head.Height).(*state.View), rk)
	return ok && err == nil
}

var _ mempool.BatchTxIndex = (*Executor)(nil)

// ContainsAll is Contains for several request keys, read together (mempool.BatchTxIndex). A
// key whose lookup failed counts as absent, as in Contains.
func (x *Executor) ContainsAll(rks []api.Hash) []bool {
	head := x.head.Load()
	if head == nil {
		return make([]bool, len(rks))
	}
	_, found, err := chain.LocateTxs(x.state.View(head.Height).(*state.View), rks)
	if err != nil {
		return make([]bool, len(rks))
	}
	return found
}

// PendingKeys lists the request keys pending in the chain's mempool (read from its index, not
// through the actor).
func (x *Executor) PendingKeys() []api.Hash { return x.pool.PendingKeys() }

// withHead runs f on a view of the state depth blocks below the head (clamped at genesis),
// with the context of the block that would follow it, mined by this node. A read that a
// rewind overtook (a reorg moved the head meanwhile) is run again on the new head, a few
// times at most.
func (x *Executor) withHead(depth uint64, f func(*state.View, *txexec.Block) error) error {
	const attempts = 3
	for attempt := 1; ; attempt++ {
		head := x.head.Load()
		if head == nil {
			return errors.New("the chain has no executed block yet")
		}
		err := x.atDepth(head, depth, f)
		if err == nil || attempt == attempts || (!retryable(err) && x.head.Load() == head) {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond) // let the reorg's write land
	}
}

func (x *Executor) atDepth(head *ledger.Header, depth uint64, f func(*state.View, *txexec.Block) error) error {
	g, _ := x.v.GenesisHeight(x.chain)
	base, parent := head.Height-min(depth, head.Height-g), head
	if base != head.Height {
		h, err := x.blockAt(base)
		if err != nil {
			return err
		}
		if parent, err = x.db.Header(h); err != nil {
			return err
		}
	}
	blk := x.withSPV(chain.NextBlockContext(parent, x.miner), parent)
	return f(x.state.View(base).(*state.View), blk)
}

// Mempool is the mempool of the executor's chain, whose pending transactions it builds on.
func (x *Executor) Mempool() *Mempool { return x.pool }

// HeadView returns the block the Pact state is at and a read-only view of the state there;
// false before genesis is applied. A reorg may overtake the view: its reads then fail with
// state.ErrStaleView or state.ErrHeight.
func (x *Executor) HeadView() (*ledger.Header, *state.View, bool) {
	head := x.head.Load()
	if head == nil {
		return nil, nil, false
	}
	view, ok := x.state.View(head.Height).(*state.View)
	return head, view, ok
}

// retryable reports a read that a rewind (a reorg) overtook: the view's block was dropped, or
// the state went below the head the read started from.
func retryable(err error) bool {
	return errors.Is(err, state.ErrStaleView) || errors.Is(err, state.ErrHeight)
}

// Result returns the CommandResult of transaction rk as of depth blocks below the head, with
// the metaData of its block; nil when it is in no block as of there.
func (x *Executor) Result(rk api.Hash, depth uint64) ([]byte, error) {
	out, err := x.Results([]api.Hash{rk}, depth)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Results is Result for several keys in one view, reading each block's payload once however
// many of the keys it holds (a client polls a batch it sent, which lands in few blocks).
func (x *Executor) Results(keys []api.Hash, depth uint64) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := x.withHead(depth, func(view *state.View, _ *txexec.Block) error {
		type block struct {
			h *ledger.Header
			p *ledger.PayloadWithOutputs
		}
		blocks := map[ledger.Hash]block{}
		for i, rk := range keys {
			loc, ok, err := chain.LocateTx(view, rk)
			if err != nil {
				return err
			}
			if !ok {
				out[i] = nil
				continue
			}
			b, seen := blocks[loc.Block]
			if !seen {
				if b.h, err = x.db.Header(loc.Block); err != nil {
					return err
				}
				if b.p, err = x.db.PayloadWithOutputs(b.h.PayloadHash); err != nil {
					return err
				}
				blocks[loc.Block] = b
			}
			if loc.Index >= len(b.p.Transactions) {
				return fmt.Errorf("%w: request-key index of %s points past block %s", kv.ErrCorrupt, rk, b.h.Hash)
			}
			out[i] = withBlockMeta(b.p.Transactions[loc.Index].Output, b.h)
		}
		return nil
	})
	return out, err
}

// nullMeta is where a stored result's metaData sits; a stored result always has it, after its
// result and events (object keys inside values are sorted, so metaData cannot precede
// continuation inside one).
var nullMeta = []byte(`,"metaData":null,"continuation":`)

// withBlockMeta fills a stored result's metaData with its block's (chainweb's enrichCR):
// {"blockHeight","blockTime","blockHash","prevBlockHash"}.
func withBlockMeta(res []byte, h *ledger.Header) []byte {
	i := bytes.LastIndex(res, nullMeta)
	if i < 0 {
		return res
	}
	meta := append([]byte(`,"metaData":{"blockHeight":`), strconv.FormatUint(h.Height, 10)...)
	meta = append(meta, `,"blockTime":`...)
	meta = strconv.AppendInt(meta, h.CreationTime, 10)
	meta = append(meta, `,"blockHash":"`...)
	meta = append(meta, h.Hash.String()...)
	meta = append(meta, `","prevBlockHash":"`...)
	meta = append(meta, h.Parent.String()...)
	meta = append(meta, `"},"continuation":`...)
	out := make([]byte, 0, len(res)+len(meta))
	out = append(out, res[:i]...)
	out = append(out, meta...)
	return append(out, res[i+len(nullMeta):]...)
}

// ChainContract serves one chain's contract endpoints over its mempool and executor.
type ChainContract struct {
	rt   *Runtime
	x    *Executor
	pool *Mempool
	// slots bounds local's evaluations (shared by every chain); nil: unbounded.
	slots *EvalSlots
}

// Contract returns the contract API of chain c; false when the runtime executes no Pact.
func (r *Runtime) Contract(c ledger.ChainID) (*ChainContract, bool) {
	if int(c) >= len(r.execs) || r.execs[c] == nil {
		return nil, false
	}
	return &ChainContract{rt: r, x: r.execs[c], pool: r.execs[c].pool, slots: r.slots}, true
}

// EvalSlots returns the bound of the evaluations requests start (nil when the runtime executes
// no Pact): local's, and any other a front end runs for a request, such as private commands.
func (r *Runtime) EvalSlots() *EvalSlots { return r.slots }

// Executor returns chain c's executor; false when the runtime executes no Pact.
func (r *Runtime) Executor(c ledger.ChainID) (*Executor, bool) {
	if int(c) >= len(r.execs) || r.execs[c] == nil {
		return nil, false
	}
	return r.execs[c], true
}

// Send inserts commands into the mempool; a rejection is a 400 with chainweb's text.
func (cc *ChainContract) Send(ctx context.Context, cmds []*api.Command) ([]api.Hash, error) {
	keys, err := cc.pool.Insert(ctx, cmds)
	if msg, ok := mempool.IsRejection(err); ok {
		return nil, &contractapi.RequestError{Msg: msg}
	}
	if err == nil && cc.rt != nil {
		cc.rt.txsSent(cc.x.chain, cmds, keys) // peer sync relays them, on-demand mining mines them
	}
	return keys, err
}

// badlistedResult is poll's answer for a bad-listed transaction (chainweb-api.md §6.3).
func badlistedResult(rk api.Hash) []byte {
	return result.Append(nil, rk, &result.Outcome{Fail: &result.Error{Type: result.TypeTx,
		Message: mempool.TextBadlisted, Info: ""}})
}

// Poll returns the results of the keys found in blocks as of confirmationDepth below the head,
// and a failure for bad-listed ones; the others are left out.
func (cc *ChainContract) Poll(ctx context.Context, keys []api.Hash, opts contractapi.PollOptions) ([]contractapi.Polled, error) {
	var out []contractapi.Polled
	seen := make(map[api.Hash]bool, len(keys))
	unique := make([]api.Hash, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			unique = append(unique, k)
		}
	}
	results, err := cc.x.Results(unique, opts.ConfirmationDepth)
	if err != nil {
		return nil, err
	}
	for i, k := range unique {
		res := results[i]
		if res == nil && cc.pool.Status(k) == mempool.Badlisted {
			res = badlistedResult(k)
		}
		if res != nil {
			out = append(out, contractapi.Polled{Key: k, Result: res})
		}
	}
	return out, nil
}

// Listen waits for the result of key until ctx ends.
func (cc *ChainContract) Listen(ctx context.Context, key api.Hash) ([]byte, error) {
	for {
		next := cc.x.Applied()
		res, err := cc.x.Result(key, 0)
		if err != nil || res != nil {
			return res, err
		}
		if cc.pool.Status(key) == mempool.Badlisted {
			return badlistedResult(key), nil
		}
		select {
		case <-next:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Local simulates a command on the chain's state (chainweb-api.md §6.5). The evaluation takes
// one of the runtime's EvalSlots; a *BusyError when none comes free in time.
func (cc *ChainContract) Local(ctx context.Context, cmd *api.Command, opts contractapi.LocalOptions) (contractapi.LocalResult, error) {
	// pact -s validates local with the same function, so both reject a command in one wording.
	lc, err := contractapi.ValidateLocal(cmd, opts.SignatureVerification)
	if err != nil {
		return contractapi.LocalResult{}, err
	}
	if lc.SyntaxErr != nil {
		// Code that does not parse is not an HTTP error: a failure result.
		return contractapi.LocalResult{Result: result.Append(nil, cmd.Hash, &result.Outcome{Fail: result.ErrorOf(lc.SyntaxErr)})}, nil
	}
	pc, p := lc.Command, lc.Command.Payload
	if opts.Preflight {
		if fails := cc.pool.Preflight(pc, opts.SignatureVerification); len(fails) > 0 {
			return contractapi.LocalResult{}, contractapi.MetadataValidationFailed(fails)
		}
	}
	if p.Meta.Public == nil {
		return contractapi.LocalResult{}, contractapi.LocalValidationFailed("the node runs only commands with public metadata")
	}
	release, err := cc.slots.Acquire(ctx)
	if err != nil {
		return contractapi.LocalResult{}, err
	}
	defer release()
	var out []byte
	err = cc.x.withHead(opts.RewindDepth, func(view *state.View, blk *txexec.Block) error {
		var err error
		out, err = cc.x.run.Local(view, blk, pc, opts.Preflight)
		return err
	})
	var te *txexec.TimeoutError
	if errors.As(err, &te) {
		return contractapi.LocalResult{}, &contractapi.RequestError{Msg: te.Error()}
	}
	if err != nil {
		return contractapi.LocalResult{}, fmt.Errorf("local: %w", err)
	}
	return contractapi.LocalResult{Result: out, Warnings: []string{}}, nil
}

// Private is served by the node's private engines (cmd/ledger-node wraps ChainContract), which
// keep private commands apart from the chain's state; a bare ChainContract has none.
func (cc *ChainContract) Private(ctx context.Context, body []byte) ([]api.Hash, error) {
	return nil, &contractapi.RequestError{Msg: "private commands are not served on this chain"}
}

// Verify is pact -s's: the node does not analyse modules.
func (cc *ChainContract) Verify(ctx context.Context, body []byte) ([]byte, error) {
	return nil, &contractapi.RequestError{Msg: "verify is served by pact -s, not by the node"}
}
