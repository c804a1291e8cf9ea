package server

import (
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// checkSend validates a /send batch as the node's mempool does, in its words (api's shared
// texts) and order: every payload decodes, the first one that does not (or that has private
// metadata) refusing the whole batch with "reading JSON for transaction failed: <reason>";
// then each command's hash and signatures, every failing command named in one "One or more
// transactions were invalid: ..." text. The node's other checks (gas, times, chain and
// network, its pool) are the chain's business and pact -s has none of them. One difference
// stays, P5's: code that does not parse is not refused but runs to its SyntaxError result.
func checkSend(cmds []*api.Command) ([]*checked, error) {
	ps := make([]*api.Payload, len(cmds))
	for i, cmd := range cmds {
		if cmd == nil {
			return nil, &contractapi.RequestError{Msg: api.SendDecodeFailed("missing command")}
		}
		p, err := api.DecodePayload([]byte(cmd.Cmd))
		if err != nil {
			return nil, &contractapi.RequestError{Msg: api.SendDecodeFailed(err.Error())}
		}
		if p.Meta.Private != nil {
			return nil, &contractapi.RequestError{Msg: api.SendDecodeFailed(api.ReasonPrivateOnSend)}
		}
		ps[i] = p
	}
	var fails []api.TxRejection
	cs := make([]*checked, len(cmds))
	for i, cmd := range cmds {
		pc := &api.ParsedCommand{Command: cmd, Payload: ps[i], RequestKey: cmd.Hash}
		switch cmd.Hash {
		case api.HashBytes([]byte(cmd.Cmd)):
			pc.HashAlg = api.BLAKE2b256
		case api.HashBytesBLAKE2s([]byte(cmd.Cmd)):
			pc.HashAlg = api.BLAKE2s256
		default:
			fails = append(fails, api.TxRejection{Index: i, Key: cmd.Hash, Reason: api.TextInvalidTxHash})
			continue
		}
		if msg := api.SigsProblem(cmd.Hash, cmd.Sigs, ps[i].Signers); msg != "" {
			fails = append(fails, api.TxRejection{Index: i, Key: cmd.Hash, Reason: api.InvalidTxSigs(msg)})
			continue
		}
		c := &checked{pc: pc}
		if ex := ps[i].Exec; ex != nil {
			if code, perr := syntax.ParseProgram("", ex.Code); perr != nil {
				c.syntaxErr = perr
			} else {
				pc.Code = code
			}
		}
		cs[i] = c
	}
	if fails != nil {
		return nil, &contractapi.RequestError{Msg: api.BatchRejected(fails)}
	}
	return cs, nil
}
