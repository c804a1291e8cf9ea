package txexec

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/result"
)

// Coinbase mints the block's reward to its miner (coin.coinbase under
// coin.COINBASE) and returns the coinbase output: a CommandResult whose
// request key is the parent block's hash.
func (r *Runner) Coinbase(st db.DB, b *Block) ([]byte, error) {
	in := eval.New(st)
	in.TxHash = b.ParentHash.String()
	in.Flags = r.cfg.Flags
	in.ChainData = chainData(b, nil)
	in.Data = eval.NewObject(
		eval.Field{Key: "miner", Val: eval.String(b.Miner.Account)},
		eval.Field{Key: "miner-guard", Val: b.Miner.Guard},
		eval.Field{Key: "reward", Val: r.cfg.MinerReward},
	)
	v, logs, id, err := inTx(in, db.Transactional, func() (eval.Value, error) {
		in.GrantCapability(coinbaseCap)
		return eval1(in, r.coinbase)
	})
	if err != nil {
		return nil, fmt.Errorf("coinbase to %q: %w", b.Miner.Account, err)
	}
	o := &result.Outcome{Value: v, Logs: logs, HasLogs: true, Events: in.Events(true), TxID: &id}
	return result.Append(nil, b.ParentHash, o), nil
}

// GenesisCommands are the commands of a chain's genesis payload, one per
// source: unsigned, free of gas, with the source's name as nonce and a
// creation time of 0, so that every node builds the same bytes.
func GenesisCommands(srcs []contracts.Source, chainID, network string) ([]*api.Command, error) {
	out := make([]*api.Command, 0, len(srcs))
	for _, s := range srcs {
		data := eval.Value(eval.EmptyObject)
		if len(s.Data) > 0 {
			b, err := json.Marshal(s.Data)
			if err != nil {
				return nil, fmt.Errorf("genesis %s: data: %w", s.Name, err)
			}
			if data, err = eval.DecodeJSON(b); err != nil {
				return nil, fmt.Errorf("genesis %s: data: %w", s.Name, err)
			}
		}
		nw := network
		p := &api.Payload{
			NetworkID: &nw,
			Exec:      &api.ExecMsg{Code: s.Code, Data: data},
			Meta: api.Meta{Public: &api.PublicMeta{
				TTL: 172800, ChainID: chainID, GasPrice: eval.NewDecimal(eval.NewInt(0), 0),
			}},
			Nonce: s.Name,
		}
		cmd, err := p.JSON()
		if err != nil {
			return nil, fmt.Errorf("genesis %s: %w", s.Name, err)
		}
		out = append(out, &api.Command{Hash: api.HashBytes(cmd), Cmd: string(cmd), Sigs: []api.UserSig{}})
	}
	return out, nil
}

// Genesis runs one genesis command as chainweb runs them: unsigned, free
// of gas, root definitions allowed and no namespace policy function, and
// coin.GENESIS and coin.COINBASE granted once coin exists. A failure is an
// error: a genesis that does not run is a broken build.
func (r *Runner) Genesis(st db.DB, b *Block, cmd *api.Command) ([]byte, error) {
	pc, err := api.ParseCommand(cmd)
	if err != nil {
		return nil, fmt.Errorf("genesis command: %w", err)
	}
	in := r.interp(st, b, pc, pc.Payload.Meta.Public)
	defer r.release(in)
	in.Data = pc.Payload.EvalData()
	in.NamespacePolicy = eval.NamespacePolicy{AllowRoot: true}
	v, logs, id, err := inTx(in, db.Transactional, func() (eval.Value, error) {
		in.GrantCapability(genesisCap)
		in.GrantCapability(coinbaseCap)
		return runPayload(in, b, pc)
	})
	if err != nil {
		return nil, fmt.Errorf("genesis command %s: %w", pc.Payload.Nonce, err)
	}
	o := &result.Outcome{Value: v, Logs: logs, HasLogs: true, Events: in.Events(true), Pact: in.LastPact(), TxID: &id}
	return result.Append(nil, pc.RequestKey, o), nil
}

// RunDevelopmentGenesis runs the development genesis transactions of the chain named chainID
// ("0") on st, as chainweb runs genesis (unsigned, free of gas, root definitions allowed) and
// with no execution flags: `pact -s`'s preloadDevContracts, which gives a local server the state
// a node's chain starts from. The flags a server has are for the commands it serves
// (RequireKeysetNs, say, would refuse the genesis's root keysets). It is here, with the
// commands it runs, rather than in package chain, so that pact links no block code.
func RunDevelopmentGenesis(st db.DB, chainID, network string) error {
	c, err := strconv.Atoi(chainID)
	if err != nil {
		return fmt.Errorf("development genesis: chain id %q: %w", chainID, err)
	}
	cmds, err := GenesisCommands(contracts.DevelopmentGenesis(c), chainID, network)
	if err != nil {
		return err
	}
	r := New(Config{})
	b := &Block{ChainID: chainID}
	for _, cmd := range cmds {
		if _, err := r.Genesis(st, b, cmd); err != nil {
			return err
		}
	}
	return nil
}
