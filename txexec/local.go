package txexec

import (
	"errors"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/result"
)

// Local simulates a command in block b on st, which must be a view thrown
// away afterwards (chainweb-api.md §6.5). Its gas limit is capped at
// Config.LocalGasLimit, whatever the command asks, and its time at Config.LocalTimeLimit (a
// *TimeoutError past it).
//
// Legacy mode is chainweb's applyLocal: the payload alone on a table-model
// meter with the gas limit, no gas bought and no size charge; a failure
// is charged the limit and has no metaData. Preflight is applyCmd, as a
// block would run it: size charge, gas bought (on the same meter) and
// redeemed; a command whose gas cannot be bought gets that failure as its
// result, charged the limit. The metaData of the others is the public
// data the command ran with.
func (r *Runner) Local(st db.DB, b *Block, pc *api.ParsedCommand, preflight bool) ([]byte, error) {
	m := pc.Payload.Meta.Public
	if m == nil {
		return nil, ErrNoPublicMeta
	}
	run := withGasLimit(m, min(m.GasLimit, r.cfg.LocalGasLimit))
	stop, release := timer(r.cfg.LocalTimeLimit)
	defer release()
	var o *result.Outcome
	var err error
	if preflight {
		o, err = r.applyCmd(st, b, pc, run, db.Local, stop)
		var be *BuyGasError
		if errors.As(err, &be) {
			o := &result.Outcome{Gas: int64(run.GasLimit), Fail: result.EvalFailure(be.Error())}
			return r.localResult(pc.RequestKey, o, run), nil
		}
	} else {
		in := r.interp(st, b, pc, run)
		defer r.release(in)
		in.Flags = r.localFlags
		o, err = r.payload(in, b, pc, run, db.Local, gas.NewMeter(r.cfg.Gas, 0), 0, stop)
	}
	if errors.Is(err, errInterrupted) {
		return nil, &TimeoutError{RequestKey: pc.RequestKey, Limit: r.cfg.LocalTimeLimit, Local: true}
	}
	if err != nil {
		return nil, err
	}
	if o.Fail == nil || preflight {
		o.MetaData = localMeta(b, m)
	}
	return r.localResult(pc.RequestKey, o, run), nil
}

// localResult encodes a local result, failing it (charged the limit) when
// it passes MaxResultBytes. Nothing is kept of a local command, so the
// final result is what is measured.
func (r *Runner) localResult(rk api.Hash, o *result.Outcome, m *api.PublicMeta) []byte {
	limit := r.cfg.MaxResultBytes
	if !result.Exceeds(o, limit) {
		if out := result.Append(nil, rk, o); len(out) <= limit {
			return out
		}
	}
	return result.Append(nil, rk, &result.Outcome{Gas: int64(m.GasLimit), Fail: result.EvalFailure(result.TooLargeText(limit))})
}

// localMeta is local's metaData: {"publicMeta", "blockTime",
// "prevBlockHash", "blockHeight"}.
func localMeta(b *Block, m *api.PublicMeta) []byte {
	buf := append([]byte(nil), `{"publicMeta":`...)
	buf = m.AppendJSON(buf)
	buf = append(buf, `,"blockTime":`...)
	buf = strconv.AppendInt(buf, b.ParentTime, 10)
	buf = append(buf, `,"prevBlockHash":"`...)
	buf = append(buf, b.ParentHash.String()...)
	buf = append(buf, `","blockHeight":`...)
	buf = strconv.AppendUint(buf, b.Height, 10)
	return append(buf, '}')
}
