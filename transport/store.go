package transport

import (
	"encoding/binary"
	"errors"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// chainDB is the part of the store the read endpoints use. Handlers read through it directly,
// never through an actor: goleveldb serves concurrent readers, so reads scale with cores. The
// interface also lets the peer API (a second route table over the same store) share handlers.
type chainDB interface {
	Header(h ledger.Hash) (*ledger.Header, error)
	HeaderBinary(dst []byte, h ledger.Hash) ([]byte, error)
	ScanChain(c ledger.ChainID, from store.Position, fn func(*ledger.Header) bool) error
	MaxHeight(c ledger.ChainID) (uint64, bool, error)
	Payload(h ledger.Hash) (*ledger.PayloadData, error)
	PayloadWithOutputs(h ledger.Hash) (*ledger.PayloadWithOutputs, error)
}

var _ chainDB = (*store.DB)(nil)

// isNotFound reports whether err is the store's "no such key".
func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// headerOnChain looks up header h and reports it as missing when it belongs to another chain:
// upstream keeps one database per chain, so a block of chain 3 is unknown under /chain/5.
func headerOnChain(db chainDB, c ledger.ChainID, h ledger.Hash) (*ledger.Header, error) {
	hdr, err := db.Header(h)
	if err != nil {
		return nil, err
	}
	if hdr.ChainID != c {
		return nil, store.ErrNotFound
	}
	return hdr, nil
}

// binaryChainID reads the chain id out of a binary header without decoding the rest, so the
// header-by-hash hot path can check the chain and then stream the stored bytes untouched.
// Layout (chainweb-header.md §1): 48 fixed bytes, a u16 adjacent count, 36 bytes per adjacent,
// then target (32) and payload hash (32) before the u32 chain id.
func binaryChainID(b []byte) (ledger.ChainID, bool) {
	if len(b) < 50 {
		return 0, false
	}
	off := 50 + 36*int(binary.LittleEndian.Uint16(b[48:])) + 64
	if len(b) < off+4 {
		return 0, false
	}
	return ledger.ChainID(binary.LittleEndian.Uint32(b[off:])), true
}
