package txexec

import (
	"errors"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/result"
)

// Local simulates a command in block b on st, which must be a view thrown
// away afterwards (chainweb-api.md §6.5). Legacy mode runs the payload
// alone, metered by its gas limit; preflight runs it as a block would,
// gas bought and redeemed, and reports a failed purchase as the result.
// The result's metaData is the public data the command ran with.
func (r *Runner) Local(st db.DB, b *Block, pc *api.ParsedCommand, preflight bool) ([]byte, error) {
	m := pc.Payload.Meta.Public
	if m == nil {
		return nil, ErrNoPublicMeta
	}
	meta := localMeta(b, m)
	in := r.interp(st, b, pc)
	if preflight {
		if err := r.buy(in, pc, m, b.Miner, true); err != nil {
			var be *BuyGasError
			if !errors.As(err, &be) {
				return nil, err
			}
			o := &result.Outcome{Fail: result.EvalFailure(be.Error()), MetaData: meta}
			return result.Append(nil, pc.RequestKey, o), nil
		}
	}
	o, err := r.payload(in, b, pc, m, db.Local)
	if err != nil {
		return nil, err
	}
	if preflight {
		if err := r.redeem(in, m, b.Miner, o); err != nil {
			return nil, err
		}
	}
	o.MetaData = meta
	return result.Append(nil, pc.RequestKey, o), nil
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
