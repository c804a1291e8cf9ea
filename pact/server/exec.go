package server

import (
	"math"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/result"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// checked is a command that passed the checks of its endpoint: a verified
// command, or an authentic one whose code does not parse (syntaxErr set;
// it runs to a SyntaxError result instead of being rejected).
type checked struct {
	pc        *api.ParsedCommand
	syntaxErr error
	// in is the command's interpreter, made (by prepare) before the
	// engine is locked: making one costs about as much as verifying a
	// signature, and need not be serialised.
	in       *eval.Interp
	warnings []string
}

// check verifies a command as P5's verifyCommand does, for send and
// private, with one difference: an authentic command (hash and signatures
// check) whose code does not parse is not rejected but answered with a
// SyntaxError result. A rejection is a RequestError naming the request
// key: "Validation failed for hash "RK": Invalid command: REASON". (local
// validates with ValidateLocal, the node's validation.)
func check(cmd *api.Command) (*checked, error) {
	pc, err := api.VerifyCommand(cmd)
	if err == nil {
		return &checked{pc: pc}, nil
	}
	p, derr := api.DecodePayload([]byte(cmd.Cmd))
	if derr != nil || p.Exec == nil {
		return nil, rejectCommand(cmd.Hash, err)
	}
	_, perr := syntax.ParseProgram("", p.Exec.Code)
	if perr == nil {
		return nil, rejectCommand(cmd.Hash, err)
	}
	pc = &api.ParsedCommand{Command: cmd, Payload: p, RequestKey: cmd.Hash}
	if pc.HashAlg, err = checkAuthentic(cmd, p); err != nil {
		return nil, rejectCommand(cmd.Hash, err)
	}
	return &checked{pc: pc, syntaxErr: perr}, nil
}

func rejectCommand(rk api.Hash, err error) error {
	return &contractapi.RequestError{Msg: "Validation failed for hash " + strconv.Quote(rk.String()) + ": " + err.Error()}
}

// checkAuthentic is the hash and signature half of VerifyCommand, for a
// command VerifyCommand stopped at its code, with the same texts.
func checkAuthentic(cmd *api.Command, p *api.Payload) (api.HashAlg, error) {
	alg := api.BLAKE2b256
	if want := api.HashBytes([]byte(cmd.Cmd)); cmd.Hash != want {
		if cmd.Hash != api.HashBytesBLAKE2s([]byte(cmd.Cmd)) {
			return 0, &api.CommandError{Reason: "Hash Mismatch, received " + cmd.Hash.String() +
				" but our hashing resulted in " + want.String()}
		}
		alg = api.BLAKE2s256
	}
	if len(cmd.Sigs) != len(p.Signers) {
		return 0, &api.CommandError{Reason: "Number of sig(s) does not match number of signer(s)"}
	}
	var failed []byte
	for i := range cmd.Sigs {
		if err := api.VerifyUserSig(cmd.Hash, cmd.Sigs[i], p.Signers[i]); err != nil {
			if failed == nil {
				failed = append(failed, '{')
			} else {
				failed = append(failed, ',')
			}
			failed = result.AppendString(failed, p.Signers[i].PubKey)
			failed = append(failed, ':')
			failed = result.AppendString(failed, err.Error())
		}
	}
	if failed != nil {
		return 0, &api.CommandError{Reason: "Invalid sig(s) found: " + string(append(failed, '}'))}
	}
	return alg, nil
}

// execute runs a checked command in a transaction of the given mode on a
// fresh interpreter and returns what it produced, with the warnings it
// raised. The caller holds e.mu.
func (e *Engine) execute(c *checked, mode db.Mode, gasLimit uint64) (*result.Outcome, []string) {
	if c.syntaxErr != nil {
		return &result.Outcome{Fail: result.ErrorOf(c.syntaxErr)}, nil
	}
	if c.in == nil || c.in.Mode != mode {
		e.prepare(c, mode)
	}
	in := c.in
	c.in = nil // one interpreter per command, used once
	e.bound(in, gasLimit)
	stop := e.timed(in)
	defer stop()
	txID, err := e.state.BeginTx(mode)
	if err != nil {
		return &result.Outcome{Fail: result.EvalFailure("begin transaction: " + err.Error())}, c.warnings
	}
	v, err := run(in, c.pc)
	used := e.gasUsed(in)
	var events []value.Event
	var pe *eval.PactExec
	if err == nil {
		// The result is measured before the commit: a command whose answer
		// is too large to send fails as a whole, its writes with it.
		events, pe = in.Events(false), in.LastPact()
		if limit := e.maxResultSize(); resultTooLarge(v, events, pe, limit) {
			err = value.EvalError("Result too large: the command's value, events and continuation encode to more than " +
				strconv.Itoa(limit) + " bytes of JSON (maxResultSize)")
		}
	}
	if err != nil {
		if rerr := e.state.RollbackTx(); rerr != nil {
			e.log.Error("pact server: rollback failed", "reqKey", c.pc.RequestKey.String(), "err", rerr)
		}
		return &result.Outcome{Gas: used, Fail: result.ErrorOf(e.devContractsHint(e.budgetError(in, err)))}, c.warnings
	}
	logs, err := e.state.CommitTx()
	if err != nil {
		return &result.Outcome{Gas: used, Fail: result.EvalFailure("commit transaction: " + err.Error())}, c.warnings
	}
	o := &result.Outcome{Gas: used, Value: v, Logs: logs, HasLogs: true, Events: events, Pact: pe}
	if mode == db.Transactional {
		o.TxID = &txID
	}
	return o, c.warnings
}

// run evaluates the command: every top-level form of an exec, whose
// result is the last value; or the requested step of a defpact.
func run(in *eval.Interp, pc *api.ParsedCommand) (value.Value, error) {
	p := pc.Payload
	if p.Cont != nil {
		c := p.Cont
		if c.Proof != nil {
			return nil, value.EvalError("SPV continuation proofs are not supported by this server")
		}
		return in.ContinuePact(int(c.Step), c.Rollback, c.PactID, nil)
	}
	return in.EvalProgram(pc.Code.Items)
}

// prepare makes the interpreter for one command: message data, signers
// with their capabilities, verifiers, chain data from the public meta (P4
// server's: block height 0, block time 0, no previous block), the request
// key as tx hash, and the configured execution flags. It does not touch
// the state, so it needs no lock.
func (e *Engine) prepare(c *checked, mode db.Mode) {
	if c.syntaxErr != nil {
		return
	}
	pc := c.pc
	in := eval.New(e.state)
	c.in = in
	p := pc.Payload
	in.TxHash = pc.RequestKey.String()
	in.Mode = mode
	in.Flags = e.flags
	in.Warn = func(s string) { c.warnings = append(c.warnings, s) }
	in.Data = p.EvalData()
	in.Signers = p.EvalSigners()
	in.Verifiers = p.EvalVerifiers()
	if m := p.Meta.Public; m != nil {
		in.ChainData = chainData(m)
	}
}

func chainData(m *api.PublicMeta) *value.Object {
	gl := m.GasLimit
	if gl > math.MaxInt64 {
		gl = math.MaxInt64
	}
	return value.NewObject(
		value.Field{Key: "chain-id", Val: value.String(m.ChainID)},
		value.Field{Key: "block-height", Val: value.NewInt(0)},
		value.Field{Key: "block-time", Val: value.TimeFromMicros(0)},
		value.Field{Key: "prev-block-hash", Val: value.String("")},
		value.Field{Key: "sender", Val: value.String(m.Sender)},
		value.Field{Key: "gas-limit", Val: value.NewInt(int64(gl))},
		value.Field{Key: "gas-price", Val: m.GasPrice},
	)
}

// commandGasLimit is the gas limit of a command: its public meta's, or
// for a private command (which has none) the configured one.
func (e *Engine) commandGasLimit(p *api.Payload) uint64 {
	if p.Meta.Public != nil {
		return p.Meta.Public.GasLimit
	}
	return e.cfg.GasLimit
}
