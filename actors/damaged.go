package actors

import (
	"errors"

	"github.com/ledgernode/ledger-node/chain/state"
)

// CorruptState reports whether err comes from a chain's Pact state or the node's records in it
// (request-key index, block hashes by height, transfers) found damaged on disk
// (state.ErrCorrupt): the APIs answer it 503 with what to do, not 500, as they answer damage in
// the store (store.ErrCorrupt). It lets transport tell it apart without importing chain/state.
func CorruptState(err error) bool { return errors.Is(err, state.ErrCorrupt) }
