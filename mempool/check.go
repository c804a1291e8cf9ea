package mempool

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// The reasons of /send (chainweb-api.md §6.2), upstream's InsertError texts. The others are
// built from the transaction: see the steps' documentation.
const (
	TextDuplicate          = "Transaction already exists on chain"
	TextTTLExpired         = "Transaction time-to-live is expired"
	TextTimeInFuture       = "Transaction creation time too far in the future"
	TextBadlisted          = "Transaction is badlisted because it previously failed to validate."
	TextMetadataMismatch   = "Transaction metadata (chain id, chainweb version) conflicts with this endpoint"
	TextUnparsableChainID  = "insert error: Unparsable ChainId"
	TextTooManySignatures  = "insert error: Too many signatures"
	TextInvalidHash        = api.TextInvalidTxHash // shared with pact -s
	TextValidationTimedOut = "Transaction validation timed out"
	// TextGasLimitInexact is ours: upstream rounds such a gas limit and takes it.
	TextGasLimitInexact = "Transaction gas limit is not a whole number of gas from 0 to 18446744073709551615"
)

// GasPayer is the Pact-side gas purchase check of step 8, which needs the chain's Pact state:
// the executor implements it against the latest block. CanPay returns nil when the command's
// gas payer can buy its gas (gasLimit × gasPrice), otherwise the Pact error; its Error() text
// becomes `Attempt to buy gas failed with: "<request key>" Failed to buy gas: <text>`. An
// error that is (or wraps) ErrValidationTimedOut becomes "Transaction validation timed out".
// CanPay may be called from several goroutines at once and must not change any state.
type GasPayer interface {
	CanPay(*api.ParsedCommand) error
}

// TxIndex is the chain's request-key index, the other Pact-side check of step 8: Contains
// reports whether a transaction with that request key is in a block of the chain (as of the
// latest block). It may be called from several goroutines at once.
type TxIndex interface {
	Contains(api.Hash) bool
}

// A BatchTxIndex also answers for many request keys at once: one read of the index for a
// /send batch instead of one each (AnsweredIndex).
type BatchTxIndex interface {
	TxIndex
	ContainsAll([]api.Hash) []bool
}

// AnsweredIndex returns env with an Index that already knows the answers for txs' request
// keys, asked of env.Index at once when it is a BatchTxIndex (otherwise env itself), so that
// checking the batch (on several goroutines) reads the index once.
func AnsweredIndex(env *Env, txs []*Tx) *Env {
	batch, ok := env.Index.(BatchTxIndex)
	if !ok || len(txs) < 2 {
		return env
	}
	keys := make([]api.Hash, len(txs))
	for i, tx := range txs {
		keys[i] = tx.RequestKey
	}
	in := batch.ContainsAll(keys)
	answers := make(map[api.Hash]bool, len(keys))
	for i, k := range keys {
		answers[k] = in[i]
	}
	e := *env
	e.Index = answeredIndex{answers: answers, rest: env.Index}
	return &e
}

// answeredIndex answers from answers, and asks rest of any other key.
type answeredIndex struct {
	answers map[api.Hash]bool
	rest    TxIndex
}

func (a answeredIndex) Contains(rk api.Hash) bool {
	if in, ok := a.answers[rk]; ok {
		return in
	}
	return a.rest.Contains(rk)
}

// ErrValidationTimedOut is what a GasPayer returns when its check ran out of time
// (upstream's preInsertCheckTimeout).
var ErrValidationTimedOut = errors.New(TextValidationTimedOut)

// ErrTxTooBig is what a GasPayer returns for a command whose size charge alone is more than
// its gas limit: it could never buy its gas, and a block would drop it and bad-list it. /send
// refuses it with the text preflight gives it, `Failed to purchas gas: tx too big for gas
// limit` (upstream's spelling), after `Attempt to buy gas failed with: "<request key>" `.
var ErrTxTooBig = errors.New("tx too big for gas limit")

// Env is what the checks read besides the transactions. Precheck only reads it, so one Env
// may serve many goroutines.
type Env struct {
	Config Config
	// Chain is the chain of the endpoint; Network the version's name ("mainnet01").
	Chain   ledger.ChainID
	Network string
	// Now is the wall clock (step 4).
	Now time.Time
	// ParentTime is the creation time of the chain's latest block (step 8's time checks and
	// Preflight's); the zero Time skips those checks (no block known).
	ParentTime time.Time
	// Index and GasPayer are step 8's Pact-side checks; nil skips them.
	Index    TxIndex
	GasPayer GasPayer
}

// Step is a place in the order of §6.2's checks.
type Step uint8

// The steps, in the order they run.
const (
	StepNone         Step = iota // passed every check
	StepGasLimit                 // 1: gas limit above the block gas limit
	StepGasPrecision             // 2: gas price with too many decimal places
	StepGasPrice                 // 3: gas price below the minimum
	StepTime                     // 4: creation time and TTL against the wall clock
	StepIncluded                 // 5: in a recent block (pool)
	StepBadlisted                // 6: on the bad-list (pool)
	StepMetadata                 // 7: chain id, signature count, network id
	StepPact                     // 8: code, request-key index, hash, chain, signatures, times, gas
)

// stepLabels name the steps for the node's metrics (the reason label of a rejection).
var stepLabels = [...]string{StepNone: "none", StepGasLimit: "gas_limit", StepGasPrecision: "gas_precision",
	StepGasPrice: "gas_price", StepTime: "time", StepIncluded: "included", StepBadlisted: "badlisted",
	StepMetadata: "metadata", StepPact: "pact"}

// Label names the step in one word of lower case and underscores ("gas_price").
func (s Step) Label() string {
	if int(s) < len(stepLabels) {
		return stepLabels[s]
	}
	return "unknown"
}

// A Verdict is the outcome of the checks for one transaction: the first step it failed and
// the reason, upstream's text; Step is StepNone (and Reason empty) when it passed.
type Verdict struct {
	Step   Step
	Reason string
}

// OK reports whether the transaction passed.
func (v Verdict) OK() bool { return v.Step == StepNone }

func fail(s Step, reason string) Verdict { return Verdict{Step: s, Reason: reason} }

// Check runs every check of §6.2 over a batch, in order, and returns one verdict per
// transaction: Precheck, then the pool's two checks (pool may be nil: an empty pool).
func Check(env *Env, pool *Pool, txs []*Tx) []Verdict {
	vs := make([]Verdict, len(txs))
	for i, tx := range txs {
		vs[i] = pool.Admit(tx, Precheck(env, tx))
	}
	return vs
}

// Precheck runs the checks that read no pool state, steps 1–4, 7 and 8, and returns the
// first failure. It fills tx.Code and tx.HashAlg. It is safe to run on many goroutines at once
// (for different transactions); the pool's owner then merges in steps 5 and 6 with
// Pool.Admit, which keeps the order.
func Precheck(env *Env, tx *Tx) Verdict {
	cfg := env.Config.withDefaults()
	if v := checkGasAndTime(&cfg, env, tx); !v.OK() {
		return v
	}
	if v := checkMetadata(&cfg, env, tx); !v.OK() {
		return v
	}
	return checkPact(&cfg, env, tx)
}

// checkGasAndTime is steps 1–4 (upstream's validateOne before its pool lookups).
func checkGasAndTime(cfg *Config, env *Env, tx *Tx) Verdict {
	m := tx.Meta
	// 1. The number is the block gas limit, shown as Pact 4's ParsedInteger (derived Show).
	// Before it, ours: a gas limit written as a fraction or out of range, which the decoder
	// rounded or saturated as P5 does (api.PublicMeta.GasLimitInexact).
	if m.GasLimitInexact {
		return fail(StepGasLimit, TextGasLimitInexact)
	}
	if m.GasLimit > cfg.BlockGasLimit {
		return fail(StepGasLimit, "Transaction gas limit exceeds block gas limit (ParsedInteger "+
			strconv.FormatUint(cfg.BlockGasLimit, 10)+")")
	}
	// 2. and 3. Prices are shown as Data.Decimal shows them, with their written places.
	if m.GasPrice.Places() > cfg.MaxGasPricePlaces {
		return fail(StepGasPrecision, "insert error: This transaction's gas price: "+m.GasPrice.Text()+
			" is not correctly rounded. It should be rounded to at most "+
			strconv.Itoa(int(cfg.MaxGasPricePlaces))+" decimal places.")
	}
	if m.GasPrice.Cmp(cfg.MinGasPrice) < 0 {
		return fail(StepGasPrice, "Transaction gas price ("+m.GasPrice.Text()+
			") is below minimum gas price ("+cfg.MinGasPrice.Text()+")")
	}
	// 4. txTTLCheck: creation time before now + slack; now and creation time before expiry.
	now := env.Now.UnixMicro()
	ct := secondsToMicros(m.CreationTime)
	if ct >= satAdd(now, cfg.FutureSlack.Microseconds()) {
		return fail(StepTime, TextTimeInFuture)
	}
	if et := expiry(m, cfg.MaxTTL); !(now < et && ct < et) {
		return fail(StepTime, TextTTLExpired)
	}
	return Verdict{}
}

// checkMetadata is step 7, upstream's preInsertSingle: the chain id parses and is this
// endpoint's, the command has at most MaxSignatures signatures, and its network id is this
// network's (a missing one never is).
func checkMetadata(cfg *Config, env *Env, tx *Tx) Verdict {
	cid := tx.Meta.ChainID
	switch {
	case !parsesAsChainID(cid):
		return fail(StepMetadata, TextUnparsableChainID)
	case cid != chainText(env.Chain):
		return fail(StepMetadata, TextMetadataMismatch)
	case len(tx.Command.Sigs) > cfg.MaxSignatures:
		return fail(StepMetadata, TextTooManySignatures)
	case tx.Payload.NetworkID == nil || *tx.Payload.NetworkID != env.Network:
		return fail(StepMetadata, TextMetadataMismatch)
	}
	return Verdict{}
}

// checkPact is step 8, upstream's Pact-side pre-insert check against the latest block
// (validateRawChainwebTx, then the gas purchase), in its order.
func checkPact(cfg *Config, env *Env, tx *Tx) Verdict {
	if tx.Payload.Exec != nil {
		f, err := syntax.ParseProgram("", tx.Payload.Exec.Code)
		if err != nil {
			return fail(StepPact, "Pact parse error: "+err.Error())
		}
		tx.Code = f
	}
	if env.Index != nil && env.Index.Contains(tx.RequestKey) {
		return fail(StepPact, TextDuplicate)
	}
	// The hash is BLAKE2b-256 of cmd, or BLAKE2s-256 (DECISIONS.md, "command hash").
	switch tx.RequestKey {
	case api.HashBytes([]byte(tx.Command.Cmd)):
		tx.HashAlg = api.BLAKE2b256
	case api.HashBytesBLAKE2s([]byte(tx.Command.Cmd)):
		tx.HashAlg = api.BLAKE2s256
	default:
		return fail(StepPact, TextInvalidHash)
	}
	if want := chainText(env.Chain); tx.Meta.ChainID != want {
		// Unreachable after step 7; kept in upstream's order for callers that skip step 7.
		return fail(StepPact, "Wrong chain, expected: "+want+", actual: "+tx.Meta.ChainID)
	}
	if msg := sigsProblem(&tx.ParsedCommand); msg != "" {
		return fail(StepPact, api.InvalidTxSigs(msg))
	}
	if !env.ParentTime.IsZero() {
		parent := env.ParentTime.UnixMicro()
		if secondsToMicros(tx.Meta.CreationTime) > satAdd(parent, cfg.ParentSlack.Microseconds()) {
			return fail(StepPact, TextTimeInFuture)
		}
		if !timeInRange(cfg, tx.Meta, parent) {
			return fail(StepPact, TextTTLExpired)
		}
	}
	if env.GasPayer != nil {
		if err := env.GasPayer.CanPay(&tx.ParsedCommand); err != nil {
			if errors.Is(err, ErrValidationTimedOut) {
				return fail(StepPact, TextValidationTimedOut)
			}
			if errors.Is(err, ErrTxTooBig) {
				return fail(StepPact, `Attempt to buy gas failed with: "`+tx.RequestKey.String()+
					`" Failed to purchas gas: tx too big for gas limit`)
			}
			return fail(StepPact, `Attempt to buy gas failed with: "`+tx.RequestKey.String()+
				`" Failed to buy gas: `+err.Error())
		}
	}
	return Verdict{}
}

// sigsProblem is upstream's assertValidateSigs (api.SigsProblem, which pact -s's /send uses
// too): "" when the signatures verify.
func sigsProblem(pc *api.ParsedCommand) string {
	return api.SigsProblem(pc.RequestKey, pc.Command.Sigs, pc.Payload.Signers)
}

// timeInRange is upstream's assertTxTimeRelativeToParent: a positive TTL no longer than the
// maximum, a non-negative creation time, and an expiry after the parent block's creation
// time (parent, in microseconds).
func timeInRange(cfg *Config, m *api.PublicMeta, parent int64) bool {
	return m.TTL > 0 && parent >= 0 && m.CreationTime >= 0 &&
		secondsToMicros(satAdd(m.CreationTime, m.TTL)) > parent && m.TTL <= cfg.MaxTTL
}

// chainText is a chain id as upstream writes it (chainIdToText): decimal.
func chainText(c ledger.ChainID) string { return strconv.FormatUint(uint64(c), 10) }

// parsesAsChainID reports whether upstream's chainIdFromText (Haskell's read at Word32)
// accepts s: an integer literal (decimal, 0x/0X hexadecimal or 0o/0O octal) with an optional
// minus sign, in any number of parentheses, with white space around the tokens. Values out of
// range wrap in Haskell; they parse, and then fail the comparison with the endpoint's chain.
func parsesAsChainID(s string) bool {
	s = strings.TrimFunc(s, unicode.IsSpace)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		return parsesAsChainID(s[1 : len(s)-1])
	}
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		s = strings.TrimLeftFunc(rest, unicode.IsSpace)
	}
	digits, base := s, 10
	if len(s) > 2 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			digits, base = s[2:], 16
		case 'o', 'O':
			digits, base = s[2:], 8
		}
	}
	if digits == "" {
		return false
	}
	for _, r := range digits {
		if !isDigit(r, base) {
			return false
		}
	}
	return true
}

func isDigit(r rune, base int) bool {
	switch {
	case r >= '0' && r <= '7':
		return true
	case r == '8' || r == '9':
		return base >= 10
	case (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F'):
		return base == 16
	}
	return false
}

// A Failure is one rejected transaction of a batch.
type Failure struct {
	Index  int      // position in the batch
	Key    api.Hash // request key (the command's hash as sent)
	Reason string
}

// A BatchError rejects a whole /send batch because some of its transactions failed. Error() is
// upstream's 400 text: `One or more transactions were invalid: Transaction "<key>" at index
// <i> failed with: <reason>`, one such part per failed transaction in batch order, joined by
// ", ".
type BatchError struct {
	Failures []Failure
}

func (e *BatchError) Error() string {
	// The text is built where pact -s builds its own, so that both read the same.
	fs := make([]api.TxRejection, len(e.Failures))
	for i, f := range e.Failures {
		fs[i] = api.TxRejection{Index: f.Index, Key: f.Key, Reason: f.Reason}
	}
	return api.BatchRejected(fs)
}

// Reject returns the *BatchError for a batch's verdicts, nil when every transaction passed.
// Indexes are positions in the batch; a transaction sent twice in one batch is reported at
// each position. (Upstream numbers the failures after collapsing repeated request keys, so
// its indexes shift when a batch repeats a transaction; this reports the position the client
// sent.)
func Reject(txs []*Tx, vs []Verdict) error {
	var fs []Failure
	for i, v := range vs {
		if !v.OK() {
			fs = append(fs, Failure{Index: i, Key: txs[i].RequestKey, Reason: v.Reason})
		}
	}
	if fs == nil {
		return nil
	}
	return &BatchError{Failures: fs}
}

// IsRejection reports whether err is (or wraps) a rejection of the client's batch, a
// *DecodeError or a *BatchError, and returns its text: /send answers it with 400 text/plain.
func IsRejection(err error) (string, bool) {
	var d *DecodeError
	if errors.As(err, &d) {
		return d.Error(), true
	}
	var b *BatchError
	if errors.As(err, &b) {
		return b.Error(), true
	}
	return "", false
}
