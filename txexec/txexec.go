package txexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// Block is what Pact code sees of the block a command runs in
// (chain-data): the chain, the height of the block being made, the
// creation time and hash of its parent (upstream's block-time and
// prev-block-hash), and the miner gas is paid to.
type Block struct {
	ChainID    string
	Height     uint64
	ParentTime int64 // µs since the epoch
	ParentHash api.Hash
	Miner      Miner
	// SPV verifies an SPV output proof against this chain's history as of the parent block
	// and returns the proven transaction output (CommandResult JSON). Nil: cross-chain
	// continuations and verify-spv are refused.
	SPV func(proof string) ([]byte, error)
}

// Miner is the account a block pays: its name and guard.
type Miner struct {
	Account string
	Guard   eval.Value
}

// ParseMiner reads a block's miner data, {"account", "predicate",
// "public-keys"}: the account and the keyset that guards it.
func ParseMiner(minerData []byte) (Miner, error) {
	var m struct {
		Account    *string  `json:"account"`
		Predicate  string   `json:"predicate"`
		PublicKeys []string `json:"public-keys"`
	}
	if err := json.Unmarshal(minerData, &m); err != nil {
		return Miner{}, fmt.Errorf("miner data: %w", err)
	}
	if m.Account == nil {
		return Miner{}, errors.New(`miner data: no "account"`)
	}
	pred := m.Predicate
	if pred == "" {
		pred = eval.KeysAll
	}
	return Miner{Account: *m.Account, Guard: eval.NewKeySet(m.PublicKeys, pred)}, nil
}

// BuyGasError is the failure to buy a command's gas: the command is
// invalid and goes into no block. Its text is upstream's, which the
// mempool wraps as `Attempt to buy gas failed with: ...`. TooBig is
// chainweb's other purchase failure: the size charge alone (InitialGas)
// is more than the gas limit, and nothing is bought.
type BuyGasError struct {
	RequestKey api.Hash
	Msg        string
	TooBig     bool
}

func (e *BuyGasError) Error() string {
	if e.TooBig {
		// Upstream's text, spelling included.
		return strconv.Quote(e.RequestKey.String()) + " Failed to purchas gas: tx too big for gas limit"
	}
	return strconv.Quote(e.RequestKey.String()) + " Failed to buy gas: " + e.Msg
}

// Reason is the error without the request key (the mempool's GasPayer
// text).
func (e *BuyGasError) Reason() string {
	if e.TooBig {
		return "tx too big for gas limit"
	}
	return e.Msg
}

// BlockGasLimitExceededError is chainweb's BlockGasLimitExceeded: a
// command whose gas limit is above the gas left in its block failed, and
// would be charged more than the block has. A block holding it is invalid.
type BlockGasLimitExceededError struct {
	RequestKey api.Hash
	// GasLimit is the command's own limit; Remaining the gas the block had left.
	GasLimit, Remaining uint64
}

func (e *BlockGasLimitExceededError) Error() string {
	return "block gas limit exceeded: transaction " + e.RequestKey.String() + " failed with a gas limit of " +
		strconv.FormatUint(e.GasLimit, 10) + " when the block had " + strconv.FormatUint(e.Remaining, 10) + " gas left"
}

// DefaultMinerReward is the coinbase of every block: upstream's first
// reward, so that development balances look familiar.
var DefaultMinerReward = mustDecimal("2.304523")

// Config configures a Runner.
type Config struct {
	// MinerReward is minted to the miner by each block's coinbase
	// (DefaultMinerReward when zero).
	MinerReward eval.Decimal
	// Gas prices evaluation (DefaultGasModel when nil).
	Gas *gas.Model
	// Flags are the execution flags of every command.
	Flags map[string]bool
	// LocalGasLimit caps the gas limit of a local (simulated) command, whatever
	// the command asks (DefaultBlockGasLimit when zero): local is open to
	// anyone and keeps nothing, so it gets no more than a block could spend.
	LocalGasLimit uint64
	// MaxResultBytes caps a command's result (DefaultMaxResultBytes when zero).
	// Blocks carry results, so every node of a network must use the same value.
	MaxResultBytes int
	// AllowReadsInLocal lets local (simulated) commands read any table directly, as
	// chainweb-node's allowReadsInLocal does with Pact's AllowReadInLocal flag; blocks never
	// get it.
	AllowReadsInLocal bool
	// LocalTimeLimit bounds a local command's wall-clock time (TxTimeLimit(LocalGasLimit) when
	// zero; negative: no bound): past it the command is a *TimeoutError, as it would be left
	// out of a block this node builds.
	LocalTimeLimit time.Duration
}

// TxTimeLimit is chainweb's bound on the time of one transaction of a block being built:
// 2.5 µs a gas, times 5, for a block's whole gas limit (1.875 s at 150,000 gas). Pact 5 prices
// some natives far below what they cost (mod of huge integers, sort of objects), and a block
// must not wait on a transaction built to exploit that.
func TxTimeLimit(blockGasLimit uint64) time.Duration {
	return time.Duration(blockGasLimit) * 5 * 2500 * time.Nanosecond
}

// Defaults of Config.
const (
	// DefaultBlockGasLimit is chainweb-node's default block gas limit
	// (gasLimitOfBlock), the default cap of a local command's gas limit.
	DefaultBlockGasLimit = 150_000
	// DefaultMaxResultBytes caps a command's result at 1 MiB. Real results
	// are values a client reads (balances, rows, a module's "Loaded module"
	// text): a few hundred bytes, rarely kilobytes. A megabyte leaves three
	// orders of magnitude of room, while a poll of many keys, a block's
	// outputs and the payload batches peers fetch stay bounded (a value
	// shared many times encodes far larger than the gas it cost to build).
	DefaultMaxResultBytes = 1 << 20
	// BuyGasLimit is the gas coin.buy-gas may use (chainweb's 1,500,000
	// milligas cap while buying).
	BuyGasLimit = 1500
)

// Runner runs commands. It holds no state of a chain: one Runner serves
// every chain, from any number of goroutines at once.
type Runner struct {
	cfg Config
	// localFlags are the execution flags of local commands: Config.Flags, and
	// AllowReadInLocal with Config.AllowReadsInLocal.
	localFlags map[string]bool
	// The fixed Pact forms the gas flow evaluates, parsed once, and
	// compiled once for as long as the modules they name are the same.
	buyGas, redeemGas, coinbase *eval.Prepared
	nsPolicy                    *eval.Prepared
	// spares pass the memory of a finished command's interpreter (its
	// arena's uncut chunks, given-back frames: eval.Spare) to the next
	// one's, instead of each command starting from fresh chunks.
	spares sync.Pool
}

// New makes a Runner.
func New(cfg Config) *Runner {
	if cfg.MinerReward.IsZero() {
		cfg.MinerReward = DefaultMinerReward
	}
	if cfg.Gas == nil {
		cfg.Gas = DefaultGasModel
	}
	if cfg.LocalGasLimit == 0 {
		cfg.LocalGasLimit = DefaultBlockGasLimit
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.LocalTimeLimit == 0 {
		cfg.LocalTimeLimit = TxTimeLimit(cfg.LocalGasLimit)
	}
	localFlags := cfg.Flags
	if cfg.AllowReadsInLocal {
		localFlags = map[string]bool{"AllowReadInLocal": true}
		for k, v := range cfg.Flags {
			localFlags[k] = v
		}
	}
	return &Runner{
		cfg:        cfg,
		localFlags: localFlags,
		buyGas:     mustParse(`(coin.buy-gas (read-msg "sender") (read-decimal "total"))`),
		redeemGas:  mustParse(`(coin.redeem-gas (read-msg "miner") (read-msg "miner-guard") (read-msg "sender") (read-decimal "total"))`),
		coinbase:   mustParse(`(coin.coinbase (read-msg "miner") (read-msg "miner-guard") (read-decimal "reward"))`),
		nsPolicy:   mustParse(`ns.validate`),
	}
}

func mustParse(src string) *eval.Prepared {
	f, err := syntax.ParseProgram("txexec", src)
	if err != nil || len(f.Items) != 1 {
		panic(fmt.Sprintf("txexec: parse %q: %v", src, err))
	}
	return eval.Prepare(f.Items[0])
}

func mustDecimal(s string) eval.Decimal {
	d, err := eval.ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// chainData is the chain-data object of a command in b.
func chainData(b *Block, m *api.PublicMeta) *eval.Object {
	sender, gasLimit, gasPrice := "", int64(0), eval.Value(eval.NewDecimal(eval.NewInt(0), 0))
	if m != nil {
		sender, gasPrice = m.Sender, m.GasPrice
		gasLimit = int64(min(m.GasLimit, math.MaxInt64))
	}
	return eval.NewObject(
		eval.Field{Key: "chain-id", Val: eval.String(b.ChainID)},
		eval.Field{Key: "block-height", Val: eval.NewInt(int64(min(b.Height, math.MaxInt64)))},
		eval.Field{Key: "block-time", Val: eval.TimeFromMicros(b.ParentTime)},
		eval.Field{Key: "prev-block-hash", Val: eval.String(b.ParentHash.String())},
		eval.Field{Key: "sender", Val: eval.String(sender)},
		eval.Field{Key: "gas-limit", Val: eval.NewInt(gasLimit)},
		eval.Field{Key: "gas-price", Val: gasPrice},
	)
}

// MaxResultBytes is the cap of a command's result.
func (r *Runner) MaxResultBytes() int { return r.cfg.MaxResultBytes }

// interp makes the interpreter of one command in b, whose public metadata
// is m (the command's, with the gas limit it runs with), on the memory a
// finished command's interpreter left (release).
func (r *Runner) interp(st db.DB, b *Block, pc *api.ParsedCommand, m *api.PublicMeta) *eval.Interp {
	sp, _ := r.spares.Get().(*eval.Spare)
	in := eval.NewWith(st, sp)
	in.TxHash = pc.RequestKey.String()
	in.Flags = r.cfg.Flags
	in.Signers = pc.Payload.EvalSigners()
	in.Verifiers = pc.Payload.EvalVerifiers()
	in.ChainData = chainData(b, m)
	if b.SPV != nil {
		in.SPV = func(kind string, payload *eval.Object) (*eval.Object, error) {
			return verifySPV(b, kind, payload)
		}
	}
	return in
}

// release passes the memory of in, whose command is done, to the next
// command's interpreter.
func (r *Runner) release(in *eval.Interp) { r.spares.Put(in.Release()) }

// verifySPV is the verify-spv native: "TXOUT" with {"proof": PROOF} gives the proven
// transaction output as an object.
func verifySPV(b *Block, kind string, payload *eval.Object) (*eval.Object, error) {
	if kind != "TXOUT" {
		return nil, eval.EvalError("verify-spv: unsupported SPV type " + strconv.Quote(kind) + " (this chain verifies TXOUT)")
	}
	pv, _ := payload.Get("proof")
	proof, ok := pv.(eval.String)
	if !ok {
		return nil, eval.EvalError(`verify-spv: the payload needs "proof", a string`)
	}
	out, err := provenOutput(b, string(proof))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// provenOutput verifies proof and decodes the output it proves.
func provenOutput(b *Block, proof string) (*eval.Object, error) {
	if b.SPV == nil {
		return nil, eval.EvalError("SPV proofs are not verified on this chain")
	}
	raw, err := b.SPV(proof)
	if err != nil {
		return nil, eval.EvalError("SPV verification failed: " + err.Error())
	}
	v, err := eval.DecodeJSON(raw)
	if err != nil {
		return nil, eval.EvalError("SPV verification failed: the proven output is not JSON: " + err.Error())
	}
	o, ok := v.(*eval.Object)
	if !ok {
		return nil, eval.EvalError("SPV verification failed: the proven output is not an object")
	}
	return o, nil
}

// eval evaluates one fixed form.
func eval1(in *eval.Interp, p *eval.Prepared) (eval.Value, error) {
	return in.EvalPrepared(p, false)
}

// magicCap names one of coin's capabilities a node grants by itself.
func magicCap(name string) *eval.CapToken {
	return &eval.CapToken{Name: eval.FullyQualifiedName{Module: eval.ModuleName{Name: "coin"}, Name: name}}
}

// The capabilities the gas flow, the coinbase and genesis run under. They
// are put on the capability stack (eval.Interp.GrantCapability) rather
// than acquired by evaluating (coin.GAS): that would read coin for free,
// and buy-gas, which chainweb charges for reading coin, would not pay it.
var (
	gasCap      = magicCap("GAS")
	coinbaseCap = magicCap("COINBASE")
	genesisCap  = magicCap("GENESIS")
)

// inTx runs f in a Pact transaction of mode on in's database: committed
// (returning the logs and the tx id) when f succeeds, rolled back when it
// fails. Interpreter state of the transaction (capabilities, events) is
// reset afterwards either way, events excepted: the caller collects them.
func inTx(in *eval.Interp, mode db.Mode, f func() (eval.Value, error)) (eval.Value, []db.TxLog, db.TxID, error) {
	id, err := in.DB.BeginTx(mode)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("begin transaction: %w", err)
	}
	in.Mode = mode
	v, err := f()
	if err != nil {
		if rerr := in.DB.RollbackTx(); rerr != nil {
			return nil, nil, 0, fmt.Errorf("%w (and the rollback failed: %v)", err, rerr)
		}
		return nil, nil, id, err
	}
	logs, err := in.DB.CommitTx()
	if err != nil {
		return nil, nil, 0, fmt.Errorf("commit transaction: %w", err)
	}
	return v, logs, id, nil
}

// continueFromProof runs the next step of a defpact whose previous step ran on another chain:
// the proof must verify against this chain's history, and the defpact it carries must be the
// one the continuation names.
func continueFromProof(in *eval.Interp, b *Block, c *api.ContMsg) (eval.Value, error) {
	out, err := provenOutput(b, *c.Proof)
	if err != nil {
		return nil, err
	}
	cont, ok := out.Get("continuation")
	if !ok || cont == eval.UnitValue {
		return nil, eval.EvalError("SPV verification failed: the proven transaction started no defpact")
	}
	pe, err := in.PactExecFromJSON(cont)
	if err != nil {
		return nil, err
	}
	if pe.PactID != c.PactID {
		return nil, eval.EvalError("SPV verification failed: the proof is of defpact " + pe.PactID +
			", the continuation names " + c.PactID)
	}
	return in.ContinueFromProof(pe, int(c.Step), c.Rollback)
}

// runPayload evaluates a command's payload: every top-level form of an
// exec (the result is the last value), or the requested step of a
// defpact.
func runPayload(in *eval.Interp, b *Block, pc *api.ParsedCommand) (eval.Value, error) {
	p := pc.Payload
	if c := p.Cont; c != nil {
		if c.Proof != nil {
			return continueFromProof(in, b, c)
		}
		return in.ContinuePact(int(c.Step), c.Rollback, c.PactID, nil)
	}
	if pc.Code == nil {
		return nil, eval.EvalError("command has no code")
	}
	return in.EvalProgram(pc.Code.Items)
}
