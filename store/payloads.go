package store

import (
	"errors"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store/internal/records"
)

// PutPayload stores a payload and its outputs, keyed by payload hash, in one atomic batch.
// The store does not re-verify the hashes (validation happened before; a block's payload can
// be megabytes): it records what it is given. Like headers, payloads are not synced.
func (db *DB) PutPayload(p *ledger.PayloadWithOutputs) error {
	if err := db.CheckWriteFault(); err != nil {
		return err
	}
	b := getBatch()
	defer putBatch(b)
	if err := appendPayload(b, p); err != nil {
		return err
	}
	if err := db.ldb.Write(b, noSync); err != nil {
		return fmt.Errorf("store: put payload %s: %w", p.PayloadHash, err)
	}
	return nil
}

// appendPayload adds the payload and outputs records of p to b.
func appendPayload(b *leveldb.Batch, p *ledger.PayloadWithOutputs) error {
	if p == nil {
		return errors.New("store: put payload: nil payload")
	}
	pr := records.Payload{
		Transactions:     make([][]byte, len(p.Transactions)),
		MinerData:        p.MinerData,
		TransactionsHash: p.TransactionsHash,
		OutputsHash:      p.OutputsHash,
	}
	outs := records.Outputs{Outputs: make([][]byte, len(p.Transactions)), Coinbase: p.Coinbase}
	for i, t := range p.Transactions {
		pr.Transactions[i], outs.Outputs[i] = t.Tx, t.Output
	}
	// One buffer for both records: Batch.Put copies, so it can be reused straight away.
	buf, err := pr.MarshalMsg(make([]byte, 0, max(pr.Msgsize(), outs.Msgsize())))
	if err != nil {
		return fmt.Errorf("store: put payload %s: %w", p.PayloadHash, err)
	}
	pk := hashKey(tagPayload, p.PayloadHash)
	b.Put(pk[:], buf)
	if buf, err = outs.MarshalMsg(buf[:0]); err != nil {
		return fmt.Errorf("store: put payload %s: %w", p.PayloadHash, err)
	}
	outKey := hashKey(tagOutputs, p.PayloadHash)
	b.Put(outKey[:], buf)
	return nil
}

// Payload returns the payload (without outputs) with payload hash h. Its byte slices share one
// freshly read buffer; the caller owns them.
func (db *DB) Payload(h ledger.Hash) (*ledger.PayloadData, error) {
	pr, err := db.loadPayload(h)
	if err != nil {
		return nil, err
	}
	return &ledger.PayloadData{
		Transactions:     pr.Transactions,
		MinerData:        pr.MinerData,
		PayloadHash:      h,
		TransactionsHash: pr.TransactionsHash,
		OutputsHash:      pr.OutputsHash,
	}, nil
}

// PayloadWithOutputs returns the payload with payload hash h together with its outputs.
func (db *DB) PayloadWithOutputs(h ledger.Hash) (*ledger.PayloadWithOutputs, error) {
	pr, err := db.loadPayload(h)
	if err != nil {
		return nil, err
	}
	var outs records.Outputs
	k := hashKey(tagOutputs, h)
	if err := db.getRecord(k[:], "outputs of payload "+h.String(), &outs); err != nil {
		return nil, err
	}
	if len(outs.Outputs) != len(pr.Transactions) {
		return nil, db.noteCorrupt(fmt.Errorf("%w: payload %s has %d transactions and %d outputs",
			errCorrupt, h, len(pr.Transactions), len(outs.Outputs)))
	}
	p := &ledger.PayloadWithOutputs{
		Transactions:     make([]ledger.TxWithOutput, len(pr.Transactions)),
		MinerData:        pr.MinerData,
		Coinbase:         outs.Coinbase,
		PayloadHash:      h,
		TransactionsHash: pr.TransactionsHash,
		OutputsHash:      pr.OutputsHash,
	}
	for i := range p.Transactions {
		p.Transactions[i] = ledger.TxWithOutput{Tx: pr.Transactions[i], Output: outs.Outputs[i]}
	}
	return p, nil
}

// loadPayload reads the payload record of h and checks that its two hashes combine to h: one
// SHA-512/256 node hash that catches a record stored under the wrong key or damaged hash fields.
func (db *DB) loadPayload(h ledger.Hash) (*records.Payload, error) {
	var pr records.Payload
	k := hashKey(tagPayload, h)
	if err := db.getRecord(k[:], "payload "+h.String(), &pr); err != nil {
		return nil, err
	}
	if ledger.PayloadHash(pr.TransactionsHash, pr.OutputsHash) != h {
		return nil, db.noteCorrupt(fmt.Errorf("%w: payload record under %s does not hash to its key", errCorrupt, h))
	}
	return &pr, nil
}

// HasPayload reports whether the payload with payload hash h is stored.
func (db *DB) HasPayload(h ledger.Hash) (bool, error) {
	k := hashKey(tagPayload, h)
	ok, err := db.ldb.Has(k[:], nil)
	if err != nil {
		return false, db.noteCorrupt(fmt.Errorf("store: has payload %s: %w", h, ldbErr(err)))
	}
	return ok, nil
}
