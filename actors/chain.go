package actors

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/ledgernode/ledger-node/actors/headerimport"
	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// insertHeader asks a chain actor to validate and store a block. When the node executes Pact,
// the actor only checks it (every rule but the payload's execution) and answers with the
// payload to execute; the caller has the executor validate it, then sends storeBlock. So no
// actor waits for another inside Receive, and each wait has its own bound.
type insertHeader struct {
	header  *ledger.Header
	payload *ledger.PayloadWithOutputs // nil: the payload must already be stored
}

// storeBlock asks a chain actor to store a block that passed insertHeader's checks and whose
// payload the executor validated.
type storeBlock struct {
	header  *ledger.Header
	payload *ledger.PayloadWithOutputs // nil: stored already
}

// insertDone is a chain actor's answer to insertHeader and storeBlock.
type insertDone struct {
	err   error // a *pow.ValidationError when a rule failed
	known bool  // the header was stored already
	// execute is the payload the executor must validate before storeBlock (insertHeader's
	// answer when the node executes Pact and the block is new).
	execute *ledger.PayloadWithOutputs
}

// chainActor is the only writer of one chain's headers. Serialising the writes of a chain
// means a header is validated against a store that does not change under it, and a header is
// stored at most once.
type chainActor struct {
	chain ledger.ChainID
	v     *ledger.Version
	db    *store.DB
	now   func() time.Time
	cut   *actor.PID // told about every stored header, in the order they are stored
	log   *slog.Logger
	// executes says the node executes Pact: a payload is validated by its executor (the
	// ones it built pass at once) between insertHeader and storeBlock.
	executes bool
	// health hears of failed writes (writehealth.go).
	health *writeHealth
	// counts hears of stored blocks and failed rules (observe.go); nil in tests.
	counts *counts
}

func (a *chainActor) Receive(ctx actor.Context) {
	var done insertDone
	switch m := ctx.Message().(type) {
	case *insertHeader:
		done = a.insert(ctx, m)
	case *storeBlock:
		done = a.store(ctx, m.header, m.payload)
	default:
		return
	}
	a.noteDone(done.err, done.known || done.execute != nil)
	ctx.Respond(&done)
}

// noteDone logs a rejected block and counts it; a block stored (not known, not waiting for its
// execution) counts as inserted.
func (a *chainActor) noteDone(err error, notStored bool) {
	if err != nil && !errors.Is(err, ErrWriteFailed) { // write health logs those
		a.log.Debug("header rejected", "chain", a.chain, "err", err)
	}
	if a.counts != nil {
		if err != nil {
			a.counts.failures.note(err)
		} else if !notStored {
			a.counts.inserted.Add(1)
		}
	}
}

// insert validates and stores one block, or, when the node executes Pact, checks it and asks
// for its payload's execution. On any failure nothing is written.
func (a *chainActor) insert(ctx actor.Context, m *insertHeader) insertDone {
	h := m.header
	if h == nil || h.ChainID != a.chain {
		return insertDone{err: fmt.Errorf("actors: header for chain %d sent to chain %d's actor", chainOf(h), a.chain)}
	}
	if done, stored := a.storedAlready(ctx, h); stored {
		return done
	}
	parent, adj, err := headerimport.ParentsOf(h, func(x ledger.Hash) (*ledger.Header, error) { return headerimport.Stored(a.db, x) })
	if err != nil {
		return insertDone{err: err}
	}
	// A missing parent or adjacent parent fails as the ephemeral MissingParent or
	// MissingAdjacentParent, so a peer's header can be retried once they arrive. Header import
	// (package actors/headerimport) validates with the same function.
	if _, err := pow.ValidateHeader(a.v, h, parent, adj, a.now().UnixMicro()); err != nil {
		return insertDone{err: err}
	}
	if err := a.checkPayload(h, m.payload); err != nil {
		return insertDone{err: err}
	}
	if a.executes {
		p := m.payload
		if p == nil {
			if p, err = a.db.PayloadWithOutputs(h.PayloadHash); err != nil {
				return insertDone{err: err}
			}
		}
		return insertDone{execute: p}
	}
	return a.store(ctx, h, m.payload)
}

// storedAlready answers for a block stored already, with its payload (true), or a failed read
// (true, with the error). A block whose header reached the header log but whose payload's
// write failed (a full disk) is incomplete: false, so that it is validated and stored again,
// and the cut never hears of it before its payload is stored.
func (a *chainActor) storedAlready(ctx actor.Context, h *ledger.Header) (insertDone, bool) {
	stored, err := a.db.Header(h.Hash)
	if errors.Is(err, store.ErrNotFound) {
		return insertDone{}, false
	}
	if err != nil {
		return insertDone{err: err}, true
	}
	complete, err := a.db.HasPayload(stored.PayloadHash)
	if err != nil {
		return insertDone{err: err}, true
	}
	if !complete {
		return insertDone{}, false
	}
	// Already validated and stored: tell the cut actor again (harmless) in case the first
	// notice never led anywhere, and use the stored header, whose content the hash vouches
	// for.
	ctx.Send(a.cut, &headerStored{header: stored})
	return insertDone{known: true}, true
}

// store writes a block that passed every rule and tells the cut actor.
func (a *chainActor) store(ctx actor.Context, h *ledger.Header, p *ledger.PayloadWithOutputs) insertDone {
	if done, stored := a.storedAlready(ctx, h); stored {
		return done // stored meanwhile, by another insert of the same block
	}
	if err := a.db.PutBlock(h, p, nil); err != nil {
		if a.health != nil {
			a.health.failed(fmt.Sprintf("block %d of chain %d", h.Height, h.ChainID), err)
		}
		return insertDone{err: &writeError{fmt.Errorf("store block: %w", err)}}
	}
	ctx.Send(a.cut, &headerStored{header: h, payload: p})
	return insertDone{}
}

// payloadInvalid is the error of a block whose payload its executor refused.
func payloadInvalid(h *ledger.Header, err error) error {
	if errors.Is(err, chain.ErrInvalidPayload) {
		return payloadFailure(pow.InvalidPayload, h, "%v", err)
	}
	return fmt.Errorf("validate payload: %w", err)
}

// checkPayload checks that the block's payload is the one its header commits to: the one given,
// or one already stored.
func (a *chainActor) checkPayload(h *ledger.Header, p *ledger.PayloadWithOutputs) error {
	if p == nil {
		ok, err := a.db.HasPayload(h.PayloadHash)
		if err != nil {
			return err
		}
		if !ok {
			return payloadFailure(pow.MissingPayload, h, "payload %s is not available", h.PayloadHash)
		}
		return nil
	}
	if p.PayloadHash != h.PayloadHash {
		return payloadFailure(pow.IncorrectPayloadHash, h, "payload hash %s, the header names %s", p.PayloadHash, h.PayloadHash)
	}
	if err := p.Verify(); err != nil {
		return payloadFailure(pow.IncorrectPayloadHash, h, "%v", err)
	}
	return nil
}

func payloadFailure(rule pow.Rule, h *ledger.Header, format string, args ...any) error {
	return &pow.ValidationError{Rule: rule, Ephemeral: rule.Ephemeral(),
		Detail: fmt.Sprintf("chain %d height %d: ", h.ChainID, h.Height) + fmt.Sprintf(format, args...)}
}

func chainOf(h *ledger.Header) any {
	if h == nil {
		return "(nil header)"
	}
	return h.ChainID
}
