package chain

import (
	"encoding/binary"
	"fmt"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// The node's records in a chain's Pact state, kept with each block (state.View.PutMeta) so
// that they are versioned, and rewound, with the state: "which block is the state at" and "is
// this transaction on chain as of block N, and where" are reads of one view. They are not Pact
// data: Pact code cannot see them.
//
//	"b"               the hash of the block the state is at (32 bytes)
//	"r:" request key  the transaction's TxLocation: its block's hash, then its index in the
//	                  block (u32 BE)
//	"tc:", "te:"      the index of transfers by account (transfers.go)
//	"pc:", "pe:"      the index of continuations by pact id (continuations.go)
const (
	recBlock    = "b"
	recTxPrefix = "r:"
)

// TxLocation is where a transaction is on chain: its block and its index among the block's
// transactions.
type TxLocation struct {
	Block ledger.Hash
	Index int
}

// RecordBlock records in view, which builds block hash at height, that the state is at that
// block, where each of its transactions (request keys in block order) is, and the transfers and
// continuations of its payload p (transfers.go, continuations.go; nil: none).
func RecordBlock(view *state.View, hash ledger.Hash, height uint64, keys []api.Hash, p *ledger.PayloadWithOutputs) error {
	if err := recordTransfers(view, hash, height, p); err != nil {
		return err
	}
	if err := recordContinuations(view, hash, height, p); err != nil {
		return err
	}
	var buf [ledger.HashSize + 4]byte
	copy(buf[:], hash[:])
	var name [len(recTxPrefix) + len(api.Hash{})]byte
	copy(name[:], recTxPrefix)
	for i, rk := range keys {
		binary.BigEndian.PutUint32(buf[ledger.HashSize:], uint32(i))
		copy(name[len(recTxPrefix):], rk[:])
		if err := view.PutMeta(string(name[:]), buf[:]); err != nil {
			return err
		}
	}
	return view.PutMeta(recBlock, hash[:])
}

// BlockAt reads the hash of the block st holds at height h.
func BlockAt(st *state.Versioned, h uint64) (ledger.Hash, error) {
	b, ok, err := st.View(h).(*state.View).Meta(recBlock)
	if err != nil {
		return ledger.Hash{}, err
	}
	if !ok || len(b) != ledger.HashSize {
		return ledger.Hash{}, fmt.Errorf("%w: no block hash at height %d", kv.ErrCorrupt, h)
	}
	return ledger.Hash(b), nil
}

// LocateTx finds where the transaction rk is as of view; false when it is in no block as of
// there.
func LocateTx(view *state.View, rk api.Hash) (TxLocation, bool, error) {
	b, ok, err := view.Meta(recTxPrefix + string(rk[:]))
	if err != nil || !ok {
		return TxLocation{}, false, err
	}
	if len(b) != ledger.HashSize+4 {
		return TxLocation{}, false, fmt.Errorf("%w: request-key index entry of %s", kv.ErrCorrupt, rk)
	}
	return TxLocation{Block: ledger.Hash(b[:ledger.HashSize]), Index: int(binary.BigEndian.Uint32(b[ledger.HashSize:]))}, true, nil
}

// LocateTxs is LocateTx for several transactions, read together (state.View.Metas).
func LocateTxs(view *state.View, rks []api.Hash) ([]TxLocation, []bool, error) {
	names := make([]string, len(rks))
	for i, rk := range rks {
		names[i] = recTxPrefix + string(rk[:])
	}
	bs, found, err := view.Metas(names)
	if err != nil {
		return nil, nil, err
	}
	locs := make([]TxLocation, len(rks))
	for i, b := range bs {
		if !found[i] {
			continue
		}
		if len(b) != ledger.HashSize+4 {
			return nil, nil, fmt.Errorf("%w: request-key index entry of %s", kv.ErrCorrupt, rks[i])
		}
		locs[i] = TxLocation{Block: ledger.Hash(b[:ledger.HashSize]), Index: int(binary.BigEndian.Uint32(b[ledger.HashSize:]))}
	}
	return locs, found, nil
}

// StateBlock reads the block the Pact state kept in space is at: `ledger-node check`'s way to
// verify the states without running a node. ok is false for an empty state.
func StateBlock(space state.KeySpace) (height uint64, block ledger.Hash, ok bool, err error) {
	st, err := state.Open(space)
	if err != nil {
		return 0, ledger.Hash{}, false, err
	}
	h, ok := st.Height()
	if !ok {
		return 0, ledger.Hash{}, false, nil
	}
	b, err := BlockAt(st, h)
	if err != nil {
		return h, ledger.Hash{}, true, fmt.Errorf("at height %d: %w", h, err)
	}
	return h, b, true, nil
}
