package actors

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/result"
	"github.com/ledgernode/ledger-node/transport/contractapi"
	"github.com/ledgernode/ledger-node/txexec"
)

// ChainContract, the contract endpoints of a chain (contracthttp.API) over its mempool and
// its executor's Reader (reader.go). Nothing here goes through an actor but /send's insert:
// results, local and SPV proofs read views of the state.

// PendingKeys lists the request keys pending in the chain's mempool (read from its index, not
// through the actor).
func (x *Executor) PendingKeys() []api.Hash { return x.pool.PendingKeys() }

// Mempool is the mempool of the executor's chain, whose pending transactions it builds on.
func (x *Executor) Mempool() *Mempool { return x.pool }

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

// Reader returns the reads of chain c's Pact state (its executor's); false when the runtime
// executes no Pact.
func (r *Runtime) Reader(c ledger.ChainID) (*Reader, bool) {
	x, ok := r.Executor(c)
	if !ok {
		return nil, false
	}
	return x.Reader, true
}

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

// SPV answers the spv endpoint on the transaction's chain.
func (cc *ChainContract) SPV(ctx context.Context, req contractapi.SPVRequest) (string, error) {
	c, err := strconv.ParseUint(req.TargetChainID, 10, 32)
	if err != nil || !cc.x.v.HasChain(ledger.ChainID(c)) {
		return "", &contractapi.RequestError{Msg: "Invalid target chain id: " + strconv.Quote(req.TargetChainID)}
	}
	return cc.x.OutputProof(req.RequestKey, ledger.ChainID(c))
}
