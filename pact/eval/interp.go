package eval

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Interp is one Pact interpreter: the environment a transaction runs in
// (message data, signers, chain data, flags), the transaction's state
// (capabilities, events, defpact, module admin) and the database.
//
// An Interp is not safe for concurrent use. The REPL drives one for a whole
// session; the node makes one per transaction.
type Interp struct {
	DB db.DB

	// Environment of the transaction.
	Data      value.Value // message data, an object by default
	Signers   []value.Signer
	Verifiers []value.Verifier
	ChainData *value.Object
	TxHash    string
	Flags     map[string]bool
	// NamespacePolicy decides who may define namespaces and whether
	// definitions in the root namespace are allowed.
	NamespacePolicy NamespacePolicy
	// SPV verifies verify-spv payloads; nil means unsupported.
	SPV func(kind string, payload *value.Object) (*value.Object, error)

	// Print receives the output of `print` and similar.
	Print func(string)
	// Warn receives warnings (deprecated natives and the like).
	Warn func(string)
	// Installed, when set, is told of each module or interface installed
	// (written, though the transaction may yet roll back): the conformance
	// tool typechecks every module of a suite by it.
	Installed func(*Module)

	// Gas meters evaluation (Pact 5's gas models); the zero meter is the
	// free model with no limit, which charges nothing.
	Gas gas.Meter
	// gasAt is the application being evaluated, for the gas log.
	gasAt node
	// alloc hands out the small, short-lived objects of evaluation in
	// chunks (arena.go).
	alloc arena
	// lent are the argument lists lent to natives that do not keep them
	// (Native.argsLent), a stack: each call's list is above its caller's,
	// and taken off when the call returns.
	lent []value.Value
	// topDs is the desugaring pass of top-level expressions, kept so that
	// its blocks serve every command (Desugarer.Recycle); topDsBusy says a
	// compilation has it (another then uses its own).
	topDs     resolve.Desugarer
	topDsBusy bool
	// spare is the Spare this interpreter's memory came in (NewWith), for
	// Release to give it back in.
	spare *Spare

	// MaxDepth bounds the call depth; 0 means DefaultMaxDepth.
	MaxDepth int
	// StepLimit, when positive, bounds the number of evaluation steps
	// whatever the gas: exceeding it fails with a budget error.
	StepLimit int64
	steps     int64
	// MaxElements bounds the list elements that the natives building lists
	// cheaply from a count (enumerate, make-list, str-to-list) may make in
	// one top-level evaluation, whatever the gas: their gas is a few
	// milligas per element, so within a block's gas one command could
	// otherwise hold gigabytes. 0 means DefaultMaxElements.
	MaxElements int64
	elements    int64

	natives map[string]*Native
	// ownNatives says natives is this interpreter's copy, not the shared
	// core table.
	ownNatives bool
	// ReplNatives allows REPL natives inside module code.
	ReplNatives bool
	// ReplEvaluator charges as P5's REPL (its direct evaluator) where it
	// differs from chainweb's (enforce-one charges each condition tried).
	ReplEvaluator bool

	namespace string // current namespace, "" for root

	tx txState
	// loaded are the modules this transaction has loaded, for P5's module
	// load and merge charges.
	loaded txLoaded
	// loading is the module being defined: its constants may name it.
	loading *Module
	// sources are the texts of loaded files, by name (SetSource).
	sources map[string]string
	// Mode is the execution mode: Transactional, or Local for simulated
	// commands.
	Mode db.Mode

	// replDefs are top-level defuns and defconsts of a REPL session.
	replDefs map[string]*Def
	// topUses are the modules `use`d at the top level.
	topUses []useImport
	// topScope changes with the natives, replDefs and topUses: a Prepared
	// form's compiled form is kept for one (prepared.go).
	topScope *compileScope

	stack []frame
	// dynCalls are the call-stack depths at which module-reference calls
	// started (for the re-entrancy check).
	dynCalls []int
	readOnly int
	// sysOnly counts evaluations where even user table reads are refused.
	sysOnly int
	// composing is the index in the cap stack of the slot that
	// compose-capability adds to; -1 outside a defcap body.
	composing int
	// inDefcap counts defcap bodies being evaluated (with-capability is
	// illegal there, compose-capability legal).
	inDefcap int
	// Coverage, when set, is told of the code compiled and of what of it
	// runs (coverage.go).
	Coverage CoverageHook
	// Trace, when set, receives each top-level result.
	Trace func(span syntax.Span, v value.Value)
	// Interrupt, when set and true, stops the evaluation at its next gas
	// charge with an ErrInterrupted error, which try does not catch: a node
	// bounds the wall-clock time of a transaction in a block it builds
	// (P5 prices some natives far below their cost). Every step of an
	// evaluation that takes time charges gas, so the stop comes within one
	// native call.
	Interrupt *atomic.Bool
	// InterruptReason ends the message of the error an interrupted evaluation returns
	// ("Execution interrupted: " and it); empty, the node's time bound is named.
	InterruptReason string
	// dbErr is the last database failure that name resolution turned into "not found".
	dbErr error
	// modules are the modules lookupModule read since the database last
	// could have changed under it (forgetModules): a transfer names coin
	// about 25 times. Emptied when an evaluation starts from outside, when
	// a transaction ends and when the interpreter writes a module.
	modules  [maxKnownModules]knownModule
	nModules int
	// chars are the indexes of the long strings this transaction measured
	// (chars.go), emptied when it ends.
	chars value.CharIndexCache
}

// DBError returns the last failure of the database that name resolution reported as a
// missing module (nil when there was none): an embedder whose database can fail under the
// interpreter (a view overtaken by a reorg) must not record the resulting error as the
// code's.
func (in *Interp) DBError() error { return in.dbErr }

// txState is what a commit or rollback clears.
type txState struct {
	caps     capState
	events   []value.Event
	admin    map[value.ModuleName]bool
	defpact  *PactExec
	pactStep *PactStep
}

// NamespacePolicy is the namespace policy: SimpleNamespacePolicy or a
// smart policy function.
type NamespacePolicy struct {
	AllowRoot bool
	// Fn is a user function (ns admin-guard) -> bool; nil for the simple
	// policy, under which anyone may define a namespace.
	Fn value.Value
}

// DefaultMaxDepth bounds nested calls; deeper programs fail with a gas error
// instead of exhausting the Go stack.
const DefaultMaxDepth = 512

// DefaultBudget bounds an evaluation that runs without a gas limit (the
// REPL's free model, `pact -s` with gasLimit 0): one million gas of work as
// the table model prices it, some seven block gas limits, far beyond any
// real transaction, yet small enough that no evaluation can exhaust the
// machine (a string or list built by concatenation stays under about five
// million characters or elements).
var DefaultBudget = gas.FromGas(1_000_000)

// DefaultMaxElements is the default of Interp.MaxElements: two million
// elements, some 64 MB, far more than any contract builds.
const DefaultMaxElements = 2_000_000

// allocElements counts n elements against MaxElements.
func (in *Interp) allocElements(n int64) error {
	limit := in.MaxElements
	if limit <= 0 {
		limit = DefaultMaxElements
	}
	in.elements += max(n, 0)
	if in.elements > limit {
		return value.BudgetError("list elements built by enumerate, make-list and str-to-list", limit)
	}
	return nil
}

// StartEvaluation resets the bounds that hold per top-level evaluation:
// the gas budget of an unlimited meter and the element count.
func (in *Interp) StartEvaluation() {
	in.Gas.ResetBudget()
	in.elements = 0
}

// New makes an interpreter over d with the REPL's defaults: empty signers,
// data `{}`, the hash of "" as tx hash, empty chain data, the simple
// namespace policy, free gas.
func New(d db.DB) *Interp {
	in := &Interp{
		DB:              d,
		Data:            value.EmptyObject,
		ChainData:       DefaultChainData(),
		TxHash:          hashOfEmpty(),
		Flags:           map[string]bool{},
		NamespacePolicy: NamespacePolicy{AllowRoot: true},
		natives:         coreNativeTable(),
		composing:       -1,
		replDefs:        map[string]*Def{},
		topScope:        coreScope,
		Print:           func(string) {},
		Warn:            func(string) {},
	}
	in.tx.admin = map[value.ModuleName]bool{}
	in.Gas.SetBudget(DefaultBudget)
	return in
}

// The parts of a new interpreter that never change are built once: a
// server makes an interpreter per command.
var (
	coreNativeTable = sync.OnceValue(func() map[string]*Native {
		t := map[string]*Native{}
		for _, n := range coreNatives() {
			n.flat = gas.NativeCost(n.Name)
			n.gasHook = nativeGasHooks[n.Name]
			n.elements = nativeElements[n.Name]
			t[n.Name] = n
		}
		for _, name := range lentArgsNatives {
			t[name].argsLent = true
		}
		atNativeRef = t["at"]
		return t
	})
	hashOfEmpty      = sync.OnceValue(func() string { return value.HashBytes(nil) })
	defaultChainData = sync.OnceValue(func() *value.Object {
		return value.NewObject(
			value.Field{Key: "chain-id", Val: value.String("")},
			value.Field{Key: "block-height", Val: value.NewInt(0)},
			value.Field{Key: "block-time", Val: value.TimeFromMicros(0)},
			value.Field{Key: "prev-block-hash", Val: value.String("")},
			value.Field{Key: "sender", Val: value.String("")},
			value.Field{Key: "gas-limit", Val: value.NewInt(0)},
			value.Field{Key: "gas-price", Val: value.NewDecimal(value.NewInt(0), 0)},
		)
	})
)

// DefaultChainData is P5's default public chain data (shared: objects are
// immutable).
func DefaultChainData() *value.Object { return defaultChainData() }

// Register adds natives (the REPL's, for instance). A later registration
// of the same name replaces the earlier one. The shared core table is
// copied on the first registration.
func (in *Interp) Register(ns ...*Native) {
	if !in.ownNatives {
		in.natives = maps.Clone(in.natives)
		in.ownNatives = true
	}
	for _, n := range ns {
		in.natives[n.Name] = n
	}
	in.scopeChanged()
}

// Native returns the registered native of that name, or nil.
func (in *Interp) Native(name string) *Native { return in.natives[name] }

// Namespace is the current namespace ("" for root).
func (in *Interp) Namespace() string { return in.namespace }

// ResetTx clears what a commit or rollback clears: capabilities, events,
// module admin, defpact state, and (as P5's REPL does) the current
// namespace and the names brought in by use or by loading a module; REPL
// defuns stay.
func (in *Interp) ResetTx() {
	// The cap stack and the evaluating list are pushed and truncated, never
	// handed out, so their arrays serve the next transaction too (growing
	// them anew was five allocations of a coin transfer); cleared, so that
	// they keep no token of this one alive.
	stack, evaluating := in.tx.caps.stack[:0], in.tx.caps.evaluating[:0]
	clear(stack[:cap(stack)])
	clear(evaluating[:cap(evaluating)])
	// The admin set is only read and written here, so it is emptied
	// rather than made anew.
	admin := in.tx.admin
	clear(admin)
	if admin == nil {
		admin = map[value.ModuleName]bool{}
	}
	in.tx = txState{admin: admin}
	in.tx.caps.stack, in.tx.caps.evaluating = stack, evaluating
	in.loaded.reset()
	in.clearLent()
	if len(in.topUses) > 0 {
		in.topUses = nil
		if !in.ownNatives && len(in.replDefs) == 0 {
			in.topScope = coreScope
		} else {
			in.scopeChanged()
		}
	}
	in.namespace = ""
	in.forgetModules()
	in.chars = value.CharIndexCache{}
}

// Events returns the events emitted so far; clear drops them.
func (in *Interp) Events(clear bool) []value.Event {
	ev := in.tx.events
	if clear {
		in.tx.events = nil
	}
	return ev
}

// GrantAdmin gives module admin for m without checks (env-module-admin).
func (in *Interp) GrantAdmin(m value.ModuleName) { in.tx.admin[m] = true }

// SetNamespace sets the current namespace.
func (in *Interp) SetNamespace(ns string) { in.namespace = ns }

// frame is one entry of the call stack.
type frame struct {
	def  *Def // nil for lambdas
	name string
}

func (in *Interp) maxDepth() int {
	if in.MaxDepth > 0 {
		return in.MaxDepth
	}
	return DefaultMaxDepth
}

// currentModule is the module of the innermost defun/defcap/defpact on the
// stack, or nil at top level.
func (in *Interp) currentModule() *Module {
	for i := len(in.stack) - 1; i >= 0; i-- {
		if d := in.stack[i].def; d != nil && d.Module != nil {
			return d.Module
		}
	}
	return nil
}

// inModule reports whether m is on the call stack.
func (in *Interp) inModule(m value.ModuleName) bool {
	for i := len(in.stack) - 1; i >= 0; i-- {
		if d := in.stack[i].def; d != nil && d.Module != nil && d.Module.Name == m {
			return true
		}
	}
	return false
}
