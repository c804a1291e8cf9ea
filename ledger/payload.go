package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// PayloadData is a block payload without outputs: the transactions and the miner data, with the
// three hashes that commit to them. Transactions and miner data are opaque bytes to consensus
// (for Pact they are UTF-8 JSON).
type PayloadData struct {
	Transactions     [][]byte
	MinerData        []byte
	PayloadHash      Hash
	TransactionsHash Hash
	OutputsHash      Hash
}

// TxWithOutput is one transaction of a block with its output (a command result).
type TxWithOutput struct {
	Tx     []byte
	Output []byte
}

// PayloadWithOutputs is a block payload with the output of every transaction and the coinbase
// output.
type PayloadWithOutputs struct {
	Transactions     []TxWithOutput
	MinerData        []byte
	Coinbase         []byte
	PayloadHash      Hash
	TransactionsHash Hash
	OutputsHash      Hash
}

// TransactionsHash is the merkle root over the miner data (tag 0x0017) followed by each
// transaction (tag 0x0013), in block order.
func TransactionsHash(minerData []byte, txs [][]byte) Hash {
	leaves := make([]Hash, 0, 1+len(txs))
	leaves = append(leaves, TaggedLeafHash(TagMinerData, minerData))
	for _, tx := range txs {
		leaves = append(leaves, TaggedLeafHash(TagTransaction, tx))
	}
	return MerkleRoot(leaves)
}

// OutputsHash is the merkle root over the coinbase output (tag 0x0018) followed by each
// transaction output (tag 0x0014), in block order.
func OutputsHash(coinbase []byte, outputs [][]byte) Hash {
	leaves := make([]Hash, 0, 1+len(outputs))
	leaves = append(leaves, TaggedLeafHash(TagCoinbaseOutput, coinbase))
	for _, o := range outputs {
		leaves = append(leaves, TaggedLeafHash(TagTransactionOutput, o))
	}
	return MerkleRoot(leaves)
}

// PayloadHash is the root of the two tree nodes [transactionsHash, outputsHash].
func PayloadHash(transactionsHash, outputsHash Hash) Hash {
	return NodeHash(transactionsHash, outputsHash)
}

// NewPayloadWithOutputs builds a payload and computes its three hashes.
func NewPayloadWithOutputs(minerData, coinbase []byte, txs []TxWithOutput) *PayloadWithOutputs {
	p := &PayloadWithOutputs{Transactions: txs, MinerData: minerData, Coinbase: coinbase}
	p.TransactionsHash, p.OutputsHash, p.PayloadHash = p.ComputeHashes()
	return p
}

// ComputeHashes recomputes the transactions, outputs and payload hashes from the contents.
func (p *PayloadWithOutputs) ComputeHashes() (txHash, outHash, payloadHash Hash) {
	txs := make([][]byte, len(p.Transactions))
	outs := make([][]byte, len(p.Transactions))
	for i, t := range p.Transactions {
		txs[i], outs[i] = t.Tx, t.Output
	}
	txHash = TransactionsHash(p.MinerData, txs)
	outHash = OutputsHash(p.Coinbase, outs)
	return txHash, outHash, PayloadHash(txHash, outHash)
}

// ErrPayloadHash is returned when a payload's recorded hashes do not match its contents.
var ErrPayloadHash = errors.New("payload hashes do not match its contents")

// Verify checks the three recorded hashes against the contents.
func (p *PayloadWithOutputs) Verify() error {
	tx, out, ph := p.ComputeHashes()
	if tx != p.TransactionsHash || out != p.OutputsHash || ph != p.PayloadHash {
		return fmt.Errorf("%w: computed %s, recorded %s", ErrPayloadHash, ph, p.PayloadHash)
	}
	return nil
}

// Data returns the payload without outputs.
func (p *PayloadWithOutputs) Data() *PayloadData {
	txs := make([][]byte, len(p.Transactions))
	for i, t := range p.Transactions {
		txs[i] = t.Tx
	}
	return &PayloadData{
		Transactions: txs, MinerData: p.MinerData, PayloadHash: p.PayloadHash,
		TransactionsHash: p.TransactionsHash, OutputsHash: p.OutputsHash,
	}
}

// Verify checks the transactions hash against the contents and the payload hash against the
// transactions and outputs hashes (the outputs themselves are not part of PayloadData).
func (p *PayloadData) Verify() error {
	tx := TransactionsHash(p.MinerData, p.Transactions)
	if tx != p.TransactionsHash || PayloadHash(tx, p.OutputsHash) != p.PayloadHash {
		return fmt.Errorf("%w: transactions hash %s, recorded %s", ErrPayloadHash, tx, p.TransactionsHash)
	}
	return nil
}

// JSON shapes (chainweb-header.md §6): binary fields are unpadded base64url strings.

type payloadDataJSON struct {
	Transactions     []b64Bytes `json:"transactions"`
	MinerData        b64Bytes   `json:"minerData"`
	PayloadHash      Hash       `json:"payloadHash"`
	TransactionsHash Hash       `json:"transactionsHash"`
	OutputsHash      Hash       `json:"outputsHash"`
}

type payloadWithOutputsJSON struct {
	Transactions     [][2]b64Bytes `json:"transactions"`
	MinerData        b64Bytes      `json:"minerData"`
	Coinbase         b64Bytes      `json:"coinbase"`
	PayloadHash      Hash          `json:"payloadHash"`
	TransactionsHash Hash          `json:"transactionsHash"`
	OutputsHash      Hash          `json:"outputsHash"`
}

// b64Bytes is a byte string in JSON as unpadded base64url.
type b64Bytes []byte

func (b b64Bytes) MarshalText() ([]byte, error) { return AppendB64(nil, b), nil }

func (b *b64Bytes) UnmarshalText(t []byte) error {
	v, err := DecodeB64(string(t))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// MarshalJSON implements json.Marshaler.
func (p *PayloadData) MarshalJSON() ([]byte, error) {
	j := payloadDataJSON{
		Transactions: make([]b64Bytes, len(p.Transactions)), MinerData: p.MinerData,
		PayloadHash: p.PayloadHash, TransactionsHash: p.TransactionsHash, OutputsHash: p.OutputsHash,
	}
	for i, t := range p.Transactions {
		j.Transactions[i] = t
	}
	return json.Marshal(j)
}

// UnmarshalJSON implements json.Unmarshaler. Every field is required.
func (p *PayloadData) UnmarshalJSON(data []byte) error {
	if err := requireKeys(data, "transactions", "minerData", "payloadHash", "transactionsHash", "outputsHash"); err != nil {
		return fmt.Errorf("decode payload: %w", err)
	}
	var j payloadDataJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("decode payload: %w", err)
	}
	*p = PayloadData{MinerData: j.MinerData, PayloadHash: j.PayloadHash,
		TransactionsHash: j.TransactionsHash, OutputsHash: j.OutputsHash}
	p.Transactions = make([][]byte, len(j.Transactions))
	for i, t := range j.Transactions {
		p.Transactions[i] = t
	}
	return nil
}

// MarshalJSON implements json.Marshaler.
func (p *PayloadWithOutputs) MarshalJSON() ([]byte, error) {
	j := payloadWithOutputsJSON{
		Transactions: make([][2]b64Bytes, len(p.Transactions)), MinerData: p.MinerData, Coinbase: p.Coinbase,
		PayloadHash: p.PayloadHash, TransactionsHash: p.TransactionsHash, OutputsHash: p.OutputsHash,
	}
	for i, t := range p.Transactions {
		j.Transactions[i] = [2]b64Bytes{t.Tx, t.Output}
	}
	return json.Marshal(j)
}

// UnmarshalJSON implements json.Unmarshaler. Every field is required.
func (p *PayloadWithOutputs) UnmarshalJSON(data []byte) error {
	if err := requireKeys(data, "transactions", "minerData", "coinbase", "payloadHash", "transactionsHash", "outputsHash"); err != nil {
		return fmt.Errorf("decode payload with outputs: %w", err)
	}
	var j payloadWithOutputsJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("decode payload with outputs: %w", err)
	}
	*p = PayloadWithOutputs{MinerData: j.MinerData, Coinbase: j.Coinbase, PayloadHash: j.PayloadHash,
		TransactionsHash: j.TransactionsHash, OutputsHash: j.OutputsHash}
	p.Transactions = make([]TxWithOutput, len(j.Transactions))
	for i, t := range j.Transactions {
		p.Transactions[i] = TxWithOutput{Tx: t[0], Output: t[1]}
	}
	return nil
}

// requireKeys checks that data is a JSON object holding every key (with any value, null aside).
func requireKeys(data []byte, keys ...string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	for _, k := range keys {
		v, ok := m[k]
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return fmt.Errorf("key %q not found", k)
		}
	}
	return nil
}
