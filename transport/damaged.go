package transport

import (
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// Damaged data on disk is no bug of the node's and no fault of the request: the service API and
// the contract API answer it the same way, 503 with a Retry-After and what to do, never 500
// ("Something went wrong").
//
// Both are kv.ErrCorrupt, the one error for damaged data, told apart by store.IsCorrupt:
//
//   - Damage in the store (the header log, payloads, indexes) is logged by the store the first
//     time it meets it, which also marks itself for repair at the next start.
//   - Damage in a chain's Pact state or the node's records in it is not repaired by a start;
//     it is logged here, once per process, and the answer says to run check and repair.

const (
	damagedStoreText = "The node's data directory is damaged where this request reads; " +
		"the node repairs it when restarted (or stop it and run `ledger-node check` and `ledger-node repair`)."
	damagedStateText = "The node's data directory is damaged where this request reads (a chain's Pact state); " +
		"stop the node and run `ledger-node check` and `ledger-node repair`."
)

// stateDamageLogged keeps a flood of requests over damaged Pact state from flooding the log.
var stateDamageLogged atomic.Bool

// damagedText returns the 503 text for err when it comes from damaged data, and whether it does.
// The first Pact state damage is logged to log.
func damagedText(err error, log *slog.Logger) (string, bool) {
	switch {
	case store.IsCorrupt(err):
		return damagedStoreText, true
	case errors.Is(err, kv.ErrCorrupt):
		if !stateDamageLogged.Swap(true) && log != nil {
			log.Error("damaged data: a chain's Pact state or the node's records in it cannot be read; "+
				"stop the node and run `ledger-node check` and `ledger-node repair`", "err", err)
		}
		return damagedStateText, true
	}
	return "", false
}

// damagedRetryAfter is the Retry-After of an answer to damaged data: an hour, time enough to
// repair it.
const damagedRetryAfter = "3600"

// writeDamaged writes the 503 answer to damaged data.
func writeDamaged(ctx *fasthttp.RequestCtx, text string) {
	ctx.Response.Header.Set("Retry-After", damagedRetryAfter)
	httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, text)
}

// unavailable is the node's contracthttp.ContractConfig.Unavailable: the backend errors that
// are a 503, because the node cannot serve the request now through no fault of the request and
// no bug of its own.
func unavailable(err error, log *slog.Logger) (contracthttp.Refusal, bool) {
	var busy *actors.BusyError
	switch {
	case errors.As(err, &busy):
		// Every evaluation slot is taken by other requests (actors.EvalSlots): the node is
		// fine and the request may well succeed a moment later.
		return contracthttp.Refusal{Text: busy.Error(), RetryAfter: "1"}, true
	case errors.Is(err, actors.ErrMempoolStopped) || errors.Is(err, actors.ErrExecutorStopped):
		return contracthttp.Refusal{Text: contracthttp.ShuttingDownText}, true
	}
	if text, ok := damagedText(err, log); ok {
		return contracthttp.Refusal{Text: text, RetryAfter: damagedRetryAfter}, true // as the service API answers it
	}
	return contracthttp.Refusal{}, false
}
