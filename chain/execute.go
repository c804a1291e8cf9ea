package chain

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/txexec"
)

// Execute runs payload p of a block another node made on st, the state as of the block's
// parent (empty for genesis), in the block's context blk, and checks that it produces p's
// outputs within the block rules: the coinbase first (none at genesis), then each transaction
// with at most the gas left in the block (MaxBlockGasLimit), the outputs within maxOutputs, and
// no transaction twice: not one the branch holds already (the request-key index of st), nor
// one twice in the block, as chainweb refuses both. Without that rule a miner could replay any
// signed command, a transfer say, as often as it liked. It
// returns the request keys of the transactions in block order and the gas they used (the
// node's metrics count it); the writes are in st. A payload that does not execute to its
// outputs gets an error wrapping ErrInvalidPayload.
func Execute(r *txexec.Runner, st *state.View, blk *txexec.Block, genesis bool, p *ledger.PayloadWithOutputs,
	maxOutputs int) ([]api.Hash, uint64, error) {
	// The commands are decoded and checked for repeats before anything runs, as chainweb checks
	// a block's transactions before executing it.
	cmds := make([]*api.Command, len(p.Transactions))
	keys := make([]api.Hash, 0, len(p.Transactions))
	for i, t := range p.Transactions {
		cmd, err := api.DecodeCommand(t.Tx)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: transaction %d: %v", ErrInvalidPayload, i, err)
		}
		cmds[i] = cmd
		if genesis {
			continue
		}
		if slices.Contains(keys, cmd.Hash) {
			return nil, 0, fmt.Errorf("%w: transaction %d (%s) is in the block twice", ErrInvalidPayload, i, cmd.Hash)
		}
		if _, on, err := LocateTx(st, cmd.Hash); err != nil {
			return nil, 0, err
		} else if on {
			return nil, 0, fmt.Errorf("%w: transaction %d (%s) is on the chain already", ErrInvalidPayload, i, cmd.Hash)
		}
		keys = append(keys, cmd.Hash)
	}
	if !genesis {
		cb, err := r.Coinbase(st, blk)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
		}
		if !bytes.Equal(cb, p.Coinbase) {
			return nil, 0, fmt.Errorf("%w: the coinbase output differs", ErrInvalidPayload)
		}
	}
	keys = keys[:0]
	blockGas := uint64(MaxBlockGasLimit)
	outputs := len(p.Coinbase)
	for i, t := range p.Transactions {
		cmd := cmds[i]
		var out []byte
		var err error
		if genesis {
			// Genesis commands are not signed and not checked (DECISIONS.md), nor bounded.
			out, err = r.Genesis(st, blk, cmd)
		} else {
			var pc *api.ParsedCommand
			if pc, err = api.VerifyCommand(cmd); err == nil {
				var a txexec.Applied
				if a, err = r.ApplyWithin(st, blk, pc, blockGas); err == nil {
					out = a.Result
					blockGas -= uint64(a.Gas) // a.Gas <= blockGas: it ran with at most that
				}
			}
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%w: transaction %d: %v", ErrInvalidPayload, i, err)
		}
		if !bytes.Equal(out, t.Output) {
			return nil, 0, fmt.Errorf("%w: transaction %d: the output differs", ErrInvalidPayload, i)
		}
		if outputs += len(out); !genesis && outputs > maxOutputs {
			return nil, 0, fmt.Errorf("%w: the outputs pass %d bytes", ErrInvalidPayload, maxOutputs)
		}
		keys = append(keys, cmd.Hash)
	}
	return keys, MaxBlockGasLimit - blockGas, nil
}

// PayloadContext is the context in which block h, child of parent, runs its payload p: at
// genesis no parent and no miner, otherwise the miner p names, which must parse. The SPV
// check is the caller's to add.
func PayloadContext(v *ledger.Version, h, parent *ledger.Header, p *ledger.PayloadWithOutputs) (*txexec.Block, error) {
	if IsGenesis(v, h) {
		return BlockContext(v, h, nil, txexec.Miner{}), nil
	}
	miner, err := txexec.ParseMiner(p.MinerData)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	return BlockContext(v, h, parent, miner), nil
}
