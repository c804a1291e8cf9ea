package server

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/result"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// Config configures an Engine. The zero value is an in-memory server with
// free gas, entity "entity" and no other entities.
type Config struct {
	// PersistDir, when set, keeps the Pact state (pact/persist, in
	// <PersistDir>/pact) and the history of results (goleveldb, in
	// <PersistDir>/history) across restarts. Empty: both in memory.
	PersistDir string

	// GasRate is the gas charged per metered operation (application,
	// row read, row write, byte of installed module). 0, the default, is
	// free gas: every result reports gas 0. With a positive rate the
	// limit is each command's publicMeta.gasLimit (DECISIONS.md, "pact
	// server gasLimit/gasRate"), and a limit of 0 fails at the first
	// charge.
	GasRate int64
	// GasLimit is the limit of commands that carry no public meta
	// (private commands).
	GasLimit uint64

	// EvalBudget bounds the work of a command, under a gas rate too:
	// the gas the table model would charge for it may add up to this
	// much (0: eval.DefaultBudget, one million). Past it the command
	// fails with "Evaluation budget exceeded". It holds per command (all
	// its top-level forms together) and per verify request.
	EvalBudget uint64
	// MaxElements bounds the list elements enumerate, make-list and
	// str-to-list may build in one top-level form, whatever the gas (0:
	// eval.DefaultMaxElements, two million).
	MaxElements int64
	// TimeLimit bounds a command's wall-clock time (0: DefaultTimeLimit of the evaluation
	// budget). Pact 5 prices some natives far below what they cost (mod of huge integers, sort
	// of objects by field), so the work budget alone does not bound the time; past the limit
	// the command stops at its next gas charge, fails and its writes are rolled back.
	TimeLimit time.Duration
	// MaxResultSize bounds, in bytes, the JSON of what a command returns:
	// its value, its events' parameters, its continuation's yield and
	// arguments (0: DefaultMaxResultSize). A command past it fails and
	// its writes are rolled back.
	MaxResultSize int
	// Flags are execution flags (repl.ExecFlags) every command runs
	// with.
	Flags []string

	// Entity is this server's entity name for private commands; "entity"
	// when empty.
	Entity string
	// EntitySecret is this entity's Curve25519 (nacl/box) secret key.
	// When nil: read from <PersistDir>/entity.key, created there on first
	// use; without PersistDir a fresh key per start.
	EntitySecret *[32]byte
	// Entities are the other entities: their box public keys and where
	// their servers listen.
	Entities map[string]Entity
	// Deliver hands a sealed private envelope (the JSON body of a peer's
	// /private) to every other entity's server. Nil: envelopes are only
	// kept in the outbox (Outbox).
	Deliver func(ctx context.Context, envelope []byte) error

	// DevContracts, when set, loads the project's development contracts
	// at start, unless the state has coin already (devcontracts.go): it
	// runs chain 0's development genesis (coin, its interfaces, the
	// namespaces, the development accounts) on the state. The command that
	// wires the server gives block execution's (txexec.RunDevelopmentGenesis):
	// the engine knows no blocks.
	DevContracts func(st db.DB) error

	Logger *slog.Logger
}

// Entity is another participant of private commands.
type Entity struct {
	// PublicKey is its nacl/box public key.
	PublicKey [32]byte
	// URL is the base URL of its server (http://host:port), used by the
	// deliverer; empty when envelopes reach it some other way.
	URL string
}

// DefaultEntity is the entity name of a server that configures none.
const DefaultEntity = "entity"

// Engine executes Pact commands for `pact -s`: verified commands run one
// at a time on a fresh interpreter over one shared Pact state, and their
// results are kept by request key. It implements the contract API
// (contracthttp.API) without any HTTP.
//
// All methods are safe for concurrent use. Verification and reads of
// results run in parallel; execution is serialised (db.DB allows one
// writer).
type Engine struct {
	cfg   Config
	log   *slog.Logger
	flags map[string]bool

	mu    sync.Mutex // held while executing: guards state and pending
	state stateDB
	hist  history
	// pending are the request keys of /send batches being executed: the
	// lock is released between the commands of a batch (so that a batch
	// of heavy commands does not hold every other request for the sum of
	// their budgets), and a key must not be accepted twice meanwhile.
	pending map[api.Hash]bool
	// sending is read-held by a batch from its first command to the store
	// of its results; Close takes it, so that a batch it interrupts still
	// stores the results of the commands that ran.
	sending sync.RWMutex

	wmu     sync.Mutex
	waiters map[api.Hash][]chan struct{}

	keys   entityKeys
	outbox outbox

	closed atomic.Bool
}

// Open starts an engine: it opens (or creates) the state and the history.
func Open(cfg Config) (*Engine, error) {
	if cfg.Entity == "" {
		cfg.Entity = DefaultEntity
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	e := &Engine{
		cfg:     cfg,
		log:     cfg.Logger,
		flags:   map[string]bool{},
		waiters: map[api.Hash][]chan struct{}{},
		pending: map[api.Hash]bool{},
	}
	for _, f := range cfg.Flags {
		e.flags[f] = true
	}
	if cfg.PersistDir != "" {
		if err := os.MkdirAll(cfg.PersistDir, 0o755); err != nil {
			return nil, err
		}
	}
	var err error
	if e.keys, err = loadEntityKeys(cfg); err != nil {
		return nil, err
	}
	if e.state, err = openState(cfg.PersistDir); err != nil {
		return nil, err
	}
	if cfg.PersistDir == "" {
		e.hist = newMemHistory()
	} else if e.hist, err = openLevelHistory(cfg.PersistDir); err != nil {
		e.state.Close()
		return nil, err
	}
	if cfg.DevContracts != nil {
		if err := e.loadDevContracts(); err != nil {
			e.hist.Close()
			e.state.Close()
			return nil, err
		}
	}
	return e, nil
}

// Close closes the state and the history. Waiting listens end with
// ErrClosed.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	e.wmu.Lock()
	for k, ws := range e.waiters {
		for _, w := range ws {
			close(w)
		}
		delete(e.waiters, k)
	}
	e.wmu.Unlock()
	e.sending.Lock()
	defer e.sending.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	return errors.Join(e.state.Close(), e.hist.Close())
}

// EntityName is this server's entity name.
func (e *Engine) EntityName() string { return e.cfg.Entity }

// EntityPublicKey is this entity's nacl/box public key, for the other
// entities' configurations.
func (e *Engine) EntityPublicKey() [32]byte { return e.keys.public }

// requestKeyError is P5's text for a request key already stored.
func requestKeyError(rk api.Hash) error {
	return &contractapi.RequestError{Msg: "Request key: " + rk.String() + " has already been submitted. " +
		"If you are resubmitting a valid transaction, try changing the nonce in the payload"}
}

// Send verifies every command, then executes them in order in
// Transactional mode and stores their results (P5 runs /send
// synchronously). A command that fails verification, uses private meta,
// or has a request key already stored, pending in another batch or
// repeated in this one rejects the whole batch before anything runs.
//
// Each command runs under the engine's lock, which is released between
// commands: other requests take turns with a long batch instead of
// waiting for all of it. The results are stored together once the batch
// is done. If the engine closes meanwhile, the commands not yet run are
// dropped, the results of those that ran are stored, and Send returns
// ErrClosed.
func (e *Engine) Send(ctx context.Context, cmds []*api.Command) ([]api.Hash, error) {
	if e.closed.Load() {
		return nil, contractapi.ErrClosed
	}
	cs, err := checkSend(cmds)
	if err != nil {
		return nil, err
	}
	keys := make([]api.Hash, len(cmds))
	for i, c := range cs {
		e.prepare(c, db.Transactional)
		keys[i] = c.pc.RequestKey
	}
	e.sending.RLock()
	defer e.sending.RUnlock()
	e.mu.Lock()
	if e.closed.Load() {
		e.mu.Unlock()
		return nil, contractapi.ErrClosed
	}
	if err := e.checkFresh(keys); err != nil {
		e.mu.Unlock()
		return nil, err
	}
	for _, k := range keys {
		e.pending[k] = true
	}
	e.mu.Unlock()

	recs := make([][]byte, 0, len(cs))
	for i, c := range cs {
		e.mu.Lock()
		if e.closed.Load() {
			e.mu.Unlock()
			break
		}
		o, _ := e.execute(c, db.Transactional, e.commandGasLimit(c.pc.Payload))
		e.mu.Unlock()
		recs = append(recs, result.Append([]byte{byte(recResult)}, keys[i], o))
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	for _, k := range keys {
		delete(e.pending, k)
	}
	if err := e.store(keys[:len(recs)], recs); err != nil {
		return nil, err
	}
	if len(recs) < len(keys) {
		return nil, contractapi.ErrClosed
	}
	return keys, nil
}

// checkFresh rejects a request key that is stored, pending in a batch
// being executed, or appears twice. The caller holds e.mu.
func (e *Engine) checkFresh(keys []api.Hash) error {
	var seen map[api.Hash]bool
	if len(keys) > 1 {
		seen = make(map[api.Hash]bool, len(keys))
	}
	for _, k := range keys {
		if seen != nil {
			if seen[k] {
				return requestKeyError(k)
			}
			seen[k] = true
		}
		if e.pending[k] {
			return requestKeyError(k)
		}
		_, found, err := e.hist.Get(k)
		if err != nil {
			return err
		}
		if found {
			return requestKeyError(k)
		}
	}
	return nil
}

// store writes records and wakes the listens waiting for them.
func (e *Engine) store(keys []api.Hash, recs [][]byte) error {
	if err := e.hist.PutBatch(keys, recs); err != nil {
		return err
	}
	e.wmu.Lock()
	for _, k := range keys {
		for _, w := range e.waiters[k] {
			close(w)
		}
		delete(e.waiters, k)
	}
	e.wmu.Unlock()
	return nil
}

// Poll returns the results that exist, in request order, each key once.
// Unknown keys are omitted (DECISIONS.md, "poll unknown keys"), and so are
// private commands this entity only saw the hash of.
func (e *Engine) Poll(ctx context.Context, keys []api.Hash, _ contractapi.PollOptions) ([]contractapi.Polled, error) {
	if e.closed.Load() {
		return nil, contractapi.ErrClosed
	}
	out := make([]contractapi.Polled, 0, len(keys))
	var seen map[api.Hash]bool
	if len(keys) > 1 {
		seen = make(map[api.Hash]bool, len(keys))
	}
	for _, k := range keys {
		if seen != nil {
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		rec, found, err := e.hist.Get(k)
		if err != nil {
			return nil, err
		}
		if found && recordKind(rec[0]) == recResult {
			out = append(out, contractapi.Polled{Key: k, Result: rec[1:]})
		}
	}
	return out, nil
}

// Listen waits for the result of one request key until ctx ends (then it
// returns ctx's error: the caller's timeout). A private command this
// entity only saw the hash of is rejected at once.
func (e *Engine) Listen(ctx context.Context, key api.Hash) ([]byte, error) {
	for {
		if e.closed.Load() {
			return nil, contractapi.ErrClosed
		}
		w := make(chan struct{})
		e.wmu.Lock()
		e.waiters[key] = append(e.waiters[key], w)
		e.wmu.Unlock()
		rec, found, err := e.hist.Get(key)
		if err != nil || found {
			e.dropWaiter(key, w)
			if err != nil {
				return nil, err
			}
			if recordKind(rec[0]) == recPrivateHash {
				return nil, contractapi.Reject("Request key %s is a private command not addressed to entity %s: "+
					"only its hash is recorded here", key.String(), e.cfg.Entity)
			}
			return rec[1:], nil
		}
		select {
		case <-w:
		case <-ctx.Done():
			e.dropWaiter(key, w)
			return nil, ctx.Err()
		}
	}
}

func (e *Engine) dropWaiter(key api.Hash, w chan struct{}) {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	ws := e.waiters[key]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(e.waiters, key)
	} else {
		e.waiters[key] = ws
	}
}

// Local executes a command in Local mode: every write is rolled back and
// the result is not stored (interface.md; P5's server stores it, P4's
// does not).
func (e *Engine) Local(ctx context.Context, cmd *api.Command, opts contractapi.LocalOptions) (contractapi.LocalResult, error) {
	if e.closed.Load() {
		return contractapi.LocalResult{}, contractapi.ErrClosed
	}
	// The node's validation, so that both answer a bad command in the same words.
	lc, err := contractapi.ValidateLocal(cmd, opts.SignatureVerification)
	if err != nil {
		return contractapi.LocalResult{}, err
	}
	c := &checked{pc: lc.Command, syntaxErr: lc.SyntaxErr}
	e.prepare(c, db.Local)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed.Load() {
		return contractapi.LocalResult{}, contractapi.ErrClosed
	}
	o, warnings := e.execute(c, db.Local, e.commandGasLimit(c.pc.Payload))
	if warnings == nil {
		warnings = []string{}
	}
	return contractapi.LocalResult{Result: result.Append(nil, c.pc.RequestKey, o), Warnings: warnings}, nil
}

// SPV is reserved: pact -s has no chains to prove anything on.
func (e *Engine) SPV(ctx context.Context, req contractapi.SPVRequest) (string, error) {
	return "", contractapi.Reject("SPV proofs are not supported by the pact server: it has no chains to prove a transaction on")
}
