package txexec

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/result"
)

// Applied is a command's outcome in a block.
type Applied struct {
	// Result is the CommandResult JSON as a payload stores it (metaData
	// null: poll adds the block's).
	Result []byte
	// Gas is the gas charged, which the sender paid the miner.
	Gas int64
	// Failed says the payload failed (the command is still in the block).
	Failed bool
}

// ErrNoPublicMeta rejects a command without public metadata: a chain
// needs a sender, gas limit and gas price.
var ErrNoPublicMeta = errors.New("command has no public metadata")

// errInterrupted is a payload stopped by its time bound.
var errInterrupted = errors.New("the payload was stopped by its time bound")

// gasData is the message data of the buy and redeem forms.
func gasData(m *api.PublicMeta, miner Miner, total, fee eval.Decimal) *eval.Object {
	return eval.NewObject(
		eval.Field{Key: "sender", Val: eval.String(m.Sender)},
		eval.Field{Key: "total", Val: total},
		eval.Field{Key: "fee", Val: fee},
		eval.Field{Key: "miner", Val: eval.String(miner.Account)},
		eval.Field{Key: "miner-guard", Val: miner.Guard},
	)
}

// buy takes the command's gas from its sender (gas limit × gas price), in
// a committed Pact transaction of in's database (or, with keep false,
// rolled back), and returns the meter it ran on: Pact 5's table model
// with a limit of BuyGasLimit, whose total the payload's meter starts
// from, since the sender pays for buying too.
func (r *Runner) buy(in *eval.Interp, pc *api.ParsedCommand, m *api.PublicMeta, miner Miner, keep bool) (gas.Meter, error) {
	zero := eval.NewDecimal(eval.NewInt(0), 0)
	station, err := gasPayerCap(in.Signers)
	if err != nil {
		return gas.Meter{}, &BuyGasError{RequestKey: pc.RequestKey, Msg: err.Error()}
	}
	data := gasData(m, miner, gasSupply(m.GasLimit, m.GasPrice), zero)
	if station != nil {
		data = withTxData(data, pc)
	}
	in.Data = data
	signers := in.Signers
	in.Signers = gasSigners(signers, m.Sender)
	defer func() { in.Signers = signers }()
	if _, err := in.DB.BeginTx(db.Transactional); err != nil {
		return gas.Meter{}, fmt.Errorf("begin transaction: %w", err)
	}
	in.Mode = db.Transactional
	// coin.GAS is granted free: chainweb puts it in the capability stack
	// without evaluating anything.
	in.GrantCapability(gasCap)
	in.Gas = gas.NewMeter(r.cfg.Gas, gas.FromGas(BuyGasLimit))
	if station != nil {
		// The gas station agrees (or refuses) before the purchase, and composes what its
		// account's guard requires.
		_, err = in.TestCapability(station)
	}
	if err == nil {
		_, err = eval1(in, r.buyGas)
	}
	meter := in.Gas
	in.Gas = gas.Meter{}
	in.Events(true) // buying emits nothing a result reports
	if dberr := in.DBError(); dberr != nil && err != nil {
		in.DB.RollbackTx()
		in.ResetTx()
		return gas.Meter{}, fmt.Errorf("the state failed under the gas purchase: %w", dberr)
	}
	if err != nil || !keep {
		if rerr := in.DB.RollbackTx(); rerr != nil {
			return gas.Meter{}, fmt.Errorf("roll back gas purchase: %w", rerr)
		}
		in.ResetTx()
		if err != nil {
			return gas.Meter{}, &BuyGasError{RequestKey: pc.RequestKey, Msg: result.ErrorOf(err).Message}
		}
		return meter, nil
	}
	_, err = in.DB.CommitTx()
	in.ResetTx()
	return meter, err
}

var (
	coinGAS   = eval.FullyQualifiedName{Module: eval.ModuleName{Name: "coin"}, Name: "GAS"}
	coinDEBIT = eval.FullyQualifiedName{Module: eval.ModuleName{Name: "coin"}, Name: "DEBIT"}
)

// gasSigners are the signers buying gas sees, as chainweb makes them: only
// those that signed for coin.GAS (or signed unscoped), each also scoped to
// (coin.DEBIT sender), so that a signature meant for gas debits the gas
// and nothing else.
func gasSigners(signers []eval.Signer, sender string) []eval.Signer {
	var out []eval.Signer
	for _, s := range signers {
		if !signedForGas(s) {
			continue
		}
		debit := &eval.CapToken{Name: coinDEBIT, Args: []eval.Value{eval.String(sender)}}
		out = append(out, eval.Signer{PubKey: s.PubKey, Scheme: s.Scheme, Caps: append([]*eval.CapToken{debit}, s.Caps...)})
	}
	return out
}

// signedForGas: the signer signed unscoped or for coin.GAS.
func signedForGas(s eval.Signer) bool {
	if len(s.Caps) == 0 {
		return true
	}
	for _, c := range s.Caps {
		if c.Name.Module == coinGAS.Module && c.Name.Name == coinGAS.Name && len(c.Args) == 0 {
			return true
		}
	}
	return false
}

// gasPayerCap returns the signed GAS_PAYER capability of a gas station (chainweb: exactly one
// signer capability whose base name is GAS_PAYER, in any module), nil when there is none.
func gasPayerCap(signers []eval.Signer) (*eval.CapToken, error) {
	var found *eval.CapToken
	for _, s := range signers {
		for _, c := range s.Caps {
			if c.Name.Name != "GAS_PAYER" {
				continue
			}
			if found != nil {
				return nil, errors.New("more than one GAS_PAYER capability is signed")
			}
			found = c
		}
	}
	return found, nil
}

// withTxData adds what a gas station may check to the gas data: tx-type, and exec-code (the
// source of each top-level expression) with exec-user-data, or the continuation's cont-pact-id,
// cont-step, cont-is-rollback, cont-user-data and cont-has-proof.
func withTxData(data *eval.Object, pc *api.ParsedCommand) *eval.Object {
	fields := make([]eval.Field, 0, data.Len()+6)
	for _, k := range data.Keys() {
		v, _ := data.Get(k)
		fields = append(fields, eval.Field{Key: k, Val: v})
	}
	p := pc.Payload
	switch {
	case p.Exec != nil:
		var code []eval.Value
		if pc.Code != nil {
			for _, it := range pc.Code.Items {
				sp := it.Span()
				if sp.Start.Offset >= 0 && sp.End.Offset <= len(p.Exec.Code) && sp.Start.Offset <= sp.End.Offset {
					code = append(code, eval.String(p.Exec.Code[sp.Start.Offset:sp.End.Offset]))
				}
			}
		}
		fields = append(fields,
			eval.Field{Key: "tx-type", Val: eval.String("exec")},
			eval.Field{Key: "exec-code", Val: eval.List(code)},
			eval.Field{Key: "exec-user-data", Val: p.EvalData()})
	case p.Cont != nil:
		c := p.Cont
		fields = append(fields,
			eval.Field{Key: "tx-type", Val: eval.String("cont")},
			eval.Field{Key: "cont-pact-id", Val: eval.String(c.PactID)},
			eval.Field{Key: "cont-step", Val: eval.NewInt(c.Step)},
			eval.Field{Key: "cont-is-rollback", Val: eval.Bool(c.Rollback)},
			eval.Field{Key: "cont-user-data", Val: p.EvalData()},
			eval.Field{Key: "cont-has-proof", Val: eval.Bool(c.Proof != nil)})
	}
	return eval.NewObject(fields...)
}

// CanPay reports whether the command's sender can buy its gas in the state
// st (the mempool's gas payer check, as chainweb's attemptBuyGas: the
// purchase alone, with its own 1,500-gas limit). Nothing is written: st
// only needs to be a view.
func (r *Runner) CanPay(st db.DB, b *Block, pc *api.ParsedCommand) error {
	m := pc.Payload.Meta.Public
	if m == nil {
		return ErrNoPublicMeta
	}
	if InitialGas(pc) > m.GasLimit {
		// Its size charge alone passes its limit: applyCmd would refuse it (preflight does).
		return &BuyGasError{RequestKey: pc.RequestKey, TooBig: true}
	}
	if surelyPays(st, pc.Payload.EvalSigners(), m, gasSupply(m.GasLimit, m.GasPrice)) {
		return nil
	}
	in := r.interp(st, b, pc, m)
	defer r.release(in)
	_, err := r.buy(in, pc, m, b.Miner, false)
	return err
}

// Apply runs a command in block b on st with the gas limit it asks for:
// buys its gas, runs its payload and redeems the gas, paying the miner. A
// *BuyGasError means the command is invalid and st is unchanged; any other
// error is the state's failure.
func (r *Runner) Apply(st db.DB, b *Block, pc *api.ParsedCommand) (Applied, error) {
	return r.ApplyWithin(st, b, pc, math.MaxUint64)
}

// ApplyWithin is Apply in a block with blockGas gas left: the command runs
// with the smaller of its gas limit and blockGas, so that it can never
// spend more than the block has. A command whose own limit is above
// blockGas may not fail, since its failure would be charged more than the
// block has left: that is a *BlockGasLimitExceededError, and the block
// holding it is invalid (st holds the command's writes; throw it away).
func (r *Runner) ApplyWithin(st db.DB, b *Block, pc *api.ParsedCommand, blockGas uint64) (Applied, error) {
	return r.ApplyTimed(st, b, pc, blockGas, 0)
}

// TimeoutError is a command whose payload ran longer than the bound a block being built gives
// each command (ApplyTimed): it is left out of the block and not offered again. Its payload's
// writes are rolled back; the purchase of its gas is not (the caller rolls the state back to
// before the command).
type TimeoutError struct {
	RequestKey api.Hash
	Limit      time.Duration
	// Local is set for a local command (Config.LocalTimeLimit).
	Local bool
}

func (e *TimeoutError) Error() string {
	if e.Local {
		return fmt.Sprintf("the command ran longer than this node's bound of %v on a command (a block it builds would leave it out too): Pact 5 prices some natives far below their cost",
			e.Limit)
	}
	return fmt.Sprintf("transaction %s ran longer than the node's bound of %v on a transaction in a block it builds",
		e.RequestKey, e.Limit)
}

// timer sets the flag it returns once limit passes (nil for no limit); stop releases it.
func timer(limit time.Duration) (flag *atomic.Bool, stop func() bool) {
	if limit <= 0 {
		return nil, func() bool { return false }
	}
	flag = new(atomic.Bool)
	t := time.AfterFunc(limit, func() { flag.Store(true) })
	return flag, t.Stop
}

// ApplyTimed is ApplyWithin with a bound on the payload's wall-clock time, as chainweb bounds
// each transaction of a block it builds: past limit, evaluation stops at its next gas charge and
// the command is a *TimeoutError. A limit of 0 is no bound (validating others' blocks must be
// deterministic, so only building uses one).
func (r *Runner) ApplyTimed(st db.DB, b *Block, pc *api.ParsedCommand, blockGas uint64, limit time.Duration) (Applied, error) {
	m := pc.Payload.Meta.Public
	if m == nil {
		return Applied{}, ErrNoPublicMeta
	}
	stop, release := timer(limit)
	defer release()
	o, err := r.applyCmd(st, b, pc, withGasLimit(m, min(m.GasLimit, blockGas)), db.Transactional, stop)
	if errors.Is(err, errInterrupted) {
		return Applied{}, &TimeoutError{RequestKey: pc.RequestKey, Limit: limit}
	}
	if err != nil {
		return Applied{}, err
	}
	if o.Fail != nil && m.GasLimit > blockGas {
		return Applied{}, &BlockGasLimitExceededError{RequestKey: pc.RequestKey, GasLimit: m.GasLimit, Remaining: blockGas}
	}
	return Applied{Result: encodeResult(pc.RequestKey, o), Gas: o.Gas, Failed: o.Fail != nil}, nil
}

// applyCmd is chainweb's applyCmd: the command runs with public metadata m
// (its own, or with a capped gas limit), its gas bought before and redeemed
// after, in mode (Transactional in a block, Local for a preflight).
//
// With stop set, the payload's evaluation stops once it is true, and applyCmd returns
// errInterrupted, having rolled back the payload's writes but not the gas purchase.
func (r *Runner) applyCmd(st db.DB, b *Block, pc *api.ParsedCommand, m *api.PublicMeta, mode db.Mode, stop *atomic.Bool) (*result.Outcome, error) {
	initial := InitialGas(pc)
	if initial > m.GasLimit {
		return nil, &BuyGasError{RequestKey: pc.RequestKey, TooBig: true}
	}
	in := r.interp(st, b, pc, m)
	defer r.release(in)
	if mode == db.Local {
		in.Flags = r.localFlags
	}
	meter, err := r.buy(in, pc, m, b.Miner, true)
	if err != nil {
		return nil, err
	}
	o, err := r.payload(in, b, pc, m, mode, meter, initial, stop)
	if err != nil {
		return nil, err
	}
	if err := r.redeem(in, m, b.Miner, o); err != nil {
		return nil, err
	}
	return o, nil
}

// payload runs the command's code under the chain's namespace policy, in
// a Pact transaction of mode, on meter (which holds what buying gas used)
// with the command's gas limit: first the size charge initial, then the
// code. A failure is an outcome charged the whole gas limit, and so is a
// result larger than MaxResultBytes; either rolls the payload back. The
// error is the policy's lookup or the state's.
func (r *Runner) payload(in *eval.Interp, b *Block, pc *api.ParsedCommand, m *api.PublicMeta, mode db.Mode,
	meter gas.Meter, initial uint64, stop *atomic.Bool) (*result.Outcome, error) {
	in.Data = pc.Payload.EvalData()
	in.Gas = gas.Meter{}
	policy, err := eval1(in, r.nsPolicy)
	if err != nil {
		if dberr := in.DBError(); dberr != nil {
			err = dberr
		}
		return nil, fmt.Errorf("namespace policy: %w", err)
	}
	in.NamespacePolicy = eval.NamespacePolicy{AllowRoot: false, Fn: policy}
	limit := int64(m.GasLimit) // withGasLimit keeps it below maxGasLimit
	meter.SetLimit(gas.FromGas(m.GasLimit))
	in.Gas = meter
	defer func() { in.Gas = gas.Meter{} }()
	id, err := in.DB.BeginTx(mode)
	if err != nil {
		return nil, fmt.Errorf("begin transaction: %w", err)
	}
	in.Mode = mode
	var v eval.Value
	in.Interrupt = stop
	if err = chargeConstant(in, initial); err == nil {
		v, err = runPayload(in, b, pc)
	}
	in.Interrupt = nil
	if err != nil && stop != nil && stop.Load() {
		// Stopped by the time bound (or failing just as it passed): not an outcome.
		in.DB.RollbackTx()
		in.Events(true)
		in.ResetTx()
		return nil, errInterrupted
	}
	if dberr := in.DBError(); dberr != nil {
		in.DB.RollbackTx()
		in.ResetTx()
		return nil, fmt.Errorf("the state failed under the command: %w", dberr)
	}
	var o *result.Outcome
	if err == nil {
		o = &result.Outcome{Gas: int64(in.Gas.Used().Gas()), Value: v, HasLogs: true,
			Events: in.Events(true), Pact: in.LastPact()}
		if mode == db.Transactional {
			o.TxID = &id
		}
		if r.tooLarge(pc.RequestKey, o) {
			err = &eval.Error{Kind: eval.ErrEval, Msg: result.TooLargeText(r.cfg.MaxResultBytes)}
		}
	}
	if err != nil {
		// Every failure is the command's outcome, as upstream records it:
		// the state underneath is the executor's own view, which does not
		// fail under it.
		if rerr := in.DB.RollbackTx(); rerr != nil {
			return nil, fmt.Errorf("roll back the command: %w", rerr)
		}
		in.Events(true)
		in.ResetTx()
		return &result.Outcome{Gas: limit, Fail: result.ErrorOf(err)}, nil
	}
	if o.Logs, err = in.DB.CommitTx(); err != nil {
		return nil, fmt.Errorf("commit transaction: %w", err)
	}
	in.ResetTx()
	return o, nil
}

// tooLarge reports whether outcome o's result passes MaxResultBytes: first
// by a bounded count of its values (which never encodes a result that could
// not fit), then by its encoding. It is measured before the gas settlement
// adds its TRANSFER event (a few hundred bytes) and with the hash of no
// logs in place of the writes' (the same length).
func (r *Runner) tooLarge(rk api.Hash, o *result.Outcome) bool {
	limit := r.cfg.MaxResultBytes
	if result.Exceeds(o, limit) {
		return true
	}
	return resultLen(rk, o) > limit
}

// redeem settles the gas of outcome o: the fee (gas × price) to the miner,
// the rest back to the sender. Its TRANSFER event follows the payload's.
func (r *Runner) redeem(in *eval.Interp, m *api.PublicMeta, miner Miner, o *result.Outcome) error {
	fee := gasSupply(uint64(o.Gas), m.GasPrice)
	in.Data = gasData(m, miner, gasSupply(m.GasLimit, m.GasPrice), fee)
	_, _, _, err := inTx(in, db.Transactional, func() (eval.Value, error) {
		in.GrantCapability(gasCap)
		return eval1(in, r.redeemGas)
	})
	if err != nil {
		return fmt.Errorf("redeem gas: %w", err)
	}
	o.Events = append(o.Events, in.Events(true)...)
	in.ResetTx()
	return nil
}
